"""Picking and placing values by position: slice, strided_slice, gather_nd, scatter_nd, tensor_scatter_nd_*,
unravel_index, roll, repeat, meshgrid, and gather with `batch_dims`.

`Slice`, `GatherNd`, `ScatterNd`, the `TensorScatter*` ops, `UnravelIndex` and `Roll` are primitives here, as
in TensorFlow; batched gathers, `repeat` and `meshgrid` are compositions of them, so their gradients come
from the primitives' rules.
"""

from __future__ import annotations

import builtins
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from minitf import dtypes
from minitf.core import Op, allowed_dtypes, bind, convert_to_tensor, graph_build_error, state
from minitf.errors import InvalidArgumentError
from minitf.ops import array_ops
from minitf.ops import math_ops as m
from minitf.tensor import Tensor
from minitf.tensor_shape import TensorShape

INDEX_TYPES = frozenset({dtypes.int32, dtypes.int64})
Specs = list[tuple[TensorShape, dtypes.DType]]


def _dims(shape: Sequence[Any]) -> str:
    return "[" + ",".join(str(d) for d in shape) + "]"


def _known_values(t: Tensor) -> list[int] | None:
    """The integer values of an eager (or constant) tensor; None when they are only known at run time."""
    value = getattr(t, "_value", None)
    if value is None and getattr(t, "op", None) is not None and t.op.type == "Const":  # type: ignore[attr-defined]
        value = t.op.attrs["value"]  # type: ignore[attr-defined]
    if value is None:
        return None
    return [int(v) for v in np.ravel(value)]


def at_graph_build(check: Callable[[], Any], op_name: str) -> None:
    """Run a check that needs only static shapes while a graph is built: TensorFlow's shape inference reports
    such mistakes as ValueError then, before anything runs."""
    try:
        check()
    except InvalidArgumentError as exc:
        raise ValueError(exc.message.replace("[Op:", f"for '{{{{node {op_name}}}}}' [Op:", 1)) from None


def _index_tensor(value: Any, name: str = "indices") -> Tensor:
    """Indices as TensorFlow converts them: Python ints become int32; only int32 and int64 are accepted."""
    t = convert_to_tensor(value, dtype_hint=dtypes.int32)
    allowed_dtypes(name, INDEX_TYPES, t.dtype)  # type: ignore[attr-defined]
    return t


# ---------------------------------------------------------------------------------------------------
# tf.slice
# ---------------------------------------------------------------------------------------------------

def _slice_bounds(shape: Sequence[int], begin: np.ndarray, size: np.ndarray) -> tuple[slice, ...]:
    """The NumPy index of `tf.slice(x, begin, size)`, with TensorFlow's checks (no clamping, unlike `x[a:b]`)."""
    if np.ndim(begin) != 1 or np.ndim(size) != 1 or len(begin) != len(shape) or len(size) != len(shape):
        raise InvalidArgumentError(None, None, f"Expected begin and size arguments to be 1-D tensors of size "
                                   f"{len(shape)}, but got shapes {_dims(np.shape(begin))} and "
                                   f"{_dims(np.shape(size))} instead. [Op:Slice]\nHint: give one begin and one "
                                   f"size per dimension of the input (it has {len(shape)}).")
    index = []
    for d, (b, s, n) in enumerate(zip(begin.tolist(), size.tolist(), shape)):
        if not 0 <= b <= n:
            raise InvalidArgumentError(None, None, f"Expected begin[{d}] in [0, {n}], but got {b} [Op:Slice]\n"
                                       f"Hint: tf.slice does not accept negative or too large starts.")
        s = n - b if s == -1 else s
        if not 0 <= s <= n - b:
            raise InvalidArgumentError(None, None, f"Expected size[{d}] in [0, {n - b}], but got {s} [Op:Slice]\n"
                                       f"Hint: begin + size must stay within the dimension ({n}); -1 means "
                                       f"'up to the end'.")
        index.append(builtins.slice(b, b + s))
    return tuple(index)


def _slice_kernel(x: np.ndarray, begin: np.ndarray, size: np.ndarray, known_size: Any = None) -> np.ndarray:
    return np.array(x[_slice_bounds(np.shape(x), begin, size)], copy=True)


def _slice_shape(shapes: Sequence[TensorShape], types: Sequence[dtypes.DType], attrs: dict) -> Specs:
    x, begin, size = shapes
    if x.rank is not None and begin.rank == 1 and size.rank == 1 and None not in (begin[0], size[0]) \
            and x.rank not in (begin[0], size[0]):
        at_graph_build(lambda: _slice_bounds(x.as_list(), np.zeros(begin[0]), np.zeros(size[0])), "Slice")
    known = attrs["known_size"]
    if known is not None:
        return [(TensorShape(known), types[0])]
    rank = shapes[2][0] if shapes[2].rank == 1 else shapes[0].rank
    return [(TensorShape(None if rank is None else [None] * rank), types[0])]


def _slice_grad_kernel(g: np.ndarray, x: np.ndarray, begin: np.ndarray, size: np.ndarray) -> np.ndarray:
    out = np.zeros(np.shape(x), dtype=g.dtype)
    out[_slice_bounds(np.shape(x), begin, size)] = g
    return out


def _slice_grad(c: Any, g: Tensor) -> list:
    return [bind(SliceGrad, g, c.x, c.inputs[1], c.inputs[2]), None, None]


def _slice_grad_grad(c: Any, g: Tensor) -> list:
    return [bind(Slice, g, c.inputs[2], c.inputs[3], known_size=None if c.x.shape.rank is None
                 else tuple(c.x.shape.as_list())), None, None, None]


def _slice_check(inputs: Sequence[Tensor], attrs: dict) -> None:
    for t in inputs[1:]:
        if t.dtype not in INDEX_TYPES:  # type: ignore[attr-defined]
            allowed_dtypes("Slice", INDEX_TYPES, t.dtype)  # type: ignore[attr-defined]


Slice = Op("Slice", _slice_kernel, check=_slice_check, shape=_slice_shape, grad=_slice_grad)
SliceGrad = Op("SliceGrad", _slice_grad_kernel, shape=lambda s, t, a: [(s[1], t[0])], grad=_slice_grad_grad)


def slice(input_: Any, begin: Any, size: Any, name: str | None = None) -> Tensor:  # noqa: A001  (TensorFlow's name)
    """The block of `input_` that starts at `begin` and has `size` (-1: to the end) along each dimension."""
    x = convert_to_tensor(input_)
    b = convert_to_tensor(begin, dtype_hint=dtypes.int32)
    s = convert_to_tensor(size, dtype_hint=dtypes.int32)
    begin_values, size_values = _known_values(b), _known_values(s)
    known_size = None
    if size_values is not None and x.shape.rank == len(size_values):
        starts = begin_values if begin_values is not None else [None] * len(size_values)
        known_size = tuple(n - st if v == -1 and n is not None and st is not None else (None if v == -1 else v)
                           for v, n, st in zip(size_values, x.shape.as_list(), starts))
    return bind(Slice, x, b, s, known_size=known_size)


# ---------------------------------------------------------------------------------------------------
# tf.strided_slice: the masks turned into the index `x[...]` uses
# ---------------------------------------------------------------------------------------------------

def _bit(mask: int, i: int) -> bool:
    return bool(int(mask) >> i & 1)


def _entries(value: Any) -> list[Any]:
    """begin/end as a list of ints or scalar tensors (a tensor traced with a known length is split up), so
    that values only known when the function runs reach StridedSlice as inputs."""
    if isinstance(value, Tensor) and getattr(value, "_value", None) is None:
        length = value.shape[0] if value.shape.rank == 1 else None
        if length is None:
            raise ValueError("strided_slice needs begin and end of known length in this engine.")
        return [value[k] for k in builtins.range(length)]
    if isinstance(value, list | tuple) and any(isinstance(v, Tensor) and getattr(v, "_value", None) is None
                                               for v in value):
        return list(value)
    return array_ops._static_ints(value, "begin/end")


def strided_slice(input_: Any, begin: Any, end: Any, strides: Any = None, begin_mask: int = 0, end_mask: int = 0,
                  ellipsis_mask: int = 0, new_axis_mask: int = 0, shrink_axis_mask: int = 0, var: Any = None,
                  name: str | None = None) -> Tensor:
    """`x[begin:end:strides]` spelled as TensorFlow's op: bit i of a mask changes what entry i means."""
    starts, stops = _entries(begin), _entries(end)
    steps = [1] * len(starts) if strides is None else array_ops._static_ints(strides, "strides")
    if not len(starts) == len(stops) == len(steps):
        raise InvalidArgumentError(None, None, f"Expected begin, end, and strides to be 1D equal size tensors, but "
                                   f"got shapes [{len(starts)}], [{len(stops)}], and [{len(steps)}] instead. "
                                   "[Op:StridedSlice]\nHint: give one begin, end and stride per sliced dimension.")
    if 0 in steps and state.graph is not None:  # TensorFlow's shape function reads the constant strides
        raise graph_build_error("StridedSlice", f"strides[{steps.index(0)}] must be non-zero",
                                "a stride of 0 would never move; use 1 (or -1 to go backwards).")
    if 0 in steps:
        raise InvalidArgumentError(None, None, "strides[i] must be non-zero [Op:StridedSlice]\nHint: a stride of 0 "
                                   "would never move; use 1 (or -1 to go backwards).")
    key: list[Any] = []
    for i, (start, stop, step) in enumerate(zip(starts, stops, steps)):
        if _bit(ellipsis_mask, i):
            key.append(Ellipsis)
        elif _bit(new_axis_mask, i):
            key.append(None)
        elif _bit(shrink_axis_mask, i):
            key.append(start)
        else:
            key.append(builtins.slice(None if _bit(begin_mask, i) else start, None if _bit(end_mask, i) else stop,
                                      step))
    x = convert_to_tensor(input_)
    return array_ops.getitem(x, tuple(key))


# ---------------------------------------------------------------------------------------------------
# tf.gather_nd
# ---------------------------------------------------------------------------------------------------

def _nd_positions(indices: np.ndarray, shape: Sequence[int], what: str, op_name: str) -> tuple[np.ndarray, ...]:
    """The index rows of `indices` (last axis = one coordinate per leading dimension of `shape`), checked."""
    depth = np.shape(indices)[-1]
    rows = np.reshape(indices, (-1, depth)).astype(np.int64)
    bad = np.flatnonzero(np.any((rows < 0) | (rows >= np.asarray(shape[:depth], dtype=np.int64)), axis=1))
    if bad.size:
        i = int(bad[0])
        row = ", ".join(str(v) for v in rows[i])
        raise InvalidArgumentError(None, None, f"indices[{i}] = [{row}] does not index into {what} "
                                   f"{_dims(shape)} [Op:{op_name}]\nHint: coordinate j of each index must lie "
                                   f"in [0, size of dimension j).")
    return tuple(rows.T)


def _check_depth(index_shape: Sequence[int], rank: int, op_name: str, what: str = "params rank") -> None:
    if len(index_shape) < 1:
        raise InvalidArgumentError(None, None, f"indices must be at least a vector, got a scalar [Op:{op_name}]\n"
                                   "Hint: the last axis of indices holds the coordinates, e.g. [[0, 1]].")
    if index_shape[-1] > rank:
        raise InvalidArgumentError(None, None, f"index innermost dimension length must be <= {what}; saw: "
                                   f"{index_shape[-1]} vs. {rank} [Op:{op_name}]\nHint: each index row "
                                   f"names at most one coordinate per dimension.")


def _gather_nd_kernel(params: np.ndarray, indices: np.ndarray) -> np.ndarray:
    _check_depth(np.shape(indices), np.ndim(params), "GatherNd")
    depth = np.shape(indices)[-1]
    rest = np.shape(params)[depth:]
    out_shape = np.shape(indices)[:-1] + rest
    if np.size(indices) == 0 and depth:
        return np.zeros(out_shape, dtype=params.dtype)
    if depth == 0:
        return np.array(np.broadcast_to(params, out_shape), copy=True)
    where = _nd_positions(indices, np.shape(params), "param shape", "GatherNd")
    return np.reshape(params[where], out_shape)


def _gather_nd_shape(shapes: Sequence[TensorShape], types: Sequence[dtypes.DType], attrs: dict) -> Specs:
    params, indices = shapes
    if indices.rank == 0:
        at_graph_build(lambda: _check_depth([], 0, "GatherNd"), "GatherNd")
    if indices.rank is None or params.rank is None or indices[-1] is None:
        return [(TensorShape(None), types[0])]
    at_graph_build(lambda: _check_depth(indices.as_list(), params.rank, "GatherNd"), "GatherNd")
    return [(TensorShape(indices.as_list()[:-1] + params.as_list()[indices[-1]:]), types[0])]


def _gather_nd_grad(c: Any, g: Tensor) -> list:
    params, indices = c.inputs
    if indices.shape.rank == 2 and indices.shape[-1] == 1:  # whole rows: sparse, as TensorFlow's IndexedSlices
        from minitf.indexed_slices import gather_gradient
        sparse = gather_gradient(params, indices, g)
        if sparse is not None:
            return [sparse, None]
    known = None if params.shape.rank is None else tuple(params.shape.as_list())
    return [bind(ScatterNd, indices, g, array_ops.shape(params, out_type=indices.dtype), known_shape=known), None]


def _gather_nd_check(inputs: Sequence[Tensor], attrs: dict) -> None:
    if inputs[1].dtype not in INDEX_TYPES:  # type: ignore[attr-defined]
        allowed_dtypes("GatherNd", INDEX_TYPES, inputs[1].dtype)  # type: ignore[attr-defined]


GatherNd = Op("GatherNd", _gather_nd_kernel, check=_gather_nd_check, shape=_gather_nd_shape, grad=_gather_nd_grad)


def _batch_coordinates(indices: Tensor, batch_dims: int) -> Tensor:
    """indices with the position in the first `batch_dims` dimensions prepended to each index row."""
    shape = indices.shape.as_list()
    if None in shape[:-1]:
        raise ValueError("gather_nd with batch_dims needs the static shape of indices in this engine.")
    inner = [1] * (len(shape) - 1 - batch_dims)
    grids = np.indices(shape[:batch_dims]).reshape(batch_dims, *shape[:batch_dims], *inner)
    coords = np.broadcast_to(np.moveaxis(grids, 0, -1), tuple(shape[:-1]) + (batch_dims,))
    return array_ops.concat([array_ops.constant(coords.astype(indices.dtype._np)), indices], axis=-1)  # type: ignore


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
            raise InvalidArgumentError(None, None, f"params.shape[{d}]: {params.shape[d]} should be equal to "
                                       f"indices.shape[{d}]: {indices.shape[d]} [Op:{op_name}]\nHint: the first "
                                       f"batch_dims dimensions of params and indices must agree.")
    limit = i_rank if op_name == "GatherV2" else i_rank - 1
    if not 0 <= batch_dims <= limit or batch_dims > p_rank:
        raise ValueError(f"batch_dims = {batch_dims} must be at most rank(indices) = {i_rank}"
                         f"{'' if op_name == 'GatherV2' else ' - 1'} and rank(params) = {p_rank}")
    return batch_dims


def gather_nd(params: Any, indices: Any, batch_dims: int = 0, name: str | None = None) -> Tensor:
    """Pick entries (or slices) by full coordinates: each row of the last axis of `indices` is one position."""
    p = convert_to_tensor(params)
    i = _index_tensor(indices, "GatherNd")
    batch_dims = int(batch_dims)
    if batch_dims:
        batch_dims = _check_batch(p, i, batch_dims, "GatherNd")
        i = _batch_coordinates(i, batch_dims)
    return bind(GatherNd, p, i)


# ---------------------------------------------------------------------------------------------------
# tf.gather with batch_dims: a gather_nd over the batch
# ---------------------------------------------------------------------------------------------------

def gather_batched(params: Tensor, indices: Tensor, axis: int, batch_dims: int) -> Tensor:
    """`tf.gather(params, indices, axis=axis, batch_dims=batch_dims)` for batch_dims > 0 (axis normalised)."""
    batch_dims = _check_batch(params, indices, batch_dims, "GatherV2")
    rank = params.shape.rank or 0
    # Bring `axis` right after the batch dimensions, gather there, and move the middle dimensions back.
    middle = list(builtins.range(batch_dims, axis))
    rest = list(builtins.range(axis + 1, rank))
    moved = array_ops.transpose(params, list(builtins.range(batch_dims)) + [axis] + middle + rest)
    picked = gather_nd(moved, array_ops.expand_dims(indices, -1), batch_dims=batch_dims)
    index_rank = (indices.shape.rank or 0) - batch_dims
    start = batch_dims + index_rank  # where `middle` landed in `picked`
    perm = (list(builtins.range(batch_dims)) + list(builtins.range(start, start + len(middle)))
            + list(builtins.range(batch_dims, start)) + list(builtins.range(start + len(middle), picked.shape.rank)))
    return array_ops.transpose(picked, perm) if middle else picked


# ---------------------------------------------------------------------------------------------------
# tf.scatter_nd and tf.tensor_scatter_nd_*
# ---------------------------------------------------------------------------------------------------

def _check_updates(index_shape: Sequence[int], update_shape: Sequence[int], shape: Sequence[int],
                   op_name: str) -> None:
    depth = index_shape[-1]
    expected = tuple(index_shape[:-1]) + tuple(shape[depth:])
    if tuple(update_shape) != expected:
        raise InvalidArgumentError(None, None, f"Dimensions of updates {_dims(update_shape)} must equal "
                                   f"indices.shape[:-1] + shape[indices.shape[-1]:] = {_dims(expected)} "
                                   f"[Op:{op_name}]\nHint: one update per index row, shaped like the slice it "
                                   "replaces.")


def _place(out: np.ndarray, indices: np.ndarray, updates: np.ndarray, how: str, op_name: str) -> np.ndarray:
    """Combine `updates` into `out` (in place) at the rows of `indices`: TensorFlow's scatter kernels."""
    _check_depth(np.shape(indices), np.ndim(out), op_name, "rank of the shape")
    _check_updates(np.shape(indices), np.shape(updates), np.shape(out), op_name)
    if np.size(updates) == 0:
        return out
    depth = np.shape(indices)[-1]
    where = _nd_positions(indices, np.shape(out), "shape", op_name) if depth else ()
    rows = np.reshape(updates, (-1,) + np.shape(out)[depth:])
    if depth == 0:  # every update applies to the whole tensor
        for row in rows:
            _place(out[None], np.zeros((1, 1), np.int64), row[None], how, op_name)
        return out
    combine = {"add": np.add, "sub": np.subtract, "min": np.minimum, "max": np.maximum}
    if how == "update":
        out[where] = rows
    else:
        combine[how].at(out, where, rows)
    return out


def _scatter_nd_kernel(indices: np.ndarray, updates: np.ndarray, shape: np.ndarray, known_shape: Any = None) -> Any:
    dims = [int(d) for d in np.ravel(shape)]
    if any(d < 0 for d in dims):
        raise InvalidArgumentError(None, None, f"Dimensions must be non-negative, got shape {_dims(dims)} "
                                   "[Op:ScatterNd]")
    return _place(np.zeros(dims, dtype=updates.dtype), indices, updates, "add", "ScatterNd")


def _scatter_nd_shape(shapes: Sequence[TensorShape], types: Sequence[dtypes.DType], attrs: dict) -> Specs:
    known = attrs["known_shape"]
    indices, updates = shapes[0], shapes[1]
    if known is not None and indices.is_fully_defined() and updates.is_fully_defined():
        def check() -> None:  # TensorFlow's shape function checks the updates against the constant shape
            _check_depth(indices.as_list(), len(known), "ScatterNd", "rank of the shape")  # type: ignore[arg-type]
            _check_updates(indices.as_list(), updates.as_list(), list(known), "ScatterNd")  # type: ignore[arg-type]
        at_graph_build(check, "ScatterNd")
    if known is not None:
        return [(TensorShape(known), types[1])]
    length = shapes[2][0] if shapes[2].rank == 1 else None
    return [(TensorShape(None if length is None else [None] * length), types[1])]


def _scatter_nd_grad(c: Any, g: Tensor) -> list:
    return [None, bind(GatherNd, g, c.inputs[0]), None]


def _indices_first(name: str) -> Any:
    def check(inputs: Sequence[Tensor], attrs: dict) -> None:
        if inputs[0].dtype not in INDEX_TYPES:  # type: ignore[attr-defined]
            allowed_dtypes(name, INDEX_TYPES, inputs[0].dtype)  # type: ignore[attr-defined]
    return check


ScatterNd = Op("ScatterNd", _scatter_nd_kernel, check=_indices_first("ScatterNd"), shape=_scatter_nd_shape,
               grad=_scatter_nd_grad)


def scatter_nd(indices: Any, updates: Any, shape: Any, name: str | None = None) -> Tensor:
    """A tensor of zeros of `shape` with `updates` added at `indices` (repeated indices add up)."""
    i = _index_tensor(indices, "ScatterNd")
    u = convert_to_tensor(updates)
    s = convert_to_tensor(shape, dtype=i.dtype) if not isinstance(shape, Tensor) else shape  # type: ignore
    known = _known_values(s)
    return bind(ScatterNd, i, u, s, known_shape=None if known is None else tuple(known))


def _tensor_scatter_kernel(how: str, op_name: str) -> Any:
    def kernel(tensor: np.ndarray, indices: np.ndarray, updates: np.ndarray) -> np.ndarray:
        return _place(np.array(tensor, copy=True), indices, updates, how, op_name)
    return kernel


def _tensor_scatter_check(op_name: str) -> Any:
    def check(inputs: Sequence[Tensor], attrs: dict) -> None:
        tensor, indices, updates = inputs
        if indices.dtype not in INDEX_TYPES:  # type: ignore[attr-defined]
            allowed_dtypes(op_name, INDEX_TYPES, indices.dtype)  # type: ignore[attr-defined]
        if updates.dtype is not tensor.dtype:  # type: ignore[attr-defined]
            from minitf.core import dtype_mismatch
            raise dtype_mismatch(op_name, 2, tensor.dtype, updates.dtype,  # type: ignore[attr-defined]
                                 ("tensor", "indices", "updates"))
    return check


def _update_grad(c: Any, g: Tensor) -> list:
    indices, updates = c.inputs[1], c.inputs[2]
    cleared = bind(TensorScatterUpdate, g, indices, array_ops.zeros_like(updates))
    return [cleared, None, bind(GatherNd, g, indices)]


def _add_grad(c: Any, g: Tensor) -> list:
    return [g, None, bind(GatherNd, g, c.inputs[1])]


def _sub_grad(c: Any, g: Tensor) -> list:
    return [g, None, m.negative(bind(GatherNd, g, c.inputs[1]))]


def _min_max_grad(c: Any, g: Tensor) -> list:
    """The gradient goes to whichever of the old value and the updates ended up in the output (split on ties)."""
    x, indices, y = c.inputs
    out = c.out
    x_won = m.cast(m.equal(x, out), g.dtype)  # type: ignore[attr-defined]
    y_won = m.cast(m.equal(y, bind(GatherNd, out, indices)), g.dtype)  # type: ignore[attr-defined]
    shape = array_ops.shape(x, out_type=indices.dtype)  # type: ignore[attr-defined]
    known = None if x.shape.rank is None else tuple(x.shape.as_list())
    winners = x_won + bind(ScatterNd, indices, y_won, shape, known_shape=known)
    return [g * x_won / winners, None, bind(GatherNd, g / winners, indices) * y_won]


def _tensor_scatter_shape(name: str) -> Any:
    def rule(shapes: Sequence[TensorShape], types: Sequence[dtypes.DType], attrs: dict) -> Specs:
        tensor, indices, updates = shapes
        if tensor.is_fully_defined() and indices.is_fully_defined() and updates.is_fully_defined():
            def check() -> None:
                _check_depth(indices.as_list(), tensor.rank, name, "rank of the shape")  # type: ignore[arg-type]
                _check_updates(indices.as_list(), updates.as_list(), tensor.as_list(), name)  # type: ignore[arg-type]
            at_graph_build(check, name)
        return [(tensor, types[0])]
    return rule


def _tensor_scatter_op(name: str, how: str, grad: Any) -> Op:
    return Op(name, _tensor_scatter_kernel(how, name), check=_tensor_scatter_check(name),
              shape=_tensor_scatter_shape(name), grad=grad)


TensorScatterUpdate = _tensor_scatter_op("TensorScatterUpdate", "update", _update_grad)
TensorScatterAdd = _tensor_scatter_op("TensorScatterAdd", "add", _add_grad)
TensorScatterSub = _tensor_scatter_op("TensorScatterSub", "sub", _sub_grad)
TensorScatterMin = _tensor_scatter_op("TensorScatterMin", "min", _min_max_grad)
TensorScatterMax = _tensor_scatter_op("TensorScatterMax", "max", _min_max_grad)


def _tensor_scatter(op: Op, tensor: Any, indices: Any, updates: Any) -> Tensor:
    t = convert_to_tensor(tensor)
    i = _index_tensor(indices, op.name)
    u = updates if isinstance(updates, Tensor) else convert_to_tensor(updates, dtype=t.dtype)  # type: ignore
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


# ---------------------------------------------------------------------------------------------------
# tf.unravel_index
# ---------------------------------------------------------------------------------------------------

def _unravel_kernel(indices: np.ndarray, dims: np.ndarray) -> np.ndarray:
    size = int(np.prod(dims))
    if np.any((np.asarray(indices) < 0) | (np.asarray(indices) >= size)):
        raise InvalidArgumentError(None, None, f"index is out of bound as with dims [Op:UnravelIndex]\nHint: flat "
                                   f"indices into shape {_dims(np.ravel(dims))} run from 0 to {size - 1}.")
    return np.asarray(np.unravel_index(indices, tuple(int(d) for d in dims)), dtype=np.asarray(indices).dtype)


def _unravel_shape(shapes: Sequence[TensorShape], types: Sequence[dtypes.DType], attrs: dict) -> Specs:
    count = shapes[1][0] if shapes[1].rank == 1 else None
    if shapes[0].rank is None:
        return [(TensorShape(None), types[0])]
    return [(TensorShape([count] + shapes[0].as_list()), types[0])]


UnravelIndex = Op("UnravelIndex", _unravel_kernel, shape=_unravel_shape,
                  check=lambda i, a: allowed_dtypes("UnravelIndex", INDEX_TYPES, i[0].dtype))  # type: ignore


def unravel_index(indices: Any, dims: Any, name: str | None = None) -> Tensor:
    """The coordinates in a tensor of shape `dims` of flat (row-major) positions: one row per dimension."""
    i = _index_tensor(indices, "UnravelIndex")
    d = convert_to_tensor(dims, dtype=i.dtype) if not isinstance(dims, Tensor) else dims  # type: ignore
    return bind(UnravelIndex, i, d)


# ---------------------------------------------------------------------------------------------------
# tf.roll
# ---------------------------------------------------------------------------------------------------

def _roll_kernel(x: np.ndarray, shift: np.ndarray, axis: np.ndarray) -> np.ndarray:
    shifts, axes = np.ravel(shift).tolist(), np.ravel(axis).tolist()
    if np.ndim(shift) != np.ndim(axis) or len(shifts) != len(axes):
        raise InvalidArgumentError(None, None, "shift and axis must have the same size [Op:Roll]\nHint: give one "
                                   "shift per listed axis.")
    for a in axes:
        if not -np.ndim(x) <= a < np.ndim(x):
            raise InvalidArgumentError(None, None, f"axis {a} is out of range [Op:Roll]\nHint: the input has "
                                       f"{np.ndim(x)} dimensions.")
    return np.roll(x, shifts, axes) if axes else np.array(x, copy=True)


def _roll_shape(shapes_: Sequence[TensorShape], types: Sequence[dtypes.DType], attrs: dict) -> list:
    """The input's shape; TensorFlow's shape function also wants as many shifts as axes."""
    shift, axis = shapes_[1], shapes_[2]
    if shift.rank == 1 and axis.rank == 1 and None not in (shift[0], axis[0]) and shift[0] != axis[0]:
        raise ValueError(f"Dimension 0 in both shapes must be equal, but are {shift[0]} and {axis[0]}. Shapes are "
                         f"[{shift[0]}] and [{axis[0]}].\nHint: give one shift per listed axis.")
    return [(shapes_[0], types[0])]


Roll = Op("Roll", _roll_kernel, shape=_roll_shape,
          grad=lambda c, g: [bind(Roll, g, m.negative(c.inputs[1]), c.inputs[2]), None, None])


def roll(input: Any, shift: Any, axis: Any, name: str | None = None) -> Tensor:  # noqa: A002
    """Shift the entries along `axis` by `shift` places, wrapping around at the end."""
    return bind(Roll, convert_to_tensor(input), _index_tensor(shift, "Roll"), _index_tensor(axis, "Roll"))


# ---------------------------------------------------------------------------------------------------
# tf.repeat and tf.meshgrid (compositions)
# ---------------------------------------------------------------------------------------------------

def repeat(input: Any, repeats: Any, axis: int | None = None, name: str | None = None) -> Tensor:  # noqa: A002
    """Repeat each entry (or slice along `axis`) `repeats` times; without an axis the input is flattened first."""
    x = convert_to_tensor(input)
    counts = array_ops._static_ints(repeats, "repeats")
    if axis is None:
        x, axis = array_ops.reshape(x, [-1]), 0
    rank = x.shape.rank or 0
    axis = array_ops._normalise_axis(axis, builtins.max(rank, 1), "Repeat")
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
        positions = array_ops.constant(np.repeat(np.arange(length, dtype=np.int32), counts))
    else:
        # As in TensorFlow, a mask of the counts picks the positions: the size depends on values (None if traced).
        mask = np.arange(builtins.max(counts, default=0))[None, :] < np.asarray(counts)[:, None]
        positions = m.where(array_ops.constant(mask))[:, 0]
    return array_ops.gather(x, positions, axis=axis)


def meshgrid(*args: Any, **kwargs: Any) -> list[Tensor]:
    """Coordinate grids from 1-D coordinate vectors: 'xy' (default) swaps the first two output axes."""
    indexing = kwargs.pop("indexing", "xy")
    kwargs.pop("name", None)
    if kwargs:
        raise TypeError(f"Invalid keywords: {list(kwargs)}")
    if indexing not in ("xy", "ij"):
        raise ValueError(f"Argument `indexing` parameter must be either 'xy' or 'ij', got '{indexing}'")
    vectors = [array_ops.reshape(convert_to_tensor(a), [-1]) for a in args]
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
        outputs.append(array_ops.reshape(v, shape))
    ones = array_ops.ones(sizes, dtype=vectors[0].dtype)  # type: ignore[attr-defined]
    return [o * ones for o in outputs]


# ---------------------------------------------------------------------------------------------------
# Writing into a slice: `variable[key].assign(value)` computes the new value with this op
# ---------------------------------------------------------------------------------------------------

def _slice_update_kernel(x: np.ndarray, value: np.ndarray, *dynamic: Any, spec: tuple) -> np.ndarray:
    index = array_ops._resolve(spec, dynamic)
    array_ops._check_bounds(x, index)
    out = np.array(x, copy=True)
    target = np.shape(out[index])
    try:
        np.broadcast_to(value, target)
    except ValueError:
        raise InvalidArgumentError(None, None, f"Cannot broadcast input shape {_dims(np.shape(value))} into final "
                                   f"shape {_dims(target)} [Op:ResourceStridedSliceAssign] name: strided_slice/"
                                   f"_assign\nHint: the assigned value must fit the slice {_dims(target)} (or "
                                   "broadcast to it).") from None
    out[index] = value
    return out


def _slice_update_grad(c: Any, g: Tensor) -> list:
    """The old entries of the slice are overwritten (no gradient); the value's gradient is the slice of g."""
    x, value, *dynamic = c.inputs
    spec = c.attrs["spec"]
    cleared = bind(TensorStridedSliceUpdate, g, array_ops.zeros_like(value), *dynamic, spec=spec)
    return [cleared, m.unbroadcast(bind(array_ops.StridedSlice, g, *dynamic, spec=spec), value)] + [None] * len(dynamic)


TensorStridedSliceUpdate = Op("TensorStridedSliceUpdate", _slice_update_kernel, shape=lambda s, t, a: [(s[0], t[0])],
                              grad=_slice_update_grad)


def slice_update(x: Tensor, key: Any, value: Tensor) -> Tensor:
    """`x` with `x[key]` replaced by `value` (broadcast), as a new tensor."""
    spec, dynamic = array_ops.slice_spec(key if isinstance(key, tuple) else (key,))
    return bind(TensorStridedSliceUpdate, x, value, *dynamic, spec=spec)
