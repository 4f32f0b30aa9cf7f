"""What `fit`, `evaluate` and `predict` accept as data, turned into batches of tensors.

NumPy arrays are cut into `batch_size` slices (in a new random order each epoch with `shuffle=True`); a
`tf.data.Dataset` is used as it is, its elements being batches already. Float arrays become float32, as Keras
feeds them.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any

import numpy as np

from minitf.core.conversion import convert_to_tensor
from minitf.core.nest import map_structure
from minitf.keras.layers.keras_tensor import KerasTensor


def is_dataset(data: Any) -> bool:
    return hasattr(data, "element_spec") and hasattr(data, "batch")


def as_array(value: Any) -> Any:
    if value is None:
        return None
    array = np.asarray(value)
    return array.astype("float32") if array.dtype.kind == "f" and array.dtype != np.float32 else array


def unpack(element: Any) -> tuple[Any, Any]:
    """(x, y) from a dataset element: a pair, or x alone (for predict)."""
    if isinstance(element, tuple | list):
        return element[0], (element[1] if len(element) > 1 else None)
    return element, None


class Batches:
    """One epoch's batches, as many times as asked for."""

    def __init__(self, x: Any, y: Any = None, batch_size: int | None = None, shuffle: bool = False) -> None:
        self.dataset = x if is_dataset(x) else None
        self.shuffle = shuffle
        self._fixed: list[tuple[Any, Any]] | None = None
        if self.dataset is None:
            self.x, self.y = as_array(x), as_array(y)
            self.batch_size = batch_size or 32
            if self.y is not None and len(self.x) != len(self.y):
                raise ValueError(
                    f"Data cardinality is ambiguous. Make sure all arrays contain the same number of "
                    f"samples.'x' sizes: {len(self.x)}\n'y' sizes: {len(self.y)}\n"
                )

    @property
    def steps(self) -> int | None:
        if self.dataset is not None:
            count = int(self.dataset.cardinality())
            return count if count >= 0 else None
        return math.ceil(len(self.x) / self.batch_size)

    def symbolic_inputs(self) -> Any:
        """KerasTensors of the inputs' batch shapes: the batch size when all batches have it, else None."""
        if self.dataset is not None:
            x_spec, _ = unpack(self.dataset.element_spec)
            return map_structure(lambda spec: KerasTensor(spec.shape.as_list(), spec.dtype), x_spec)
        size = self.batch_size if len(self.x) % self.batch_size == 0 else None
        return KerasTensor((size, *self.x.shape[1:]), self.x.dtype)

    def __iter__(self) -> Iterator[tuple[Any, Any]]:
        if self.dataset is not None:
            for element in self.dataset:
                yield unpack(element)
            return
        if not self.shuffle and self._fixed is not None:
            yield from self._fixed
            return
        order = np.random.permutation(len(self.x)) if self.shuffle else None
        batches = []
        for start in range(0, len(self.x), self.batch_size):
            rows = slice(start, start + self.batch_size) if order is None else order[start : start + self.batch_size]
            x = convert_to_tensor(self.x[rows])
            batches.append((x, None if self.y is None else convert_to_tensor(self.y[rows])))
            yield batches[-1]
        if not self.shuffle:
            self._fixed = batches  # the same batches every epoch: made once


def split_validation(x: Any, y: Any, validation_split: float) -> tuple[tuple[Any, Any], tuple[Any, Any]]:
    """The last `validation_split` of the samples are held out (before any shuffling), as in Keras."""
    if is_dataset(x):
        raise ValueError(
            "`validation_split` is only supported for Tensors or NumPy arrays, found following "
            f"types in the input: {[type(x)]}"
        )
    x, y = as_array(x), as_array(y)
    split_at = int(math.floor(len(x) * (1.0 - validation_split)))
    return (x[:split_at], None if y is None else y[:split_at]), (x[split_at:], None if y is None else y[split_at:])
