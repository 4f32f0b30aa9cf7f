"""String ops beyond `minitf/ops/strings/string_tensors.py`'s basics: unicode_split, strip, regular expressions
(regex_replace, regex_full_match) and numbers as text (as_string), with object-array kernels.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from minitf.composite.ragged.tensor import RaggedTensor
from minitf.core import dtypes
from minitf.core.conversion import convert_to_tensor, static_value
from minitf.core.dispatch import elementwise_handler
from minitf.core.errors import InvalidArgumentError, invalid_argument
from minitf.core.op import Op, bind
from minitf.core.tensor import Tensor
from minitf.core.tensor_shape import TensorShape
from minitf.ops.array.creation import ones_like
from minitf.ops.strings.string_tensors import map_strings, string_input, unicode_decode, unicode_encode


def unicode_split(
    input: Any, input_encoding: str, errors: str = "replace", replacement_char: int = 65533, name: str | None = None
) -> Any:
    """Each string cut into its characters (each a string of its own bytes): a RaggedTensor for a vector."""
    codepoints = unicode_decode(input, input_encoding, errors=errors, replacement_char=replacement_char)
    flat = codepoints.flat_values if isinstance(codepoints, RaggedTensor) else codepoints
    one_each = RaggedTensor.from_row_lengths(flat, ones_like(flat, dtype=dtypes.int64))
    characters = unicode_encode(one_each, input_encoding)  # one string per code point
    return codepoints.with_flat_values(characters) if isinstance(codepoints, RaggedTensor) else characters


def _string_op(name: str, kernel: Callable[..., Any], out: dtypes.DType = dtypes.string) -> Any:

    def rule(shapes_: Sequence[TensorShape], types: Sequence[dtypes.DType], attrs: dict) -> list:
        return [(shapes_[0], out)]

    return Op(name, kernel, shape=rule)


def _compiled(pattern: bytes, op_name: str) -> Any:
    try:
        return re.compile(pattern)
    except re.error as exc:
        raise invalid_argument(
            op_name,
            f"Invalid pattern: {pattern.decode(errors='replace')}, error: {exc}\nHint: "
            "the pattern is a regular expression (RE2 syntax); escape special characters "
            "with a backslash.",
        ) from None


def _strip_kernel(x: Any) -> Any:
    return map_strings(lambda s: s.strip(b" \t\n\v\f\r"), x)


def _regex_replace_kernel(x: Any, pattern: bytes, rewrite: bytes, replace_global: bool) -> Any:
    regex = _compiled(pattern, "StaticRegexReplace")
    return map_strings(lambda s: regex.sub(rewrite, s, count=0 if replace_global else 1), x)


def _full_match_kernel(x: Any, pattern: bytes) -> Any:
    regex = _compiled(pattern, "StaticRegexFullMatch")
    return map_strings(lambda s: regex.fullmatch(s) is not None, x, bool)


StringStrip = _string_op("StringStrip", _strip_kernel)
StaticRegexReplace = _string_op("StaticRegexReplace", _regex_replace_kernel)
StaticRegexFullMatch = _string_op("StaticRegexFullMatch", _full_match_kernel, dtypes.bool)


def _text_input(input: Any, op_name: str) -> Any:
    return string_input(input, op_name)


def _pattern(value: Any, what: str) -> bytes:
    known = static_value(value) if isinstance(value, Tensor) else value
    if known is None:
        raise TypeError(
            f"minitf needs the {what} as a Python string (or a constant), not a tensor computed inside "
            "the function.\nHint: pass the pattern as a string literal."
        )
    return known if isinstance(known, bytes) else str(known).encode()


def strip(input: Any, name: str | None = None) -> Any:
    """Each string without its leading and trailing whitespace (ASCII spaces, tabs, newlines)."""
    if isinstance(input, RaggedTensor):
        return input.with_flat_values(strip(input.flat_values))
    return bind(StringStrip, _text_input(input, "StringStrip"))


def regex_replace(input: Any, pattern: Any, rewrite: Any, replace_global: bool = True, name: str | None = None) -> Any:
    r"""Each match of the regular expression `pattern` replaced by `rewrite` (\1 is the first group); only the
    first match unless replace_global."""
    if isinstance(input, RaggedTensor):
        return input.with_flat_values(regex_replace(input.flat_values, pattern, rewrite, replace_global))
    return bind(
        StaticRegexReplace,
        _text_input(input, "StaticRegexReplace"),
        pattern=_pattern(pattern, "pattern"),
        rewrite=_pattern(rewrite, "rewrite"),
        replace_global=bool(replace_global),
    )


def regex_full_match(input: Any, pattern: Any, name: str | None = None) -> Any:
    """Whether each whole string matches the regular expression `pattern` (bools)."""
    if isinstance(input, RaggedTensor):
        return input.with_flat_values(regex_full_match(input.flat_values, pattern))
    return bind(StaticRegexFullMatch, _text_input(input, "StaticRegexFullMatch"), pattern=_pattern(pattern, "pattern"))


def _as_string_kernel(x: Any, precision: int, scientific: bool, shortest: bool, width: int, fill: str) -> Any:
    array = np.asarray(x)
    spec = (
        "%" + (fill if fill else "") + (str(width) if width > -1 else "") + (f".{precision}" if precision > -1 else "")
    )
    kind = array.dtype.kind
    if kind in "fc":
        number = spec + ("e" if scientific else "g" if shortest else "f")
        one = (lambda v: f"({number % v.real},{number % v.imag})") if kind == "c" else (lambda v: number % v)
    elif kind == "b":

        def one(v: Any) -> str:
            return (spec + "s") % ("true" if v else "false")
    elif kind in "iu":

        def one(v: Any) -> str:
            return (spec + "d") % v
    else:
        return np.array(x, dtype=object)
    out = np.empty(array.shape, dtype=object)
    for index in np.ndindex(array.shape):
        out[index] = one(array[index]).encode()
    return out


AsString = _string_op("AsString", _as_string_kernel)


def as_string(
    input: Any,
    precision: int = -1,
    scientific: bool = False,
    shortest: bool = False,
    width: int = -1,
    fill: str = "",
    name: str | None = None,
) -> Tensor:
    """Numbers (and bools) as text, formatted as C's printf does: floats with 6 decimals unless `precision`,
    `scientific` (1.5e+00) or `shortest` (%g) say otherwise; `width` pads with `fill` (' ' or '0')."""
    if not isinstance(input, Tensor) and (handler := elementwise_handler(input)) is not None:
        return handler(as_string, input, precision, scientific, shortest, width, fill)
    x = convert_to_tensor(input)
    if scientific and shortest:
        raise InvalidArgumentError(
            None,
            None,
            "Cannot select both scientific and shortest notation [Op:AsString]"
            "\nHint: choose scientific=True or shortest=True, not both.",
        )
    return bind(
        AsString,
        x,
        precision=int(precision),
        scientific=bool(scientific),
        shortest=bool(shortest),
        width=int(width),
        fill=str(fill),
    )


def _substr_kernel(x: Any, pos: Any, length: Any, unit: str) -> Any:
    strings, starts, lengths = np.broadcast_arrays(np.asarray(x, dtype=object), np.asarray(pos), np.asarray(length))
    out = np.empty(strings.shape, dtype=object)
    for flat_index, index in enumerate(np.ndindex(strings.shape)):
        s: Any = strings[index]
        text: Any = s.decode("utf-8", errors="replace") if unit == "UTF8_CHAR" else s
        start = int(starts[index])
        if not -len(text) <= start <= len(text):
            raise invalid_argument(
                "Substr",
                f"pos {start} out of range for string {s!r} at index {flat_index}"
                "\nHint: pos must lie within the string (negative counts from its end).",
            )
        start = start + len(text) if start < 0 else start
        piece = text[start : start + max(int(lengths[index]), 0)]
        out[index] = piece.encode() if unit == "UTF8_CHAR" else piece
    return out if out.ndim else out[()]


def _substr_shape(shapes_: Sequence[TensorShape], types: Sequence[dtypes.DType], attrs: dict) -> list:
    known = shapes_[0]
    for other in shapes_[1:]:
        if other.rank is not None and known.rank is not None and other.rank > known.rank:
            known = other
    return [(known, dtypes.string)]


Substr = Op("Substr", _substr_kernel, shape=_substr_shape)


def substr(input: Any, pos: Any, len: Any, unit: str = "BYTE", name: str | None = None) -> Any:
    """`tf.strings.substr`: `len` bytes (or UTF-8 characters) of each string from `pos` (negative: from the end)."""
    if unit not in ("BYTE", "UTF8_CHAR"):
        raise ValueError(f"unit must be 'BYTE' or 'UTF8_CHAR', not {unit!r}")
    if not isinstance(input, Tensor) and (handler := elementwise_handler(input)) is not None:
        return handler(substr, input, pos, len, unit)
    text = _text_input(input, "Substr")
    return bind(
        Substr,
        text,
        convert_to_tensor(pos, dtype_hint=dtypes.int32),
        convert_to_tensor(len, dtype_hint=dtypes.int32),
        unit=unit,
    )
