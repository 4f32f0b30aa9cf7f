"""`tf.experimental.DynamicRaggedShape`: the shape of a RaggedTensor, as `tf.shape(rt)` returns it.

A dense shape is a list of sizes; a ragged one lists, for each ragged dimension, the length of every row
(`[4, (2, 1, 0, 3), 5]`: 4 rows of 2, 1, 0 and 3 items of 5 numbers each). It prints as TensorFlow prints it,
answers `rank`, `num_row_partitions`, `static_lengths()` and the size of a uniform dimension (`shape[0]`),
and `tf.zeros` / `tf.ones` of it are RaggedTensors of that shape. minitf keeps the lengths as Python values,
so it is read off eager tensors.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from minitf.composite.ragged.tensor import RaggedTensor
from minitf.core import dtypes
from minitf.core.conversion import convert_to_tensor, static_value
from minitf.core.tensor import EagerTensor
from minitf.ops.array.creation import fill


class DynamicRaggedShape:
    """The shape of a (possibly ragged) tensor: sizes, and for ragged dimensions each row's length."""

    def __init__(self, lengths: list[Any], num_row_partitions: int) -> None:
        self._lengths = lengths
        self._num_row_partitions = num_row_partitions

    @classmethod
    def from_lengths(
        cls, lengths: Any, num_row_partitions: int | None = None, dtype: Any = dtypes.int64
    ) -> DynamicRaggedShape:
        """From sizes and tuples of row lengths, outermost first: [4, (2, 1, 0, 3), 5]."""
        lengths = [tuple(int(n) for n in d) if isinstance(d, list | tuple) else int(d) for d in lengths]
        rows = 1
        for i, d in enumerate(lengths):
            if isinstance(d, tuple) and (i == 0 or len(d) != rows):
                raise ValueError(
                    f"Shape not consistent: dimension {i} lists {len(d)} row lengths for {rows} "
                    f"rows.\nHint: a tuple gives the length of each row of the dimension before it."
                )
            rows = sum(d) if isinstance(d, tuple) else rows * d
        ragged = [i for i, d in enumerate(lengths) if isinstance(d, tuple)]
        partitions = ragged[-1] if ragged else 0
        return cls(lengths, partitions if num_row_partitions is None else num_row_partitions)

    @classmethod
    def from_tensor(cls, t: Any) -> DynamicRaggedShape:
        """The shape of an eager RaggedTensor (or tensor)."""
        if not isinstance(t, RaggedTensor):
            return cls([int(n) for n in np.shape(t._value)], 0)
        if not isinstance(t.flat_values, EagerTensor):
            raise ValueError(
                "minitf's tf.shape of a RaggedTensor reads its row lengths, so it works eagerly.\nHint: "
                "use rt.row_lengths() or rt.bounding_shape() inside a tf.function."
            )
        lengths: list[Any] = [int(t.nrows())]  # type: ignore[call-overload]
        level: Any = t
        while isinstance(level, RaggedTensor):
            lengths.append(tuple(int(n) for n in np.diff(np.asarray(static_value(level.row_splits)))))
            level = level.values
        lengths += [int(n) for n in level.shape[1:]]
        return cls(lengths, t.ragged_rank)

    @property
    def rank(self) -> int:
        return len(self._lengths)

    @property
    def num_row_partitions(self) -> int:
        return self._num_row_partitions

    def static_lengths(self) -> list[Any]:
        return list(self._lengths)

    def __getitem__(self, index: int) -> Any:
        size = self._lengths[index]
        if isinstance(size, tuple):
            raise ValueError(f"Index {index} is not uniform")
        return convert_to_tensor(size, dtype=dtypes.int32)

    def __repr__(self) -> str:
        shown = ", ".join(
            f"({', '.join(map(str, d))}{',' if len(d) == 1 else ''})" if isinstance(d, tuple) else str(d)
            for d in self._lengths
        )
        return f"<DynamicRaggedShape lengths=[{shown}] num_row_partitions={self._num_row_partitions}>"

    __str__ = __repr__

    def filled(self, value: Any, dtype: Any) -> Any:
        """A tensor of this shape holding `value` everywhere: a RaggedTensor when some dimension is ragged."""
        ragged = [i for i, d in enumerate(self._lengths) if isinstance(d, tuple)]
        if not ragged:
            return fill(self._lengths, convert_to_tensor(value, dtype=dtype))
        last = ragged[-1]
        count = sum(self._lengths[last])
        result: Any = fill([count] + self._lengths[last + 1 :], convert_to_tensor(value, dtype=dtype))
        for i in range(last, 0, -1):
            d = self._lengths[i]
            lengths = d if isinstance(d, tuple) else (d,) * _rows_before(self._lengths, i)
            result = RaggedTensor.from_row_lengths(result, np.array(lengths, dtype=np.int64))
        return result


def _rows_before(lengths: list[Any], index: int) -> int:
    rows = 1
    for d in lengths[:index]:
        rows = sum(d) if isinstance(d, tuple) else rows * d
    return rows
