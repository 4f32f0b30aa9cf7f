"""Broadcasting to a shape: `tf.broadcast_to`, and the shape two shapes broadcast to (`tf.broadcast_static_shape`,
`tf.broadcast_dynamic_shape`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from minitf.core import dtypes
from minitf.core.conversion import convert_to_tensor
from minitf.core.errors import InvalidArgumentError, OpError, dims_text, op_error, same_dtype
from minitf.core.op import Op, bind
from minitf.core.shape_rules import Spec, broadcast_shapes
from minitf.core.tensor import Tensor
from minitf.core.tensor_shape import TensorShape
from minitf.ops.array.shape_ops import static_ints
from minitf.ops.math.elementwise import unbroadcast


def _broadcast_to_kernel(x: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    hint = "aligned from the right, each size of the input must be 1 or the target's size."
    if any(d < 0 for d in shape):
        raise _broadcast_to_error(f"Dimension {min(shape)} must be >= 0", "a shape's sizes cannot be negative.")
    if np.ndim(x) > len(shape):
        raise _broadcast_to_error(
            f"Rank of input ({np.ndim(x)}) must be no greater than rank of output shape ({len(shape)}).", hint
        )
    if any(have not in (1, want) for have, want in zip(reversed(np.shape(x)), reversed(shape))):
        raise _broadcast_to_error(f"Incompatible shapes: {dims_text(np.shape(x))} vs. {dims_text(shape)}", hint)
    return np.broadcast_to(x, shape).copy()


def _broadcast_to_error(message: str, hint: str) -> OpError:
    return op_error(InvalidArgumentError, "BroadcastTo", message, hint, name=None)


def broadcast_to_rule(shapes: Sequence[TensorShape], types: Sequence[dtypes.DType], attrs: dict) -> list[Spec]:
    target = TensorShape(attrs["shape"])
    source = shapes[0]
    if source.rank is not None:
        if source.rank > len(attrs["shape"]):
            raise ValueError(
                f"Rank of input ({source.rank}) must be no greater than rank of output shape ({target.rank})."
            )
        for have, want in zip(reversed(list(source)), reversed(list(target))):
            if have not in (None, 1) and have != want:
                raise ValueError(f"Dimensions must be equal, but are {have} and {want}")
    return [(target, types[0])]


BroadcastTo = Op(
    "BroadcastTo",
    _broadcast_to_kernel,
    shape=broadcast_to_rule,
    grad=lambda c, g: [unbroadcast(g, c.x)],
)


def broadcast_to(input: Any, shape: Any, name: str | None = None) -> Tensor:
    return bind(BroadcastTo, convert_to_tensor(input), shape=tuple(static_ints(shape, "shape")))


# tf.broadcast_static_shape and tf.broadcast_dynamic_shape: the shape two shapes broadcast to


def broadcast_static_shape(shape_x: Any, shape_y: Any) -> TensorShape:
    """The shape two static shapes broadcast to; ValueError if they cannot."""
    x, y = TensorShape(shape_x), TensorShape(shape_y)
    try:
        return broadcast_shapes(x, y)
    except ValueError:
        raise ValueError(
            f"Incompatible shapes for broadcasting. Two shapes are compatible if for each dimension "
            f"pair they are either equal or one of them is 1. Received: {x} and {y}."
        ) from None


def _broadcast_args_kernel(s0: np.ndarray, s1: np.ndarray) -> np.ndarray:
    try:
        return np.asarray(np.broadcast_shapes(tuple(int(v) for v in s0), tuple(int(v) for v in s1)), dtype=s0.dtype)
    except ValueError:
        raise op_error(
            InvalidArgumentError,
            "BroadcastArgs",
            f"Incompatible shapes: [{','.join(map(str, s0))}] vs. [{','.join(map(str, s1))}]",
        ) from None


def _broadcast_args_shape(shapes_: Any, types: Any, attrs: dict) -> list:
    a, b = (s[0] if s.rank == 1 else None for s in shapes_)
    return [(TensorShape([None if a is None or b is None else max(a, b)]), types[0])]


BroadcastArgs = Op(
    "BroadcastArgs",
    _broadcast_args_kernel,
    shape=_broadcast_args_shape,
    check=lambda i, a: same_dtype("BroadcastArgs", i),
)


def broadcast_dynamic_shape(shape_x: Any, shape_y: Any) -> Tensor:
    """The shape (a 1-D int tensor) two shapes broadcast to, computed when the graph runs."""
    x = convert_to_tensor(shape_x, dtype_hint=dtypes.int32)
    y = convert_to_tensor(shape_y, dtype=x.dtype)
    return bind(BroadcastArgs, x, y)
