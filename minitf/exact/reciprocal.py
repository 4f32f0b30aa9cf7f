"""float32 reciprocals as TensorFlow's Eigen computes them in whole packets: the processor's approximate
reciprocal, refined by one Newton step.

Eigen's fast-math `preciprocal` for 8 float32 values is x = rcpps(a) (the SSE/AVX instruction, good to about 12
bits), then x + x * (1 - a * x), each multiply and add rounded on its own (no FMA). `tf.math.reciprocal` takes
this path for the first n // 8 * 8 values of a tensor, an exact 1 / a for the rest. TensorFlow's softmax
multiplies each row by the reciprocal of its sum, so from 8 rows on the sums of the first rows // 8 * 8 rows
take it too.

(`tf.math.rsqrt` is not modelled: Eigen's `prsqrt`, rsqrtps and one Newton step, gives TensorFlow's bits for
only 86 % of values on this processor, against 66 % for the exact 1 / sqrt(a) minitf keeps.)

The approximation `rcpps` returns is not specified by the instruction set: Intel's and AMD's processors give
different bits, so no formula in NumPy can reproduce it everywhere. TensorFlow computes it on the machine it
runs on, and so does minitf: Numba compiles a four-value loop around LLVM's `llvm.x86.sse.rcp.ps` intrinsic,
and LLVM emits the instruction (x86-64 only, compiled on first use). Without Numba, or on another processor,
the reciprocal is an exact division, and results may then differ from TensorFlow's in the last bit: about a
third of float32 `tf.math.reciprocal` values in whole packets, and softmax rows from the eighth row on.
"""

from __future__ import annotations

import platform
from collections.abc import Callable

import numpy as np

LANES = 8  # float32 values in one AVX packet


def _compile_rcpps() -> Callable[[np.ndarray], np.ndarray] | None:
    """The processor's approximate reciprocal as a function on float32 arrays, or None where it cannot run
    here (no Numba, not x86-64)."""
    if platform.machine().lower() not in ("x86_64", "amd64"):
        return None
    try:
        # Numba is optional (the `lab` extra) and compiling costs a second: loaded when a reciprocal needs it
        from minitf.exact import rcpps
    except ImportError:
        return None
    probe = np.array([1.0, 3.0, 0.1, 7e5], dtype=np.float32)
    if not np.allclose(rcpps.approximate(probe), 1 / probe, rtol=2e-3):  # not the instruction we expect
        return None
    return rcpps.approximate


_rcpps: list[Callable[[np.ndarray], np.ndarray] | None] = []  # compiled on first use


def _approximate(a: np.ndarray) -> np.ndarray | None:
    if not _rcpps:
        _rcpps.append(_compile_rcpps())
    return None if _rcpps[0] is None else _rcpps[0](a)


def packet_reciprocal(a: np.ndarray) -> np.ndarray:
    """Eigen's `preciprocal` of float32 values that fill whole packets (exact division where rcpps is not
    available)."""
    one = np.float32(1)
    x = _approximate(a)
    if x is None:
        return one / a
    with np.errstate(invalid="ignore", over="ignore"):
        step = one - a * x
        return np.where(np.isnan(step), x, x * step + x)  # 0 and inf: rcpps's own answer (inf and 0)


def _denormals_as_zero(x: np.ndarray) -> np.ndarray:
    return np.where(np.abs(x) < np.finfo(np.float32).tiny, x * np.float32(0), x)  # keeps the sign of zero


def reciprocal(a: np.ndarray) -> np.ndarray:
    """TensorFlow's float32 1 / a of a whole tensor (or vector of softmax sums): packets for the first
    n // 8 * 8 values, exact for the rest; denormal inputs and results read as zero, as TensorFlow's kernels
    run with denormals-are-zero and flush-to-zero."""
    flat = _denormals_as_zero(np.ascontiguousarray(a, dtype=np.float32).reshape(-1))
    whole = flat.size // LANES * LANES
    out = np.empty_like(flat)
    out[:whole] = packet_reciprocal(flat[:whole])
    with np.errstate(divide="ignore"):
        out[whole:] = np.float32(1) / flat[whole:]
    return _denormals_as_zero(out).reshape(np.shape(a))
