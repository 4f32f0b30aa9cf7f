"""Philox-4x32-10, the counter-based generator behind TensorFlow's random ops, and the ways TensorFlow turns
its 32-bit words into samples. Everything here is vectorised NumPy and bit-for-bit what TensorFlow computes on
a CPU, except the last bit of a few normal samples: Box-Muller's log, sin and cos are NumPy's here, the C
library's in TensorFlow (and in minitf's TensorFlow-exact numerics). Large float32 uniform and normal draws
(COMPILED_FROM samples on) run as compiled loops instead (compiled.py), with the C library's math.

Philox maps a 128-bit *counter* and a 64-bit *key* to 128 random bits (four uint32 words) through ten rounds
of multiplications and XORs. There is no hidden state: the n-th block of a stream is `philox(counter + n, key)`,
so a "generator" is just a (key, counter) pair, and skipping ahead is an addition.

How TensorFlow consumes the blocks (`Fill`): a distribution turns one block into a *group* of samples (4
float32 uniforms, 2 float64 uniforms, 4 float32 normals by Box-Muller, ...); group g uses block g, and the last
group's extra samples are dropped. Truncated normals reject samples, so group g starts at block
`g * 256 * group_size / 4` and reads words one by one from there until it has enough.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import cast

import numpy as np
from numpy.typing import DTypeLike

MASK32 = 0xFFFFFFFF
MASK64 = (1 << 64) - 1
MASK128 = (1 << 128) - 1

_MUL_A, _MUL_B = np.uint64(0xD2511F53), np.uint64(0xCD9E8D57)  # round multipliers
_KEY_A, _KEY_B = 0x9E3779B9, 0xBB67AE85  # added to the key after each round (golden ratio, sqrt(3) - 1)
_SHIFT = np.uint64(32)

# TensorFlow reserves this many blocks per sample for ops whose kernels keep state (so that consecutive calls
# never share blocks), and as much room per group of rejection-sampled outputs.
RESERVED_PER_SAMPLE = 256


def philox(counters: np.ndarray, key: int) -> np.ndarray:
    """The ten rounds on a batch of counters: (n, 4) uint32 counters -> (n, 4) uint32 random words."""
    c0, c1, c2, c3 = (counters[:, i].astype(np.uint64) for i in range(4))
    k0, k1 = key & MASK32, (key >> 32) & MASK32
    for round_ in range(10):
        if round_:
            k0, k1 = (k0 + _KEY_A) & MASK32, (k1 + _KEY_B) & MASK32
        p0, p1 = _MUL_A * c0, _MUL_B * c2  # 32 x 32 -> 64 bits: exact in uint64
        c0, c1, c2, c3 = (
            (p1 >> _SHIFT) ^ c1 ^ np.uint64(k0),
            p1 & np.uint64(MASK32),
            (p0 >> _SHIFT) ^ c3 ^ np.uint64(k1),
            p0 & np.uint64(MASK32),
        )
    return np.stack([c0, c1, c2, c3], axis=1).astype(np.uint32)


@dataclass(frozen=True)
class Philox:
    """A position in a Philox stream: the 64-bit key and the 128-bit counter of the next block."""

    key: int
    counter: int

    @classmethod
    def from_seeds(cls, seed: int, seed2: int) -> Philox:
        """TensorFlow's stateful ops (`seed`, `seed2` attrs): the key is `seed`, `seed2` the counter's high half."""
        return cls(seed & MASK64, (seed2 & MASK64) << 64)

    def skip(self, blocks: int) -> Philox:
        return Philox(self.key, (self.counter + blocks) & MASK128)

    def blocks(self, n: int) -> np.ndarray:
        """The next n blocks of the stream: (n, 4) uint32."""
        return self.blocks_at(np.arange(n, dtype=np.uint64))

    def blocks_at(self, offsets: np.ndarray) -> np.ndarray:
        """The blocks `offsets` (uint64) ahead of this position: (len(offsets), 4) uint32."""
        lo, hi = np.uint64(self.counter & MASK64), np.uint64(self.counter >> 64)
        low = lo + offsets  # wraps around past 2**64 ...
        high = hi + (low < lo).astype(np.uint64)  # ... and carries
        mask = np.uint64(MASK32)
        counters = np.stack([low & mask, low >> _SHIFT, high & mask, high >> _SHIFT], axis=1)
        return philox(counters.astype(np.uint32), self.key)

    def words(self, n: int) -> np.ndarray:
        """The first n uint32 words of the stream, block by block."""
        return self.blocks(-(-n // 4)).reshape(-1)[:n]

    def first_block(self) -> tuple[int, int, int, int]:
        return cast("tuple[int, int, int, int]", tuple(int(w) for w in self.blocks(1)[0]))  # a block is 4 words


def key_counter_from_seed(seed0: int, seed1: int) -> Philox:
    """How stateless ops turn a two-number seed into a generator: one Philox round trip scrambles it, so that
    neither number needs to be "strong" (TensorFlow's `StatelessRandomGetKeyCounter`)."""
    counter = (seed0 & MASK64) | (seed1 & MASK64) << 64
    mix = Philox(0x02461E29_3EC8F720, counter).first_block()
    return Philox(mix[0] | mix[1] << 32, (mix[2] | mix[3] << 32) << 64)


# ------------------------------------------------------------------------------------------------------------
# From words to numbers
# ------------------------------------------------------------------------------------------------------------


def floats_01(words: np.ndarray, dtype: DTypeLike) -> np.ndarray:
    """Uniform floats in [0, 1): random mantissa bits under the exponent of 1.0 give [1, 2); subtract 1.

    float32 takes 23 bits of one word and float16 10 bits; float64 takes two words (20 bits of the first and
    all of the second), so for float64 `words` has pairs in its last axis.
    """
    np_dtype = np.dtype(dtype)
    if np_dtype == np.float64:
        bits = (words[..., 0].astype(np.uint64) & np.uint64(0xFFFFF)) << _SHIFT | words[..., 1].astype(np.uint64)
        return (bits | np.uint64(1023 << 52)).view(np.float64) - 1.0
    if np_dtype == np.float16:
        return ((words & np.uint32(0x3FF)).astype(np.uint16) | np.uint16(15 << 10)).view(np.float16) - np.float16(1)
    return ((words & np.uint32(0x7FFFFF)) | np.uint32(127 << 23)).view(np.float32) - np.float32(1)


def box_muller(words: np.ndarray, dtype: DTypeLike) -> np.ndarray:
    """Standard normals, two from each pair of uniforms u, v: sqrt(-2 log u) * (sin, cos)(2 pi v).

    `words` holds, in its last axis, the words of one pair: 2 for float32 and float16, 4 for float64. TensorFlow
    computes in float32 for float32 and float16 (rounding to float16 at the end) and in float64 for float64,
    with the C library's log and sincos; u is raised to 1e-7 first, so log never sees 0.
    """
    c = BOX_MULLER_MATH
    if np.dtype(dtype) == np.float64:
        u = np.maximum(floats_01(words[..., 0:2], np.float64), 1.0e-7)
        angle = (2 * math.pi) * floats_01(words[..., 2:4], np.float64)
        radius = np.sqrt(-2.0 * c["log"](u))
    else:
        u = np.maximum(floats_01(words[..., 0], np.float32), np.float32(1.0e-7))
        v = floats_01(words[..., 1], np.float32)
        angle = ((2 * math.pi) * v.astype(np.float64)).astype(np.float32)  # 2 * M_PI is a double in TensorFlow
        radius = np.sqrt(np.float32(-2.0) * c["log"](u))
    pair = [c["sin"](angle) * radius, c["cos"](angle) * radius]
    return np.stack(pair, axis=-1).astype(dtype)


def _through_double(function: Callable[[np.ndarray], np.ndarray]) -> Callable[[np.ndarray], np.ndarray]:
    """NumPy's double-precision `function`, rounded once to float32 for float32 values.

    TensorFlow's kernels call the C library's logf, sinf and cosf; the double result rounded to float32 is the
    same number for about 99 values in 100 (NumPy's own float32 kernels: 78 to 88 in 100). TensorFlow-exact
    numerics call the C library itself (minitf/exact/libm.py).
    """

    def rounded(x: np.ndarray) -> np.ndarray:
        return function(x.astype(np.float64)).astype(np.float32) if x.dtype == np.float32 else function(x)

    return rounded


# The log, sin and cos of the Box-Muller transform (replaced as a whole by TensorFlow-exact numerics).
BOX_MULLER_MATH: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    "log": _through_double(np.log),
    "sin": _through_double(np.sin),
    "cos": _through_double(np.cos),
}


# ------------------------------------------------------------------------------------------------------------
# Distributions: n samples from a position in the stream
# ------------------------------------------------------------------------------------------------------------


def _grouped(gen: Philox, n: int, per_block: int) -> np.ndarray:
    """The blocks for n samples when each block makes `per_block` of them: (groups, 4) uint32."""
    return gen.blocks(-(-n // per_block))


# From this many float32 samples (half a million: NumPy's passes take some 20 ms there), uniform and normal draws
# run as one compiled loop per block (compiled.py); the first such draw imports Numba, about a second, so the
# course's draws (a Keras layer's weights, a lesson's 200 x 200) stay below it.
COMPILED_FROM = 2**19
_no_numba: list[bool] = []  # [True] once Numba failed to import


def _compiled(kind: str, gen: Philox, n: int, dtype: DTypeLike) -> np.ndarray | None:
    """n float32 samples from the compiled loops, for large draws where Numba is installed (else None)."""
    if n < COMPILED_FROM or np.dtype(dtype) != np.float32 or _no_numba:
        return None
    try:
        from minitf.ops.random import compiled  # imports Numba: a second, paid by the first large draw only
    except ImportError:
        _no_numba.append(True)
        return None
    return compiled.draw(kind, gen.key, gen.counter, -(-n // 4)).reshape(-1)[:n]


def uniform(gen: Philox, n: int, dtype: DTypeLike) -> np.ndarray:
    """n floats in [0, 1): four per block (two for float64)."""
    fast = _compiled("uniform", gen, n, dtype)
    if fast is not None:
        return fast
    if np.dtype(dtype) == np.float64:
        return floats_01(_grouped(gen, n, 2).reshape(-1, 2), np.float64)[:n]
    return floats_01(_grouped(gen, n, 4).reshape(-1), dtype)[:n]


def normal(gen: Philox, n: int, dtype: DTypeLike) -> np.ndarray:
    """n standard normals: four per block by Box-Muller (two for float64)."""
    fast = _compiled("normal", gen, n, dtype)  # the C library's math, as in TensorFlow-exact numerics
    if fast is not None:
        return fast
    if np.dtype(dtype) == np.float64:
        return box_muller(_grouped(gen, n, 2), np.float64).reshape(-1)[:n]
    return box_muller(_grouped(gen, n, 4).reshape(-1, 2), dtype).reshape(-1)[:n]


def truncated_normal(gen: Philox, n: int, dtype: DTypeLike) -> np.ndarray:
    """n standard normals, each pair drawn again while it is 2 or further from 0 (only the bad one is dropped).

    A group of 4 samples (2 for float64) has its own stretch of the stream, 256 blocks per sample apart, and
    reads pairs from the start of its stretch until it has accepted enough.
    """
    group = 2 if np.dtype(dtype) == np.float64 else 4
    stride = group * RESERVED_PER_SAMPLE // 4
    groups = -(-n // group)
    out = np.empty((groups, group), dtype=dtype)
    todo = np.arange(groups, dtype=np.uint64)
    blocks = 2
    while todo.size:
        offsets = todo[:, None] * np.uint64(stride) + np.arange(blocks, dtype=np.uint64)
        words = gen.blocks_at(offsets.ravel()).reshape(todo.size, -1)
        pairs = words.reshape(todo.size, -1, 4 if group == 2 else 2)
        candidates = box_muller(pairs, np.float32 if group == 4 else np.float64).reshape(todo.size, -1)
        accepted = np.abs(candidates) < 2.0
        done = accepted.sum(axis=1) >= group
        rows = candidates[done][accepted[done]].reshape(-1)
        # the first `group` accepted candidates of each finished row, in the order they were drawn
        rank = np.cumsum(accepted[done], axis=1)[accepted[done]]
        out[todo[done].astype(np.int64)] = rows[rank <= group].reshape(-1, group).astype(dtype)
        todo, blocks = todo[~done], blocks * 2
    return out.reshape(-1)[:n]


def uniform_int(gen: Philox, n: int, low: int, high: int, dtype: DTypeLike) -> np.ndarray:
    """n integers in [low, high): random bits modulo the range (one word each for 32 bits, two for 64)."""
    bits = full_int(gen, n, np.uint64 if np.dtype(dtype).itemsize == 8 else np.uint32)
    span = (int(high) - int(low)) % (1 << (8 * np.dtype(dtype).itemsize))
    return (np.array(low).astype(dtype) + (bits % bits.dtype.type(span)).astype(dtype)).astype(dtype)


def full_int(gen: Philox, n: int, dtype: DTypeLike) -> np.ndarray:
    """n integers over the dtype's whole range: the bits of one word (32-bit types) or of two (64-bit types)."""
    if np.dtype(dtype).itemsize == 8:
        words = _grouped(gen, n, 2).reshape(-1, 2).astype(np.uint64)
        return (words[:, 0] | words[:, 1] << _SHIFT)[:n].view(dtype)
    return _grouped(gen, n, 4).reshape(-1)[:n].view(dtype)


def uniform_doubles(gen: Philox, n: int) -> np.ndarray:
    """n doubles in [0, 1) from consecutive pairs of words (how TensorFlow's categorical sampler draws)."""
    return floats_01(gen.words(2 * n).reshape(-1, 2), np.float64)


def permutation(gen: Philox, n: int) -> np.ndarray:
    """A random order of range(n): Fisher-Yates from the front, swapping i with i + word_i mod (n - i)."""
    order = np.arange(n)
    words = gen.words(max(n - 1, 0)).tolist()
    for i, word in enumerate(words):
        j = i + word % (n - i)
        order[i], order[j] = order[j], order[i]
    return order


def word_stream(gen: Philox, chunk: int = 64) -> Iterator[int]:
    """The stream's words one at a time, for samplers that draw as they go (TensorFlow's SingleSampleAdapter)."""
    start = 0
    while True:
        yield from gen.blocks_at(np.arange(start, start + chunk, dtype=np.uint64)).reshape(-1).tolist()
        start += chunk
