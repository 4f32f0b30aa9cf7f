"""`tf.cast`: a tensor's values in another dtype (floats to ints truncate toward zero, narrowing ints wrap
around, complex to real keeps the real part), as TensorFlow's `Cast` op converts them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from minitf.core import dtypes
from minitf.core.conversion import convert_to_tensor
from minitf.core.errors import UnimplementedError
from minitf.core.op import Op, bind
from minitf.core.shape_rules import Spec
from minitf.core.tensor import Tensor
from minitf.core.tensor_shape import TensorShape


def _cast_kernel(x: Any, DstT: dtypes.DType) -> Any:
    if x.dtype.kind == "c" and DstT._np.kind != "c":
        x = np.real(x)
    return np.asarray(x).astype(DstT._np)[()]


def _cast_grad(c: Any, g: Tensor) -> list:
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
    x = x if isinstance(x, Tensor) else convert_to_tensor(x)
    if x.dtype is dtype:
        return x
    if (x.dtype is dtypes.string) != (dtype is dtypes.string):
        raise UnimplementedError(None, None, f"Cast {x.dtype.name} to {dtype.name} is not supported [Op:Cast] "
                                 "name: \nHint: text and numbers do not convert into each other with tf.cast.")
    return bind(Cast, x, DstT=dtype)
