"""Positions: unravel_index (flat positions to coordinates), roll, repeat, meshgrid and invert_permutation.

`UnravelIndex` and `Roll` are primitives, as in TensorFlow; `repeat`, `meshgrid` and `invert_permutation` are
compositions, so their gradients come from the primitives' rules.
"""

from __future__ import annotations

import builtins
from collections.abc import Sequence
from typing import Any

import numpy as np

from minitf.core import dtypes
from minitf.core.conversion import convert_to_tensor
from minitf.core.errors import InvalidArgumentError, allowed_dtypes, dims_text
from minitf.core.op import Op, bind
from minitf.core.tensor import Tensor
from minitf.core.tensor_shape import TensorShape
from minitf.ops.array.creation import constant, ones
from minitf.ops.array.creation import range as range_
from minitf.ops.array.gather_scatter import gather, scatter_nd
from minitf.ops.array.index_arguments import INDEX_TYPES, index_tensor
from minitf.ops.array.shape_ops import expand_dims, normalise_axis, reshape, size, static_ints
from minitf.ops.array.where import where
from minitf.ops.math.unary_math import negative

Specs = list[tuple[TensorShape, dtypes.DType]]


# ---------------------------------------------------------------------------------------------------
# tf.slice
# ---------------------------------------------------------------------------------------------------


# ---------------------------------------------------------------------------------------------------
# tf.strided_slice: the masks turned into the index `x[...]` uses
# ---------------------------------------------------------------------------------------------------


# ---------------------------------------------------------------------------------------------------
# tf.gather_nd
# ---------------------------------------------------------------------------------------------------


# ---------------------------------------------------------------------------------------------------
# tf.gather with batch_dims: a gather_nd over the batch
# ---------------------------------------------------------------------------------------------------


# ---------------------------------------------------------------------------------------------------
# tf.scatter_nd and tf.tensor_scatter_nd_*
# ---------------------------------------------------------------------------------------------------


# ---------------------------------------------------------------------------------------------------
# tf.unravel_index
# ---------------------------------------------------------------------------------------------------


def _unravel_kernel(indices: np.ndarray, dims: np.ndarray) -> np.ndarray:
    size = int(np.prod(dims))
    if np.any((np.asarray(indices) < 0) | (np.asarray(indices) >= size)):
        raise InvalidArgumentError(
            None,
            None,
            f"index is out of bound as with dims [Op:UnravelIndex]\nHint: flat "
            f"indices into shape {dims_text(np.ravel(dims))} run from 0 to {size - 1}.",
        )
    return np.asarray(np.unravel_index(indices, tuple(int(d) for d in dims)), dtype=np.asarray(indices).dtype)


def _unravel_shape(shapes: Sequence[TensorShape], types: Sequence[dtypes.DType], attrs: dict) -> Specs:
    count = shapes[1][0] if shapes[1].rank == 1 else None
    if shapes[0].rank is None:
        return [(TensorShape(None), types[0])]
    return [(TensorShape([count] + shapes[0].as_list()), types[0])]


UnravelIndex = Op(
    "UnravelIndex",
    _unravel_kernel,
    shape=_unravel_shape,
    check=lambda i, a: allowed_dtypes("UnravelIndex", INDEX_TYPES, i[0].dtype),
)


def unravel_index(indices: Any, dims: Any, name: str | None = None) -> Tensor:
    """The coordinates in a tensor of shape `dims` of flat (row-major) positions: one row per dimension."""
    i = index_tensor(indices, "UnravelIndex")
    d = convert_to_tensor(dims, dtype=i.dtype) if not isinstance(dims, Tensor) else dims
    return bind(UnravelIndex, i, d)


# ---------------------------------------------------------------------------------------------------
# tf.roll
# ---------------------------------------------------------------------------------------------------


def _roll_kernel(x: np.ndarray, shift: np.ndarray, axis: np.ndarray) -> np.ndarray:
    shifts, axes = np.ravel(shift).tolist(), np.ravel(axis).tolist()
    if np.ndim(shift) != np.ndim(axis) or len(shifts) != len(axes):
        raise InvalidArgumentError(
            None, None, "shift and axis must have the same size [Op:Roll]\nHint: give one shift per listed axis."
        )
    for a in axes:
        if not -np.ndim(x) <= a < np.ndim(x):
            raise InvalidArgumentError(
                None, None, f"axis {a} is out of range [Op:Roll] name: \nHint: the input has {np.ndim(x)} dimensions."
            )
    return np.roll(x, shifts, axes) if axes else np.array(x, copy=True)


def _roll_shape(shapes_: Sequence[TensorShape], types: Sequence[dtypes.DType], attrs: dict) -> list:
    """The input's shape; TensorFlow's shape function also wants as many shifts as axes."""
    shift, axis = shapes_[1], shapes_[2]
    if shift.rank == 1 and axis.rank == 1 and None not in (shift[0], axis[0]) and shift[0] != axis[0]:
        raise ValueError(
            f"Dimension 0 in both shapes must be equal, but are {shift[0]} and {axis[0]}. Shapes are "
            f"[{shift[0]}] and [{axis[0]}].\nHint: give one shift per listed axis."
        )
    return [(shapes_[0], types[0])]


Roll: Op = Op(
    "Roll",
    _roll_kernel,
    shape=_roll_shape,
    grad=lambda c, g: [bind(Roll, g, negative(c.inputs[1]), c.inputs[2]), None, None],
)


def roll(input: Any, shift: Any, axis: Any, name: str | None = None) -> Tensor:
    """Shift the entries along `axis` by `shift` places, wrapping around at the end."""
    return bind(Roll, convert_to_tensor(input), index_tensor(shift, "Roll"), index_tensor(axis, "Roll"))


# ---------------------------------------------------------------------------------------------------
# tf.repeat and tf.meshgrid (compositions)
# ---------------------------------------------------------------------------------------------------


def repeat(input: Any, repeats: Any, axis: int | None = None, name: str | None = None) -> Tensor:
    """Repeat each entry (or slice along `axis`) `repeats` times; without an axis the input is flattened first."""
    x = convert_to_tensor(input)
    counts = static_ints(repeats, "repeats")
    if axis is None:
        x, axis = reshape(x, [-1]), 0
    rank = x.shape.rank or 0
    if not -builtins.max(rank, 1) <= int(axis) < builtins.max(rank, 1):  # checked in Python by TensorFlow
        raise ValueError(f"axis={axis} out of bounds: expected {-builtins.max(rank, 1)}<=axis<{builtins.max(rank, 1)}")
    axis = normalise_axis(axis, builtins.max(rank, 1), "Repeat")
    length = x.shape[axis] if rank else 1
    if length is None:
        raise ValueError("tf.repeat needs the size of `axis` to be known in this engine.")
    one_count = len(counts) == 1
    if one_count:
        counts = counts * length
    if len(counts) != length:
        raise ValueError(f"Dimensions {length} and {len(counts)} are not compatible")
    counts = [builtins.max(c, 0) for c in counts]  # TensorFlow reads a negative count as 0
    if one_count:  # the output's size along `axis` is known while tracing
        positions = constant(np.repeat(np.arange(length, dtype=np.int32), counts))
    else:
        # As in TensorFlow, a mask of the counts picks the positions: the size depends on values (None if traced).
        mask = np.arange(builtins.max(counts, default=0))[None, :] < np.asarray(counts)[:, None]
        positions = where(constant(mask))[:, 0]
    return gather(x, positions, axis=axis)


def meshgrid(*args: Any, **kwargs: Any) -> list[Tensor]:
    """Coordinate grids from 1-D coordinate vectors: 'xy' (default) swaps the first two output axes."""
    indexing = kwargs.pop("indexing", "xy")
    kwargs.pop("name", None)
    if kwargs:
        raise TypeError(f"Invalid keywords: {list(kwargs)}")
    if indexing not in ("xy", "ij"):
        raise ValueError(f"Argument `indexing` parameter must be either 'xy' or 'ij', got '{indexing}'")
    vectors = [reshape(convert_to_tensor(a), [-1]) for a in args]
    if not vectors:
        return []
    sizes = [v.shape[0] for v in vectors]
    if indexing == "xy" and len(vectors) > 1:
        sizes[0], sizes[1] = sizes[1], sizes[0]
    outputs = []
    for i, v in enumerate(vectors):
        where = 1 - i if indexing == "xy" and i < 2 and len(vectors) > 1 else i
        shape = [1] * len(vectors)
        shape[where] = -1
        outputs.append(reshape(v, shape))
    filled = ones(sizes, dtype=vectors[0].dtype)
    return [o * filled for o in outputs]


# ---------------------------------------------------------------------------------------------------
# Writing into a slice: `variable[key].assign(value)` computes the new value with this op
# ---------------------------------------------------------------------------------------------------


def invert_permutation(x: Any, name: str | None = None) -> Tensor:
    """y with y[x[i]] = i: the inverse of a permutation of 0 ... n-1."""
    p = convert_to_tensor(x)
    n = size(p, out_type=p.dtype)
    return scatter_nd(expand_dims(p, 1), range_(n, dtype=p.dtype), expand_dims(n, 0))
