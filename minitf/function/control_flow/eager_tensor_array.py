"""`tf.TensorArray` outside a function: a Python list of tensors, changed in place, as TensorFlow's eager one.

Eagerly TensorFlow keeps a TensorArray as a list whose `write` changes the array itself (and returns it), whose
`read` clears the element it returns unless `clear_after_read=False` (reading it again is an error), and whose
unwritten elements read as zeros of the element shape. Inside a function the stacked form (tensor_array.py) is
used instead, because a graph loop must carry the array as a tensor.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from minitf.core import dtypes
from minitf.core.conversion import convert_to_tensor
from minitf.core.errors import InvalidArgumentError, OutOfRangeError
from minitf.core.tensor import Tensor
from minitf.core.tensor_shape import TensorShape
from minitf.ops.array.creation import constant, zeros
from minitf.ops.array.join_split import concat, split, stack, unstack


def _python_int(index: Any) -> int:
    return int(np.asarray(index))


def _positions(indices: Any) -> np.ndarray:
    return np.asarray(indices).reshape(-1)


class EagerRows:
    """The state of an eager TensorArray: its rows (None: unwritten or cleared) and which were read."""

    def __init__(
        self,
        dtype: dtypes.DType,
        size: Any,
        dynamic_size: Any,
        clear_after_read: Any,
        element_shape: Any,
        infer_shape: bool,
    ) -> None:
        if size is None:
            raise ValueError("Size must be declared for TensorArrays when eager execution is enabled.")
        self.dtype = dtype
        self.dynamic_size = bool(dynamic_size)
        self.clear_after_read = True if clear_after_read is None else bool(clear_after_read)
        self.infer_shape = infer_shape
        self.element_shape = TensorShape(element_shape)
        self.rows: list[Tensor | None] = [None] * _python_int(size)
        self.read_indices: set[int] = set()

    def zero_filled(self, index: int) -> Tensor:
        """Row `index`, an unwritten one becoming zeros of the element shape (as TensorFlow's `_maybe_zero`)."""
        row = self.rows[index]
        if row is None:
            if not self.element_shape.is_fully_defined():
                raise ValueError(f"Cannot convert a partially known TensorShape {self.element_shape} to a Tensor.")
            row = self.rows[index] = zeros(self.element_shape.as_list(), dtype=self.dtype)
        return row

    def read(self, index: Any) -> Tensor:
        i = _python_int(index)
        if i < 0:
            raise OutOfRangeError(None, None, f"Reading from negative indices (index {i}) is not allowed.")
        if i >= len(self.rows):
            raise OutOfRangeError(None, None, f"Tried to read from index {i} but array size is: {len(self.rows)} ")
        if self.rows[i] is None and i in self.read_indices:
            raise InvalidArgumentError(
                None,
                None,
                f"Could not read index {i} twice because it was cleared after a previous read (perhaps try setting "
                "clear_after_read = false?)",
            )
        row = self.zero_filled(i)
        if self.clear_after_read:
            self.rows[i] = None
            self.read_indices.add(i)
        return row

    def write(self, index: Any, value: Any) -> None:
        i = _python_int(index)
        if i < 0:
            raise OutOfRangeError(None, None, f"Writing to negative indices (index {i}) is not allowed.")
        if i >= len(self.rows):
            if not self.dynamic_size:
                raise OutOfRangeError(
                    None,
                    None,
                    f"Tried to write to index {i} but array is not resizeable and size is: {len(self.rows)} ",
                )
            self.rows.extend([None] * (i - len(self.rows) + 1))
        if not isinstance(value, Tensor):
            value = convert_to_tensor(value, dtype_hint=self.dtype)
        if value.dtype is not self.dtype:
            raise InvalidArgumentError(
                None,
                None,
                f"TensorArray dtype is {self.dtype.name} but Op is trying to write dtype {value.dtype.name} ",
            )
        if not self.element_shape.is_compatible_with(value.shape):
            raise ValueError(f"Incompatible shape for value ({value.shape}), expected ({self.element_shape})")
        if self.infer_shape:
            self.element_shape = self.element_shape.merge_with(value.shape)
        self.rows[i] = value

    def stack(self) -> Tensor:
        rows = [self.zero_filled(i) for i in range(len(self.rows))]
        if rows:
            return stack(rows)
        if self.element_shape.is_fully_defined():
            return constant(np.zeros([0, *self.element_shape.as_list()], dtype=self.dtype._np), dtype=self.dtype)
        return constant(np.zeros([0], dtype=self.dtype._np), dtype=self.dtype)

    def gather(self, indices: Any) -> Tensor:
        positions = _positions(indices)
        return stack([self.zero_filled(int(i)) for i in positions])

    def concat(self) -> Tensor:
        rows = [self.zero_filled(i) for i in range(len(self.rows))]
        scalar = [r.shape.rank for r in rows].index(0) if any(r.shape.rank == 0 for r in rows) else None
        if scalar is not None:
            raise InvalidArgumentError(
                None, None, f"Concat saw a scalar shape at index {scalar} but requires at least vectors."
            )
        return concat(rows, 0)

    def unstack(self, value: Any) -> None:
        rows = unstack(convert_to_tensor(value, dtype_hint=self.dtype))
        if len(rows) > len(self.rows) and not self.dynamic_size:
            raise ValueError(f"Cannot unstack {len(rows)} tensors into a TensorArray of static size {len(self.rows)} ")
        self.rows = list(rows)

    def scatter(self, indices: Any, value: Any) -> None:
        positions = _positions(indices)
        for i, row in zip(positions, unstack(convert_to_tensor(value, dtype_hint=self.dtype))):
            self.write(int(i), row)

    def split(self, value: Any, lengths: Any) -> None:
        value = convert_to_tensor(value, dtype_hint=self.dtype)
        if value.dtype is not self.dtype:
            raise InvalidArgumentError(
                None,
                None,
                f"TensorArray dtype is {self.dtype.name} but Op is trying to write dtype {value.dtype.name} ",
            )
        lengths = convert_to_tensor(lengths)
        total = int(np.sum(np.asarray(lengths)))
        if lengths.shape.rank != 1:
            raise InvalidArgumentError(
                None, None, f"Expected lengths to be a vector, received shape: {lengths.shape.as_list()} "
            )
        if value.shape.rank == 0:
            raise InvalidArgumentError(
                None, None, f"Expected value to be at least a vector, but received shape: {value.shape.as_list()} "
            )
        if total != value.shape.as_list()[0]:
            raise InvalidArgumentError(
                None,
                None,
                f"Expected sum of lengths to be equal to values.shape[0], but sum of lengths is {total} and value's "
                f"shape is: {value.shape.as_list()} ",
            )
        if not self.dynamic_size and lengths.shape[0] != len(self.rows):
            raise InvalidArgumentError(
                None,
                None,
                f"TensorArray's size is not equal to the size of lengths ({len(self.rows)} vs. {lengths.shape[0]}), "
                "and the TensorArray is not marked as dynamically resizeable.",
            )
        self.rows = list(split(value, lengths))
