"""`tf.io.serialize_tensor` / `tf.io.parse_tensor`: a tensor as TensorFlow's TensorProto bytes.

A TensorProto holds the dtype (TensorFlow's enum number, field 1), the shape (field 2: one `dim` message per
axis, each with its `size`), and the values: numbers as their raw little-endian bytes (`tensor_content`, field
4), strings one by one (`string_val`, field 8). Both are ops, so they also run inside a `tf.function`.
"""

from __future__ import annotations

import base64
from typing import Any

import numpy as np

from minitf.core import dtypes
from minitf.core.conversion import convert_to_tensor
from minitf.core.errors import InvalidArgumentError, kernel_prefix, op_error
from minitf.core.op import Op, bind
from minitf.core.tensor import Tensor
from minitf.core.tensor_shape import TensorShape
from minitf.io import wire

# TensorFlow's DataType enum (types.proto)
DTYPE_NUMBERS = {
    "float32": 1,
    "float64": 2,
    "int32": 3,
    "uint8": 4,
    "int16": 5,
    "int8": 6,
    "string": 7,
    "complex64": 8,
    "int64": 9,
    "bool": 10,
    "uint16": 17,
    "complex128": 18,
    "float16": 19,
    "uint32": 22,
    "uint64": 23,
}
_DTYPE_NAMES = {number: name for name, number in DTYPE_NUMBERS.items()}
# The typed value fields older writers use instead of tensor_content: field number -> how to read one value.
_TYPED_FIELDS = {5: "f", 6: "d", 7: "varint", 10: "varint", 11: "varint", 13: "varint"}


def tensor_proto_bytes(array: np.ndarray, dtype: dtypes.DType) -> bytes:
    shape = b"".join(wire.length_delimited(2, wire.varint_field(1, d) if d else b"") for d in array.shape)
    out = wire.varint_field(1, DTYPE_NUMBERS[dtype.name]) + wire.length_delimited(2, shape)
    if dtype is dtypes.string:
        return out + b"".join(wire.length_delimited(8, bytes(v)) for v in array.reshape(-1))
    content = np.ascontiguousarray(array, dtype=dtype._np.newbyteorder("<")).tobytes()
    return out + (wire.length_delimited(4, content) if content else b"")


def parse_tensor_proto(data: bytes, op_name: str = "ParseTensor") -> tuple[np.ndarray, dtypes.DType]:
    """The array and dtype a TensorProto holds."""
    try:
        number, dims, content, strings, typed = 0, [], None, [], []
        for field, wire_type, value in wire.fields(data):
            if field == 1:
                number = value  # type: ignore[assignment]
            elif field == 2:
                for f, _, dim in wire.fields(value):  # type: ignore[arg-type]
                    if f == 2:
                        sizes = [s for n, _, s in wire.fields(dim) if n == 1]  # type: ignore[arg-type]
                        dims.append(int(sizes[-1]) if sizes else 0)
            elif field == 4:
                content = value
            elif field == 8:
                strings.append(bytes(value))
            elif field in _TYPED_FIELDS:
                typed += _typed_values(_TYPED_FIELDS[field], wire_type, value)
        dtype = dtypes.as_dtype(_DTYPE_NAMES[number])
    except (ValueError, KeyError):
        encoded = base64.b64encode(bytes(data)).decode()
        raise InvalidArgumentError(
            None,
            None,
            f"{kernel_prefix(op_name)}Could not parse `serialized` as TensorProto, "
            f"base64: {encoded} [Op:{op_name}]\nHint: pass bytes made by "
            "tf.io.serialize_tensor.",
        ) from None
    count = int(np.prod(dims))
    if dtype is dtypes.string:
        flat = np.array(strings or [b""] * count, dtype=object)
    elif content is not None:
        flat = np.frombuffer(content, dtype=dtype._np.newbyteorder("<")).astype(dtype._np)  # type: ignore[arg-type]
    else:
        flat = np.array(typed or [0] * count).astype(dtype._np)
    if flat.size == 1 and count != 1:  # one typed value fills the tensor, as TensorFlow reads it
        flat = np.full(count, flat[0], dtype=flat.dtype)
    return flat.reshape(dims), dtype


def _typed_values(kind: str, wire_type: int, value: Any) -> list:
    if kind == "varint":
        return wire.packed_varints(value) if wire_type == wire.BYTES else [wire.signed64(value)]
    return list(np.frombuffer(value, dtype="<" + kind))


def _serialize_kernel(x: np.ndarray, *, dtype: dtypes.DType) -> np.ndarray:
    return np.array(tensor_proto_bytes(np.asarray(x), dtype), dtype=object)


def _parse_kernel(serialized: np.ndarray, *, out_type: dtypes.DType) -> np.ndarray:
    array, dtype = parse_tensor_proto(np.asarray(serialized, dtype=object).item())
    if dtype is not out_type:
        raise op_error(
            InvalidArgumentError,
            "ParseTensor",
            f"Type mismatch between parsed tensor ({_proto_name(dtype)}) and dtype ({_proto_name(out_type)})",
            f"parse with out_type=tf.{dtype.name}.",
            kernel=True,
        )
    return array


def _proto_name(dtype: dtypes.DType) -> str:
    return {"float32": "float", "float64": "double"}.get(dtype.name, dtype.name)


SerializeTensor = Op("SerializeTensor", _serialize_kernel, shape=lambda s, t, a: [(TensorShape([]), dtypes.string)])
ParseTensor = Op("ParseTensor", _parse_kernel, shape=lambda s, t, a: [(TensorShape(None), a["out_type"])])


def serialize_tensor(tensor: Any, name: str | None = None) -> Tensor:
    """The tensor as a scalar string holding its TensorProto bytes."""
    tensor = convert_to_tensor(tensor)
    return bind(SerializeTensor, tensor, dtype=tensor.dtype)


def parse_tensor(serialized: Any, out_type: Any, name: str | None = None) -> Tensor:
    """The tensor whose TensorProto bytes `serialized` holds; `out_type` must be its dtype."""
    return bind(ParseTensor, convert_to_tensor(serialized, dtype=dtypes.string), out_type=dtypes.as_dtype(out_type))
