"""Python operators on tensors (`+`, `@`, `[]`, `==`, ...), each wired to the op TensorFlow uses for it."""

from __future__ import annotations

from typing import Any

import numpy as np

from minitf import dtypes
from minitf.core import bind, convert_to_tensor
from minitf.ops import array_ops, linalg_ops
from minitf.ops import math_ops as m
from minitf.tensor import Tensor


def _binary(op: Any) -> tuple[Any, Any]:
    def forward(self: Tensor, other: Any) -> Any:
        return m.binary_call(op, self, other)

    def reflected(self: Tensor, other: Any) -> Any:
        return m.reflected_call(op, other, self)

    return forward, reflected


def _truediv(self: Tensor, other: Any) -> Tensor:
    return m._truediv(self, m.operand(other, self.dtype))  # type: ignore[attr-defined]


def _rtruediv(self: Tensor, other: Any) -> Tensor:
    return m._truediv(convert_to_tensor(other, dtype=self.dtype), self)  # type: ignore[attr-defined]


def _matmul(self: Tensor, other: Any) -> Tensor:
    return linalg_ops.matmul(self, other)


def _rmatmul(self: Tensor, other: Any) -> Tensor:
    return linalg_ops.matmul(convert_to_tensor(other, dtype=self.dtype), self)  # type: ignore[attr-defined]


def _logical_or_bitwise(logical: Any, bitwise: Any) -> tuple[Any, Any]:
    """`&`, `|`, `^`: logical on bool tensors, bitwise on everything else (which then must be an integer)."""
    def forward(self: Tensor, other: Any) -> Any:
        op = logical if self.dtype is dtypes.bool else bitwise  # type: ignore[attr-defined]
        return m.binary_call(op, self, other)

    def reflected(self: Tensor, other: Any) -> Any:
        op = logical if self.dtype is dtypes.bool else bitwise  # type: ignore[attr-defined]
        return m.reflected_call(op, other, self)

    return forward, reflected


def _xor(x: Tensor, y: Tensor) -> Tensor:
    if x.dtype is dtypes.bool:  # type: ignore[attr-defined]
        return m.logical_xor(x, y)
    return bind(m.BitwiseXor, x, y)


def _invert(self: Tensor) -> Tensor:
    if self.dtype is dtypes.bool:  # type: ignore[attr-defined]
        return m.logical_not(self)
    return bind(m.Invert, self)


def _mul(self: Tensor, other: Any) -> Tensor:
    """`*`; on bool tensors TensorFlow multiplies as int32 and casts back (so it acts as logical and)."""
    if self.dtype is dtypes.bool or (isinstance(other, Tensor) and other.dtype is dtypes.bool):  # type: ignore
        return _bool_mul(self, other)
    return m.binary_call(m.Mul, self, other)


def _rmul(self: Tensor, other: Any) -> Tensor:
    if self.dtype is dtypes.bool:  # type: ignore[attr-defined]
        return _bool_mul(convert_to_tensor(other, dtype=self.dtype), self)  # type: ignore[attr-defined]
    return m.reflected_call(m.Mul, other, self)


def _bool_mul(x: Any, y: Any) -> Tensor:
    x = x if isinstance(x, Tensor) else convert_to_tensor(x)
    y = y if isinstance(y, Tensor) else convert_to_tensor(y)
    product = m.multiply(m.cast(x, dtypes.int32), m.cast(y, dtypes.int32))
    return m.cast(product, dtypes.bool)


def _shapes_broadcast(a: Tensor, b: Tensor) -> bool:
    try:
        np.broadcast_shapes(*(tuple(1 if d is None else d for d in t.shape) for t in (a, b)))
    except (ValueError, TypeError):
        return False
    return True


def _eq(self: Tensor, other: Any) -> Any:
    """Elementwise `==`; comparing with None, or with an incompatible shape, is plain False (as in TensorFlow)."""
    if other is None:
        return False
    other_t = m.operand(other, self.dtype)  # type: ignore[attr-defined]
    if self.shape.rank is not None and other_t.shape.rank is not None and not _shapes_broadcast(self, other_t):
        return m.equal(False, True)  # a scalar False tensor, as TensorFlow's Equal(incompatible_shape_error=False)
    return m.binary_call(m.Equal, self, other_t)


def _ne(self: Tensor, other: Any) -> Any:
    if other is None:
        return True
    other_t = m.operand(other, self.dtype)  # type: ignore[attr-defined]
    if self.shape.rank is not None and other_t.shape.rank is not None and not _shapes_broadcast(self, other_t):
        return m.equal(True, True)
    return m.binary_call(m.NotEqual, self, other_t)


def _iter(self: Tensor) -> Any:
    shape = self.shape
    if shape.rank == 0:
        raise TypeError("Cannot iterate over a scalar tensor.")
    if shape.rank is None or shape[0] is None:
        raise TypeError("Cannot iterate over a tensor with unknown first dimension.")
    return (array_ops.getitem(self, i) for i in range(shape[0]))


def install() -> None:
    """Attach the operators to `Tensor` (called once, when minitf is imported)."""
    table = {
        "add": m.Add, "sub": m.Sub, "mul": m.Mul, "floordiv": m.FloorDiv, "mod": m.FloorMod, "pow": m.Pow,
    }
    for name, op in table.items():
        forward, reflected = _binary(op)
        setattr(Tensor, f"__{name}__", forward)
        setattr(Tensor, f"__r{name}__", reflected)
    for name, (logical, bitwise) in {"and": (m.LogicalAnd, m.BitwiseAnd), "or": (m.LogicalOr, m.BitwiseOr)}.items():
        forward, reflected = _logical_or_bitwise(logical, bitwise)
        setattr(Tensor, f"__{name}__", forward)
        setattr(Tensor, f"__r{name}__", reflected)
    Tensor.__xor__ = lambda self, other: _xor(self, m.operand(other, self.dtype))  # type: ignore[attr-defined]
    Tensor.__rxor__ = lambda self, other: _xor(convert_to_tensor(other, dtype=self.dtype), self)  # type: ignore
    Tensor.__mul__ = _mul  # type: ignore[attr-defined]
    Tensor.__rmul__ = _rmul  # type: ignore[attr-defined]
    Tensor.__truediv__ = _truediv  # type: ignore[attr-defined]
    Tensor.__rtruediv__ = _rtruediv  # type: ignore[attr-defined]
    Tensor.__matmul__ = _matmul  # type: ignore[attr-defined]
    Tensor.__rmatmul__ = _rmatmul  # type: ignore[attr-defined]
    Tensor.__neg__ = lambda self: m.negative(self)  # type: ignore[attr-defined]
    Tensor.__abs__ = lambda self: m.abs(self)  # type: ignore[attr-defined]
    Tensor.__invert__ = _invert  # type: ignore[attr-defined]
    Tensor.__lt__ = lambda self, other: m.binary_call(m.Less, self, other)  # type: ignore[attr-defined]
    Tensor.__le__ = lambda self, other: m.binary_call(m.LessEqual, self, other)  # type: ignore[attr-defined]
    Tensor.__gt__ = lambda self, other: m.binary_call(m.Greater, self, other)  # type: ignore[attr-defined]
    Tensor.__ge__ = lambda self, other: m.binary_call(m.GreaterEqual, self, other)  # type: ignore[attr-defined]
    Tensor.__eq__ = _eq  # type: ignore[method-assign,assignment]
    Tensor.__ne__ = _ne  # type: ignore[method-assign,assignment]
    Tensor.__getitem__ = array_ops.getitem  # type: ignore[attr-defined]
    Tensor.__iter__ = _iter  # type: ignore[attr-defined]
