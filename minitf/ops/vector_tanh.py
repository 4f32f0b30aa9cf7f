"""tanh as TensorFlow's CPU kernel computes it, bit for bit, in float32 and float64.

TensorFlow's `Tanh` kernel is Eigen's `scalar_tanh_op`. With Eigen's fast math (on by default) it evaluates a
clamped rational approximation (Eigen's `ptanh_float` / `ptanh_double`) on packets and on the scalar tail
alike in float32, so unlike `exp` and `log` (`vector_math`) a float32 value's result does not depend on where
it sits. float64 packets hold 4 values: the first n // 4 * 4 values of a tensor take the approximation, the
rest the C library's `tanh` (`math.tanh`, not always NumPy's).

The approximation:

* x is clamped to [-c, c], c the smallest number at which the approximation is exactly 1 when every multiply
  and add is rounded on its own (TensorFlow's x86 build has no FMA);
* tanh(x) ~ (x + x^3 P(x^2)) / Q(x^2), P and Q evaluated by Horner's rule from their highest coefficient,
  each step a multiply and an add: float32 uses a [9/8] approximation (P of degree 3, Q of degree 4 with
  constant term 1), float64 a [19/18] one (P of degree 8, Q of degree 9);
* inputs below the smallest normal number read as zero (TensorFlow's kernels run with denormals-are-zero),
  so tanh(1e-45) is 0 and tanh(-1e-45) is -0.0; -0.0 stays -0.0, NaN stays NaN, +-inf gives +-1.

float16 packets (8 values) are computed in float32 and rounded, the tail with the C library's `tanhf`. The
coefficients are Eigen's published minimax ones; `tests/engine/differential/test_tanh_bits.py` compares the bit
patterns with TensorFlow's.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

# float32: clamp and [9/8] coefficients, highest power of x^2 first.
CLAMP32 = np.float32(7.90738964080810547)
NUMERATOR32 = tuple(np.float32(c) for c in (1.394553628e-8, 2.102733560e-5, 3.520756727e-3, 1.340216100e-1))
DENOMINATOR32 = tuple(np.float32(c) for c in (8.015776984e-7, 3.326951409e-4, 2.597254514e-2, 4.673548340e-1,
                                               1.0))
# float64: clamp and [19/18] coefficients, highest power of x^2 first.
CLAMP64 = np.float64(17.714196154005176)
NUMERATOR64 = (2.6158007860482230e-23, 7.6534862268749319e-19, 3.1309488231386680e-15, 4.2303918148209176e-12,
               2.4618379131293676e-09, 6.8644367682497074e-07, 9.3839087674268880e-05, 5.9809711724441161e-03,
               1.5184719640284322e-01)
DENOMINATOR64 = (6.463747022670968018e-21, 5.782506856739003571e-17, 1.293019623712687916e-13,
                 1.123643448069621992e-10, 4.492975677839633985e-08, 8.785185266237658698e-06,
                 8.295161192716231542e-04, 3.437448108450402717e-02, 4.851805297361760360e-01, 1.0)


def _stacked(numerator: tuple, denominator: tuple, dtype: type) -> list[np.ndarray]:
    """P's and Q's coefficients as column pairs, P padded with leading zeros to Q's degree, so one Horner loop
    evaluates both (a leading 0 * x2 + c is exactly c, so the padding changes no rounding)."""
    padded = (0.0,) * (len(denominator) - len(numerator)) + tuple(numerator)
    return [np.array([[p], [q]], dtype=dtype) for p, q in zip(padded, denominator, strict=True)]


STACKED32 = _stacked(NUMERATOR32, DENOMINATOR32, np.float32)
STACKED64 = _stacked(NUMERATOR64, DENOMINATOR64, np.float64)
TINY = {np.dtype(np.float32): np.finfo(np.float32).tiny, np.dtype(np.float64): np.finfo(np.float64).tiny}


def _rational(x: np.ndarray, clamp: np.floating, stacked: list[np.ndarray]) -> np.ndarray:
    """(x + x^3 P(x^2)) / Q(x^2) on a flat x clamped to [-clamp, clamp], each multiply and add rounded on its
    own. P and Q go through Horner's rule together, in place: on the small tensors of a lesson the cost is the
    number of NumPy calls, not the arithmetic. np.maximum and np.minimum let NaN through; after the clamp
    nothing overflows and Q >= 1, so no floating-point warning can arise."""
    x = np.maximum(x, -clamp)
    np.minimum(x, clamp, out=x)
    x2 = x * x
    both = stacked[0] * x2  # row 0: P(x2), row 1: Q(x2)
    both += stacked[1]
    for c in stacked[2:]:
        both *= x2
        both += c
    result = x2 * x
    result *= both[0]
    result += x
    result /= both[1]
    return result


def _denormals_as_zero(x: np.ndarray) -> np.ndarray:
    small = np.abs(x) < TINY[x.dtype]
    return np.where(small, x * x.dtype.type(0), x) if small.any() else x  # x * 0 keeps the sign of zero


def tanh32(x: np.ndarray) -> np.ndarray:
    """TensorFlow's float32 `tf.math.tanh` of a whole tensor."""
    x = np.asarray(x, dtype=np.float32)
    flat = _denormals_as_zero(x.reshape(-1))
    return _rational(flat, CLAMP32, STACKED32).reshape(x.shape)


DOUBLE_LANES = 4  # float64 values in one AVX packet
_libm_tanh: Callable[[np.ndarray], np.ndarray] = np.frompyfunc(math.tanh, 1, 1)


def tanh64(x: np.ndarray) -> np.ndarray:
    """TensorFlow's float64 `tf.math.tanh` of a whole tensor: packets for the first n // 4 * 4 values in memory
    order, the C library for the rest."""
    x = np.asarray(x, dtype=np.float64)
    flat = _denormals_as_zero(np.ascontiguousarray(x).reshape(-1))
    whole = flat.size // DOUBLE_LANES * DOUBLE_LANES
    out = np.empty_like(flat)
    out[:whole] = _rational(flat[:whole], CLAMP64, STACKED64)
    out[whole:] = _libm_tanh(flat[whole:]).astype(np.float64) if flat.size > whole else flat[whole:]
    return out.reshape(x.shape)


def real_or_complex(x: np.ndarray) -> np.ndarray:
    """float64 and float16 like TensorFlow (below); complex numbers through NumPy's tanh."""
    x = np.asarray(x)
    if x.dtype == np.float64:
        return tanh64(x)
    if x.dtype == np.float16:
        return tanh16(x)
    return np.tanh(x)


HALF_LANES = 8  # float16 values in one packet (computed as 8 float32 values)


def tanh16(x: np.ndarray) -> np.ndarray:
    """TensorFlow's float16 `tf.math.tanh`: packets of 8 go through the float32 approximation, the rest through
    the C library's `tanhf`; either result is rounded once to float16."""
    flat = np.ascontiguousarray(x).reshape(-1).astype(np.float32)
    whole = flat.size // HALF_LANES * HALF_LANES
    out = np.empty_like(flat)
    out[:whole] = tanh32(flat[:whole])
    out[whole:] = _libm_tanh(flat[whole:].astype(np.float64)).astype(np.float32) if flat.size > whole else 0
    return out.astype(np.float16).reshape(np.shape(x))
