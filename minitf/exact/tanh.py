"""tanh as TensorFlow's CPU kernel computes it, bit for bit, in float32 and float64.

TensorFlow's `Tanh` kernel is Eigen's `scalar_tanh_op`. With Eigen's fast math (on by default) it evaluates a
clamped rational approximation (Eigen's `ptanh_float` / `ptanh_double`) on packets and on the scalar tail
alike in float32, so unlike `exp` and `log` (`exp_log`) a float32 value's result does not depend on where
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

import numpy as np

# float32: clamp and [9/8] coefficients, highest power of x^2 first.
CLAMP32 = np.float32(7.90738964080810547)
NUMERATOR32 = tuple(np.float32(c) for c in (1.394553628e-8, 2.102733560e-5, 3.520756727e-3, 1.340216100e-1))
DENOMINATOR32 = tuple(np.float32(c) for c in (8.015776984e-7, 3.326951409e-4, 2.597254514e-2, 4.673548340e-1, 1.0))
# float64: clamp and [19/18] coefficients, highest power of x^2 first.
CLAMP64 = np.float64(17.714196154005176)
NUMERATOR64 = (
    2.6158007860482230e-23,
    7.6534862268749319e-19,
    3.1309488231386680e-15,
    4.2303918148209176e-12,
    2.4618379131293676e-09,
    6.8644367682497074e-07,
    9.3839087674268880e-05,
    5.9809711724441161e-03,
    1.5184719640284322e-01,
)
DENOMINATOR64 = (
    6.463747022670968018e-21,
    5.782506856739003571e-17,
    1.293019623712687916e-13,
    1.123643448069621992e-10,
    4.492975677839633985e-08,
    8.785185266237658698e-06,
    8.295161192716231542e-04,
    3.437448108450402717e-02,
    4.851805297361760360e-01,
    1.0,
)


def _constants(values: tuple, dtype: type) -> tuple[np.ndarray, ...]:
    """Coefficients as 0-d arrays: NumPy combines a 0-d array with a vector as cheaply as two vectors of one
    size, about half the cost of a NumPy scalar operand (which it converts on every call)."""
    return tuple(np.array(v, dtype=dtype) for v in values)


P32, Q32 = _constants(NUMERATOR32, np.float32), _constants(DENOMINATOR32, np.float32)
P64, Q64 = _constants(NUMERATOR64, np.float64), _constants(DENOMINATOR64, np.float64)
BOUNDS32 = _constants((-CLAMP32, CLAMP32), np.float32)
BOUNDS64 = _constants((-CLAMP64, CLAMP64), np.float64)
TINY = {np.dtype(np.float32): np.finfo(np.float32).tiny, np.dtype(np.float64): np.finfo(np.float64).tiny}


def _horner(x2: np.ndarray, coefficients: tuple[np.ndarray, ...], inplace: bool) -> np.ndarray:
    """c0 x2^k + ... + ck by Horner's rule, each multiply and add rounded on its own, in one buffer if
    `inplace` (else in new arrays)."""
    acc = np.multiply(x2, coefficients[0])
    out = acc if inplace else None
    acc = np.add(acc, coefficients[1], out)
    for c in coefficients[2:]:
        acc = np.multiply(acc, x2, out)
        acc = np.add(acc, c, out)
    return acc


def _rational(
    flat: np.ndarray, bounds: tuple[np.ndarray, ...], p: tuple[np.ndarray, ...], q: tuple[np.ndarray, ...]
) -> np.ndarray:
    """(x + x^3 P(x^2)) / Q(x^2) on a flat x clamped to [-clamp, clamp], each multiply and add rounded on its
    own, with inputs below the smallest normal number read as zero.

    On the small tensors of a lesson the cost is the number of NumPy calls, not the arithmetic, so every step
    writes into a buffer of the call (positional `out`, cheaper than the keyword) and takes vectors or 0-d
    arrays as operands.
    np.maximum and np.minimum let NaN through; after the clamp nothing overflows and Q >= 1, so no
    floating-point warning can arise.

    Denormals-are-zero: a denormal x (and only such an x, or a zero) has x^2 == 0 and gives back x itself
    ((0 + x) / 1), so one count of zeros in x^2 finds every candidate; only then are the denormal results
    turned into zeros of their sign, as TensorFlow reads such an input as a zero of its sign."""
    # Working in place saves memory traffic on large tensors, but NumPy takes a slow path for an operation
    # in place on a one-value array (a scalar tensor): about twice the cost of new arrays there.
    inplace = flat.size > 1
    x = np.maximum(flat, bounds[0])
    x = np.minimum(x, bounds[1], out=x if inplace else None)  # (np.minimum takes its buffer only by keyword)
    x2 = np.multiply(x, x)
    numerator = _horner(x2, p, inplace)
    denominator = _horner(x2, q, inplace)
    nonzero = np.count_nonzero(x2)
    out = x2 if inplace else None
    r = np.multiply(x2, x, out)  # x^3
    r = np.multiply(r, numerator, out)
    r = np.add(r, x, out)
    r = np.divide(r, denominator, out)
    if nonzero != r.size:  # some |x| < 2**-75 or so: look for denormals
        small = np.abs(x) < TINY[x.dtype]
        if small.any():
            np.copyto(r, r * r.dtype.type(0), where=small)  # x * 0 keeps the sign of zero
    return r


def tanh32(x: np.ndarray) -> np.ndarray:
    """TensorFlow's float32 `tf.math.tanh` of a whole tensor."""
    x = np.asarray(x, dtype=np.float32)
    return _rational(x.reshape(-1), BOUNDS32, P32, Q32).reshape(x.shape)


DOUBLE_LANES = 4  # float64 values in one AVX packet


def _libm_tail(out: np.ndarray, flat: np.ndarray, start: int) -> None:
    """The C library's tanh (`math.tanh`) for the values from `start` on (at most a packet's worth), a
    denormal input read as a zero of its sign."""
    tiny = TINY[np.dtype(np.float64)]
    out[start:] = [math.tanh(v) if abs(v) >= tiny else v * 0.0 for v in flat[start:].tolist()]


def tanh64(x: np.ndarray) -> np.ndarray:
    """TensorFlow's float64 `tf.math.tanh` of a whole tensor: packets for the first n // 4 * 4 values in memory
    order, the C library for the rest."""
    x = np.asarray(x, dtype=np.float64)
    flat = x.reshape(-1)  # C order, as TensorFlow stores tensors (a copy if x is not C-contiguous)
    out = _rational(flat, BOUNDS64, P64, Q64)
    whole = flat.size // DOUBLE_LANES * DOUBLE_LANES
    if whole < flat.size:
        _libm_tail(out, flat, whole)
    return out.reshape(x.shape)


HALF_LANES = 8  # float16 values in one packet (computed as 8 float32 values)


def tanh16(x: np.ndarray) -> np.ndarray:
    """TensorFlow's float16 `tf.math.tanh`: packets of 8 go through the float32 approximation, the rest through
    the C library's `tanhf` (modelled as tanh in double rounded to float32); either result is rounded once
    more to float16. (A float16 value is never a float32 denormal.)"""
    x = np.asarray(x)
    flat = x.reshape(-1).astype(np.float32)
    out = _rational(flat, BOUNDS32, P32, Q32)
    whole = flat.size // HALF_LANES * HALF_LANES
    if whole < flat.size:
        out[whole:] = [math.tanh(v) for v in flat[whole:].tolist()]  # rounded to float32 on assignment
    return out.astype(np.float16).reshape(x.shape)
