"""`tf.math` functions a probability or loss formula needs: erf/erfc, lgamma/digamma, and the "safe" products
xlogy, xdivy, xlog1py, multiply_no_nan, reciprocal_no_nan (0 where the first factor is 0, even against an
infinity or a NaN in the other one), and rint.

Each is an op of its own with TensorFlow's gradient rule, because composing them from `where` would give NaN
gradients where TensorFlow gives 0 (the unselected branch of a `where` still gets 0 * inf). NumPy has no
erf, lgamma or digamma: erf and lgamma use the C library's (Python's `math`), digamma a recurrence and
asymptotic series, in double precision, rounded once to the tensor's dtype.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from minitf import dtypes
from minitf.conversion import convert_to_tensor
from minitf.core import bind
from minitf.ops.binary_math import divide_no_nan
from minitf.ops.broadcasting import binary_op, ones_like_, unary_op, unbroadcast, zeros_like_
from minitf.ops.cast_where import cast
from minitf.ops.comparisons import not_equal
from minitf.ops.unary_math import exp, negative, square
from minitf.tensor import Tensor

F = dtypes.FLOATS
FC = dtypes.FLOAT_OR_COMPLEX


def _via_double(fn: Callable[[float], float]) -> Callable[[np.ndarray], np.ndarray]:
    """An elementwise kernel from a scalar double-precision function."""
    vectorised = np.frompyfunc(fn, 1, 1)

    def kernel(x: np.ndarray) -> np.ndarray:
        x = np.asarray(x)
        return np.asarray(vectorised(x.astype(np.float64)), dtype=np.float64).astype(x.dtype)
    return kernel


def _lgamma(v: float) -> float:
    if math.isnan(v):
        return v
    if v <= 0 and v == math.floor(v):
        return math.inf  # the poles
    return math.lgamma(v) if math.isfinite(v) else math.inf


def _digamma(v: float) -> float:
    """psi(v): reflection below 1/2, recurrence up to 6, then the asymptotic series."""
    if math.isnan(v) or v == -math.inf:
        return math.nan
    if v == math.inf:
        return math.inf
    if v <= 0 and v == math.floor(v):
        return math.nan
    if v < 0.5:
        return _digamma(1 - v) - math.pi / math.tan(math.pi * v)
    result = 0.0
    while v < 6:
        result -= 1 / v
        v += 1
    inv2 = 1 / (v * v)
    series = inv2 * (1 / 12 - inv2 * (1 / 120 - inv2 * (1 / 252 - inv2 * (1 / 240 - inv2 * (1 / 132)))))
    return result + math.log(v) - 0.5 / v - series


def _trigamma(v: float) -> float:
    """psi'(v), the gradient of digamma: recurrence up to 6, then the asymptotic series."""
    if math.isnan(v) or v == -math.inf or (v <= 0 and v == math.floor(v)):
        return math.nan
    if v < 0.5:
        return -_trigamma(1 - v) + (math.pi / math.sin(math.pi * v)) ** 2
    result = 0.0
    while v < 6:
        result += 1 / (v * v)
        v += 1
    inv = 1 / v
    inv2 = inv * inv
    return result + inv + inv2 / 2 + inv * inv2 * (1 / 6 - inv2 * (1 / 30 - inv2 * (1 / 42 - inv2 / 30)))


_TWO_OVER_SQRT_PI = 2 / math.sqrt(math.pi)

Erf = unary_op("Erf", _via_double(math.erf), F,
               lambda c, g: [g * (_TWO_OVER_SQRT_PI * exp(negative(square(c.x))))])
Erfc = unary_op("Erfc", _via_double(math.erfc), F,
                lambda c, g: [g * (-_TWO_OVER_SQRT_PI * exp(negative(square(c.x))))])
Trigamma = unary_op("Trigamma", _via_double(_trigamma), F)
Digamma = unary_op("Digamma", _via_double(_digamma), F, lambda c, g: [g * bind(Trigamma, c.x)])
Lgamma = unary_op("Lgamma", _via_double(_lgamma), F, lambda c, g: [g * bind(Digamma, c.x)])
Rint = unary_op("Rint", np.rint, F, lambda c, g: [zeros_like_(c.x)])


def _unary_fn(op: Any, doc: str) -> Callable[..., Tensor]:
    def fn(x: Any, name: str | None = None) -> Tensor:
        return bind(op, convert_to_tensor(x))
    fn.__name__ = op.name.lower()
    fn.__doc__ = doc
    return fn


erf = _unary_fn(Erf, "The error function, 2/sqrt(pi) times the integral of exp(-t^2) from 0 to x.")
erfc = _unary_fn(Erfc, "1 - erf(x), accurate where erf(x) is close to 1.")
lgamma = _unary_fn(Lgamma, "log|Gamma(x)|; inf at 0, -1, -2, ...")
digamma = _unary_fn(Digamma, "The derivative of lgamma.")
rint = _unary_fn(Rint, "The nearest integer, halves to even (rint(2.5) is 2.0).")


# ---------------------------------------------------------------------------------------------------
# Products that are 0 where the first factor is 0
# ---------------------------------------------------------------------------------------------------

def zero_where_x_is_zero(fn: Callable[[np.ndarray, np.ndarray], np.ndarray]) -> Callable[..., np.ndarray]:
    def kernel(x: np.ndarray, y: np.ndarray) -> np.ndarray:
        with np.errstate(all="ignore"):
            out = fn(x, y)
        return np.where(np.asarray(x) == 0, np.zeros((), out.dtype), out).astype(np.result_type(x, y))
    return kernel


def _xlogy_grad(c: Any, g: Tensor) -> list:
    x, y = c.x, c.y
    nonzero = cast(not_equal(x, zeros_like_(x)), x.dtype)
    return [unbroadcast(g * bind(Xlogy, nonzero, y), x), unbroadcast(g * bind(Xdivy, x, y), y)]


def _xdivy_grad(c: Any, g: Tensor) -> list:
    x, y = c.x, c.y
    nonzero = cast(not_equal(x, zeros_like_(x)), x.dtype)
    return [unbroadcast(g * bind(Xdivy, nonzero, y), x),
            unbroadcast(g * negative(bind(Xdivy, x, y * y)), y)]


def _xlog1py_grad(c: Any, g: Tensor) -> list:
    x, y = c.x, c.y
    nonzero = cast(not_equal(x, zeros_like_(x)), x.dtype)
    return [unbroadcast(g * bind(Xlog1py, nonzero, y), x), unbroadcast(g * bind(Xdivy, x, y + 1), y)]


def _mul_no_nan_grad(c: Any, g: Tensor) -> list:
    x, y = c.x, c.y
    return [unbroadcast(bind(MulNoNan, g, y), x), unbroadcast(bind(MulNoNan, x, g), y)]


def xlogy_values(x: np.ndarray, y: np.ndarray, log: Callable[[np.ndarray], np.ndarray] = np.log) -> np.ndarray:
    x, y = np.broadcast_arrays(x, y)
    return x * log(np.asarray(y))


Xlogy = binary_op("Xlogy", zero_where_x_is_zero(xlogy_values), FC, _xlogy_grad)
Xdivy = binary_op("Xdivy", zero_where_x_is_zero(np.true_divide), FC, _xdivy_grad)
Xlog1py = binary_op("Xlog1py", zero_where_x_is_zero(lambda x, y: x * np.log1p(y)), FC, _xlog1py_grad)
# MulNoNan is 0 where its second argument is 0.
MulNoNan = binary_op("MulNoNan", lambda x, y: zero_where_x_is_zero(np.multiply)(y, x), FC, _mul_no_nan_grad)


def _pair(x: Any, y: Any) -> tuple[Tensor, Tensor]:
    a = convert_to_tensor(x)
    return a, convert_to_tensor(y, dtype=a.dtype)


def xlogy(x: Any, y: Any, name: str | None = None) -> Tensor:
    """x * log(y), and 0 where x is 0 (even if y is 0)."""
    return bind(Xlogy, *_pair(x, y))


def xdivy(x: Any, y: Any, name: str | None = None) -> Tensor:
    """x / y, and 0 where x is 0 (even if y is 0)."""
    return bind(Xdivy, *_pair(x, y))


def xlog1py(x: Any, y: Any, name: str | None = None) -> Tensor:
    """x * log1p(y), and 0 where x is 0."""
    return bind(Xlog1py, *_pair(x, y))


def multiply_no_nan(x: Any, y: Any, name: str | None = None) -> Tensor:
    """x * y, and 0 where y is 0 (even if x is inf or NaN)."""
    return bind(MulNoNan, *_pair(x, y))


def reciprocal_no_nan(x: Any, name: str | None = None) -> Tensor:
    """1 / x, and 0 where x is 0."""
    t = convert_to_tensor(x)
    return divide_no_nan(ones_like_(t), t)
