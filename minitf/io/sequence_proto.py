"""`tf.train.SequenceExample` and its parts: an example with a context (Features, once per example) and
feature lists (each a list of Features, one per step of a sequence), as TensorFlow stores sequences.

Printed in protobuf's text format and serialized in its wire format (wire.py), as example_proto.py does for
`Example`, so either engine reads the other's bytes. Maps print in the order their entries were added.
"""

from __future__ import annotations

from minitf.io import wire
from minitf.io.example_proto import Feature, Features, _Message, escape


class FeatureList(_Message):
    """The features of a sequence's steps, in order (`feature`, repeated)."""

    def __init__(self, feature: list[Feature] | None = None) -> None:
        self.feature: list[Feature] = list(feature or [])

    def _text(self, indent: str) -> str:
        inner = indent + "  "
        return "".join(f"{indent}feature {{\n{f._text(inner)}{indent}}}\n" for f in self.feature)

    def SerializeToString(self) -> bytes:  # protobuf's name
        return b"".join(wire.length_delimited(1, f.SerializeToString()) for f in self.feature)

    @classmethod
    def FromString(cls, data: bytes) -> FeatureList:  # protobuf's name
        return cls([Feature.FromString(v) for n, _, v in wire.fields(bytes(data)) if n == 1])  # type: ignore[arg-type]


class FeatureLists(_Message):
    """Names to FeatureLists (protobuf's `map<string, FeatureList> feature_list`)."""

    def __init__(self, feature_list: dict[str, FeatureList] | None = None) -> None:
        self.feature_list: dict[str, FeatureList] = dict(feature_list or {})

    def _text(self, indent: str) -> str:
        inner = indent + "  "
        return "".join(
            f'{indent}feature_list {{\n{inner}key: "{escape(k.encode())}"\n{inner}value {{\n'
            f"{v._text(inner + '  ')}{inner}}}\n{indent}}}\n"
            for k, v in self.feature_list.items()
        )

    def SerializeToString(self) -> bytes:  # protobuf's name
        return b"".join(
            wire.length_delimited(
                1, wire.length_delimited(1, k.encode()) + wire.length_delimited(2, v.SerializeToString())
            )
            for k, v in self.feature_list.items()
        )

    @classmethod
    def FromString(cls, data: bytes) -> FeatureLists:  # protobuf's name
        lists = cls()
        for n, _, entry in wire.fields(bytes(data)):
            if n == 1:
                parts = {number: value for number, _, value in wire.fields(entry)}  # type: ignore[arg-type]
                lists.feature_list[bytes(parts.get(1, b"")).decode()] = FeatureList.FromString(parts.get(2, b""))  # type: ignore[arg-type]
        return lists


class SequenceExample(_Message):
    """`SequenceExample(context=Features(...), feature_lists=FeatureLists(...))`."""

    def __init__(self, context: Features | None = None, feature_lists: FeatureLists | None = None) -> None:
        self.context = context if context is not None else Features()
        self.feature_lists = feature_lists if feature_lists is not None else FeatureLists()

    def _text(self, indent: str) -> str:
        inner = indent + "  "
        text = f"{indent}context {{\n{self.context._text(inner)}{indent}}}\n" if self.context.feature else ""
        if self.feature_lists.feature_list:
            text += f"{indent}feature_lists {{\n{self.feature_lists._text(inner)}{indent}}}\n"
        return text

    def SerializeToString(self) -> bytes:  # protobuf's name
        out = wire.length_delimited(1, self.context.SerializeToString()) if self.context.feature else b""
        if self.feature_lists.feature_list:
            out += wire.length_delimited(2, self.feature_lists.SerializeToString())
        return out

    def ParseFromString(self, data: bytes) -> int:  # protobuf's name
        parsed = SequenceExample.FromString(data)
        self.context, self.feature_lists = parsed.context, parsed.feature_lists
        return len(data)

    @classmethod
    def FromString(cls, data: bytes) -> SequenceExample:  # protobuf's name
        example = cls()
        for n, _, v in wire.fields(bytes(data)):
            if n == 1:
                example.context = Features.FromString(v)  # type: ignore[arg-type]
            elif n == 2:
                example.feature_lists = FeatureLists.FromString(v)  # type: ignore[arg-type]
        return example
