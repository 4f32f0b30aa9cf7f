"""`tf.strings`: string tensors hold bytes (NumPy object arrays of `bytes`), as TensorFlow's do.

Each op is an `Op` whose kernel loops over an object array. Ops whose results have a different number of
items per string (`split`, `bytes_split`, `unicode_decode`) return a RaggedTensor for a vector of strings
and a plain tensor for one string, as TensorFlow does: their kernels produce `values` and `row_splits`.
Joining many strings into one (`join`, `reduce_join`): joining.py.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from minitf.composite.ragged.tensor import RaggedTensor
from minitf.core import dtypes, shape_rules
from minitf.core.context import state
from minitf.core.conversion import convert_to_tensor
from minitf.core.errors import (
    InvalidArgumentError,
    bad_string_attr,
    invalid_argument,
    op_error,
)
from minitf.core.op import Op, bind
from minitf.core.tensor import Tensor
from minitf.core.tensor_shape import TensorShape
from minitf.ops.array.creation import range as tf_range
from minitf.ops.array.join_split import concat, stack
from minitf.ops.array.shape_ops import reshape, shape

_ENCODINGS = {"UTF-8": "utf-8", "UTF-16-BE": "utf-16-be", "UTF-32-BE": "utf-32-be"}


def string_input(value: Any, op_name: str) -> Tensor:
    """The input as a string tensor, with TensorFlow's errors: a Python number cannot become a string
    (TypeError); a tensor of another dtype is rejected by the op (InvalidArgumentError, TypeError when traced)."""
    t = value if isinstance(value, Tensor) else _text_tensor(value)
    if t.dtype is not dtypes.string:
        raise _wrong_dtype(op_name, dtypes.string, t.dtype)
    return t


def _text_tensor(value: Any) -> Tensor:
    """A string tensor from text, or from a list of tensors (stacked, as TensorFlow packs `[s]`)."""
    if isinstance(value, list | tuple) and any(isinstance(v, Tensor) for v in value):
        return stack([_text_tensor(v) if not isinstance(v, Tensor) else v for v in value])
    return convert_to_tensor(value, dtype=dtypes.string)


def _wrong_dtype(op_name: str, expected: dtypes.DType, got: dtypes.DType) -> Exception:
    """TensorFlow's dtype error (InvalidArgumentError eagerly, TypeError while tracing), with a hint for text."""
    hint = (
        'tf.strings functions take string tensors: write the values as text ("1.5"), or format numbers '
        "with tf.strings.as_string."
        if expected is dtypes.string
        else f"tf.cast(x, tf.{expected.name}) converts the input first."
    )
    if state.graph is not None:
        return TypeError(
            f"Input 'input' of '{op_name}' Op has type {got.name} that does not match expected type "
            f"of {expected.name}.\nHint: {hint}"
        )
    return op_error(
        InvalidArgumentError,
        op_name,
        f"cannot compute {op_name} as input #0(zero-based) was expected "
        f"to be a {_c_name(expected)} tensor but is a {_c_name(got)} tensor",
        hint,
    )


def _c_name(dtype: dtypes.DType) -> str:
    return {"float32": "float", "float64": "double", "float16": "half"}.get(dtype.name, dtype.name)


def _bad_attr(op_name: str, attr: str, value: Any, allowed: str) -> Exception:
    """An attribute value the op does not accept: InvalidArgumentError eagerly, TypeError while tracing."""
    message = op_error(
        InvalidArgumentError,
        op_name,
        f"Value for attr '{attr}' of {value} is not in the list of "
        f"allowed values: {allowed}\n\t; NodeDef: {{{{node {op_name}}}}}; Op<name={op_name}>",
    ).message
    if state.graph is not None:
        return TypeError(message)
    return InvalidArgumentError(None, None, message)


def map_strings(fn: Callable[[bytes], Any], array: Any, otype: Any = object) -> np.ndarray:
    a: Any = np.asarray(array, dtype=object)  # its entries are bytes
    out = np.empty(a.shape, dtype=otype)
    for index in np.ndindex(a.shape):
        out[index] = fn(a[index])
    return out if out.ndim or otype is object else out[()]


def _per_string(shapes_: Sequence[TensorShape], types: Any, attrs: dict) -> list[shape_rules.Spec]:
    return [(shapes_[0], attrs.get("out_type", dtypes.string))]


def _ragged_rule(out_dtype: dtypes.DType) -> Callable[..., list[shape_rules.Spec]]:
    """values [None], row_splits [n + 1] (a scalar input counts as one row)."""

    def rule(shapes_: Sequence[TensorShape], types: Any, attrs: dict) -> list[shape_rules.Spec]:
        n = shapes_[0].num_elements() if shapes_[0].rank is not None else None
        return [(TensorShape([None]), out_dtype), (TensorShape([None if n is None else n + 1]), dtypes.int64)]

    return rule


def _ragged_kernel(pieces: Callable[..., list[Any]], out_np: Any) -> Callable[..., tuple[np.ndarray, np.ndarray]]:
    def kernel(x: Any, **attrs: Any) -> tuple[np.ndarray, np.ndarray]:
        rows = [pieces(s, **attrs) for s in np.asarray(x, dtype=object).reshape(-1)]
        splits = np.concatenate([[0], np.cumsum([len(r) for r in rows])]).astype(np.int64)
        values = np.empty(int(splits[-1]), dtype=out_np)
        values[:] = [v for r in rows for v in r]
        return values, splits

    return kernel


def _as_ragged(values: Tensor, splits: Tensor, source: Tensor) -> Any:
    """Scalar input -> the values; vector -> RaggedTensor; higher rank -> RaggedTensor with uniform outer rows."""
    rank = source.shape.rank
    if rank == 0:
        return values
    ragged = RaggedTensor(values, splits, internal=True)
    for size in reversed(list(source.shape)[1:]):
        ragged = RaggedTensor(
            ragged, tf_range(0, ragged.nrows() + 1, size, dtype=dtypes.int64), internal=True, uniform_row_length=size
        )
    return ragged


# ---------------------------------------------------------------------------------------------------
# split, bytes_split, unicode_decode: one string -> many items
# ---------------------------------------------------------------------------------------------------


def _split_pieces(s: bytes, sep: bytes | None, maxsplit: int) -> list[bytes]:
    if sep is None or sep == b"":
        return s.split(None, maxsplit)
    return s.split(sep, maxsplit)


StringSplitV2 = Op(
    "StringSplitV2", _ragged_kernel(_split_pieces, object), num_outputs=2, shape=_ragged_rule(dtypes.string)
)


def split(input: Any, sep: Any = None, maxsplit: int = -1, name: str | None = None) -> Any:
    """Split each string at `sep` (default: runs of whitespace); a RaggedTensor of the pieces."""
    if isinstance(input, RaggedTensor):
        return input.with_flat_values(split(input.flat_values, sep, maxsplit))
    t = input if isinstance(input, Tensor) and input.dtype is dtypes.string else _text_tensor(input)
    sep_bytes = sep.encode() if isinstance(sep, str) else sep
    values, splits = bind(StringSplitV2, t, sep=sep_bytes, maxsplit=maxsplit)
    return _as_ragged(values, splits, t)


StringBytesSplit = Op(
    "StringBytesSplit",
    _ragged_kernel(lambda s: [bytes([b]) for b in s], object),
    num_outputs=2,
    shape=_ragged_rule(dtypes.string),
)


def bytes_split(input: Any, name: str | None = None) -> Any:
    """Each string as its bytes, one string of length 1 per byte."""
    if isinstance(input, RaggedTensor):
        return input.with_flat_values(bytes_split(input.flat_values))
    t = string_input(input, "StringBytesSplit")
    values, splits = bind(StringBytesSplit, t)
    return _as_ragged(values, splits, t)


def _decode(s: bytes, input_encoding: str, errors: str, replacement_char: int) -> list[int]:
    text = s.decode(_codec(input_encoding), errors="strict" if errors == "strict" else "replace")
    if errors == "ignore":
        text = text.replace("\ufffd", "")
    return [replacement_char if ch == "\ufffd" and errors == "replace" else ord(ch) for ch in text]


def _codec(encoding: str, op_name: str = "UnicodeDecode") -> str:
    codec = _ENCODINGS.get(encoding.upper())
    if codec is None:
        raise invalid_argument(
            op_name,
            f"Could not create converter for input encoding: {encoding}\nHint: "
            f"TensorFlow's unicode ops accept UTF-8, UTF-16-BE and UTF-32-BE.",
        )
    return codec


UnicodeDecode = Op("UnicodeDecode", _ragged_kernel(_decode, np.int32), num_outputs=2, shape=_ragged_rule(dtypes.int32))


def unicode_decode(
    input: Any,
    input_encoding: str,
    errors: str = "replace",
    replacement_char: int = 65533,
    replace_control_characters: bool = False,
    name: str | None = None,
) -> Any:
    """Each string as its Unicode code points (int32)."""
    if isinstance(input, RaggedTensor):
        return input.with_flat_values(unicode_decode(input.flat_values, input_encoding, errors, replacement_char))
    t = string_input(input, "UnicodeDecode")
    _codec(input_encoding)
    values, splits = bind(
        UnicodeDecode, t, input_encoding=input_encoding, errors=errors, replacement_char=replacement_char
    )
    return _as_ragged(values, splits, t)


def _encode_kernel(values: Any, splits: Any, output_encoding: str) -> np.ndarray:
    codec = _codec(output_encoding, "UnicodeEncode")
    chars = "".join(
        chr(int(c)) if 0 <= int(c) <= 0x10FFFF and not 0xD800 <= int(c) <= 0xDFFF else "\ufffd"
        for c in np.asarray(values).reshape(-1)
    )
    out = np.empty(len(splits) - 1, dtype=object)
    for i in range(len(splits) - 1):
        out[i] = chars[int(splits[i]) : int(splits[i + 1])].encode(codec)
    return out


UnicodeEncode = Op(
    "UnicodeEncode",
    _encode_kernel,
    shape=lambda s, t, a: [(TensorShape([None if s[1][0] is None else s[1][0] - 1]), dtypes.string)],
)


def unicode_encode(
    input: Any, output_encoding: str, errors: str = "replace", replacement_char: int = 65533, name: str | None = None
) -> Tensor | RaggedTensor:
    """Code points back to strings: a vector of code points gives one string, a ragged batch one per row."""
    _codec(output_encoding, "UnicodeEncode")
    if isinstance(input, RaggedTensor):
        if isinstance(input.values, RaggedTensor):
            return input.with_values(unicode_encode(input.values, output_encoding, errors, replacement_char))
        return bind(UnicodeEncode, _code_points(input.values), input.row_splits, output_encoding=output_encoding)
    t = _code_points(convert_to_tensor(input, dtype_hint=dtypes.int32))
    if t.shape.rank == 1:
        splits = convert_to_tensor(np.array([0, t.shape[0]], dtype=np.int64)) if t.shape[0] is not None else None
        if splits is None:
            splits = concat([convert_to_tensor([0], dtypes.int64), shape(t, out_type=dtypes.int64)], 0)
        return reshape(bind(UnicodeEncode, t, splits, output_encoding=output_encoding), [])
    rows = RaggedTensor.from_tensor(t)
    encoded = bind(UnicodeEncode, rows.values, rows.row_splits, output_encoding=output_encoding)
    return reshape(encoded, list(t.shape[:-1]))


def _code_points(t: Tensor) -> Tensor:
    if t.dtype is not dtypes.int32:
        raise _wrong_dtype("UnicodeEncode", dtypes.int32, t.dtype)
    return t


# ---------------------------------------------------------------------------------------------------
# One string -> one value
# ---------------------------------------------------------------------------------------------------


def _length_kernel(x: Any, unit: str) -> Any:
    if unit == "UTF8_CHAR":
        return map_strings(lambda s: len(s.decode("utf-8", errors="replace")), x, np.int32)
    return map_strings(len, x, np.int32)


StringLength = Op("StringLength", _length_kernel, shape=lambda s, t, a: [(s[0], dtypes.int32)])


def length(input: Any, unit: str = "BYTE", name: str | None = None) -> Any:
    """Length of each string in bytes (unit="BYTE") or in Unicode characters (unit="UTF8_CHAR")."""
    if isinstance(input, RaggedTensor):
        return input.with_flat_values(length(input.flat_values, unit))
    if unit not in ("BYTE", "UTF8_CHAR"):
        raise bad_string_attr(
            "StringLength",
            "unit",
            unit,
            ("BYTE", "UTF8_CHAR"),
            'unit="BYTE" counts bytes, unit="UTF8_CHAR" counts characters.',
        )
    return bind(StringLength, string_input(input, "StringLength"), unit=unit)


_NUMBER_TYPES = frozenset({dtypes.float32, dtypes.float64, dtypes.int32, dtypes.int64})


def _to_number_kernel(x: Any, out_type: dtypes.DType) -> Any:
    def parse(s: bytes) -> Any:
        text = s.decode("utf-8", errors="replace").strip()
        try:
            if out_type.is_integer:
                value = int(text)
                info = np.iinfo(out_type._np)
                if not info.min <= value <= info.max:
                    raise ValueError(text)
                return value
            return float(text)
        except ValueError:
            raise invalid_argument(
                "StringToNumber",
                f"StringToNumberOp could not correctly convert string: "
                f"{s.decode('utf-8', errors='replace')}\nHint: every string must hold a number "
                f"of the requested out_type ({out_type.name}).",
            ) from None

    return map_strings(parse, x, out_type._np)


StringToNumber = Op("StringToNumber", _to_number_kernel, shape=_per_string)


def to_number(input: Any, out_type: Any = dtypes.float32, name: str | None = None) -> Any:
    """Parse each string as a number of `out_type` (float32 by default)."""
    if isinstance(input, RaggedTensor):
        return input.with_flat_values(to_number(input.flat_values, out_type))
    out_type = dtypes.as_dtype(out_type)
    if out_type not in _NUMBER_TYPES:
        raise _bad_attr(
            "StringToNumber",
            "out_type",
            {"float32": "float", "float64": "double"}.get(out_type.name, out_type.name),
            "float, double, int32, int64",
        )
    return bind(StringToNumber, string_input(input, "StringToNumber"), out_type=out_type)


def _case_kernel(upper: bool) -> Callable[..., Any]:
    def kernel(x: Any, encoding: str) -> Any:
        if encoding == "utf-8":
            return map_strings(lambda s: (s.decode().upper() if upper else s.decode().lower()).encode(), x)
        return map_strings(lambda s: s.upper() if upper else s.lower(), x)  # ASCII letters only, as TensorFlow

    return kernel


StringLower = Op("StringLower", _case_kernel(upper=False), shape=shape_rules.same_as_first)
StringUpper = Op("StringUpper", _case_kernel(upper=True), shape=shape_rules.same_as_first)


def lower(input: Any, encoding: str = "", name: str | None = None) -> Any:
    """Lower-case letters (ASCII only, unless encoding="utf-8")."""
    if isinstance(input, RaggedTensor):
        return input.with_flat_values(lower(input.flat_values, encoding))
    return bind(StringLower, string_input(input, "StringLower"), encoding=encoding.lower())


def upper(input: Any, encoding: str = "", name: str | None = None) -> Any:
    """Upper-case letters (ASCII only, unless encoding="utf-8")."""
    if isinstance(input, RaggedTensor):
        return input.with_flat_values(upper(input.flat_values, encoding))
    return bind(StringUpper, string_input(input, "StringUpper"), encoding=encoding.lower())
