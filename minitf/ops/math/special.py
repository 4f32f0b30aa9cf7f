"""`tf.math` functions a probability or loss formula needs: erf/erfc, lgamma/digamma, and the "safe" products
xlogy, xdivy, xlog1py, multiply_no_nan, reciprocal_no_nan (0 where the first factor is 0, even against an
infinity or a NaN in the other one), and rint.

Each is an op of its own with TensorFlow's gradient rule, because composing them from `where` would give NaN
gradients where TensorFlow gives 0 (the unselected branch of a `where` still gets 0 * inf). NumPy has no
erf, lgamma or digamma: erf and lgamma use the C library's (Python's `math`), digamma a recurrence and
asymptotic series, in double precision, rounded once to the tensor's dtype.

Inverse error functions and modified Bessel functions: tf.math.erfinv, erfcinv, ndtri (the standard normal
quantile), bessel_i0 / bessel_i0e / bessel_i1 / bessel_i1e (also in `tf.math.special`); lbeta, composed of lgamma.

NumPy has none of them (np.i0 only), so each is computed here in double precision and rounded once to the
tensor's dtype:

* the inverses solve erfc(x) = c by Newton's method on log(erfc), from the Abramowitz-Stegun 26.2.23 guess
  (error below 5e-4, so five quadratic steps reach double precision); erfinv near 0 solves erf(x) = y instead,
  so tiny arguments keep their digits. TensorFlow has no float16 CPU kernel for Erfinv and Ndtri, nor here.
* I0 and I1 sum their power series (all terms positive, so no cancellation) below |x| = 50, and Hankel's
  asymptotic expansion above; the exponentially scaled i0e / i1e multiply by exp(-|x|) inside the sum.

Gradients are TensorFlow's rules: d erfinv = sqrt(pi)/2 exp(erfinv^2), d ndtri = sqrt(2 pi) exp(ndtri^2 / 2),
d i0 = i1, d i0e = i1e - sign(x) i0e, d i1 = i0 - i1/x and d i1e = i0e - i1e (sign(x) + 1/x), which
TensorFlow sets to 1 and 1/2 at 0.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from minitf.core import dtypes
from minitf.core.conversion import convert_to_tensor
from minitf.core.errors import no_kernel
from minitf.core.op import GradContext, Op, bind
from minitf.core.tensor import Tensor
from minitf.ops.array.creation import ones_like, zeros_like
from minitf.ops.array.where import where
from minitf.ops.math.binary_math import divide_no_nan, subtract
from minitf.ops.math.cast import cast
from minitf.ops.math.comparisons import equal, not_equal
from minitf.ops.math.elementwise import binary_op, ones_like_, unary_function, unary_op, unbroadcast, zeros_like_
from minitf.ops.math.reductions import reduce_sum
from minitf.ops.math.unary_math import exp, negative, sign, square

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

Erf = unary_op("Erf", _via_double(math.erf), F, lambda c, g: [g * (_TWO_OVER_SQRT_PI * exp(negative(square(c.x))))])
Erfc = unary_op("Erfc", _via_double(math.erfc), F, lambda c, g: [g * (-_TWO_OVER_SQRT_PI * exp(negative(square(c.x))))])
Trigamma = unary_op("Trigamma", _via_double(_trigamma), F)
Digamma = unary_op("Digamma", _via_double(_digamma), F, lambda c, g: [g * bind(Trigamma, c.x)])
Lgamma = unary_op("Lgamma", _via_double(_lgamma), F, lambda c, g: [g * bind(Digamma, c.x)])
Rint = unary_op("Rint", np.rint, F, lambda c, g: [zeros_like_(c.x)])


def _unary_fn(op: Op, public: str, doc: str) -> Callable[..., Tensor]:
    return unary_function(op, doc, public)


erf = _unary_fn(Erf, "erf", "The error function, 2/sqrt(pi) times the integral of exp(-t^2) from 0 to x.")
erfc = _unary_fn(Erfc, "erfc", "1 - erf(x), accurate where erf(x) is close to 1.")
lgamma = _unary_fn(Lgamma, "lgamma", "log|Gamma(x)|; inf at 0, -1, -2, ...")
digamma = _unary_fn(Digamma, "digamma", "The derivative of lgamma.")
rint = _unary_fn(Rint, "rint", "The nearest integer, halves to even (rint(2.5) is 2.0).")


# ---------------------------------------------------------------------------------------------------
# Products that are 0 where the first factor is 0
# ---------------------------------------------------------------------------------------------------


def zero_where_x_is_zero(fn: Callable[[np.ndarray, np.ndarray], np.ndarray]) -> Callable[..., np.ndarray]:
    def kernel(x: np.ndarray, y: np.ndarray) -> np.ndarray:
        with np.errstate(all="ignore"):
            out = fn(x, y)
        return np.where(np.asarray(x) == 0, np.zeros((), out.dtype), out).astype(np.result_type(x, y))

    return kernel


def _xlogy_grad(c: GradContext, g: Tensor) -> list:
    x, y = c.x, c.y
    nonzero = cast(not_equal(x, zeros_like_(x)), x.dtype)
    return [unbroadcast(g * bind(Xlogy, nonzero, y), x), unbroadcast(g * bind(Xdivy, x, y), y)]


def _xdivy_grad(c: GradContext, g: Tensor) -> list:
    x, y = c.x, c.y
    nonzero = cast(not_equal(x, zeros_like_(x)), x.dtype)
    return [unbroadcast(g * bind(Xdivy, nonzero, y), x), unbroadcast(g * negative(bind(Xdivy, x, y * y)), y)]


def _xlog1py_grad(c: GradContext, g: Tensor) -> list:
    x, y = c.x, c.y
    nonzero = cast(not_equal(x, zeros_like_(x)), x.dtype)
    return [unbroadcast(g * bind(Xlog1py, nonzero, y), x), unbroadcast(g * bind(Xdivy, x, y + 1), y)]


def _mul_no_nan_grad(c: GradContext, g: Tensor) -> list:
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


F = dtypes.FLOATS
_SQRT2 = math.sqrt(2.0)
_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)


# ---------------------------------------------------------------------------------------------------
# Inverse error functions (scalar, double precision)
# ---------------------------------------------------------------------------------------------------


def _upper_normal_guess(p: float) -> float:
    """x with P(N(0,1) > x) close to p (0 < p <= 1/2), Abramowitz and Stegun 26.2.23."""
    t = math.sqrt(-2.0 * math.log(p))
    return t - (2.515517 + t * (0.802853 + t * 0.010328)) / (1.0 + t * (1.432788 + t * (0.189269 + t * 0.001308)))


def _erfcinv(c: float) -> float:
    """x with erfc(x) = c, for 0 <= c <= 2."""
    if math.isnan(c) or c < 0 or c > 2:
        return math.nan
    if c == 0:
        return math.inf
    if c == 2:
        return -math.inf
    if c > 1:
        return -_erfcinv(2.0 - c)
    if c == 1:
        return 0.0
    x = _upper_normal_guess(c / 2) / _SQRT2 if c < 1 else 0.0
    target = math.log(c)
    for _ in range(6):  # Newton on log(erfc(x)) = log(c): well scaled however small c is
        tail = math.erfc(x)
        if tail <= 0:
            break
        step = (math.log(tail) - target) / (-_TWO_OVER_SQRT_PI * math.exp(-x * x) / tail)
        x -= step
        if abs(step) <= 1e-17 * abs(x):
            break
    return x


def _erfinv(y: float) -> float:
    """x with erf(x) = y, for -1 <= y <= 1."""
    if math.isnan(y) or abs(y) > 1:
        return math.nan
    if abs(y) >= 0.5:
        return math.copysign(_erfcinv(1.0 - abs(y)), y)  # 1 - |y| is exact here
    if y == 0:
        return y
    x = _upper_normal_guess((1.0 - abs(y)) / 2) / _SQRT2 * (1 if y > 0 else -1)
    for _ in range(6):  # Newton on erf(x) = y: keeps the digits of a tiny y
        step = (math.erf(x) - y) / (_TWO_OVER_SQRT_PI * math.exp(-x * x))
        x -= step
        if abs(step) <= 1e-17 * abs(x):
            break
    return x


def _ndtri(p: float) -> float:
    """The standard normal quantile: x with P(N(0,1) <= x) = p."""
    if math.isnan(p) or p < 0 or p > 1:
        return math.nan
    if p == 0.5:
        return 0.0
    if p < 0.5:
        return -_SQRT2 * _erfcinv(2.0 * p)  # 2p is exact
    return _SQRT2 * _erfcinv(2.0 * (1.0 - p))  # so is 1 - p


def _double_kernel(fn: Callable[[float], float], name: str | None = None) -> Callable[[np.ndarray], np.ndarray]:
    """An elementwise kernel from a scalar double function; `name`: an op without a float16 CPU kernel."""
    vectorised = np.frompyfunc(fn, 1, 1)

    def kernel(x: np.ndarray) -> np.ndarray:
        x = np.asarray(x)
        if name is not None and x.dtype == np.float16:
            raise no_kernel(name, dtypes.float16)
        return np.asarray(vectorised(x.astype(np.float64)), dtype=np.float64).astype(x.dtype)

    return kernel


def _erfinv_grad(c: GradContext, g: Tensor) -> list:
    return [g * (math.sqrt(math.pi) / 2) * exp(square(c.out))]


def _ndtri_grad(c: GradContext, g: Tensor) -> list:
    return [g * math.sqrt(2 * math.pi) * exp(square(c.out) / 2)]


Erfinv = unary_op("Erfinv", _double_kernel(_erfinv, "Erfinv"), F, _erfinv_grad)
Ndtri = unary_op("Ndtri", _double_kernel(_ndtri, "Ndtri"), F, _ndtri_grad)


# ---------------------------------------------------------------------------------------------------
# Modified Bessel functions of the first kind, orders 0 and 1 (vectorised, double precision)
# ---------------------------------------------------------------------------------------------------

_ASYMPTOTIC_FROM = 50.0


def _series(x: np.ndarray, order: int, scale: np.ndarray) -> np.ndarray:
    """scale * I_order(x) by its power series sum (x/2)^(2k+order) / (k! (k+order)!)."""
    half = x / 2
    term = scale * (half if order else np.ones_like(x))
    total = term.copy()
    quarter = half * half
    for k in range(1, 200):
        term = term * quarter / (k * (k + order))
        total += term
        if not np.any(term > 1e-17 * total):
            break
    return total


def _hankel(x: np.ndarray, order: int) -> np.ndarray:
    """exp(-x) I_order(x) for large x: 1/sqrt(2 pi x) (1 - (mu-1)/(8x) + (mu-1)(mu-9)/(2! (8x)^2) - ...)."""
    mu = 4.0 * order * order
    term = np.ones_like(x)
    total = term.copy()
    for k in range(1, 40):
        term = -term * (mu - (2 * k - 1) ** 2) / (k * 8.0 * x)
        total += term
    return total / np.sqrt(2 * np.pi * x)


def _bessel(order: int, scaled: bool) -> Callable[[np.ndarray], np.ndarray]:
    def kernel(x: np.ndarray) -> np.ndarray:
        x = np.asarray(x)
        a = np.abs(x.astype(np.float64))
        out = np.empty_like(a)
        with np.errstate(over="ignore", invalid="ignore"):
            small = a < _ASYMPTOTIC_FROM
            out[small] = _series(a[small], order, np.exp(-a[small]) if scaled else np.ones_like(a[small]))
            large = ~small & ~np.isnan(a)
            scaled_large = np.where(
                np.isinf(a[large]), 0.0, _hankel(np.where(np.isinf(a[large]), 1.0, a[large]), order)
            )
            out[large] = scaled_large if scaled else scaled_large * np.exp(a[large])  # I(inf) is 0 * inf: nan
            out[np.isnan(a)] = np.nan
        if order == 1:
            out = np.where(x < 0, -out, out)
        return out.astype(x.dtype)

    return kernel


def _at_zero(c: GradContext, value: Tensor, there: float) -> Tensor:
    """`value`, and `there` at 0, where the general formula divides by 0."""
    x = c.x
    return where(equal(x, zeros_like(x)), there * ones_like(x), value)


def _i1_grad(c: GradContext, g: Tensor) -> list:
    """TensorFlow imputes 1 at 0 (the true derivative is 1/2; its I1e rule imputes 1/2)."""
    x = c.x
    safe = where(equal(x, zeros_like(x)), ones_like(x), x)
    return [g * _at_zero(c, bind(BesselI0, x) - c.out / safe, 1.0)]


def _i1e_grad(c: GradContext, g: Tensor) -> list:
    x = c.x
    safe = where(equal(x, zeros_like(x)), ones_like(x), x)
    return [g * _at_zero(c, bind(BesselI0e, x) - c.out * (sign(x) + 1 / safe), 0.5)]


BesselI1 = unary_op("BesselI1", _bessel(1, False), F, _i1_grad)
BesselI1e = unary_op("BesselI1e", _bessel(1, True), F, _i1e_grad)
BesselI0 = unary_op("BesselI0", _bessel(0, False), F, lambda c, g: [g * bind(BesselI1, c.x)])
BesselI0e = unary_op("BesselI0e", _bessel(0, True), F, lambda c, g: [g * (bind(BesselI1e, c.x) - sign(c.x) * c.out)])


# ---------------------------------------------------------------------------------------------------
# Public functions
# ---------------------------------------------------------------------------------------------------

erfinv = _unary_fn(Erfinv, "erfinv", "The inverse of erf on [-1, 1]: erfinv(erf(x)) = x; +-inf at +-1.")
ndtri = _unary_fn(Ndtri, "ndtri", "The standard normal quantile: x with P(N(0, 1) <= x) = p.")
bessel_i0 = _unary_fn(BesselI0, "bessel_i0", "The modified Bessel function of the first kind of order 0.")
bessel_i0e = _unary_fn(BesselI0e, "bessel_i0e", "exp(-|x|) * bessel_i0(x), finite where bessel_i0 overflows.")
bessel_i1 = _unary_fn(BesselI1, "bessel_i1", "The modified Bessel function of the first kind of order 1.")
bessel_i1e = _unary_fn(BesselI1e, "bessel_i1e", "exp(-|x|) * bessel_i1(x), finite where bessel_i1 overflows.")


def erfcinv(x: Any, name: str | None = None) -> Tensor:
    """The inverse of erfc on [0, 2]; composed from ndtri as TensorFlow composes it."""
    t = convert_to_tensor(x)
    return -ndtri(0.5 * t) * math.sqrt(0.5)


def lbeta(x: Any, name: str | None = None) -> Tensor:
    """log |Beta(x)| over the last axis: sum(lgamma(x)) - lgamma(sum(x))."""
    t = convert_to_tensor(x)
    return subtract(reduce_sum(lgamma(t), axis=[-1]), lgamma(reduce_sum(t, axis=[-1])))
