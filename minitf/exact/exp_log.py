"""float32 exp, log and the logistic function as TensorFlow's CPU kernels compute them, bit for bit.

TensorFlow's elementwise kernels are Eigen expressions, built for AVX without FMA. Eigen evaluates a float32
tensor 8 values at a time (one AVX packet) with its own vectorised approximations (a range reduction and a
short polynomial, each multiply and add rounded to float32 on its own), and the values left over after the last
whole packet one by one with the C library's `expf`/`logf`, which are correctly rounded. The two paths differ in
the last bit for about one value in seven, so which path a value takes depends on where it sits:

* an elementwise op (`tf.exp`, `tf.math.log`, `tf.nn.sigmoid`) on a tensor of n values takes the packet path
  for the first n // 8 * 8 values in memory order, the scalar path for the rest (`elementwise`);
* inside a reduction along the last axis (the exp in `log_softmax`), each row of length k takes the packet
  path for its first k // 8 * 8 values (`along_rows`).

Results below float32's smallest normal number are flushed to zero: TensorFlow runs its kernels with
flush-to-zero set. The approximations are written here from their published description (Eigen's
`pexp_float`, `plog_float` and `scalar_logistic_op<float>`); `tests/engine/differential/test_float_order.py` compares
them bit for bit with TensorFlow on random and special inputs.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

LANES = 8  # float32 values in one AVX packet
_F = np.float32
_TINY = np.finfo(np.float32).tiny
_ALL_ONES_NAN = np.array(0xFFFFFFFF, dtype=np.uint32).view(_F)
_DEFAULT_NAN = np.array(0xFFC00000, dtype=np.uint32).view(_F)  # what x86 makes of an invalid operation

# On the small tensors of a lesson a kernel's cost is its number of NumPy calls, not the arithmetic: the
# packet paths below write into buffers of the call (positional `out`) and take their constants as 0-d arrays,
# which NumPy combines with a vector as cheaply as two vectors (a NumPy scalar operand costs twice as much).
# Floating-point warnings (overflow of inf inputs, ...) are off while any kernel runs (core/numpy_errors.py).


def _k(value: float | np.floating) -> np.ndarray:
    return np.array(value, dtype=_F)


_ZERO, _HALF, _ONE, _TINY0 = _k(0.0), _k(0.5), _k(1.0), _k(_TINY)
_LOG2E, _LN2_HI, _LN2_LO = _k(1.44269504088896341), _k(-0.693359375), _k(2.12194440e-4)
_EXP_HI, _EXP_LO, _LOGISTIC_HI = _k(88.723), _k(-104.0), _k(16.6355324)


def _madd(a: np.ndarray, b: np.ndarray | np.float32, c: np.ndarray | np.float32) -> np.ndarray:
    """a * b + c with two roundings: TensorFlow's x86 build has no FMA in its Eigen kernels."""
    return a * b + c


def _flush(x: np.ndarray) -> np.ndarray:
    """Flush-to-zero: results below the smallest normal float32 become zero (keeping the sign)."""
    x[np.abs(x) < _TINY] *= _F(0)
    return x


def _odd_even(polynomial: tuple[float, ...]) -> tuple[tuple[np.ndarray, ...], tuple[np.ndarray, ...]]:
    """c2, c3, c4, ... split into (c2, c4, ...) and (c3, c5, ...), each highest power first."""
    coefficients = [_k(c) for c in polynomial]
    return tuple(reversed(coefficients[0::2])), tuple(reversed(coefficients[1::2]))


def _horner(r2: np.ndarray, coefficients: tuple[np.ndarray, ...]) -> np.ndarray:
    """c0 r2^k + ... + ck by Horner's rule in one buffer (each multiply and add rounded on its own)."""
    acc = np.multiply(r2, coefficients[0])
    np.add(acc, coefficients[1], acc)
    for c in coefficients[2:]:
        np.multiply(acc, r2, acc)
        np.add(acc, c, acc)
    return acc


def _exp_reduced(
    x: np.ndarray, polynomial: tuple[tuple[np.ndarray, ...], tuple[np.ndarray, ...]]
) -> tuple[np.ndarray, np.ndarray]:
    """exp(x) as (p, m) with exp(x) ~ p * 2**m: m = floor(x / ln 2 + 1/2), r = x - m ln 2 subtracted in two
    parts (Cephes' split of ln 2), p = 1 + r + r^2 * (c2 + c3 r + c4 r^2 + ...) in even and odd halves."""
    m = np.multiply(x, _LOG2E)
    np.add(m, _HALF, m)
    np.floor(m, m)
    r = np.multiply(m, _LN2_HI)
    np.add(r, x, r)
    t = np.multiply(m, _LN2_LO)
    np.add(t, r, r)
    r2 = np.multiply(r, r, t)
    even, odd = polynomial
    p = _horner(r2, odd)
    np.multiply(p, r, p)
    np.add(p, _horner(r2, even), p)
    np.multiply(p, r2, p)
    np.add(r, _ONE, r)
    np.add(p, r, p)
    return p, m


EXP_POLYNOMIAL32 = (
    0.49999988079071044921875,
    0.16666518151760101318359375,
    4.166965186595916748046875e-2,
    8.36894474923610687255859375e-3,
    1.37449637986719608306884765625e-3,
)  # c2 ... c6
_EXP_POLYNOMIAL = _odd_even(EXP_POLYNOMIAL32)
_LOGISTIC_POLYNOMIAL = _odd_even(
    (0.49999141693115234375, 0.16666877269744873046875, 4.1898667812347412109375e-2, 8.33471305668354034423828125e-3)
)


def _flush_positive(x: np.ndarray) -> np.ndarray:
    """Flush-to-zero of results that are >= +0 or NaN: one comparison and one count in the usual case."""
    small = np.less(x, _TINY0)
    if np.count_nonzero(small):
        x[small] = 0
    return x


def exp_packet(x: np.ndarray) -> np.ndarray:
    """Eigen's vectorised float32 exp. Below -104 the result is exactly zero: clamping x there first gives a
    result that flushes to zero (p * 2**-150 < 2**-150), and turns -inf into such a value too."""
    clamped = np.minimum(x, _EXP_HI)
    np.maximum(clamped, _EXP_LO, out=clamped)
    p, m = _exp_reduced(clamped, _EXP_POLYNOMIAL)
    np.ldexp(p, m.astype(np.int32), p)
    np.maximum(x, p, out=p)  # Eigen's pmax(exp, x): +inf stays inf; a NaN x is returned as it is
    return _flush_positive(p)


def log_packet(x: np.ndarray) -> np.ndarray:
    """Eigen's vectorised float32 log: x = m * 2**e with m in [sqrt(1/2), sqrt(2)), log(m) by a rational
    function of m - 1 (numerator degree 3, denominator 3), then e * ln 2 added.

    Inputs that are not positive normal numbers (zeros, denormals, negatives, infinities, NaN) take
    `_log_packet_special`, which works out their special results; one comparison of the bit patterns finds them."""
    bits = np.subtract(x.view(np.uint32), _NORMAL_LOW)  # wraps around below the smallest normal number
    if np.count_nonzero(np.less(bits, _NORMAL_SPAN)) != x.size:
        return _log_packet_special(x)
    return _log_normal(x)


_NORMAL_LOW = np.array(0x00800000, dtype=np.uint32)  # bits of the smallest normal float32
_NORMAL_SPAN = np.array(0x7F800000 - 0x00800000, dtype=np.uint32)  # positive normal numbers up to inf


def _log_normal(x: np.ndarray) -> np.ndarray:
    """The approximation on positive normal numbers (no special case can arise)."""
    mantissa, exponent = np.frexp(x)
    small = np.less(mantissa, _SQRT_HALF)
    e = np.subtract(exponent, small, dtype=_F)  # exact: small integers
    y = np.subtract(mantissa, _ONE)
    np.add(y, mantissa, y, where=small)
    p = np.multiply(y, _LOG_P[0])
    np.add(p, _LOG_P[1], p)
    np.multiply(p, y, p)
    np.add(p, _LOG_P[2], p)
    np.multiply(p, y, p)
    q = np.multiply(y, _LOG_Q[0])
    for c in _LOG_Q[1:]:
        np.add(q, c, q)
        np.multiply(q, y, q)
    np.add(q, _ONE, q)
    np.divide(p, q, p)
    np.multiply(e, _LN2, e)
    np.add(e, p, e)
    return e


_SQRT_HALF, _LN2 = _k(0.707106781186547524), _k(0.693147180559945309)
_LOG_P = (_k(0.18256296349849254), _k(1.0000000190281063), _k(1.0000000190281136))
_LOG_Q = (_k(0.049616247954120038), _k(0.59923249590823520), _k(1.4999999999999927))


def _log_packet_special(x: np.ndarray) -> np.ndarray:
    """The whole packet log, special values included."""
    x = np.where(np.abs(x) < _TINY, _F(0), x)  # denormals read as zero
    mantissa, exponent = np.frexp(x)
    mantissa, e = mantissa.astype(_F), exponent.astype(_F)
    small = mantissa < _F(0.707106781186547524)
    e = e - small.astype(_F)
    y = (mantissa - _F(1)) + np.where(small, mantissa, _F(0))
    p = _madd(_madd(y, _F(0.18256296349849254), _F(1.0000000190281063)), y, _F(1.0000000190281136)) * y
    q = _madd(_madd(_madd(y, _F(0.049616247954120038), _F(0.59923249590823520)), y, _F(1.4999999999999927)), y, _F(1.0))
    out = _madd(e, _F(0.693147180559945309), p / q)
    out = np.where(x == np.inf, x, out)
    out = np.where((x < 0) | np.isnan(x), _ALL_ONES_NAN, out)  # the invalid mask OR-ed into the result
    return np.where(x == 0, _F(-np.inf), out).astype(_F)


def logistic_packet(x: np.ndarray) -> np.ndarray:
    """Eigen's vectorised float32 logistic function: exp(x/2) by a degree-5 polynomial, squared, then
    e / (1 + e); below -104 exactly zero (clamping x there gives an e * e that flushes to zero, and so a zero
    result; e * e at or above the smallest normal number makes e / (1 + e) = e * e normal too, so one flush
    suffices)."""
    half = np.minimum(x, _LOGISTIC_HI)
    np.maximum(half, _EXP_LO, out=half)
    np.multiply(half, _HALF, half)
    p, m = _exp_reduced(half, _LOGISTIC_POLYNOMIAL)
    np.ldexp(p, m.astype(np.int32), p)
    np.multiply(p, p, p)
    _flush_positive(p)
    np.add(p, _ONE, m)
    np.divide(p, m, p)
    return p


def exp_scalar(x: np.ndarray) -> np.ndarray:
    """The C library's expf: the correctly rounded value (computed in double, rounded once)."""
    return _flush(np.exp(x.astype(np.float64)).astype(_F))


def log_scalar(x: np.ndarray) -> np.ndarray:
    """The C library's logf: a NaN passes through, a negative number gives x86's default NaN. A positive
    denormal is scaled by 2**23 to normalise it, which flush-to-zero reads as zero: every one of them gives
    the log of 2**-150."""
    out = np.log(x.astype(np.float64)).astype(_F)
    out = np.where((x > 0) & (x < _TINY), _F(np.log(2.0**-150)), out)
    return np.where(np.isnan(x), x, np.where(x < 0, _DEFAULT_NAN, out))


def logistic_scalar(x: np.ndarray) -> np.ndarray:
    """Eigen's scalar logistic: e = expf(min(x, 16.6355324)), then e / (1 + e) in float32."""
    e = exp_scalar(np.minimum(x, _F(16.6355324)))
    return _flush(e / (_F(1) + e))


Kernel = Callable[[np.ndarray], np.ndarray]


def elementwise(x: np.ndarray, packet: Kernel, scalar: Kernel) -> np.ndarray:
    """An elementwise float32 op over a whole tensor: packets for the first n // 8 * 8 values in memory
    order (C order, as TensorFlow stores tensors), the C library for the rest."""
    flat = x.reshape(-1)  # a copy in C order if x is not C-contiguous
    whole = flat.size // LANES * LANES
    if whole == flat.size:  # whole packets only (each path costs some twenty NumPy calls even on no values)
        return packet(flat).reshape(x.shape)
    if whole == 0:
        return scalar(flat).reshape(x.shape)
    return np.concatenate((packet(flat[:whole]), scalar(flat[whole:]))).reshape(x.shape)


def along_rows(rows: np.ndarray, packet: Kernel, scalar: Kernel) -> np.ndarray:
    """An elementwise float32 op read by a reduction along the last axis of a 2-D array: in each row, packets
    for the first k // 8 * 8 values, the C library for the rest."""
    whole = rows.shape[1] // LANES * LANES
    if whole == rows.shape[1]:
        return packet(rows)
    if whole == 0:
        return scalar(rows)
    out = np.empty_like(rows)
    out[:, :whole] = packet(rows[:, :whole])
    out[:, whole:] = scalar(rows[:, whole:])
    return out


def exp(x: np.ndarray) -> np.ndarray:
    """TensorFlow's float32 `tf.exp` of a whole tensor."""
    return elementwise(x, exp_packet, exp_scalar)


def log(x: np.ndarray) -> np.ndarray:
    """TensorFlow's float32 `tf.math.log` of a whole tensor."""
    return elementwise(x, log_packet, log_scalar)


def sigmoid(x: np.ndarray) -> np.ndarray:
    """TensorFlow's float32 `tf.nn.sigmoid` of a whole tensor."""
    return elementwise(x, logistic_packet, logistic_scalar)
