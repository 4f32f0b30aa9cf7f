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


def _madd(a: np.ndarray, b: np.ndarray | np.float32, c: np.ndarray | np.float32) -> np.ndarray:
    """a * b + c with two roundings: TensorFlow's x86 build has no FMA in its Eigen kernels."""
    return a * b + c


def _flush(x: np.ndarray) -> np.ndarray:
    """Flush-to-zero: results below the smallest normal float32 become zero (keeping the sign)."""
    x[np.abs(x) < _TINY] *= _F(0)
    return x


def _exp_reduced(x: np.ndarray, polynomial: tuple[float, ...]) -> tuple[np.ndarray, np.ndarray]:
    """exp(x) as (p, m) with exp(x) ~ p * 2**m: m = floor(x / ln 2 + 1/2), r = x - m ln 2 subtracted in two
    parts (Cephes' split of ln 2), p = 1 + r + r^2 * (c2 + c3 r + c4 r^2 + ...) in even and odd halves."""
    m = np.floor(_madd(x, _F(1.44269504088896341), _F(0.5)))
    r = _madd(m, _F(-0.693359375), x)
    r = _madd(m, _F(2.12194440e-4), r)
    r2 = r * r
    coefficients = [_F(c) for c in polynomial]  # c2, c3, c4, ...
    even, odd = coefficients[0::2], coefficients[1::2]
    p_even: np.ndarray | np.float32 = even[-1]
    for c in reversed(even[:-1]):
        p_even = _madd(r2, p_even, c)
    p_odd: np.ndarray | np.float32 = odd[-1]
    for c in reversed(odd[:-1]):
        p_odd = _madd(r2, p_odd, c)
    p = _madd(r, p_odd, p_even)
    return _madd(r2, p, r + _F(1)), m


_EXP_POLYNOMIAL = (0.49999988079071044921875, 0.16666518151760101318359375, 4.166965186595916748046875e-2,
                   8.36894474923610687255859375e-3, 1.37449637986719608306884765625e-3)
_LOGISTIC_POLYNOMIAL = (0.49999141693115234375, 0.16666877269744873046875, 4.1898667812347412109375e-2,
                        8.33471305668354034423828125e-3)


def exp_packet(x: np.ndarray) -> np.ndarray:
    """Eigen's vectorised float32 exp."""
    with np.errstate(over="ignore", under="ignore", invalid="ignore"):
        p, m = _exp_reduced(np.minimum(x, _F(88.723)), _EXP_POLYNOMIAL)
        out = np.ldexp(p, m.astype(np.int32)).astype(_F)
        out = np.where(np.isnan(x), x, np.maximum(out, x))
    out[x < _F(-104.0)] = 0
    return _flush(out)


def log_packet(x: np.ndarray) -> np.ndarray:
    """Eigen's vectorised float32 log: x = m * 2**e with m in [sqrt(1/2), sqrt(2)), log(m) by a rational
    function of m - 1 (numerator degree 3, denominator 3), then e * ln 2 added."""
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        x = np.where(np.abs(x) < _TINY, _F(0), x)  # denormals read as zero
        mantissa, exponent = np.frexp(x)
        mantissa, e = mantissa.astype(_F), exponent.astype(_F)
        small = mantissa < _F(0.707106781186547524)
        e = e - small.astype(_F)
        y = (mantissa - _F(1)) + np.where(small, mantissa, _F(0))
        p = _madd(_madd(y, _F(0.18256296349849254), _F(1.0000000190281063)), y, _F(1.0000000190281136)) * y
        q = _madd(_madd(_madd(y, _F(0.049616247954120038), _F(0.59923249590823520)), y, _F(1.4999999999999927)),
                  y, _F(1.0))
        out = _madd(e, _F(0.693147180559945309), p / q)
        out = np.where(x == np.inf, x, out)
        out = np.where((x < 0) | np.isnan(x), _ALL_ONES_NAN, out)  # the invalid mask OR-ed into the result
        return np.where(x == 0, _F(-np.inf), out).astype(_F)


def logistic_packet(x: np.ndarray) -> np.ndarray:
    """Eigen's vectorised float32 logistic function: exp(x/2) by a degree-5 polynomial, squared, then
    e / (1 + e); below -104 exactly zero."""
    with np.errstate(over="ignore", under="ignore", invalid="ignore"):
        half = np.minimum(x, _F(16.6355324)) * _F(0.5)
        p, m = _exp_reduced(half, _LOGISTIC_POLYNOMIAL)
        e = np.ldexp(p, m.astype(np.int32)).astype(_F)
        e = _flush(e * e)
        out = e / (_F(1) + e)
    out[x < _F(-104.0)] = 0
    return _flush(out)


def exp_scalar(x: np.ndarray) -> np.ndarray:
    """The C library's expf: the correctly rounded value (computed in double, rounded once)."""
    with np.errstate(over="ignore", under="ignore"):
        return _flush(np.exp(x.astype(np.float64)).astype(_F))


def log_scalar(x: np.ndarray) -> np.ndarray:
    """The C library's logf: a NaN passes through, a negative number gives x86's default NaN. A positive
    denormal is scaled by 2**23 to normalise it, which flush-to-zero reads as zero: every one of them gives
    the log of 2**-150."""
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.log(x.astype(np.float64)).astype(_F)
    out = np.where((x > 0) & (x < _TINY), _F(np.log(2.0**-150)), out)
    return np.where(np.isnan(x), x, np.where(x < 0, _DEFAULT_NAN, out))


def logistic_scalar(x: np.ndarray) -> np.ndarray:
    """Eigen's scalar logistic: e = expf(min(x, 16.6355324)), then e / (1 + e) in float32."""
    e = exp_scalar(np.minimum(x, _F(16.6355324)))
    with np.errstate(invalid="ignore"):
        return _flush(e / (_F(1) + e))


Kernel = Callable[[np.ndarray], np.ndarray]


def elementwise(x: np.ndarray, packet: Kernel, scalar: Kernel) -> np.ndarray:
    """An elementwise float32 op over a whole tensor: packets for the first n // 8 * 8 values in memory
    order (C order, as TensorFlow stores tensors), the C library for the rest."""
    flat = np.ascontiguousarray(x).reshape(-1)
    whole = flat.size // LANES * LANES
    if whole == flat.size:  # whole packets only (each path costs some thirty NumPy calls even on no values)
        return packet(flat).reshape(np.shape(x))
    if whole == 0:
        return scalar(flat).reshape(np.shape(x))
    out = np.empty_like(flat)
    out[:whole] = packet(flat[:whole])
    out[whole:] = scalar(flat[whole:])
    return out.reshape(np.shape(x))


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
