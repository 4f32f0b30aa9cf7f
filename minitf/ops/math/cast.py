"""`tf.cast`: a tensor's values in another dtype (floats to ints truncate toward zero, narrowing ints wrap
around, complex to real keeps the real part), as TensorFlow's `Cast` op converts them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from minitf.core import dtypes
from minitf.core.conversion import convert_to_tensor
from minitf.core.dispatch import elementwise_handler
from minitf.core.errors import InvalidArgumentError, UnimplementedError, allowed_dtypes, kernel_prefix, tf_type_name
from minitf.core.op import GradContext, Op, bind
from minitf.core.shape_rules import Spec
from minitf.core.tensor import Tensor
from minitf.core.tensor_shape import TensorShape


def _cast_kernel(x: Any, DstT: dtypes.DType) -> Any:
    if x.dtype.kind == "c" and DstT._np.kind != "c":
        x = np.real(x)
    return np.asarray(x).astype(DstT._np)[()]


def _cast_grad(c: GradContext, g: Tensor) -> list:
    src = c.x.dtype
    if not (src.is_floating or src.is_complex) or not (g.dtype.is_floating or g.dtype.is_complex):
        return [None]
    return [cast(g, src)]


def cast_rule(shapes: Sequence[TensorShape], types: Sequence[dtypes.DType], attrs: dict) -> list[Spec]:
    return [(shapes[0], attrs["DstT"])]


Cast = Op("Cast", _cast_kernel, shape=cast_rule, grad=_cast_grad)


def cast(x: Any, dtype: Any, name: str | None = None) -> Tensor:
    """Convert to `dtype`: floats to ints truncate toward zero, narrowing ints wrap around."""
    dtype = dtypes.as_dtype(dtype)
    if not isinstance(x, Tensor) and (handler := elementwise_handler(x, api=cast)) is not None:
        return handler(cast, x, dtype)
    x = x if isinstance(x, Tensor) else convert_to_tensor(x)
    if x.dtype is dtype:
        return x
    if (x.dtype is dtypes.string) != (dtype is dtypes.string):
        raise UnimplementedError(
            None,
            None,
            f"{kernel_prefix('Cast')}Cast {tf_type_name(x.dtype)} to {tf_type_name(dtype)} is not supported "
            "[Op:Cast] name: \nHint: text and numbers do not convert into each other with tf.cast; "
            "tf.strings.to_number and tf.strings.as_string do.",
        )
    return bind(Cast, x, DstT=dtype)


# tf.bitcast: the same bytes read as another dtype

# TensorFlow's DataType numbers, which its bitcast error message shows.
_ENUM = {
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


def _bitcast_sizes(x_shape: Sequence[Any], source: dtypes.DType, target: dtypes.DType) -> list[Any]:
    """The output shape: a wider type eats the last dimension (which must hold the ratio), a narrower adds one."""
    a, b = source.size, target.size
    if a == b:
        return list(x_shape)
    if a > b:
        return list(x_shape) + [a // b]
    if not x_shape or x_shape[-1] not in (b // a, None):
        raise InvalidArgumentError(
            None,
            None,
            f"Cannot bitcast from {_ENUM[source.name]} to {_ENUM[target.name]} "
            f"[Op:Bitcast]\nHint: {source.name} to {target.name} needs a last dimension of "
            f"{b // a} (the bytes of one {target.name}).",
        )
    return list(x_shape[:-1])


def _bitcast_kernel(x: np.ndarray, type: dtypes.DType) -> np.ndarray:
    source = dtypes.from_numpy(np.asarray(x).dtype)
    shape = _bitcast_sizes(np.shape(x), source, type)
    return np.ascontiguousarray(x).view(type._np).reshape(shape)


def _bitcast_shape(shapes: Sequence[TensorShape], types: Sequence[dtypes.DType], attrs: dict) -> list[Spec]:
    if shapes[0].rank is None:
        return [(TensorShape(None), attrs["type"])]
    return [(TensorShape(_bitcast_sizes(shapes[0].as_list(), types[0], attrs["type"])), attrs["type"])]


_BITCASTABLE = dtypes.NUMERIC


def _bitcast_check(inputs: Sequence[Tensor], attrs: dict) -> None:
    if inputs[0].dtype not in _BITCASTABLE:
        allowed_dtypes("Bitcast", _BITCASTABLE, inputs[0].dtype)


Bitcast = Op("Bitcast", _bitcast_kernel, check=_bitcast_check, shape=_bitcast_shape)


def bitcast(input: Any, type: Any, name: str | None = None) -> Tensor:
    """The same bytes read as another dtype (no conversion: 1.0 as int32 is 1065353216)."""
    target = dtypes.as_dtype(type)
    if target not in _BITCASTABLE:
        allowed_dtypes("Bitcast", _BITCASTABLE, target)
    return bind(Bitcast, convert_to_tensor(input), type=target)
