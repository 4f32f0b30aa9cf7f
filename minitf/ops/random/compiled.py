"""Large float32 draws compiled: Philox's rounds and the words' conversion to samples in one loop per block.

NumPy runs Philox's ten rounds as some hundred passes over arrays of 64-bit words, each a trip through memory;
a compiled loop keeps a block's four words in registers and writes its four samples once. The samples are
those of `philox.uniform` and `philox.normal`, with Box-Muller's log, sin and cos as TensorFlow computes them
(the C library's `logf`, `sinf`, `cosf`, which Numba calls for a float32 `math.log`, `math.sin`, `math.cos`).
The blocks are split over the intra-op threads, as TensorFlow's random kernels split theirs.

This module imports Numba (about a second), so `philox` imports it only for a large draw (philox.COMPILED_FROM
samples), never `import minitf`; the loops compile on first use and stay in Numba's on-disk cache.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numba
import numpy as np

from minitf.function.compiling.jit.parallel import parallel_for

LOW32 = np.uint64(0xFFFFFFFF)
SHIFT = np.uint64(32)


def _jit(function: Callable[..., Any]) -> Any:
    try:
        return numba.njit(nogil=True, cache=True)(function)
    except RuntimeError:  # no writable place for Numba's on-disk cache: compile in each process
        return numba.njit(nogil=True)(function)


@_jit
def rounds(key0: Any, key1: Any, low: Any, high: Any, b: Any) -> tuple[Any, Any, Any, Any]:
    """The four words of block b of the stream whose counter is (high, low) (philox.philox)."""
    lo = low + np.uint64(b)
    hi = high + (np.uint64(1) if lo < low else np.uint64(0))  # the carry into the counter's high half
    c0, c1, c2, c3 = np.uint32(lo & LOW32), np.uint32(lo >> SHIFT), np.uint32(hi & LOW32), np.uint32(hi >> SHIFT)
    k0, k1 = np.uint32(key0), np.uint32(key1)
    for _ in range(10):
        p0 = np.uint64(0xD2511F53) * np.uint64(c0)  # 32 x 32 -> 64 bits
        p1 = np.uint64(0xCD9E8D57) * np.uint64(c2)
        c0, c1, c2, c3 = (
            np.uint32(p1 >> SHIFT) ^ c1 ^ k0,
            np.uint32(p1 & LOW32),
            np.uint32(p0 >> SHIFT) ^ c3 ^ k1,
            np.uint32(p0 & LOW32),
        )
        k0, k1 = np.uint32(k0 + np.uint32(0x9E3779B9)), np.uint32(k1 + np.uint32(0xBB67AE85))
    return c0, c1, c2, c3


@_jit
def float_01(word: Any) -> Any:
    """23 random mantissa bits under the exponent of 1.0, minus 1 (philox.floats_01)."""
    return np.uint32((word & np.uint32(0x7FFFFF)) | np.uint32(127 << 23)).view(np.float32) - np.float32(1)


@_jit
def normal_pair(first: Any, second: Any) -> tuple[Any, Any]:
    """Two normals by Box-Muller, in float32 as TensorFlow computes them (philox.box_muller)."""
    u = max(float_01(first), np.float32(1.0e-7))
    angle = np.float32(2 * math.pi * np.float64(float_01(second)))  # 2 * M_PI is a double in TensorFlow
    radius = math.sqrt(np.float32(-2.0) * math.log(u))
    return math.sin(angle) * radius, math.cos(angle) * radius


@_jit
def fill_uniform(key0: Any, key1: Any, low: Any, high: Any, out: Any, start: int, stop: int) -> None:
    for b in range(start, stop):
        c0, c1, c2, c3 = rounds(key0, key1, low, high, b)
        out[b, 0], out[b, 1], out[b, 2], out[b, 3] = float_01(c0), float_01(c1), float_01(c2), float_01(c3)


@_jit
def fill_normal(key0: Any, key1: Any, low: Any, high: Any, out: Any, start: int, stop: int) -> None:
    for b in range(start, stop):
        c0, c1, c2, c3 = rounds(key0, key1, low, high, b)
        out[b, 0], out[b, 1] = normal_pair(c0, c1)
        out[b, 2], out[b, 3] = normal_pair(c2, c3)


FILL = {"uniform": fill_uniform, "normal": fill_normal}


def draw(kind: str, key: int, counter: int, blocks: int) -> np.ndarray:
    """`blocks` blocks of float32 samples ("uniform" or "normal") from the stream at (key, counter), four per
    block: (blocks, 4) float32."""
    out = np.empty((blocks, 4), np.float32)
    mask = 2**64 - 1
    key0, key1 = np.uint32(key & 0xFFFFFFFF), np.uint32(key >> 32 & 0xFFFFFFFF)
    args = (key0, key1, np.uint64(counter & mask), np.uint64(counter >> 64 & mask), out)
    parallel_for(FILL[kind], args, blocks, 1)
    return out
