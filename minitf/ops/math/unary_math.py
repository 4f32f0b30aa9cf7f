"""Elementwise functions of one tensor: negative, abs, sqrt, exp, log, tanh, sigmoid, rounding, complex
parts, nan/inf tests.

Where TensorFlow has a fused gradient op (`TanhGrad`, `SigmoidGrad`, `SqrtGrad`, `ReluGrad`, ...) it is
defined here next to the op it differentiates.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from minitf.core import dtypes, shape_rules
from minitf.core.conversion import convert_to_tensor
from minitf.core.dispatch import elementwise_handler
from minitf.core.errors import no_kernel
from minitf.core.op import Op, bind
from minitf.core.tensor import Tensor
from minitf.ops.math.cast import cast
from minitf.ops.math.elementwise import FC, NUM, REAL, SIGNED, SIGNED_REAL, F, unary_function, unary_op, zeros_like_


def _conj_if_complex(x: Tensor) -> Tensor:
    return conj(x) if x._dtype.kind == "c" else x


def _sigmoid_kernel(x: np.ndarray) -> np.ndarray:
    """1 / (1 + exp(-x)) without overflow: exp(-|x|) is at most 1, so for x < 0 use exp(x) / (1 + exp(x)).

    Far below zero the result is tiny but positive, as in TensorFlow, which flushes only float32 and float64
    results below the smallest normal number to 0 (float16 keeps its subnormals).
    """
    if np.asarray(x).dtype.kind == "c":
        return np.asarray(0.5 * (np.tanh(0.5 * x) + 1), dtype=x.dtype)[()]
    if np.asarray(x).dtype == np.float32:
        # 4 / (4 + 4 exp(-x)) is 1 / (1 + exp(-x)) rounded the same way (powers of 2 scale exactly), except that
        # 4 exp(-x) overflows to inf, and the result to 0, just where it would be below the smallest normal.
        four = np.float32(4)
        return np.asarray(four / (four + np.exp(-x) * four))[()]
    wide = np.asarray(x, dtype=np.float64)
    e = np.exp(-np.abs(wide))
    out = np.where(wide >= 0, 1 / (1 + e), e / (1 + e)).astype(x.dtype)
    if out.dtype != np.float16:
        out[np.abs(out) < np.finfo(out.dtype).tiny] = 0
    return out[()]


# Gradient kernels TensorFlow also has as ops of their own (TanhGrad, ...): one NumPy call instead of
# three, and their own rules for second derivatives. Inputs are (y, dy): the forward output and its gradient.
TanhGrad: Op = Op(
    "TanhGrad",
    lambda y, dy: dy * (1 - y * y),
    shape=shape_rules.same_as_first,
    elementwise=True,
    grad=lambda c, g: [g * c.y * -2 * c.x, bind(TanhGrad, c.x, g)],
)
SigmoidGrad: Op = Op(
    "SigmoidGrad",
    lambda y, dy: dy * (y * (1 - y)),
    shape=shape_rules.same_as_first,
    elementwise=True,
    grad=lambda c, g: [g * c.y * (1 - 2 * c.x), bind(SigmoidGrad, c.x, g)],
)
SqrtGrad: Op = Op(
    "SqrtGrad",
    lambda y, dy: np.where(dy == 0, np.zeros((), y.dtype), dy * (0.5 / y)).astype(y.dtype),
    shape=shape_rules.same_as_first,
    elementwise=True,
    grad=lambda c, g: [negative(g) * c.out / c.x, bind(SqrtGrad, c.x, g)],
)
ReciprocalGrad: Op = Op(
    "ReciprocalGrad",
    lambda y, dy: -dy * y * y,
    shape=shape_rules.same_as_first,
    elementwise=True,
    grad=lambda c, g: [g * -2 * c.y * c.x, bind(ReciprocalGrad, c.x, g)],
)
RsqrtGrad: Op = Op(
    "RsqrtGrad",
    lambda y, dy: dy * (-0.5 * y * y * y),
    shape=shape_rules.same_as_first,
    elementwise=True,
    grad=lambda c, g: [g * -1.5 * c.y * c.x * c.x, bind(RsqrtGrad, c.x, g)],
)
ReluGrad: Op = Op(
    "ReluGrad",
    lambda dy, y: np.where(y > 0, dy, np.zeros((), dy.dtype)),
    shape=shape_rules.same_as_first,
    elementwise=True,
    grad=lambda c, g: [bind(ReluGrad, g, c.y), zeros_like_(c.y)],
)


def _reciprocal_kernel(x: np.ndarray) -> np.ndarray:
    if x.dtype.kind in "iu":
        raise no_kernel("Reciprocal", dtypes.from_numpy(x.dtype))
    return np.reciprocal(x)


def _round_kernel(x: np.ndarray) -> np.ndarray:
    if x.dtype.kind == "c":
        raise no_kernel("Round", dtypes.from_numpy(x.dtype))
    return np.round(x) if x.dtype.kind == "f" else x


def _fused_grad(op: Op, y: Tensor, g: Tensor) -> Tensor:
    if y._dtype.kind == "c":
        y = conj(y)
    return bind(op, y, g)


Neg = unary_op(
    "Neg", np.negative, NUM - {dtypes.uint8, dtypes.uint16, dtypes.uint32, dtypes.uint64}, lambda c, g: [negative(g)]
)
Abs = unary_op("Abs", np.abs, SIGNED_REAL, lambda c, g: [g * sign(c.x)])
ComplexAbs = unary_op(
    "ComplexAbs",
    np.abs,
    frozenset({dtypes.complex64, dtypes.complex128}),
    lambda c, g: [cast(g, c.x.dtype) * c.x / cast(c.out, c.x.dtype)],
    shape_rules.real_part_rule,
)
Sign = unary_op("Sign", np.sign, SIGNED, lambda c, g: [zeros_like_(c.x)])
Square = unary_op("Square", np.square, NUM, lambda c, g: [g * 2 * _conj_if_complex(c.x)])
# SqrtGrad is g * 0.5 / y, except that a zero upstream gradient gives 0 (not nan), as in TensorFlow.
Sqrt = unary_op("Sqrt", np.sqrt, FC, lambda c, g: [_fused_grad(SqrtGrad, c.out, g)])
Rsqrt = unary_op("Rsqrt", lambda x: 1 / np.sqrt(x), FC, lambda c, g: [_fused_grad(RsqrtGrad, c.out, g)])
Exp = unary_op("Exp", np.exp, FC, lambda c, g: [g * _conj_if_complex(c.out)])
Log = unary_op("Log", np.log, FC, lambda c, g: [g / _conj_if_complex(c.x)])
Tanh = unary_op("Tanh", np.tanh, FC, lambda c, g: [_fused_grad(TanhGrad, c.out, g)])
Sigmoid = unary_op("Sigmoid", _sigmoid_kernel, FC, lambda c, g: [_fused_grad(SigmoidGrad, c.out, g)])
Reciprocal = unary_op("Reciprocal", _reciprocal_kernel, SIGNED, lambda c, g: [_fused_grad(ReciprocalGrad, c.out, g)])
Round = unary_op("Round", _round_kernel, NUM)
Floor = unary_op("Floor", np.floor, F)
Ceil = unary_op("Ceil", np.ceil, F)
Relu = unary_op("Relu", lambda x: np.maximum(x, np.zeros((), x.dtype)), REAL, lambda c, g: [bind(ReluGrad, g, c.out)])
Conj = unary_op("Conj", np.conj, FC - F, lambda c, g: [conj(g)])
Real = unary_op("Real", np.real, FC - F, shape=shape_rules.real_part_rule)
Imag = unary_op("Imag", np.imag, FC - F, shape=shape_rules.real_part_rule)
IsNan = unary_op("IsNan", np.isnan, F, shape=shape_rules.bool_rule)
IsInf = unary_op("IsInf", np.isinf, F, shape=shape_rules.bool_rule)
IsFinite = unary_op("IsFinite", np.isfinite, F, shape=shape_rules.bool_rule)


negative: Callable[..., Tensor] = unary_function(Neg, "-x elementwise.")
sign: Callable[..., Tensor] = unary_function(Sign, "-1, 0 or 1 elementwise.")
square = unary_function(Square, "x * x elementwise.")
sqrt = unary_function(Sqrt, "Square root (floats only; sqrt(-1) is nan).")
rsqrt = unary_function(Rsqrt, "1 / sqrt(x).")
exp = unary_function(Exp, "e ** x (floats only).")


log = unary_function(Log, "Natural logarithm (floats only; log(0) is -inf).")


tanh = unary_function(Tanh, "Hyperbolic tangent.")
sigmoid = unary_function(Sigmoid, "1 / (1 + exp(-x)), computed stably.")
reciprocal = unary_function(Reciprocal, "1 / x.")
round = unary_function(Round, "Rounds half to even: [0.5, 1.5, 2.5] -> [0, 2, 2].")
floor = unary_function(Floor, "Largest integer not greater than x (floats only).")
ceil = unary_function(Ceil, "Smallest integer not less than x (floats only).")


def conj(x: Any, name: str | None = None) -> Tensor:
    """Complex conjugate; real numbers are returned unchanged."""
    x = convert_to_tensor(x)
    if x.dtype.is_complex:
        return bind(Conj, x)
    if x.dtype.is_numeric:
        return x
    raise TypeError(f"Expected numeric or variant tensor, got dtype {x.dtype!r}.")


def real(input: Any, name: str | None = None) -> Tensor:
    """Real part; real numbers are returned unchanged."""
    x = convert_to_tensor(input)
    if x.dtype.is_complex:
        return bind(Real, x)
    if x.dtype.is_numeric:
        return x
    raise TypeError(f"input must be a numeric tensor, but got tensor with dtype {x.dtype}")


def imag(input: Any, name: str | None = None) -> Tensor:
    """Imaginary part; for real (or any non-complex) input a tensor of zeros."""
    x = convert_to_tensor(input)
    return bind(Imag, x) if x.dtype.is_complex else zeros_like_(x)


is_nan = unary_function(IsNan, "True where x is nan.")
is_inf = unary_function(IsInf, "True where x is +-inf.")
is_finite = unary_function(IsFinite, "True where x is neither nan nor inf.")
relu = unary_function(Relu, "max(x, 0) elementwise.")


def abs(x: Any, name: str | None = None) -> Tensor:
    """|x|; for complex input the magnitude, as a real tensor."""
    if not isinstance(x, Tensor) and (handler := elementwise_handler(x, api=abs)) is not None:
        return handler(abs, x)
    x = convert_to_tensor(x)
    return bind(ComplexAbs if x.dtype.is_complex else Abs, x)


Expm1 = unary_op("Expm1", np.expm1, FC, lambda c, g: [g * exp(c.x)])
Log1p = unary_op("Log1p", np.log1p, FC, lambda c, g: [g / (1 + c.x)])


expm1 = unary_function(Expm1, "exp(x) - 1, accurate near 0.")
log1p = unary_function(Log1p, "log(1 + x), accurate near 0.")
