"""Picking and placing values by index: gather (with `batch_dims`), boolean_mask, gather_nd, scatter_nd and
tensor_scatter_nd_*.

`GatherV2`, `GatherNd`, `ScatterNd` and the `TensorScatter*` ops are primitives, as in TensorFlow; a batched
gather and boolean_mask are compositions of them, so their gradients come from the primitives' rules.
"""

from __future__ import annotations

import builtins
import typing
from collections.abc import Sequence
from typing import Any

import numpy as np

from minitf.composite.indexed_slices import gather_gradient
from minitf.core import dtypes, shape_rules
from minitf.core.conversion import convert_to_tensor
from minitf.core.dispatch import api_handler
from minitf.core.errors import InvalidArgumentError, allowed_dtypes, dims_text, dtype_mismatch, kernel_prefix
from minitf.core.op import GradContext, Op, bind
from minitf.core.shape_rules import Spec
from minitf.core.tensor import Tensor
from minitf.core.tensor_shape import TensorShape
from minitf.ops.array.creation import constant, zeros_like
from minitf.ops.array.index_arguments import INDEX_TYPES, at_graph_build, index_tensor, known_ints
from minitf.ops.array.join_split import concat
from minitf.ops.array.nd_indices import check_depth, check_updates, known_dims, nd_positions, place
from minitf.ops.array.shape_ops import expand_dims, normalise_axis, reshape, shape, transpose
from minitf.ops.array.where import where
from minitf.ops.math.cast import cast
from minitf.ops.math.comparisons import equal
from minitf.ops.math.unary_math import negative

Specs = list[shape_rules.Spec]


def _gather_kernel(params: np.ndarray, indices: np.ndarray, axis: int, batch_dims: int) -> np.ndarray:
    n = np.shape(params)[axis]
    shape = np.shape(params)[:axis] + np.shape(indices) + np.shape(params)[axis + 1 :]
    if 0 in shape:  # nothing to gather: TensorFlow does not look at the indices
        return np.zeros(shape, dtype=params.dtype)
    flat = np.ravel(indices)
    bad = np.flatnonzero((flat < 0) | (flat >= n))
    if bad.size:
        i = int(bad[0])
        where = ",".join(str(int(v)) for v in np.unravel_index(i, np.shape(indices))) if np.ndim(indices) else ""
        raise InvalidArgumentError(
            None,
            None,
            f"{kernel_prefix('GatherV2')}indices[{where}] = {flat[i]} is not in [0, {n}) [Op:GatherV2]\n"
            f"Hint: valid indices along axis {axis} run from 0 to {n - 1}.",
        )
    return np.take(params, indices, axis=axis)


def _gather_grad(c: GradContext, g: Tensor) -> list:
    if c.attrs["axis"] == 0 and c.attrs["batch_dims"] == 0:  # as TensorFlow: sparse rows (tf.IndexedSlices)
        sparse = gather_gradient(c.x, c.inputs[1], g)
        if sparse is not None:
            return [sparse, None]
    return [bind(GatherGrad, g, c.inputs[1], c.x, axis=c.attrs["axis"]), None]


def _gather_grad_kernel(g: np.ndarray, indices: np.ndarray, params: np.ndarray, axis: int) -> np.ndarray:
    out = np.zeros(np.shape(params), dtype=g.dtype)
    moved = np.moveaxis(out, axis, 0)
    g_moved = np.moveaxis(
        g, list(builtins.range(axis, axis + np.ndim(indices))), list(builtins.range(np.ndim(indices)))
    )
    np.add.at(moved, np.ravel(indices), g_moved.reshape((-1,) + moved.shape[1:]))
    return out


GatherGrad = Op(
    "GatherGrad",
    _gather_grad_kernel,
    shape=shape_rules.same_as_third,
    grad=lambda c, g: [bind(GatherV2, g, c.inputs[1], axis=c.attrs["axis"], batch_dims=0), None, None],
)


def _gather_check(inputs: Sequence[Tensor], attrs: dict) -> None:
    allowed_dtypes("GatherV2", dtypes.INTEGERS, inputs[1].dtype)


def gather_rule(shapes: Sequence[TensorShape], types: Sequence[dtypes.DType], attrs: dict) -> list[Spec]:
    params, indices, axis = shapes[0], shapes[1], attrs["axis"]
    if params.rank is None or indices.rank is None:
        return [(TensorShape(None), types[0])]
    dims = list(params)
    return [(TensorShape(dims[:axis] + list(indices) + dims[axis + 1 :]), types[0])]


GatherV2: Op = Op("GatherV2", _gather_kernel, check=_gather_check, shape=gather_rule, grad=_gather_grad)


def _gather_axis_message(axis: int, rank: int) -> str:
    """TensorFlow's kernel names the rank the axis needs."""
    return f"Shape must be at least rank {axis + 1 if axis >= 0 else -axis} but is rank {rank}"


def gather(
    params: Any,
    indices: Any,
    validate_indices: Any = None,
    axis: Any = None,
    batch_dims: int = 0,
    name: str | None = None,
) -> Tensor:
    """Pick slices of `params` along `axis` at the given indices (out-of-range indices are an error)."""
    composite = not isinstance(indices, Tensor) or not isinstance(params, Tensor)
    if composite and (handler := api_handler(gather, indices, params)) is not None:
        return handler(params, indices, validate_indices, axis, batch_dims)
    p = convert_to_tensor(params)
    i = convert_to_tensor(indices)
    batch_dims = int(getattr(batch_dims, "_value", batch_dims))
    axis = batch_dims if axis is None else axis
    axis = normalise_axis(axis, builtins.max(p.shape.rank or 0, 1), "GatherV2", _gather_axis_message, name=None)
    if batch_dims < 0:
        batch_dims += i.shape.rank or 0
    if 0 < batch_dims <= axis:  # (TensorFlow ignores a batch_dims beyond the axis: a plain gather then)
        return gather_batched(p, i, axis, batch_dims)
    return bind(GatherV2, p, i, axis=axis, batch_dims=0)


def boolean_mask(tensor: Any, mask: Any, axis: int | None = None, name: str = "boolean_mask") -> Tensor:
    """Keep the entries (or slices) where `mask` is True; composed of reshape, where and gather as in TensorFlow."""
    x = convert_to_tensor(tensor)
    m = convert_to_tensor(mask)
    if m.dtype is not dtypes.bool:
        raise TypeError(f"Mask must be a boolean tensor, got {m.dtype.name}.")
    axis = 0 if axis is None else int(axis)
    k = m.shape.rank
    if k == 0:
        raise ValueError("mask cannot be scalar.")
    if k is None:
        raise ValueError(
            "Number of mask dimensions must be specified, even if some dimensions are None.  E.g. "
            "shape=[None] is ok, but shape=None is not."
        )
    xs = x.shape.as_list()
    ms = m.shape.as_list()
    if xs[axis : axis + k] != ms and None not in xs[axis : axis + k] + ms:
        raise ValueError(f"Shapes {TensorShape(xs[axis : axis + k])} and {TensorShape(ms)} are incompatible")
    size = m.shape.num_elements()
    merged = ms if size is None else [size]  # spelled out, not -1: an empty tensor cannot infer it
    flat_shape = xs[:axis] + merged + xs[axis + k :]
    if None in flat_shape:
        raise ValueError("boolean_mask needs the tensor's static shape in this engine.")
    flat = reshape(x, flat_shape)
    positions = reshape(where(reshape(m, [-1])), [-1])
    return gather(flat, positions, axis=axis)


def _gather_nd_kernel(params: np.ndarray, indices: np.ndarray) -> np.ndarray:
    check_depth(np.shape(indices), np.ndim(params), "GatherNd")
    depth = np.shape(indices)[-1]
    rest = np.shape(params)[depth:]
    out_shape = np.shape(indices)[:-1] + rest
    if np.size(indices) == 0 and depth:
        return np.zeros(out_shape, dtype=params.dtype)
    if depth == 0:
        return np.array(np.broadcast_to(params, out_shape), copy=True)
    where = nd_positions(indices, np.shape(params), "param shape", "GatherNd")
    return np.reshape(params[where], out_shape)


def _gather_nd_shape(shapes: Sequence[TensorShape], types: Sequence[dtypes.DType], attrs: dict) -> Specs:
    params, indices = shapes
    if indices.rank == 0:
        at_graph_build(lambda: check_depth([], 0, "GatherNd"), "GatherNd")
    rank, depth = params.rank, indices[-1] if indices.rank else None
    if rank is None or depth is None:
        return [(TensorShape(None), types[0])]
    at_graph_build(lambda: check_depth([depth], rank, "GatherNd"), "GatherNd")  # (it reads the last dimension)
    return [(TensorShape(indices.as_list()[:-1] + params.as_list()[depth:]), types[0])]


def _gather_nd_grad(c: GradContext, g: Tensor) -> list:
    params, indices = c.inputs
    if indices.shape.rank == 2 and indices.shape[-1] == 1:  # whole rows: sparse, as TensorFlow's IndexedSlices
        sparse = gather_gradient(params, indices, g)
        if sparse is not None:
            return [sparse, None]
    known = None if params.shape.rank is None else tuple(params.shape.as_list())
    return [bind(ScatterNd, indices, g, shape(params, out_type=indices.dtype), known_shape=known), None]


def _gather_nd_check(inputs: Sequence[Tensor], attrs: dict) -> None:
    if inputs[1].dtype not in INDEX_TYPES:
        allowed_dtypes("GatherNd", INDEX_TYPES, inputs[1].dtype)


GatherNd = Op("GatherNd", _gather_nd_kernel, check=_gather_nd_check, shape=_gather_nd_shape, grad=_gather_nd_grad)


def _batch_coordinates(indices: Tensor, batch_dims: int) -> Tensor:
    """indices with the position in the first `batch_dims` dimensions prepended to each index row."""
    rows = indices.shape.as_list()[:-1]
    if None in rows:
        raise ValueError("gather_nd with batch_dims needs the static shape of indices in this engine.")
    lead = typing.cast("list[int]", rows)  # every dimension known: checked above
    inner = [1] * (len(lead) - batch_dims)
    grids = np.indices(lead[:batch_dims]).reshape(batch_dims, *lead[:batch_dims], *inner)
    coords = np.broadcast_to(np.moveaxis(grids, 0, -1), tuple(lead) + (batch_dims,))
    return concat([constant(coords.astype(indices.dtype._np)), indices], axis=-1)


def _check_batch(params: Tensor, indices: Tensor, batch_dims: int, op_name: str) -> int:
    """batch_dims normalised; the leading dimensions of params and indices must agree. gather allows
    batch_dims == rank(indices) (one index per batch entry), gather_nd needs a coordinate axis left over."""
    p_rank, i_rank = params.shape.rank or 0, indices.shape.rank or 0
    if batch_dims < 0:
        batch_dims += i_rank
    if op_name == "GatherNd" and batch_dims >= i_rank:
        raise ValueError(f"Argument `batch_dims` = {batch_dims} must be less than rank(`indices`) = {i_rank}")
    for d in builtins.range(builtins.min(batch_dims, p_rank, i_rank)):
        if params.shape[d] != indices.shape[d]:
            raise InvalidArgumentError(
                None,
                None,
                f"params.shape[{d}]: {params.shape[d]} should be equal to "
                f"indices.shape[{d}]: {indices.shape[d]} [Op:{op_name}]\nHint: the first "
                f"batch_dims dimensions of params and indices must agree.",
            )
    limit = i_rank if op_name == "GatherV2" else i_rank - 1
    if not 0 <= batch_dims <= limit or batch_dims > p_rank:
        raise ValueError(
            f"batch_dims = {batch_dims} must be at most rank(indices) = {i_rank}"
            f"{'' if op_name == 'GatherV2' else ' - 1'} and rank(params) = {p_rank}"
        )
    return batch_dims


def gather_nd(params: Any, indices: Any, batch_dims: int = 0, name: str | None = None) -> Tensor:
    """Pick entries (or slices) by full coordinates: each row of the last axis of `indices` is one position."""
    p = convert_to_tensor(params)
    i = index_tensor(indices, "GatherNd")
    batch_dims = int(batch_dims)
    if batch_dims:
        batch_dims = _check_batch(p, i, batch_dims, "GatherNd")
        i = _batch_coordinates(i, batch_dims)
    return bind(GatherNd, p, i)


def gather_batched(params: Tensor, indices: Tensor, axis: int, batch_dims: int) -> Tensor:
    """`tf.gather(params, indices, axis=axis, batch_dims=batch_dims)` for batch_dims > 0 (axis normalised)."""
    batch_dims = _check_batch(params, indices, batch_dims, "GatherV2")
    rank = params.shape.rank or 0
    # Bring `axis` right after the batch dimensions, gather there, and move the middle dimensions back.
    middle = list(builtins.range(batch_dims, axis))
    rest = list(builtins.range(axis + 1, rank))
    moved = transpose(params, list(builtins.range(batch_dims)) + [axis] + middle + rest)
    picked = gather_nd(moved, expand_dims(indices, -1), batch_dims=batch_dims)
    index_rank = (indices.shape.rank or 0) - batch_dims
    start = batch_dims + index_rank  # where `middle` landed in `picked`
    picked_rank = index_rank + rank - 1  # indices' dimensions, then params' other than `axis`
    perm = (
        list(builtins.range(batch_dims))
        + list(builtins.range(start, start + len(middle)))
        + list(builtins.range(batch_dims, start))
        + list(builtins.range(start + len(middle), picked_rank))
    )
    return transpose(picked, perm) if middle else picked


def _scatter_nd_kernel(indices: np.ndarray, updates: np.ndarray, shape: np.ndarray, known_shape: Any = None) -> Any:
    dims = [int(d) for d in np.ravel(shape)]
    if any(d < 0 for d in dims):
        raise InvalidArgumentError(
            None, None, f"Dimensions must be non-negative, got shape {dims_text(dims)} [Op:ScatterNd]"
        )
    return place(np.zeros(dims, dtype=updates.dtype), indices, updates, "add", "ScatterNd")


def _scatter_nd_shape(shapes: Sequence[TensorShape], types: Sequence[dtypes.DType], attrs: dict) -> Specs:
    known = attrs["known_shape"]
    indices, updates = shapes[0], shapes[1]
    if known is not None and indices.is_fully_defined() and updates.is_fully_defined():
        index_dims, update_dims = known_dims(indices), known_dims(updates)

        def check() -> None:  # TensorFlow's shape function checks the updates against the constant shape
            check_depth(index_dims, len(known), "ScatterNd", "rank of the shape")
            check_updates(index_dims, update_dims, list(known), "ScatterNd")

        at_graph_build(check, "ScatterNd")
    if known is not None:
        return [(TensorShape(known), types[1])]
    length = shapes[2][0] if shapes[2].rank == 1 else None
    return [(TensorShape(None if length is None else [None] * length), types[1])]


def _scatter_nd_grad(c: GradContext, g: Tensor) -> list:
    return [None, bind(GatherNd, g, c.inputs[0]), None]


def _indices_first(name: str) -> Any:
    def check(inputs: Sequence[Tensor], attrs: dict) -> None:
        if inputs[0].dtype not in INDEX_TYPES:
            allowed_dtypes(name, INDEX_TYPES, inputs[0].dtype)

    return check


ScatterNd = Op(
    "ScatterNd", _scatter_nd_kernel, check=_indices_first("ScatterNd"), shape=_scatter_nd_shape, grad=_scatter_nd_grad
)


def scatter_nd(indices: Any, updates: Any, shape: Any, name: str | None = None) -> Tensor:
    """A tensor of zeros of `shape` with `updates` added at `indices` (repeated indices add up)."""
    i = index_tensor(indices, "ScatterNd")
    u = convert_to_tensor(updates)
    s = convert_to_tensor(shape, dtype=i.dtype) if not isinstance(shape, Tensor) else shape
    known = known_ints(s)
    return bind(ScatterNd, i, u, s, known_shape=None if known is None else tuple(known))


def _tensor_scatter_kernel(how: str, op_name: str) -> Any:
    def kernel(tensor: np.ndarray, indices: np.ndarray, updates: np.ndarray) -> np.ndarray:
        return place(np.array(tensor, copy=True), indices, updates, how, op_name)

    return kernel


def _tensor_scatter_check(op_name: str) -> Any:
    def check(inputs: Sequence[Tensor], attrs: dict) -> None:
        tensor, indices, updates = inputs
        if indices.dtype not in INDEX_TYPES:
            allowed_dtypes(op_name, INDEX_TYPES, indices.dtype)
        if updates.dtype is not tensor.dtype:
            raise dtype_mismatch(op_name, 2, tensor.dtype, updates.dtype, ("tensor", "indices", "updates"))

    return check


def _update_grad(c: GradContext, g: Tensor) -> list:
    indices, updates = c.inputs[1], c.inputs[2]
    cleared = bind(TensorScatterUpdate, g, indices, zeros_like(updates))
    return [cleared, None, bind(GatherNd, g, indices)]


def _add_grad(c: GradContext, g: Tensor) -> list:
    return [g, None, bind(GatherNd, g, c.inputs[1])]


def _sub_grad(c: GradContext, g: Tensor) -> list:
    return [g, None, negative(bind(GatherNd, g, c.inputs[1]))]


def _min_max_grad(c: GradContext, g: Tensor) -> list:
    """The gradient goes to whichever of the old value and the updates ended up in the output (split on ties)."""
    x, indices, y = c.inputs
    out = c.out
    x_won = cast(equal(x, out), g.dtype)
    y_won = cast(equal(y, bind(GatherNd, out, indices)), g.dtype)
    dense_shape = shape(x, out_type=indices.dtype)
    known = None if x.shape.rank is None else tuple(x.shape.as_list())
    winners = x_won + bind(ScatterNd, indices, y_won, dense_shape, known_shape=known)
    return [g * x_won / winners, None, bind(GatherNd, g / winners, indices) * y_won]


def _tensor_scatter_shape(name: str) -> Any:
    def rule(shapes: Sequence[TensorShape], types: Sequence[dtypes.DType], attrs: dict) -> Specs:
        tensor, indices, updates = shapes
        if tensor.is_fully_defined() and indices.is_fully_defined() and updates.is_fully_defined():
            index_dims, update_dims, dims = known_dims(indices), known_dims(updates), known_dims(tensor)

            def check() -> None:
                check_depth(index_dims, len(dims), name, "rank of the shape")
                check_updates(index_dims, update_dims, dims, name)

            at_graph_build(check, name)
        return [(tensor, types[0])]

    return rule


def _tensor_scatter_op(name: str, how: str, grad: Any) -> Op:
    return Op(
        name,
        _tensor_scatter_kernel(how, name),
        check=_tensor_scatter_check(name),
        shape=_tensor_scatter_shape(name),
        grad=grad,
    )


TensorScatterUpdate = _tensor_scatter_op("TensorScatterUpdate", "update", _update_grad)
TensorScatterAdd = _tensor_scatter_op("TensorScatterAdd", "add", _add_grad)
TensorScatterSub = _tensor_scatter_op("TensorScatterSub", "sub", _sub_grad)
TensorScatterMin = _tensor_scatter_op("TensorScatterMin", "min", _min_max_grad)
TensorScatterMax = _tensor_scatter_op("TensorScatterMax", "max", _min_max_grad)


def _tensor_scatter(op: Op, tensor: Any, indices: Any, updates: Any) -> Tensor:
    t = convert_to_tensor(tensor)
    i = index_tensor(indices, op.name)
    u = updates if isinstance(updates, Tensor) else convert_to_tensor(updates, dtype=t.dtype)
    return bind(op, t, i, u)


def tensor_scatter_nd_update(tensor: Any, indices: Any, updates: Any, name: str | None = None) -> Tensor:
    """A copy of `tensor` with the entries (or slices) at `indices` replaced by `updates`."""
    return _tensor_scatter(TensorScatterUpdate, tensor, indices, updates)


def tensor_scatter_nd_add(tensor: Any, indices: Any, updates: Any, name: str | None = None) -> Tensor:
    """A copy of `tensor` with `updates` added at `indices` (repeated indices add up)."""
    return _tensor_scatter(TensorScatterAdd, tensor, indices, updates)


def tensor_scatter_nd_sub(tensor: Any, indices: Any, updates: Any, name: str | None = None) -> Tensor:
    """A copy of `tensor` with `updates` subtracted at `indices`."""
    return _tensor_scatter(TensorScatterSub, tensor, indices, updates)


def tensor_scatter_nd_min(tensor: Any, indices: Any, updates: Any, name: str | None = None) -> Tensor:
    """A copy of `tensor` where the entries at `indices` become the smaller of themselves and `updates`."""
    return _tensor_scatter(TensorScatterMin, tensor, indices, updates)


def tensor_scatter_nd_max(tensor: Any, indices: Any, updates: Any, name: str | None = None) -> Tensor:
    """A copy of `tensor` where the entries at `indices` become the larger of themselves and `updates`."""
    return _tensor_scatter(TensorScatterMax, tensor, indices, updates)
