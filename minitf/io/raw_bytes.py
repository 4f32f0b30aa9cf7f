"""`tf.io.decode_raw`: the bytes of each string read as numbers of one dtype (what `np.frombuffer` does).

Every string gives one row of numbers, so the output has the input's shape plus one axis. TensorFlow's op
`DecodeRaw` needs all strings to be the same length; with `fixed_length` the op is `DecodePaddedRaw`, which
cuts or zero-pads each string to that many bytes first.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from minitf.core import dtypes
from minitf.core.context import state
from minitf.core.conversion import convert_to_tensor
from minitf.core.errors import InvalidArgumentError, op_error, tf_type_name
from minitf.core.op import Op, bind
from minitf.core.tensor import Tensor
from minitf.core.tensor_shape import TensorShape

# DecodeRaw's `out_type` attr, in TensorFlow's order for its message (bfloat16 has no NumPy dtype here)
OUT_TYPES = ["float16", "float32", "float64", "int32", "uint16", "uint8", "int16", "int8", "int64"]
OUT_TYPES += ["complex64", "complex128", "bool"]


def _numbers(data: bytes, dtype: dtypes.DType, little_endian: bool) -> np.ndarray:
    byte_order = "<" if little_endian else ">"
    return np.frombuffer(data, dtype=dtype._np.newbyteorder(byte_order)).astype(dtype._np)


def _decode_kernel(strings: np.ndarray, *, out_type: dtypes.DType, little_endian: bool) -> np.ndarray:
    flat = [bytes(s) for s in np.asarray(strings, dtype=object).reshape(-1)]
    size = out_type._np.itemsize
    length = len(flat[0]) if flat else 0
    for index, data in enumerate(flat):
        if len(data) != length:
            raise op_error(
                InvalidArgumentError,
                "DecodeRaw",
                "DecodeRaw requires input strings to all be the same size, but element "
                f"{index} has size {length} != {len(data)}",
                "pass fixed_length=n to cut or zero-pad every string to n bytes.",
                kernel=True,
            )
    if length % size:
        raise op_error(
            InvalidArgumentError,
            "DecodeRaw",
            f"Input to DecodeRaw has length {length} that is not a multiple of {size}, the size of "
            f"{tf_type_name(out_type)}",
            f"each number takes {size} bytes: the strings' length must be a multiple of it.",
            kernel=True,
        )
    rows = [_numbers(data, out_type, little_endian) for data in flat]
    numbers = np.stack(rows) if rows else np.zeros((0, length // size), dtype=out_type._np)
    return numbers.reshape(np.shape(strings) + (length // size,))


def _padded_kernel(
    strings: np.ndarray, *, out_type: dtypes.DType, little_endian: bool, fixed_length: int
) -> np.ndarray:
    size = out_type._np.itemsize
    padded = [bytes(s)[:fixed_length].ljust(fixed_length, b"\0") for s in np.asarray(strings, dtype=object).flat]
    rows = [_numbers(data, out_type, little_endian) for data in padded]
    numbers = np.stack(rows) if rows else np.zeros((0, fixed_length // size), dtype=out_type._np)
    return numbers.reshape(np.shape(strings) + (fixed_length // size,))


def _decoded_shape(shapes: Any, types: Any, attrs: dict) -> list[tuple[TensorShape, dtypes.DType]]:
    """The strings' shape plus one axis: its length is known only from `fixed_length`."""
    source = shapes[0]
    last = attrs["fixed_length"] // attrs["out_type"]._np.itemsize if "fixed_length" in attrs else None
    dims = None if source.rank is None else [*source.as_list(), last]
    return [(TensorShape(dims), attrs["out_type"])]


DecodeRaw = Op("DecodeRaw", _decode_kernel, shape=_decoded_shape)
DecodePaddedRaw = Op("DecodePaddedRaw", _padded_kernel, shape=_decoded_shape)


def decode_raw(
    input_bytes: Any,
    out_type: Any,
    little_endian: bool = True,
    fixed_length: int | None = None,
    name: str | None = None,
) -> Tensor:
    """The bytes of each string as numbers of `out_type` (one more axis than the input)."""
    out_type = dtypes.as_dtype(out_type)
    op_name = "DecodeRaw" if fixed_length is None else "DecodePaddedRaw"
    if out_type.name not in OUT_TYPES:
        allowed = ", ".join(tf_type_name(dtypes.as_dtype(t)) for t in OUT_TYPES) + ", bfloat16"
        raise InvalidArgumentError(
            None,
            None,
            f"Value for attr 'out_type' of {tf_type_name(out_type)} is not in the list of allowed values: "
            f"{allowed}\n\t; NodeDef: {{{{node {op_name}}}}}; Op<name={op_name}> [Op:{op_name}] name: \n"
            "Hint: decode_raw reads numbers; to keep the bytes as strings use tf.strings.bytes_split.",
        )
    strings = convert_to_tensor(input_bytes, dtype=dtypes.string)
    if fixed_length is None:
        return bind(DecodeRaw, strings, out_type=out_type, little_endian=bool(little_endian))
    size = out_type._np.itemsize
    if fixed_length % size:
        hint = f"choose a fixed_length divisible by {size}."
        if state.graph is not None:  # found while the graph is built, from the constant fixed_length
            message = f"Dimension size must be evenly divisible by {size} but is {fixed_length}"
            raise ValueError(f"{message} for '{{{{node DecodePaddedRaw}}}}'.\nHint: {hint}")
        message = f"fixed_length ({fixed_length}) must be a multiple of the size of out_type ({size})"
        raise op_error(InvalidArgumentError, "DecodePaddedRaw", message, hint, kernel=True)
    return bind(
        DecodePaddedRaw, strings, out_type=out_type, little_endian=bool(little_endian), fixed_length=int(fixed_length)
    )
