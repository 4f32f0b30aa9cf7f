"""TensorFlow's string fingerprint (FarmHash's Fingerprint64, the `farmhashna` 64-bit hash) in plain Python,
and `tf.strings.to_hash_bucket_fast`, which puts each string in bucket fingerprint % num_buckets.

The hash reads the bytes as little-endian 64- and 32-bit words and mixes them with multiplications, rotations
and shifts modulo 2**64; strings of up to 16, 32 and 64 bytes have mixes of their own, longer ones are read 64
bytes at a time. Python's integers are masked to 64 bits after every step that can overflow.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from minitf.core import dtypes
from minitf.core.context import state
from minitf.core.conversion import convert_to_tensor
from minitf.core.dispatch import elementwise_handler
from minitf.core.errors import InvalidArgumentError
from minitf.core.op import Op, bind
from minitf.core.tensor import Tensor

MASK = (1 << 64) - 1
K0, K1, K2 = 0xC3A5C85C97CB3127, 0xB492B66FBE98F273, 0x9AE16A3B2F90404F


def _word(s: bytes, i: int) -> int:
    return int.from_bytes(s[i : i + 8], "little")


def _half_word(s: bytes, i: int) -> int:
    return int.from_bytes(s[i : i + 4], "little")


def _rotate(v: int, shift: int) -> int:
    return ((v >> shift) | (v << (64 - shift))) & MASK if shift else v


def _shift_mix(v: int) -> int:
    return v ^ (v >> 47)


def _mix16(u: int, v: int, mul: int) -> int:
    a = ((u ^ v) * mul) & MASK
    a ^= a >> 47
    b = ((v ^ a) * mul) & MASK
    b ^= b >> 47
    return (b * mul) & MASK


def _up_to_16(s: bytes) -> int:
    n = len(s)
    mul = (K2 + n * 2) & MASK
    if n >= 8:
        a = (_word(s, 0) + K2) & MASK
        b = _word(s, n - 8)
        c = (_rotate(b, 37) * mul + a) & MASK
        d = ((_rotate(a, 25) + b) * mul) & MASK
        return _mix16(c, d, mul)
    if n >= 4:
        return _mix16(n + (_half_word(s, 0) << 3), _half_word(s, n - 4), mul)
    if n > 0:
        y = (s[0] + (s[n >> 1] << 8)) & 0xFFFFFFFF
        z = (n + (s[n - 1] << 2)) & 0xFFFFFFFF
        return (_shift_mix(((y * K2) ^ (z * K0)) & MASK) * K2) & MASK
    return K2


def _ends(s: bytes, first: int) -> tuple[int, int, int, int, int]:
    """The four words the 17-to-64-byte mixes start from (the first scaled by `first`), and their multiplier."""
    n = len(s)
    mul = (K2 + n * 2) & MASK
    return (
        (_word(s, 0) * first) & MASK,
        _word(s, 8),
        (_word(s, n - 8) * mul) & MASK,
        (_word(s, n - 16) * K2) & MASK,
        mul,
    )


def _up_to_32(s: bytes) -> int:
    a, b, c, d, mul = _ends(s, K1)
    return _mix16(
        (_rotate((a + b) & MASK, 43) + _rotate(c, 30) + d) & MASK, (a + _rotate((b + K2) & MASK, 18) + c) & MASK, mul
    )


def _up_to_64(s: bytes) -> int:
    n = len(s)
    a, b, c, d, mul = _ends(s, K2)
    y = (_rotate((a + b) & MASK, 43) + _rotate(c, 30) + d) & MASK
    z = _mix16(y, (a + _rotate((b + K2) & MASK, 18) + c) & MASK, mul)
    e = (_word(s, 16) * mul) & MASK
    f = _word(s, 24)
    g = ((y + _word(s, n - 32)) * mul) & MASK
    h = ((z + _word(s, n - 24)) * mul) & MASK
    return _mix16(
        (_rotate((e + f) & MASK, 43) + _rotate(g, 30) + h) & MASK, (e + _rotate((f + a) & MASK, 18) + g) & MASK, mul
    )


def _weak32(s: bytes, i: int, a: int, b: int) -> tuple[int, int]:
    """Two words of state from 32 bytes at i and two seeds."""
    w, x, y, z = _word(s, i), _word(s, i + 8), _word(s, i + 16), _word(s, i + 24)
    a = (a + w) & MASK
    b = _rotate((b + a + z) & MASK, 21)
    c = a
    a = (a + x + y) & MASK
    b = (b + _rotate(a, 44)) & MASK
    return (a + z) & MASK, (b + c) & MASK


def fingerprint64(s: bytes) -> int:
    """FarmHash's Fingerprint64 of `s` (what TensorFlow's Fingerprint64 computes), as an unsigned integer."""
    n = len(s)
    if n <= 16:
        return _up_to_16(s)
    if n <= 32:
        return _up_to_32(s)
    if n <= 64:
        return _up_to_64(s)
    seed = 81
    y = (seed * K1 + 113) & MASK
    z = (_shift_mix((y * K2 + 113) & MASK) * K2) & MASK
    v, w = (0, 0), (0, 0)
    x = (seed * K2 + _word(s, 0)) & MASK
    end = ((n - 1) // 64) * 64
    last64 = end + ((n - 1) & 63) - 63
    i = 0
    while i != end:
        x = (_rotate((x + y + v[0] + _word(s, i + 8)) & MASK, 37) * K1) & MASK
        y = (_rotate((y + v[1] + _word(s, i + 48)) & MASK, 42) * K1) & MASK
        x ^= w[1]
        y = (y + v[0] + _word(s, i + 40)) & MASK
        z = (_rotate((z + w[0]) & MASK, 33) * K1) & MASK
        v = _weak32(s, i, (v[1] * K1) & MASK, (x + w[0]) & MASK)
        w = _weak32(s, i + 32, (z + w[1]) & MASK, (y + _word(s, i + 16)) & MASK)
        z, x = x, z
        i += 64
    mul = (K1 + ((z & 0xFF) << 1)) & MASK
    i = last64
    w0 = (w[0] + ((n - 1) & 63)) & MASK
    v0 = (v[0] + w0) & MASK
    w0 = (w0 + v0) & MASK
    v, w = (v0, v[1]), (w0, w[1])
    x = (_rotate((x + y + v[0] + _word(s, i + 8)) & MASK, 37) * mul) & MASK
    y = (_rotate((y + v[1] + _word(s, i + 48)) & MASK, 42) * mul) & MASK
    x ^= (w[1] * 9) & MASK
    y = (y + v[0] * 9 + _word(s, i + 40)) & MASK
    z = (_rotate((z + w[0]) & MASK, 33) * mul) & MASK
    v = _weak32(s, i, (v[1] * mul) & MASK, (x + w[0]) & MASK)
    w = _weak32(s, i + 32, (z + w[1]) & MASK, (y + _word(s, i + 16)) & MASK)
    z, x = x, z
    return _mix16((_mix16(v[0], w[0], mul) + _shift_mix(y) * K0 + z) & MASK, (_mix16(v[1], w[1], mul) + x) & MASK, mul)


def _bucket_kernel(x: Any, num_buckets: int) -> np.ndarray:
    array = np.asarray(x, dtype=object)
    out = [fingerprint64(s if isinstance(s, bytes) else str(s).encode()) % num_buckets for s in array.ravel()]
    return np.array(out, dtype=np.int64).reshape(array.shape)


StringToHashBucketFast = Op("StringToHashBucketFast", _bucket_kernel, shape=lambda s, t, a: [(s[0], dtypes.int64)])


def to_hash_bucket_fast(input: Any, num_buckets: int, name: str | None = None) -> Tensor:
    """`tf.strings.to_hash_bucket_fast`: each string's bucket, fingerprint64(string) % num_buckets (int64)."""
    if not isinstance(input, Tensor) and (handler := elementwise_handler(input)) is not None:
        return handler(to_hash_bucket_fast, input, num_buckets)
    if int(num_buckets) < 1:  # TensorFlow checks the attribute when it adds the op to a graph, or runs it
        hint = "\nHint: num_buckets counts the buckets: 1 or more."
        if state.graph is not None:
            raise ValueError(
                f"Attr 'num_buckets' of 'StringToHashBucketFast' Op passed {int(num_buckets)} less than "
                f"minimum 1.{hint}"
            )
        raise InvalidArgumentError(
            None,
            None,
            f"Value for attr 'num_buckets' of {int(num_buckets)} must be at least "
            f"minimum 1 [Op:StringToHashBucketFast] name: {hint}",
        )
    return bind(StringToHashBucketFast, convert_to_tensor(input, dtype=dtypes.string), num_buckets=int(num_buckets))
