"""`tf.strings.join` and `tf.strings.reduce_join`: many strings made one, elementwise across tensors or along axes,
with a separator between them (string_tensors.py has the string tensors' common checks)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from minitf.core import dtypes, shape_rules
from minitf.core.context import state
from minitf.core.dispatch import api_handler
from minitf.core.errors import (
    InvalidArgumentError,
    OutOfRangeError,
    graph_build_error,
    op_error,
)
from minitf.core.op import Op, bind
from minitf.core.tensor import Tensor
from minitf.core.tensor_shape import TensorShape
from minitf.ops.strings.string_tensors import string_input

# ---------------------------------------------------------------------------------------------------
# Many strings -> one: join, reduce_join
# ---------------------------------------------------------------------------------------------------


def _join_kernel(*inputs: Any, separator: bytes) -> Any:
    arrays: Any = np.broadcast_arrays(*[np.asarray(x, dtype=object) for x in inputs])  # of bytes
    out = np.empty(arrays[0].shape, dtype=object)
    for index in np.ndindex(out.shape):
        out[index] = separator.join(a[index] for a in arrays)
    return out


def _join_shape(shapes_: Sequence[TensorShape], types: Any, attrs: dict) -> list[shape_rules.Spec]:
    shape = shapes_[0]
    for other in shapes_[1:]:
        shape = shape_rules.broadcast_shapes(shape, other)
    return [(shape, dtypes.string)]


def _join_explain(inputs: Any, attrs: dict, exc: Exception) -> str:
    return (
        "Input shapes do not match: "
        + " vs. ".join(str(list(t.shape)) for t in inputs)
        + "\nHint: tf.strings.join joins strings elementwise; the inputs must have one shape (or be scalars)."
    )


StringJoin = Op("StringJoin", _join_kernel, shape=_join_shape, explain=_join_explain)


def join(inputs: Sequence[Any], separator: str = "", name: str | None = None) -> Tensor:
    """Elementwise concatenation of the strings of several tensors, with `separator` between them."""
    if (handler := api_handler(join, *inputs)) is not None:  # a composite value (minitf/core/dispatch.py)
        return handler(inputs, separator)
    tensors = [string_input(x, "StringJoin") for x in inputs]
    sep = separator.encode() if isinstance(separator, str) else separator
    return bind(StringJoin, *tensors, separator=sep)


def _reduce_join_axes(axis: tuple[int, ...], rank: int) -> tuple[int, ...]:
    """The axes listed in `axis`, counted from 0, checked as TensorFlow's kernel checks them (the rank of an
    input traced with an unknown rank is known only when the graph runs)."""
    seen: set[int] = set()
    for a in axis:
        if not -rank <= a < rank:
            raise op_error(
                OutOfRangeError,
                "ReduceJoin",
                f"Invalid reduction dimension {a} for input with {rank} dimension(s)",
                hint=f"axis must be in [-{rank}, {rank}).",
                kernel=True,
            )
        if a % rank in seen:
            raise op_error(
                InvalidArgumentError,
                "ReduceJoin",
                f"Duplicate reduction dimension {a}",
                hint="list each axis once.",
                kernel=True,
            )
        seen.add(a % rank)
    return tuple(sorted(seen))


def _reduce_join_kernel(x: Any, axis: tuple[int, ...] | None, keepdims: bool, separator: bytes) -> Any:
    a = np.asarray(x, dtype=object)
    axes = tuple(range(a.ndim)) if axis is None else _reduce_join_axes(axis, a.ndim)
    moved = np.moveaxis(a, axes, tuple(range(a.ndim - len(axes), a.ndim)))
    kept = moved.shape[: a.ndim - len(axes)]
    flat = moved.reshape(kept + (-1,))
    out = np.empty(kept, dtype=object)
    for index in np.ndindex(kept):
        out[index] = separator.join(flat[index])
    if keepdims:
        out = out.reshape([1 if i in axes else d for i, d in enumerate(a.shape)])
    return out


def _reduce_join_shape(shapes_: Sequence[TensorShape], types: Any, attrs: dict) -> list[shape_rules.Spec]:
    source, axis = shapes_[0], attrs["axis"]
    if source.rank is None:  # (even with every axis: TensorFlow reads them from a Range of the Rank then)
        return [(TensorShape(None), dtypes.string)]
    rank = source.rank
    axes = None if axis is None else tuple(sorted({a % rank for a in axis})) if rank else ()
    return [(shape_rules.reduced_shape(source, axes, attrs["keepdims"]), dtypes.string)]


ReduceJoin = Op("ReduceJoin", _reduce_join_kernel, shape=_reduce_join_shape)


def reduce_join(
    inputs: Any, axis: Any = None, keepdims: bool = False, separator: str = "", name: str | None = None
) -> Tensor:
    """Join the strings along `axis` (all of them by default) into fewer strings."""
    t = string_input(inputs, "ReduceJoin")
    rank = t.shape.rank
    axes = None
    if axis is not None:
        axes = tuple(int(a) for a in (axis if isinstance(axis, list | tuple) else [axis]))
        for a in axes:  # TensorFlow's shape function reads the axes when the rank is known
            if rank is not None and not -rank <= a < rank and state.graph is not None:
                raise graph_build_error(
                    "ReduceJoin",
                    f"Invalid reduction dimension {a} for input with {rank} dimensions.",
                    f"axis must be in [-{rank}, {rank}).",
                )
    sep = separator.encode() if isinstance(separator, str) else separator
    return bind(ReduceJoin, t, axis=axes, keepdims=keepdims, separator=sep)
