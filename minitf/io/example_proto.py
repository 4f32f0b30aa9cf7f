"""`tf.train.Example` and its parts: the protocol buffers TensorFlow stores training examples in.

An Example maps feature names to Features, each a list of bytes, floats (float32) or int64s. They print in
protobuf's text format, as TensorFlow's classes print, and `SerializeToString()` / `FromString()` use
protobuf's wire format (wire.py), so the bytes are TensorFlow's and either engine reads the other's.
"""

from __future__ import annotations

import struct
from typing import Any

import numpy as np

from minitf.io import wire


def escape(data: bytes) -> str:
    """Bytes as protobuf's text format writes them: C escapes, other unprintable bytes in octal."""
    named = {10: "\\n", 13: "\\r", 9: "\\t", 34: '\\"', 39: "\\'", 92: "\\\\"}
    return "".join(named.get(b) or (chr(b) if 32 <= b < 127 else f"\\{b:03o}") for b in data)


def float_text(value: float) -> str:
    """As protobuf prints a float field: 6 significant digits if they read back as the same float32, else 9."""
    if np.isnan(value):
        return "nan"
    if np.isinf(value):
        return "inf" if value > 0 else "-inf"
    text = f"{value:.6g}"
    return text if np.float32(float(text)) == np.float32(value) else f"{value:.9g}"


class _Message:
    """What every message here shares: printed in text format, equal when their fields are."""

    def _text(self, indent: str) -> str:
        raise NotImplementedError

    def __str__(self) -> str:
        return self._text("")

    __repr__ = __str__

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and vars(self) == vars(other)


class _List(_Message):
    """A list of one kind of value (the `value` field, repeated)."""

    field_name = ""

    def __init__(self, value: Any = ()) -> None:
        self.value = [self._coerce(v) for v in value]

    @staticmethod
    def _coerce(v: Any) -> Any:
        return v

    def _text_value(self, v: Any) -> str:
        return str(v)

    def _text(self, indent: str) -> str:
        return "".join(f"{indent}value: {self._text_value(v)}\n" for v in self.value)

    def SerializeToString(self) -> bytes:  # protobuf's name
        return self._serialize()

    def _serialize(self) -> bytes:
        raise NotImplementedError

    @classmethod
    def _parse(cls, data: bytes) -> Any:
        raise NotImplementedError

    @classmethod
    def FromString(cls, data: bytes) -> Any:  # protobuf's name
        return cls._parse(bytes(data))


class BytesList(_List):
    @staticmethod
    def _coerce(v: Any) -> bytes:
        if isinstance(v, str):
            return v.encode()
        if not isinstance(v, bytes | np.bytes_):
            raise TypeError(f"{v!r} has type {type(v).__name__}, but expected one of: bytes")
        return bytes(v)

    def _text_value(self, v: Any) -> str:
        return f'"{escape(v)}"'

    def _serialize(self) -> bytes:
        return b"".join(wire.length_delimited(1, v) for v in self.value)

    @classmethod
    def _parse(cls, data: bytes) -> BytesList:
        return cls([bytes(v) for n, _, v in wire.fields(data) if n == 1])


class FloatList(_List):
    @staticmethod
    def _coerce(v: Any) -> float:
        return float(np.float32(v))  # a float field keeps float32 precision

    def _text_value(self, v: Any) -> str:
        return float_text(v)

    def _serialize(self) -> bytes:
        if not self.value:
            return b""
        return wire.length_delimited(1, struct.pack(f"<{len(self.value)}f", *self.value))

    @classmethod
    def _parse(cls, data: bytes) -> FloatList:
        values: list[float] = []
        for n, wire_type, v in wire.fields(data):
            if n == 1:
                values += wire.packed_floats(v) if wire_type == wire.BYTES else struct.unpack("<f", v)  # type: ignore
        return cls(values)


class Int64List(_List):
    @staticmethod
    def _coerce(v: Any) -> int:
        return int(v)

    def _serialize(self) -> bytes:
        if not self.value:
            return b""
        return wire.length_delimited(1, b"".join(wire.varint(v) for v in self.value))

    @classmethod
    def _parse(cls, data: bytes) -> Int64List:
        values: list[int] = []
        for n, wire_type, v in wire.fields(data):
            if n == 1:
                values += wire.packed_varints(v) if wire_type == wire.BYTES else [wire.signed64(v)]  # type: ignore
        return cls(values)


_KINDS = {"bytes_list": (1, BytesList), "float_list": (2, FloatList), "int64_list": (3, Int64List)}


class Feature(_Message):
    """One of bytes_list, float_list, int64_list (protobuf's `oneof kind`)."""

    def __init__(
        self,
        bytes_list: BytesList | None = None,
        float_list: FloatList | None = None,
        int64_list: Int64List | None = None,
    ) -> None:
        given = {
            k: v
            for k, v in (("bytes_list", bytes_list), ("float_list", float_list), ("int64_list", int64_list))
            if v is not None
        }
        self._kind: str | None = next(iter(given), None)
        for name, (_, kind) in _KINDS.items():
            setattr(self, name, given[name] if self._kind == name else kind())

    def WhichOneof(self, group: str) -> str | None:  # protobuf's name
        return self._kind

    def HasField(self, name: str) -> bool:  # protobuf's name
        return self._kind == name

    def _text(self, indent: str) -> str:
        if self._kind is None:
            return ""
        return f"{indent}{self._kind} {{\n{getattr(self, self._kind)._text(indent + '  ')}{indent}}}\n"

    def SerializeToString(self) -> bytes:  # protobuf's name
        if self._kind is None:
            return b""
        return wire.length_delimited(_KINDS[self._kind][0], getattr(self, self._kind)._serialize())

    @classmethod
    def FromString(cls, data: bytes) -> Feature:  # protobuf's name
        feature = cls()
        for n, _, v in wire.fields(data):
            for name, (number, kind) in _KINDS.items():
                if n == number:
                    feature = cls(**{name: kind._parse(v)})  # type: ignore[arg-type]
        return feature


class Features(_Message):
    """Feature names to Features (protobuf's `map<string, Feature> feature`), in the order they were added."""

    def __init__(self, feature: dict[str, Feature] | None = None) -> None:
        self.feature: dict[str, Feature] = dict(feature or {})

    def _text(self, indent: str) -> str:
        inner = indent + "  "
        return "".join(
            f'{indent}feature {{\n{inner}key: "{escape(k.encode())}"\n{inner}value {{\n'
            f"{v._text(inner + '  ')}{inner}}}\n{indent}}}\n"
            for k, v in self.feature.items()
        )

    def SerializeToString(self) -> bytes:  # protobuf's name
        return b"".join(
            wire.length_delimited(
                1, wire.length_delimited(1, k.encode()) + wire.length_delimited(2, v.SerializeToString())
            )
            for k, v in self.feature.items()
        )

    @classmethod
    def FromString(cls, data: bytes) -> Features:  # protobuf's name
        features = cls()
        for n, _, entry in wire.fields(data):
            if n == 1:
                parts = {number: value for number, _, value in wire.fields(entry)}  # type: ignore[arg-type]
                name = bytes(parts.get(1, b"")).decode()
                features.feature[name] = Feature.FromString(parts.get(2, b""))  # type: ignore[arg-type]
        return features


class Example(_Message):
    """One training example: `Example(features=Features(feature={...}))`."""

    def __init__(self, features: Features | None = None) -> None:
        self._has_features = features is not None
        self.features = features if features is not None else Features()

    def _text(self, indent: str) -> str:
        if not self._has_features and not self.features.feature:
            return ""
        return f"{indent}features {{\n{self.features._text(indent + '  ')}{indent}}}\n"

    def SerializeToString(self) -> bytes:  # protobuf's name
        if not self._has_features and not self.features.feature:
            return b""
        return wire.length_delimited(1, self.features.SerializeToString())

    def ParseFromString(self, data: bytes) -> int:  # protobuf's name
        parsed = Example.FromString(data)
        self.features, self._has_features = parsed.features, parsed._has_features
        return len(data)

    @classmethod
    def FromString(cls, data: bytes) -> Example:  # protobuf's name
        data = bytes(data)
        for n, _, v in wire.fields(data):
            if n == 1:
                return cls(Features.FromString(v))  # type: ignore[arg-type]
        return cls()
