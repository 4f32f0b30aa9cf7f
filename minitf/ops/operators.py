"""Python operators on tensors (`+`, `@`, `[]`, `==`, ...), each wired to the op TensorFlow uses for it."""

from __future__ import annotations

from typing import Any

import numpy as np

from minitf import dtypes
from minitf.core import convert_to_tensor, state
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


def _logical_or_bitwise(op: Any) -> tuple[Any, Any]:
    def forward(self: Tensor, other: Any) -> Any:
        if self.dtype is not dtypes.bool:  # type: ignore[attr-defined]
            return NotImplemented
        return m.binary_call(op, self, other)

    def reflected(self: Tensor, other: Any) -> Any:
        if self.dtype is not dtypes.bool:  # type: ignore[attr-defined]
            return NotImplemented
        return m.reflected_call(op, other, self)

    return forward, reflected


def _invert(self: Tensor) -> Tensor:
    if self.dtype is dtypes.bool:  # type: ignore[attr-defined]
        return m.logical_not(self)
    raise TypeError(f"~ is only defined for bool tensors here, got {self.dtype.name}.")  # type: ignore[attr-defined]


def _shapes_broadcast(a: Tensor, b: Tensor) -> bool:
    try:
        np.broadcast_shapes(tuple(d or 1 for d in a.shape), tuple(d or 1 for d in b.shape))
    except (ValueError, TypeError):
        return False
    return True


def _eq(self: Tensor, other: Any) -> Any:
    """Elementwise `==`; comparing with None, or with an incompatible shape, is plain False (as in TensorFlow)."""
    if other is None:
        return False
    other_t = m.operand(other, self.dtype)  # type: ignore[attr-defined]
    if self.shape.rank is not None and other_t.shape.rank is not None and not _shapes_broadcast(self, other_t):
        return False if state.graph is None else m.equal(False, True)
    return m.binary_call(m.Equal, self, other_t)


def _ne(self: Tensor, other: Any) -> Any:
    if other is None:
        return True
    other_t = m.operand(other, self.dtype)  # type: ignore[attr-defined]
    if self.shape.rank is not None and other_t.shape.rank is not None and not _shapes_broadcast(self, other_t):
        return True if state.graph is None else m.equal(True, True)
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
    for name, op in {"and": m.LogicalAnd, "or": m.LogicalOr}.items():
        forward, reflected = _logical_or_bitwise(op)
        setattr(Tensor, f"__{name}__", forward)
        setattr(Tensor, f"__r{name}__", reflected)
    Tensor.__xor__ = lambda self, other: m.logical_xor(self, other)  # type: ignore[attr-defined]
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
