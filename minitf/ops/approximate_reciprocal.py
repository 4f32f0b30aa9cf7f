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
runs on, and so does minitf: on x86-64 Linux it runs the instruction itself, through a 24-byte routine (load
4 floats, rcpps, store, loop) placed in an executable page with `mmap` and called with `ctypes`. Where that is
not possible (another processor or system, or a sandbox that refuses executable memory) the reciprocal is an
exact division, and such results may differ from TensorFlow's in the last bit.
"""

from __future__ import annotations

import ctypes
import mmap
import platform
import sys
from collections.abc import Callable

import numpy as np

LANES = 8  # float32 values in one AVX packet

RCPPS = 0x53  # the instruction's opcode (after 0F)


def _routine(opcode: int) -> bytes:
    """void f(const float *src, float *dst, size_t n), n > 0 a multiple of 4 (System V calling convention):
    loop: movups xmm0, [rdi]; <opcode> xmm0, xmm0; movups [rsi], xmm0
          add rdi, 16; add rsi, 16; sub rdx, 4; jnz loop; ret"""
    return bytes([0x0F, 0x10, 0x07, 0x0F, opcode, 0xC0, 0x0F, 0x11, 0x06, 0x48, 0x83, 0xC7, 0x10,
                  0x48, 0x83, 0xC6, 0x10, 0x48, 0x83, 0xEA, 0x04, 0x75, 0xE9, 0xC3])


def _native(opcode: int, exact: Callable[[np.ndarray], np.ndarray]) -> Callable[[np.ndarray], np.ndarray] | None:
    """The processor's approximate instruction as a function on float32 arrays, or None where it cannot run
    here (or does not approximate `exact`)."""
    if sys.platform != "linux" or platform.machine().lower() not in ("x86_64", "amd64"):
        return None
    try:
        page = mmap.mmap(-1, mmap.PAGESIZE, prot=mmap.PROT_READ | mmap.PROT_WRITE | mmap.PROT_EXEC)
        page.write(_routine(opcode))
        address = ctypes.addressof(ctypes.c_char.from_buffer(page))
        routine = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t)(address)
    except (OSError, ValueError, TypeError, AttributeError):
        return None

    def approximate(a: np.ndarray) -> np.ndarray:
        padded = np.ones(-(-a.size // 4) * 4, dtype=np.float32)
        padded[:a.size] = a.ravel()
        out = np.empty_like(padded)
        if padded.size:
            routine(padded.ctypes.data, out.ctypes.data, padded.size)
        return out[:a.size].reshape(a.shape)

    approximate._page = page  # type: ignore[attr-defined]  # keeps the code alive as long as the function
    probe = np.array([1.0, 3.0, 0.1, 7e5], dtype=np.float32)
    if not np.allclose(approximate(probe), exact(probe), rtol=2e-3):  # not the instruction we expect
        return None
    return approximate


_rcpps = _native(RCPPS, lambda a: 1 / a)


def packet_reciprocal(a: np.ndarray) -> np.ndarray:
    """Eigen's `preciprocal` of float32 values that fill whole packets (exact division where rcpps is not
    available)."""
    one = np.float32(1)
    if _rcpps is None:
        return one / a
    x = _rcpps(a)
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
