"""More of `tf.sparse`, composed of the SparseTensor's component tensors: concat (indices shifted along the
axis, then put in row-major order), slice (the entries inside the window, shifted to its corner) and
reduce_max (over the stored values only: an empty group is 0, as in TensorFlow)."""

from __future__ import annotations

from typing import Any

import numpy as np

from minitf.composite.sparse import SparseTensor, reorder, sparse_input, to_dense
from minitf.core import dtypes
from minitf.core.conversion import convert_to_tensor, static_value
from minitf.core.errors import InvalidArgumentError, op_error
from minitf.core.tensor import Tensor
from minitf.ops.array.creation import ones_like, zeros_like
from minitf.ops.array.gather_scatter import boolean_mask
from minitf.ops.array.join_split import concat as dense_concat
from minitf.ops.array.where import where
from minitf.ops.math import reductions
from minitf.ops.math.binary_math import maximum, minimum
from minitf.ops.math.cast import cast
from minitf.ops.math.comparisons import greater, greater_equal, less, logical_and
from minitf.ops.math.reductions import reduce_all, reduce_sum


def concat(axis: int, sp_inputs: list[Any], expand_nonconcat_dims: bool = False, name: str | None = None) -> Any:
    """The SparseTensors side by side along `axis` (other dimensions equal, or grown to the largest with
    expand_nonconcat_dims)."""
    inputs = [sparse_input(sp, "tf.sparse.concat") for sp in sp_inputs]
    rank = inputs[0].shape.rank
    if rank is None:
        raise ValueError("tf.sparse.concat needs the rank of its inputs while tracing.")
    axis = int(axis) % rank
    shapes = [sp.dense_shape for sp in inputs]
    known = [static_value(s) for s in shapes]
    if not expand_nonconcat_dims and all(k is not None for k in known):
        for position, k in enumerate(known[1:], start=1):
            for d in range(len(k)):
                if d != axis and int(k[d]) != int(known[0][d]):
                    raise op_error(
                        InvalidArgumentError,
                        "SparseConcat",
                        f"Input shapes must match: expected "
                        f"{int(known[0][d])} for dimension {d} but got {int(k[d])} at position {position}",
                        "only the concatenation axis may differ, unless expand_nonconcat_dims=True.",
                    )
    one_hot = convert_to_tensor(np.eye(rank, dtype=np.int64)[axis])
    offset = convert_to_tensor(np.int64(0))
    moved = []
    for sp in inputs:
        moved.append(sp.indices + offset * one_hot)
        offset = offset + sp.dense_shape[axis]
    largest = shapes[0]
    for s in shapes[1:]:
        largest = maximum(largest, s)
    dense_shape = largest * (1 - one_hot) + offset * one_hot
    values = dense_concat([sp.values for sp in inputs], axis=0)
    return reorder(SparseTensor(dense_concat(moved, axis=0), values, dense_shape))


def slice(sp_input: Any, start: Any, size: Any, name: str | None = None) -> Any:
    """The entries inside the window [start, start + size), with indices relative to `start`."""
    sp = sparse_input(sp_input, "tf.sparse.slice")
    begin = cast(convert_to_tensor(start), dtypes.int64)
    extent = cast(convert_to_tensor(size), dtypes.int64)
    end = begin + extent
    inside = reduce_all(logical_and(greater_equal(sp.indices, begin), less(sp.indices, end)), axis=1)
    indices = boolean_mask(sp.indices, inside) - begin
    values = boolean_mask(sp.values, inside)
    dense_shape = minimum(extent, maximum(sp.dense_shape - begin, zeros_like(begin)))
    return SparseTensor(indices, values, dense_shape)


def reduce_max(
    sp_input: Any, axis: Any = None, keepdims: Any = None, output_is_sparse: bool = False, name: str | None = None
) -> Tensor:
    """The largest stored value over `axis` (all by default); the missing entries are not compared, and a group
    without stored values gives 0."""
    sp = sparse_input(sp_input, "tf.sparse.reduce_max")
    if output_is_sparse:
        raise NotImplementedError(
            "minitf's tf.sparse.reduce_max gives dense results only.\nHint: leave "
            "output_is_sparse=False, or wrap the result in tf.sparse.from_dense."
        )
    dtype = sp.values.dtype
    info = np.finfo(dtype._np) if dtype.is_floating else np.iinfo(dtype._np)
    lowest = convert_to_tensor(info.min, dtype=dtype)
    filled = to_dense(sp, default_value=lowest)
    stored = to_dense(SparseTensor(sp.indices, ones_like(sp.values, dtype=dtypes.int32), sp.dense_shape))
    keep = bool(keepdims)
    best = reductions.reduce_max(filled, axis, keepdims=keep)
    counts = reduce_sum(stored, axis, keepdims=keep)
    return where(greater(counts, zeros_like(counts)), best, zeros_like(best))
