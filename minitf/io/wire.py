"""Protocol buffers' wire format, the few parts TensorFlow's files use: a message is a list of fields, each a
key (field number << 3 | wire type) followed by a varint (0), 8 bytes (1), a length and bytes (2) or 4 bytes (5).
Repeated numbers are "packed": one length-delimited field holding their encodings one after another."""

from __future__ import annotations

import struct
from collections.abc import Iterator

VARINT, FIXED64, BYTES, FIXED32 = 0, 1, 2, 5


def varint(n: int) -> bytes:
    """Seven bits a byte, lowest first, the high bit set on all but the last; negatives as 64-bit two's
    complement (ten bytes), as protobuf writes int64."""
    n &= (1 << 64) - 1
    out = bytearray()
    while n >= 0x80:
        out.append(n & 0x7F | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


def read_varint(data: bytes, pos: int) -> tuple[int, int]:
    result = shift = 0
    while True:
        if pos >= len(data):
            raise ValueError("truncated varint")
        byte = data[pos]
        pos += 1
        result |= (byte & 0x7F) << shift
        if byte < 0x80:
            return result, pos
        shift += 7


def signed64(n: int) -> int:
    return n - (1 << 64) if n >= 1 << 63 else n


def key(number: int, wire_type: int) -> bytes:
    return varint(number << 3 | wire_type)


def length_delimited(number: int, payload: bytes) -> bytes:
    return key(number, BYTES) + varint(len(payload)) + payload


def varint_field(number: int, n: int) -> bytes:
    return key(number, VARINT) + varint(n)


def fields(data: bytes) -> Iterator[tuple[int, int, int | bytes]]:
    """(field number, wire type, value) for every field of a message, in order: varints as ints, fixed-size
    values and length-delimited ones as their bytes."""
    pos = 0
    while pos < len(data):
        tag, pos = read_varint(data, pos)
        number, wire_type = tag >> 3, tag & 7
        value: int | bytes
        if wire_type == VARINT:
            value, pos = read_varint(data, pos)
        elif wire_type == FIXED64:
            value, pos = data[pos : pos + 8], pos + 8
        elif wire_type == FIXED32:
            value, pos = data[pos : pos + 4], pos + 4
        elif wire_type == BYTES:
            size, pos = read_varint(data, pos)
            value, pos = data[pos : pos + size], pos + size
            if len(value) != size:
                raise ValueError("truncated length-delimited field")
        else:
            raise ValueError(f"unsupported wire type {wire_type}")
        yield number, wire_type, value


def packed_varints(payload: bytes) -> list[int]:
    values, pos = [], 0
    while pos < len(payload):
        n, pos = read_varint(payload, pos)
        values.append(signed64(n))
    return values


def packed_floats(payload: bytes) -> list[float]:
    return list(struct.unpack(f"<{len(payload) // 4}f", payload))
