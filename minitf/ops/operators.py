"""Python operators on tensors (`+`, `@`, `[]`, `==`, ...), each wired to the op TensorFlow uses for it.

Tensor declares the operators (minitf/core/tensor_interface.py); this module provides what each computes, once,
when it is imported (core cannot import the ops: every op imports core)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from minitf.core import dtypes
from minitf.core.conversion import convert_to_tensor, operand
from minitf.core.op import bind
from minitf.core.tensor import Tensor
from minitf.core.tensor_interface import OPERATORS
from minitf.ops.array.slicing import getitem
from minitf.ops.linalg.linalg_ops import matmul
from minitf.ops.math import binary_math, unary_math
from minitf.ops.math.binary_math import Add, FloorDiv, FloorMod, Mul, Pow, Sub, multiply
from minitf.ops.math.bitwise_ops import BitwiseAnd, BitwiseOr, BitwiseXor, Invert
from minitf.ops.math.cast import cast
from minitf.ops.math.comparisons import (
    Equal,
    Greater,
    GreaterEqual,
    Less,
    LessEqual,
    LogicalAnd,
    LogicalOr,
    NotEqual,
    equal,
    logical_not,
    logical_xor,
)
from minitf.ops.math.elementwise import binary_call, reflected_call
from minitf.ops.math.unary_math import negative


def _binary(op: Any) -> tuple[Any, Any]:
    def forward(self: Tensor, other: Any) -> Any:
        return binary_call(op, self, other)

    def reflected(self: Tensor, other: Any) -> Any:
        return reflected_call(op, other, self)

    return forward, reflected


def _truediv(self: Tensor, other: Any) -> Tensor:
    return binary_math._truediv(self, operand(other, self.dtype))


def _rtruediv(self: Tensor, other: Any) -> Tensor:
    return binary_math._truediv(convert_to_tensor(other, dtype=self.dtype), self)


def _matmul(self: Tensor, other: Any) -> Tensor:
    return matmul(self, other)


def _rmatmul(self: Tensor, other: Any) -> Tensor:
    return matmul(convert_to_tensor(other, dtype=self.dtype), self)


def _logical_or_bitwise(logical: Any, bitwise: Any) -> tuple[Any, Any]:
    """`&`, `|`, `^`: logical on bool tensors, bitwise on everything else (which then must be an integer)."""

    def forward(self: Tensor, other: Any) -> Any:
        op = logical if self.dtype is dtypes.bool else bitwise
        return binary_call(op, self, other)

    def reflected(self: Tensor, other: Any) -> Any:
        op = logical if self.dtype is dtypes.bool else bitwise
        return reflected_call(op, other, self)

    return forward, reflected


def _xor(x: Tensor, y: Tensor) -> Tensor:
    if x.dtype is dtypes.bool:
        return logical_xor(x, y)
    return bind(BitwiseXor, x, y)


def _invert(self: Tensor) -> Tensor:
    if self.dtype is dtypes.bool:
        return logical_not(self)
    return bind(Invert, self)


def _mul(self: Tensor, other: Any) -> Tensor:
    """`*`; on bool tensors TensorFlow multiplies as int32 and casts back (so it acts as logical and)."""
    if self._dtype is dtypes.bool or (isinstance(other, Tensor) and other._dtype is dtypes.bool):
        return _bool_mul(self, other)
    return binary_call(Mul, self, other)


def _rmul(self: Tensor, other: Any) -> Tensor:
    if self.dtype is dtypes.bool:
        return _bool_mul(convert_to_tensor(other, dtype=self.dtype), self)
    return reflected_call(Mul, other, self)


def _bool_mul(x: Any, y: Any) -> Tensor:
    x = x if isinstance(x, Tensor) else convert_to_tensor(x)
    y = y if isinstance(y, Tensor) else convert_to_tensor(y)
    product = multiply(cast(x, dtypes.int32), cast(y, dtypes.int32))
    return cast(product, dtypes.bool)


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
    other_t = operand(other, self.dtype)
    if self.shape.rank is not None and other_t.shape.rank is not None and not _shapes_broadcast(self, other_t):
        return equal(False, True)  # a scalar False tensor, as TensorFlow's Equal(incompatible_shape_error=False)
    return binary_call(Equal, self, other_t)


def _ne(self: Tensor, other: Any) -> Any:
    if other is None:
        return True
    other_t = operand(other, self.dtype)
    if self.shape.rank is not None and other_t.shape.rank is not None and not _shapes_broadcast(self, other_t):
        return equal(True, True)
    return binary_call(NotEqual, self, other_t)


def _iter(self: Tensor) -> Any:
    shape = self.shape
    if shape.rank == 0:
        raise TypeError("Cannot iterate over a scalar tensor.")
    if shape.rank is None or shape[0] is None:
        raise TypeError("Cannot iterate over a tensor with unknown first dimension.")
    return (getitem(self, i) for i in range(shape[0]))


def _functions() -> dict[str, Callable[..., Any]]:
    """The function behind each of Tensor's operators (minitf/core/tensor_interface.py calls them)."""
    functions: dict[str, Callable[..., Any]] = {}
    for name, op in {"add": Add, "sub": Sub, "floordiv": FloorDiv, "mod": FloorMod, "pow": Pow}.items():
        functions[name], functions[f"r{name}"] = _binary(op)
    functions["and_"], functions["rand"] = _logical_or_bitwise(LogicalAnd, BitwiseAnd)
    functions["or_"], functions["ror"] = _logical_or_bitwise(LogicalOr, BitwiseOr)
    return {
        **functions,
        "xor": lambda self, other: _xor(self, operand(other, self.dtype)),
        "rxor": lambda self, other: _xor(convert_to_tensor(other, dtype=self.dtype), self),
        "mul": _mul,
        "rmul": _rmul,
        "truediv": _truediv,
        "rtruediv": _rtruediv,
        "matmul": _matmul,
        "rmatmul": _rmatmul,
        "neg": negative,
        "abs": unary_math.abs,
        "invert": _invert,
        "lt": lambda self, other: binary_call(Less, self, other),
        "le": lambda self, other: binary_call(LessEqual, self, other),
        "gt": lambda self, other: binary_call(Greater, self, other),
        "ge": lambda self, other: binary_call(GreaterEqual, self, other),
        "eq": _eq,
        "ne": _ne,
        "getitem": getitem,
        "iter": _iter,
    }


OPERATORS.provide(**_functions())
