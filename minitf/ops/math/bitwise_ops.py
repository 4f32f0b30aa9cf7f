"""`tf.bitwise`: and, or, xor, invert and shifts of integer tensors, bit by bit.

TensorFlow's shift kernels clamp the shift count to [0, bits - 1] (a shift by 40 of an int32 shifts by 31),
shift left as unsigned numbers (no overflow error, the high bits fall off) and shift right arithmetically
for signed types (the sign bit is copied in).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from minitf.core import dtypes
from minitf.core.conversion import convert_to_tensor
from minitf.core.op import bind
from minitf.core.tensor import Tensor
from minitf.ops.math.elementwise import binary_call, binary_op, unary_op

INTS = dtypes.INTEGERS


def _clamped(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    bits = x.dtype.itemsize * 8
    return np.clip(y, 0, bits - 1).astype(x.dtype)


def _left_shift_kernel(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    unsigned = np.dtype(f"u{x.dtype.itemsize}")
    return np.asarray(np.left_shift(np.asarray(x).view(unsigned), _clamped(x, y).astype(unsigned))).view(x.dtype)


def _right_shift_kernel(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    return np.right_shift(x, _clamped(x, y))


# `&`, `|`, `^` and `~` on integer tensors are these ops, as in TensorFlow (on bools they are logical).
BitwiseAnd = binary_op("BitwiseAnd", np.bitwise_and, INTS)
BitwiseOr = binary_op("BitwiseOr", np.bitwise_or, INTS)
BitwiseXor = binary_op("BitwiseXor", np.bitwise_xor, INTS)
LeftShift = binary_op("LeftShift", _left_shift_kernel, INTS)
RightShift = binary_op("RightShift", _right_shift_kernel, INTS)
Invert = unary_op("Invert", np.invert, INTS)


def bitwise_and(x: Any, y: Any, name: str | None = None) -> Tensor:
    """x & y, elementwise, with broadcasting."""
    return binary_call(BitwiseAnd, x, y)


def bitwise_or(x: Any, y: Any, name: str | None = None) -> Tensor:
    """x | y, elementwise, with broadcasting."""
    return binary_call(BitwiseOr, x, y)


def bitwise_xor(x: Any, y: Any, name: str | None = None) -> Tensor:
    """x ^ y, elementwise, with broadcasting."""
    return binary_call(BitwiseXor, x, y)


def left_shift(x: Any, y: Any, name: str | None = None) -> Tensor:
    """x << y; bits shifted past the top are lost."""
    return binary_call(LeftShift, x, y)


def right_shift(x: Any, y: Any, name: str | None = None) -> Tensor:
    """x >> y; signed types keep their sign."""
    return binary_call(RightShift, x, y)


def invert(x: Any, name: str | None = None) -> Tensor:
    """~x: every bit flipped (for signed types -x - 1)."""
    return bind(Invert, convert_to_tensor(x))
