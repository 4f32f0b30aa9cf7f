"""Creating tensors and changing their shape: constant, zeros, reshape, concat, slicing, gather, ...

Each primitive is an `Op` with its NumPy kernel, TensorFlow's checks and its gradient; functions that
TensorFlow itself composes from other ops (boolean_mask, tensordot, eye, ...) are compositions here too.
"""

from __future__ import annotations

import builtins
from collections.abc import Sequence
from typing import Any

import numpy as np

from minitf import dtypes
from minitf.core import (
    Op,
    allowed_dtypes,
    bind,
    constant_tensor,
    convert_to_tensor,
    same_dtype,
    state,
    static_error,
    static_value,
    to_numpy,
)
from minitf.errors import InvalidArgumentError
from minitf.ops import shapes
from minitf.ops.math_ops import Reshape_like, cast, unbroadcast
from minitf.tensor import Tensor
from minitf.tensor_shape import TensorShape

newaxis = None


def _static_ints(value: Any, what: str) -> list[int]:
    """A shape or list of sizes given as a list, tuple, TensorShape or (eager) tensor, as Python ints."""
    if isinstance(value, Tensor):
        known = static_value(value)
        if known is None:
            raise TypeError(f"{what} must be known when tracing in this engine; got a tensor computed inside the "
                            f"function.\nHint: pass {what} as a Python list, or as a constant.")
        value = np.asarray(known).tolist()
    if isinstance(value, TensorShape):
        value = value.as_list()
    if np.ndim(value) == 0:
        return [int(value)]
    return [int(np.asarray(static_value(v) if isinstance(v, Tensor) else v)) for v in value]


# ---------------------------------------------------------------------------------------------------
# Creation
# ---------------------------------------------------------------------------------------------------

def constant(value: Any, dtype: Any = None, shape: Any = None, name: str = "Const") -> Tensor:
    """A tensor holding `value`, with TensorFlow's dtype inference (Python int -> int32, float -> float32)."""
    dtype = None if dtype is None else dtypes.as_dtype(dtype)
    if isinstance(value, Tensor) and getattr(value, "_value", None) is None:  # a graph tensor
        raise TypeError("Expected any non-tensor type, but got a tensor instead.\nHint: inside a tf.function, "
                        "tf.constant takes Python or NumPy values; use tf.identity or tf.cast on tensors.")
    if isinstance(value, Tensor) or hasattr(value, "_as_tensor"):
        t = convert_to_tensor(value)
        if dtype is not None and t.dtype is not dtype:  # type: ignore[attr-defined]
            raise TypeError(f"Expected tensor {t.numpy()} with dtype {dtype!r}, but got dtype "  # type: ignore
                            f"{t.dtype!r}.\nHint: use tf.cast(t, {dtype!r}) to change a tensor's dtype.")  # type: ignore
        return t if shape is None else reshape(t, shape)
    array, dtype = to_numpy(value, dtype)
    if shape is not None:
        shape = _static_ints(shape, "shape")
        if np.size(array) == 1:
            array = np.full(shape, np.ravel(array)[0], dtype=np.asarray(array).dtype)
        elif np.size(array) == int(np.prod(shape)):
            array = np.reshape(array, shape)
        else:
            raise TypeError(f"Eager execution of tf.constant with unsupported shape. Tensor {value} (converted "
                            f"from {value}) has {np.size(array)} elements, but got `shape` {tuple(shape)} with "
                            f"{int(np.prod(shape))} elements).")
    if state.graph is not None:
        return state.graph.constant(array, dtype)
    from minitf.tensor import make
    return make(array, dtype)


def _filled(shape: Any, dtype: Any, value: float) -> Tensor:
    dims = _static_ints(shape, "shape")
    if any(d < 0 for d in dims):
        raise static_error(f"Dimension {min(dims)} must be >= 0 [Op:Fill] name: ")
    dtype = dtypes.as_dtype(dtype)
    if dtype is dtypes.string:
        if value:
            raise TypeError(f"Cannot convert {value} to EagerTensor of dtype string")
        return constant_tensor(np.full(dims, b"", dtype=object), dtype)
    return constant_tensor(np.full(dims, value, dtype=dtype._np), dtype)


def zeros(shape: Any, dtype: Any = dtypes.float32, name: str | None = None) -> Tensor:
    """A tensor of zeros (float32 unless told otherwise)."""
    return _filled(shape, dtype, 0)


def ones(shape: Any, dtype: Any = dtypes.float32, name: str | None = None) -> Tensor:
    """A tensor of ones (float32 unless told otherwise)."""
    return _filled(shape, dtype, 1)


ZerosLike = Op("ZerosLike", np.zeros_like, shape=shapes.same_as_first, grad=lambda c, g: [None])
OnesLike = Op("OnesLike", np.ones_like, shape=shapes.same_as_first, grad=lambda c, g: [None])


def zeros_like(input: Any, dtype: Any = None, name: str | None = None) -> Tensor:  # noqa: A002
    x = convert_to_tensor(input)
    out = bind(ZerosLike, x)
    return out if dtype is None else cast(out, dtype)


def ones_like(input: Any, dtype: Any = None, name: str | None = None) -> Tensor:  # noqa: A002
    x = convert_to_tensor(input)
    out = bind(OnesLike, x)
    return out if dtype is None else cast(out, dtype)


def _fill_grad(c: Any, g: Tensor) -> list:
    from minitf.ops.math_ops import reduce_sum
    return [reduce_sum(g)]  # every entry is the value: its gradient is the sum


Fill = Op("Fill", lambda value, dims: np.full(dims, value, dtype=np.asarray(value).dtype), shape=shapes.fill_rule,
          grad=_fill_grad)


def fill(dims: Any, value: Any, name: str | None = None) -> Tensor:
    """A tensor of shape `dims` filled with `value`; the dtype comes from `value` (`fill([2], 7)` is int32)."""
    shape = _static_ints(dims, "dims")
    if any(d < 0 for d in shape):
        raise static_error(f"dims must be non-negative, got {shape} [Op:Fill] name: ")
    return bind(Fill, convert_to_tensor(value), dims=tuple(shape))


def _range_kernel(start: Any, limit: Any, delta: Any) -> np.ndarray:
    if delta == 0:
        raise InvalidArgumentError(None, None, f"Requires delta != 0: {delta} [Op:Range] name: ")
    if (delta > 0 and start > limit) or (delta < 0 and start < limit):
        raise InvalidArgumentError(None, None, f"Requires start <= limit when delta > 0: {start}/{limit} "
                                   f"[Op:Range] name: ")
    return np.arange(start, limit, delta, dtype=np.asarray(start).dtype)


Range = Op("Range", _range_kernel, shape=shapes.range_rule, value_dependent=True)


def range(start: Any, limit: Any = None, delta: Any = 1, dtype: Any = None, name: str = "range") -> Tensor:  # noqa: A001
    """Like Python's range: int32 for ints; float32 as soon as any argument is a float."""
    if limit is None:
        start, limit = 0, start
    given = None if dtype is None else dtypes.as_dtype(dtype)
    # Python numbers are converted to the requested dtype strictly (`range(0, 5, 0.5, dtype=tf.int32)` is a
    # TypeError); without a dtype the widest of the inferred ones wins.
    parts = [v if isinstance(v, Tensor) else convert_to_tensor(v, dtype=given) for v in (start, limit, delta)]
    if given is None:
        order = [dtypes.int32, dtypes.int64, dtypes.float32, dtypes.float64]
        given = builtins.max((p.dtype for p in parts), key=lambda d: order.index(d) if d in order else 0)  # type: ignore
    start, limit, delta = (cast(p, given) for p in parts)
    return bind(Range, start, limit, delta)


def _linspace_kernel(start: Any, stop: Any, num: Any) -> np.ndarray:
    return np.linspace(start, stop, int(num), dtype=np.asarray(start).dtype)


def _linspace_grad(c: Any, g: Tensor) -> list:
    """Entry i is start + (stop - start) * i / (num - 1): linear in start and stop."""
    from minitf.ops.math_ops import reduce_sum
    n = g.shape[0]
    weights = constant_tensor(np.linspace(0, 1, n) if n > 1 else np.zeros(n), g.dtype)  # type: ignore
    return [reduce_sum(g * (1 - weights)), reduce_sum(g * weights), None]


LinSpace = Op("LinSpace", _linspace_kernel, shape=shapes.linspace_rule, grad=_linspace_grad, value_dependent=True)


def linspace(start: Any, stop: Any, num: Any, name: str | None = None, axis: int = 0) -> Tensor:
    """`num` evenly spaced values from start to stop, both included. Integer ends give float64."""
    start, stop = convert_to_tensor(start), convert_to_tensor(stop)
    if start.dtype.is_integer:  # type: ignore[attr-defined]
        start, stop = cast(start, dtypes.float64), cast(stop, dtypes.float64)
    stop = cast(stop, start.dtype)  # type: ignore[attr-defined]
    values = bind(LinSpace, start, stop, convert_to_tensor(num))  # the new axis first: (num, *batch)
    rank = values.shape.rank
    if rank is not None and not -rank <= axis < rank:
        raise static_error(f"Tried to expand dim index {axis} for tensor with {rank - 1} dimensions. "
                           f"[Op:ExpandDims] name: \nHint: the result has {rank} axes, so axis must be in "
                           f"[{-rank}, {rank}).")
    if axis == 0 or rank is None or rank < 2:
        return values
    perm = list(builtins.range(1, rank))
    perm.insert(axis % rank, 0)  # move the new axis to `axis` (counted in the result, as TensorFlow does)
    return transpose(values, perm)


def eye(num_rows: int, num_columns: int | None = None, batch_shape: Any = None, dtype: Any = dtypes.float32,
        name: str | None = None) -> Tensor:
    """An identity matrix (or a batch of them)."""
    columns = num_rows if num_columns is None else num_columns
    matrix = np.eye(int(num_rows), int(columns), dtype=dtypes.as_dtype(dtype)._np)
    if batch_shape is not None:
        matrix = np.broadcast_to(matrix, tuple(_static_ints(batch_shape, "batch_shape")) + matrix.shape).copy()
    return constant_tensor(matrix, dtypes.as_dtype(dtype))


Identity = Op("Identity", lambda x: x, shape=lambda s, t, a: [(s[0], t[0])], grad=lambda c, g: [g])
StopGradient = Op("StopGradient", lambda x: x, shape=lambda s, t, a: [(s[0], t[0])])


def identity(input: Any, name: str | None = None) -> Tensor:  # noqa: A002
    return bind(Identity, convert_to_tensor(input))


def stop_gradient(input: Any, name: str | None = None) -> Tensor:  # noqa: A002
    """The same value, but tapes treat it as a constant: no gradient flows through."""
    return bind(StopGradient, convert_to_tensor(input))


# ---------------------------------------------------------------------------------------------------
# Shape queries
# ---------------------------------------------------------------------------------------------------

Shape = Op("Shape", lambda x, out_type: np.array(np.shape(x), dtype=out_type._np), shape=shapes.shape_rule)
Rank = Op("Rank", lambda x: np.int32(np.ndim(x)), shape=shapes.rank_rule)
Size = Op("Size", lambda x, out_type: out_type._np.type(np.size(x)), shape=shapes.size_rule)


def shape(input: Any, out_type: Any = dtypes.int32, name: str | None = None) -> Tensor:  # noqa: A002
    """The shape as an int32 tensor (unlike `x.shape`, which is a TensorShape known without running)."""
    return bind(Shape, convert_to_tensor(input), out_type=dtypes.as_dtype(out_type))


def rank(input: Any, name: str | None = None) -> Tensor:  # noqa: A002
    return bind(Rank, convert_to_tensor(input))


def size(input: Any, out_type: Any = dtypes.int32, name: str | None = None) -> Tensor:  # noqa: A002
    return bind(Size, convert_to_tensor(input), out_type=dtypes.as_dtype(out_type))


# ---------------------------------------------------------------------------------------------------
# Reshaping
# ---------------------------------------------------------------------------------------------------

def _reshape_kernel(x: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    n = np.size(x)
    unknown = [i for i, d in enumerate(shape) if d == -1]
    if len(unknown) > 1:
        raise InvalidArgumentError(None, None, f"Only one input size may be -1, not both {unknown[0]} and "
                                   f"{unknown[1]} [Op:Reshape]")
    known = int(np.prod([d for d in shape if d != -1]))
    if unknown and n == 0:
        # TensorFlow's rule for empty input: when the new shape has a 0 too, the zeros are left out on both
        # sides, so [0] -> [0, -1] gives [0, 1]; otherwise -1 becomes 0.
        if 0 in shape:
            nonzero_sizes = int(np.prod([d for d in shape if d not in (0, -1)]))
            missing = int(np.prod([d for d in np.shape(x) if d])) // nonzero_sizes
        else:
            missing = 0
        return np.reshape(x, tuple(missing if d == -1 else d for d in shape))
    if unknown:
        if known == 0 or n % known:
            raise InvalidArgumentError(None, None, f"Input to reshape is a tensor with {n} values, but the requested "
                                       f"shape requires a multiple of {known} [Op:Reshape]\nHint: the product of "
                                       f"the sizes you give must divide the number of values.")
    elif known != n:
        raise InvalidArgumentError(None, None, f"Input to reshape is a tensor with {n} values, but the requested "
                                   f"shape has {known} [Op:Reshape]\nHint: reshape keeps every value; the new "
                                   f"sizes must multiply to {n}.")
    return np.reshape(x, shape)


Reshape = Op("Reshape", _reshape_kernel, shape=shapes.reshape_rule, grad=lambda c, g: [bind(Reshape_like, g, c.x)])


def reshape(tensor: Any, shape: Any, name: str | None = None) -> Tensor:
    """Same values in row-major order, new shape; one dimension may be -1 (inferred)."""
    return bind(Reshape, convert_to_tensor(tensor), shape=tuple(_static_ints(shape, "shape")))


def _expand_kernel(x: np.ndarray, axis: int) -> np.ndarray:
    return np.expand_dims(x, axis)


ExpandDims = Op("ExpandDims", _expand_kernel, shape=shapes.expand_dims_rule,
                grad=lambda c, g: [bind(Reshape_like, g, c.x)])


def expand_dims(input: Any, axis: int, name: str | None = None) -> Tensor:  # noqa: A002
    """Insert a dimension of size 1 at `axis`."""
    x = convert_to_tensor(input)
    r = x.shape.rank
    axis = int(getattr(axis, "_value", axis))
    if r is not None and not -r - 1 <= axis <= r:
        raise static_error(f"Tried to expand dim index {axis} for tensor with {r} dimensions. "
                                   f"[Op:ExpandDims] name: \nHint: axis must be in [{-r - 1}, {r}].")
    return bind(ExpandDims, x, axis=axis % (r + 1) if r is not None else axis)


def _squeeze_kernel(x: np.ndarray, axis: tuple[int, ...] | None) -> np.ndarray:
    if axis:
        for a in axis:
            if np.shape(x)[a] != 1:
                raise InvalidArgumentError(None, None, f"Can not squeeze dim[{a}], expected a dimension of 1, got "
                                           f"{np.shape(x)[a]} [Op:Squeeze] name: ")
    return np.squeeze(x, axis=axis if axis else None)


Squeeze = Op("Squeeze", _squeeze_kernel, shape=shapes.squeeze_rule, grad=lambda c, g: [bind(Reshape_like, g, c.x)])


def squeeze(input: Any, axis: Any = None, name: str | None = None) -> Tensor:  # noqa: A002
    """Remove dimensions of size 1 (all of them, or those listed in `axis`)."""
    x = convert_to_tensor(input)
    if axis is not None:
        r = x.shape.rank or 0
        axes = [int(a) for a in np.ravel(axis)]
        for a in axes:
            if not -r <= a < r:
                raise static_error(f"Tried to squeeze dim index {a} for tensor with {r} "
                                           "dimensions. [Op:Squeeze] name: ")
        axis = tuple(sorted({a % r for a in axes}))  # TensorFlow tolerates an axis listed twice
    return bind(Squeeze, x, axis=axis)


def _transpose_grad(c: Any, g: Tensor) -> list:
    return [bind(Transpose, g, perm=tuple(int(i) for i in np.argsort(c.attrs["perm"])))]


Transpose = Op("Transpose", lambda x, perm: np.transpose(x, perm), shape=shapes.transpose_rule, grad=_transpose_grad)


def transpose(a: Any, perm: Any = None, conjugate: bool = False, name: str = "transpose") -> Tensor:
    """Permute the axes; by default reverse them all (a matrix's transpose)."""
    x = convert_to_tensor(a)
    perm = None if perm is None else tuple(_static_ints(perm, "perm"))
    r = x.shape.rank if x.shape.rank is not None or perm is None else len(perm)  # unknown rank: perm tells it
    perm = tuple(builtins.range(r - 1, -1, -1)) if perm is None else perm
    if any(not -r <= p < r for p in perm) or sorted(p % r if r else p for p in perm) != list(builtins.range(r)):
        raise static_error(f"transpose expects a vector of size {r}. But input(1) is a vector "
                                   f"of size {len(perm)} [Op:Transpose] name: transpose"
                                   if len(perm) != r else f"{perm} is not a permutation [Op:Transpose]")
    out = bind(Transpose, x, perm=tuple(p % r for p in perm))
    if conjugate and x.dtype.is_complex:  # type: ignore[attr-defined]
        from minitf.ops.math_ops import conj
        out = conj(out)
    return out


def _broadcast_to_kernel(x: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    return np.broadcast_to(x, shape).copy()


BroadcastTo = Op("BroadcastTo", _broadcast_to_kernel, shape=shapes.broadcast_to_rule,
                 grad=lambda c, g: [unbroadcast(g, c.x)],
                 explain=lambda i, a, e: f"Unable to broadcast tensor of shape {list(np.shape(i[0]._value))} to "
                 f"tensor of shape {list(a['shape'])}")


def broadcast_to(input: Any, shape: Any, name: str | None = None) -> Tensor:  # noqa: A002
    return bind(BroadcastTo, convert_to_tensor(input), shape=tuple(_static_ints(shape, "shape")))


# ---------------------------------------------------------------------------------------------------
# Joining and splitting
# ---------------------------------------------------------------------------------------------------

def _concat_kernel(*xs: np.ndarray, axis: int) -> np.ndarray:
    first = np.shape(xs[0])
    for i, x in enumerate(xs[1:], start=1):
        other = np.shape(x)
        if len(other) != len(first):
            raise InvalidArgumentError(None, None, f"ConcatOp : Ranks of all input tensors should match: shape[0] = "
                                       f"{_dims(first)} vs. shape[{i}] = {_dims(other)} [Op:ConcatV2] name: concat")
        for d, (a, b) in enumerate(zip(first, other)):
            if d != axis and a != b:
                raise InvalidArgumentError(None, None, f"ConcatOp : Dimension {d} in both shapes must be equal: "
                                           f"shape[0] = {_dims(first)} vs. shape[{i}] = {_dims(other)} "
                                           f"[Op:ConcatV2] name: concat\nHint: all sizes except along axis {axis} "
                                           "must agree.")
    return np.concatenate(xs, axis=axis)


def _dims(shape: Sequence[int]) -> str:
    return "[" + ",".join(str(d) for d in shape) + "]"


def _concat_grad(c: Any, g: Tensor) -> list:
    sizes = [int(np.shape(x._value)[c.attrs["axis"]]) if state.graph is None else x.shape[c.attrs["axis"]]
             for x in c.inputs]
    if None in sizes:  # traced with unknown sizes: split where the inputs turn out to end
        return list(bind(SplitLike, g, *c.inputs, axis=c.attrs["axis"]))
    return list(bind(SplitV, g, sizes=tuple(sizes), axis=c.attrs["axis"])) if len(sizes) > 1 else [g]


def _split_like_kernel(g: np.ndarray, *like: np.ndarray, axis: int) -> tuple[np.ndarray, ...]:
    bounds = np.cumsum([np.shape(x)[axis] for x in like])[:-1]
    return tuple(np.split(g, bounds, axis=axis))


def _split_like_grad(c: Any, grads: list) -> list:
    parts = [g if g is not None else zeros_like(o) for g, o in zip(grads, c.outputs)]
    return [concat(parts, c.attrs["axis"])] + [None] * (len(c.inputs) - 1)


SplitLike = Op("SplitLike", _split_like_kernel, num_outputs=-1, grad=_split_like_grad, shape=shapes.split_like_rule)


def _concat_check(inputs: Sequence[Tensor], attrs: dict) -> None:
    same_dtype("ConcatV2", inputs, listed=True)


ConcatV2 = Op("ConcatV2", _concat_kernel, check=_concat_check, shape=shapes.concat_rule, grad=_concat_grad)


def _normalise_axis(axis: Any, rank: int, op_name: str) -> int:
    axis = int(np.asarray(getattr(axis, "_value", axis)))
    if not -rank <= axis < rank:
        raise static_error(f"{op_name}: axis {axis} is out of range for a rank-{rank} input; "
                                   f"expected an axis in [{-rank}, {rank}) [Op:{op_name}] name: ")
    return axis % rank


def concat(values: Sequence[Any], axis: int, name: str = "concat") -> Tensor:
    """Join tensors along an existing axis; all other sizes must agree."""
    tensors = [convert_to_tensor(v) for v in values]
    if len(tensors) == 1:
        return identity(tensors[0])
    same_dtype("ConcatV2", tensors, listed=True)  # TensorFlow reports mixed dtypes before a bad axis
    rank = tensors[0].shape.rank or 0
    return bind(ConcatV2, *tensors, axis=_normalise_axis(axis, builtins.max(rank, 1), "ConcatV2"))


def _pack_kernel(*xs: np.ndarray, axis: int) -> np.ndarray:
    first = np.shape(xs[0])
    for i, x in enumerate(xs[1:], start=1):
        if np.shape(x) != first:
            raise InvalidArgumentError(None, None, f"Shapes of all inputs must match: values[0].shape = "
                                       f"{_dims(first)} != values[{i}].shape = {_dims(np.shape(x))} [Op:Pack] "
                                       "name: stack")
    return np.stack(xs, axis=axis)


Pack = Op("Pack", _pack_kernel, check=lambda inputs, attrs: same_dtype("Pack", inputs, listed=True),
          shape=shapes.pack_rule, grad=lambda c, g: list(bind(Unpack, g, axis=c.attrs["axis"], num=len(c.inputs))))


def stack(values: Sequence[Any], axis: int = 0, name: str = "stack") -> Tensor:
    """Join same-shaped tensors along a new axis."""
    tensors = [convert_to_tensor(v) for v in values]
    if tensors:
        first = tensors[0].dtype  # type: ignore[attr-defined]
        tensors = [t if t.dtype is first or isinstance(v, Tensor) else convert_to_tensor(v, dtype=first)  # type: ignore
                   for t, v in zip(tensors, values)]
    rank = (tensors[0].shape.rank or 0) + 1
    return bind(Pack, *tensors, axis=_normalise_axis(axis, rank, "Pack"))


def _unpack_kernel(x: np.ndarray, axis: int, num: int) -> tuple[np.ndarray, ...]:
    return tuple(np.take(x, i, axis=axis) for i in builtins.range(num))


def _fill_none(grads: Sequence[Any], like: Sequence[Tensor]) -> list[Tensor]:
    return [zeros_like(t) if g is None else g for g, t in zip(grads, like)]


Unpack = Op("Unpack", _unpack_kernel, num_outputs=-1, shape=shapes.unpack_rule,
            grad=lambda c, g: [bind(Pack, *_fill_none(g, c.outputs), axis=c.attrs["axis"])])


def unstack(value: Any, num: int | None = None, axis: int = 0, name: str = "unstack") -> list[Tensor]:
    """Split along `axis` into a list of tensors with that axis removed."""
    x = convert_to_tensor(value)
    r = x.shape.rank
    if not r:
        raise ValueError("Cannot unstack a scalar tensor (rank 0).")
    if not -r <= int(axis) < r:
        raise ValueError(f"Argument `axis` = {axis} not in range [{-r}, {r})")
    axis = _normalise_axis(axis, r, "Unpack")
    n = x.shape[axis] if num is None else num
    if n is None:
        raise ValueError(f"Cannot infer argument `num` from shape {x.shape}")
    return list(bind(Unpack, x, axis=axis, num=int(n)))


def _splitv_kernel(x: np.ndarray, sizes: tuple[int, ...], axis: int) -> tuple[np.ndarray, ...]:
    bounds = np.cumsum(sizes)[:-1]
    return tuple(np.split(x, bounds, axis=axis))


SplitV = Op("SplitV", _splitv_kernel, num_outputs=-1, shape=shapes.split_rule,
            grad=lambda c, g: [bind(ConcatV2, *_fill_none(g, c.outputs), axis=c.attrs["axis"])])
Split = Op("Split", _splitv_kernel, num_outputs=-1, shape=shapes.split_rule,
           grad=lambda c, g: [bind(ConcatV2, *_fill_none(g, c.outputs), axis=c.attrs["axis"])])


def split(value: Any, num_or_size_splits: Any, axis: int = 0, num: int | None = None,
          name: str = "split") -> list[Tensor]:
    """Cut into pieces along `axis`: `n` equal pieces, or pieces of the listed sizes (one may be -1)."""
    x = convert_to_tensor(value)
    axis = _normalise_axis(axis, builtins.max(x.shape.rank or 0, 1), "Split")
    length = x.shape[axis]
    if np.ndim(getattr(num_or_size_splits, "_value", num_or_size_splits)) == 0:
        n = int(getattr(num_or_size_splits, "_value", num_or_size_splits))
        if length is not None and (n <= 0 or length % n):
            raise static_error(f"Number of ways to split should evenly divide the split "
                                       f"dimension, but got split_dim {axis} (size = {length}) and num_split {n} "
                                       "[Op:Split] name: split")
        return list(bind(Split, x, sizes=(length // n,) * n, axis=axis))
    sizes = _static_ints(num_or_size_splits, "num_or_size_splits")
    if len(sizes) == 1 and length is not None and sizes[0] != length:
        raise static_error(f"If there is only one output, it must have the same size as the "
                                   f"input. Input size: {length} output size: {sizes[0]} [Op:SplitV] name: split")
    if sizes.count(-1) == 1 and length is not None:
        sizes[sizes.index(-1)] = length - (sum(sizes) + 1)
    if length is not None and (sum(sizes) != length or builtins.min(sizes) < 0):
        raise static_error(f"Determined shape must either match input shape along split_dim "
                                   f"exactly if fully specified, or be less than the size of the input along "
                                   f"split_dim if not fully specified.  Got: {sum(sizes)} [Op:SplitV] name: split")
    return list(bind(SplitV, x, sizes=tuple(sizes), axis=axis))


def _tile_grad(c: Any, g: Tensor) -> list:
    return [bind(TileGrad, g, c.x, multiples=c.attrs["multiples"])]


def _tile_grad_kernel(g: np.ndarray, x: np.ndarray, multiples: tuple[int, ...]) -> np.ndarray:
    split_shape = [v for pair in zip(multiples, np.shape(x)) for v in pair]
    return np.sum(np.reshape(g, split_shape), axis=tuple(builtins.range(0, 2 * len(multiples), 2)))


TileGrad = Op("TileGrad", _tile_grad_kernel, shape=shapes.same_as_second_with_first_dtype,
              grad=lambda c, g: [bind(Tile, g, multiples=c.attrs["multiples"]), None])


def _tile_kernel(x: np.ndarray, multiples: tuple[int, ...]) -> np.ndarray:
    if len(multiples) != np.ndim(x):
        raise InvalidArgumentError(None, None, f"Expected multiples argument to be a vector of length "
                                   f"{np.ndim(x)} but got length {len(multiples)} [Op:Tile] name: ")
    return np.tile(x, multiples)


Tile = Op("Tile", _tile_kernel, shape=shapes.tile_rule, grad=_tile_grad)


def tile(input: Any, multiples: Any, name: str | None = None) -> Tensor:  # noqa: A002
    """Repeat the whole tensor `multiples[i]` times along each axis i."""
    return bind(Tile, convert_to_tensor(input), multiples=tuple(_static_ints(multiples, "multiples")))


def _reverse_kernel(x: np.ndarray, axis: tuple[int, ...]) -> np.ndarray:
    return np.flip(x, axis) if axis else x


ReverseV2 = Op("ReverseV2", _reverse_kernel, shape=shapes.same_as_first,
               grad=lambda c, g: [bind(ReverseV2, g, axis=c.attrs["axis"])])


def reverse(tensor: Any, axis: Any, name: str | None = None) -> Tensor:
    x = convert_to_tensor(tensor)
    if state.graph is None and (x.shape.rank == 0 or x.shape.num_elements() == 0):
        return identity(x)  # TensorFlow's kernel returns a scalar or an empty tensor unchanged, whatever the axis
    r = x.shape.rank or 0  # while tracing, TensorFlow checks the axes against the rank first
    axes = tuple(_normalise_axis(a, r, "ReverseV2") for a in _static_ints(axis, "axis"))
    if len(set(axes)) < len(axes):
        raise static_error(f"axis {axes[0]} specified more than once. [Op:ReverseV2]")
    return bind(ReverseV2, x, axis=axes)


# ---------------------------------------------------------------------------------------------------
# Padding
# ---------------------------------------------------------------------------------------------------

def _pad_kernel(x: np.ndarray, paddings: tuple[tuple[int, int], ...], mode: str, constant_values: Any) -> np.ndarray:
    if len(paddings) != np.ndim(x):
        raise InvalidArgumentError(None, None, f"The first dimension of paddings must be the rank of inputs"
                                   f"[{len(paddings)},2] {_dims(np.shape(x))} [Op:Pad] name: ")
    if mode == "CONSTANT":
        return np.pad(x, paddings, mode="constant", constant_values=constant_values)
    limit = 0 if mode == "REFLECT" else 1  # REFLECT needs padding < size, SYMMETRIC padding <= size
    for (before, after), size in zip(paddings, np.shape(x)):
        if before > size - 1 + limit or after > size - 1 + limit:
            relation = "less than" if mode == "REFLECT" else "no greater than"
            raise InvalidArgumentError(None, None, f"paddings must be {relation} the dimension size: {before}, "
                                       f"{after} not {relation} {size} [Op:MirrorPad] name: ")
    return np.pad(x, paddings, mode="reflect" if mode == "REFLECT" else "symmetric")


def _pad_grad(c: Any, g: Tensor) -> list:
    return [bind(PadGrad, g, c.x, paddings=c.attrs["paddings"], mode=c.attrs["mode"])]


def _pad_grad_kernel(g: np.ndarray, x: np.ndarray, paddings: tuple, mode: str) -> np.ndarray:
    index = tuple(slice(lo, lo + n) for (lo, _), n in zip(paddings, np.shape(x)))
    if mode == "CONSTANT":
        return g[index]
    # Mirror modes: every output position contributes to the input position it copied.
    source = np.pad(np.arange(np.size(x)).reshape(np.shape(x)), paddings,
                    mode="reflect" if mode == "REFLECT" else "symmetric")
    out = np.zeros(np.size(x), dtype=g.dtype)
    np.add.at(out, source.ravel(), g.ravel())
    return out.reshape(np.shape(x))


def _pad_grad_grad(c: Any, g: Tensor) -> list:
    """PadGrad is linear in its first input; its adjoint is padding again (with zeros, or mirrored)."""
    mode = c.attrs["mode"]
    op = PadV2 if mode == "CONSTANT" else MirrorPad
    zero = np.zeros((), dtype=g.dtype._np)  # type: ignore[attr-defined]
    return [bind(op, g, paddings=c.attrs["paddings"], mode=mode, constant_values=zero), None]


PadGrad = Op("PadGrad", _pad_grad_kernel, shape=shapes.same_as_second_with_first_dtype, grad=_pad_grad_grad)
PadV2 = Op("PadV2", _pad_kernel, shape=shapes.pad_rule, grad=_pad_grad)
MirrorPad = Op("MirrorPad", _pad_kernel, shape=shapes.pad_rule, grad=_pad_grad)


def pad(tensor: Any, paddings: Any, mode: str = "CONSTANT", constant_values: Any = 0,
        name: str | None = None) -> Tensor:
    """Add values around each axis: `paddings[i] = [before, after]`. Modes CONSTANT, REFLECT, SYMMETRIC."""
    x = convert_to_tensor(tensor)
    pairs = np.asarray(getattr(paddings, "_value", paddings), dtype=np.int64)
    if pairs.ndim != 2 or pairs.shape[1] != 2:
        raise static_error(f"paddings must be a matrix with 2 columns: {list(pairs.shape)} "
                                   "[Op:Pad] name: ")
    mode = mode.upper()
    if mode not in ("CONSTANT", "REFLECT", "SYMMETRIC"):
        raise ValueError(f'Value of argument `mode` expected to be one of "CONSTANT", "REFLECT", or "SYMMETRIC". '
                         f"Received `mode` = {mode}")
    op = PadV2 if mode == "CONSTANT" else MirrorPad
    value = np.asarray(getattr(constant_values, "_value", constant_values)).astype(x.dtype._np)[()]  # type: ignore
    return bind(op, x, paddings=tuple(tuple(int(v) for v in p) for p in pairs), mode=mode, constant_values=value)


# ---------------------------------------------------------------------------------------------------
# Gathering and masking
# ---------------------------------------------------------------------------------------------------

def _gather_kernel(params: np.ndarray, indices: np.ndarray, axis: int, batch_dims: int) -> np.ndarray:
    n = np.shape(params)[axis]
    shape = np.shape(params)[:axis] + np.shape(indices) + np.shape(params)[axis + 1:]
    if 0 in shape:  # nothing to gather: TensorFlow does not look at the indices
        return np.zeros(shape, dtype=params.dtype)
    flat = np.ravel(indices)
    bad = np.flatnonzero((flat < 0) | (flat >= n))
    if bad.size:
        i = int(bad[0])
        where = ",".join(str(int(v)) for v in np.unravel_index(i, np.shape(indices))) if np.ndim(indices) else ""
        raise InvalidArgumentError(None, None, f"indices[{where}] = {flat[i]} is not in [0, {n}) [Op:GatherV2]\n"
                                   f"Hint: valid indices along axis {axis} run from 0 to {n - 1}.")
    return np.take(params, indices, axis=axis)


def _gather_grad(c: Any, g: Tensor) -> list:
    if c.attrs["axis"] == 0 and c.attrs["batch_dims"] == 0:  # as TensorFlow: sparse rows (tf.IndexedSlices)
        from minitf.indexed_slices import gather_gradient
        sparse = gather_gradient(c.x, c.inputs[1], g)
        if sparse is not None:
            return [sparse, None]
    return [bind(GatherGrad, g, c.inputs[1], c.x, axis=c.attrs["axis"]), None]


def _gather_grad_kernel(g: np.ndarray, indices: np.ndarray, params: np.ndarray, axis: int) -> np.ndarray:
    out = np.zeros(np.shape(params), dtype=g.dtype)
    moved = np.moveaxis(out, axis, 0)
    g_moved = np.moveaxis(g, list(builtins.range(axis, axis + np.ndim(indices))),
                          list(builtins.range(np.ndim(indices))))
    np.add.at(moved, np.ravel(indices), g_moved.reshape((-1,) + moved.shape[1:]))
    return out


GatherGrad = Op("GatherGrad", _gather_grad_kernel, shape=shapes.same_as_third,
                grad=lambda c, g: [bind(GatherV2, g, c.inputs[1], axis=c.attrs["axis"], batch_dims=0), None, None])


def _gather_check(inputs: Sequence[Tensor], attrs: dict) -> None:
    allowed_dtypes("GatherV2", dtypes.INTEGERS, inputs[1].dtype)  # type: ignore[attr-defined]


GatherV2 = Op("GatherV2", _gather_kernel, check=_gather_check, shape=shapes.gather_rule, grad=_gather_grad)


def gather(params: Any, indices: Any, validate_indices: Any = None, axis: Any = None, batch_dims: int = 0,
           name: str | None = None) -> Tensor:
    """Pick slices of `params` along `axis` at the given indices (out-of-range indices are an error)."""
    p = convert_to_tensor(params)
    i = convert_to_tensor(indices)
    batch_dims = int(getattr(batch_dims, "_value", batch_dims))
    axis = batch_dims if axis is None else axis
    axis = _normalise_axis(axis, builtins.max(p.shape.rank or 0, 1), "GatherV2")
    if batch_dims < 0:
        batch_dims += i.shape.rank or 0
    if 0 < batch_dims <= axis:  # (TensorFlow ignores a batch_dims beyond the axis: a plain gather then)
        from minitf.ops.indexing_ops import gather_batched
        return gather_batched(p, i, axis, batch_dims)
    return bind(GatherV2, p, i, axis=axis, batch_dims=0)


def boolean_mask(tensor: Any, mask: Any, axis: int | None = None, name: str = "boolean_mask") -> Tensor:
    """Keep the entries (or slices) where `mask` is True; composed of reshape, where and gather as in TensorFlow."""
    x = convert_to_tensor(tensor)
    m = convert_to_tensor(mask)
    if m.dtype is not dtypes.bool:  # type: ignore[attr-defined]
        raise TypeError(f"Mask must be a boolean tensor, got {m.dtype.name}.")  # type: ignore[attr-defined]
    axis = 0 if axis is None else int(axis)
    k = m.shape.rank
    if k == 0:
        raise ValueError("mask cannot be scalar.")
    xs = x.shape.as_list()
    ms = m.shape.as_list()
    if xs[axis:axis + k] != ms and None not in xs[axis:axis + k] + ms:
        raise ValueError(f"Shapes {TensorShape(xs[axis:axis + k])} and {TensorShape(ms)} are incompatible")
    merged = ms if None in ms else [int(np.prod(ms))]  # spelled out, not -1: an empty tensor cannot infer it
    flat_shape = xs[:axis] + merged + xs[axis + k:]
    if None in flat_shape:
        raise ValueError("boolean_mask needs the tensor's static shape in this engine.")
    flat = reshape(x, flat_shape)
    from minitf.ops.math_ops import where
    positions = reshape(where(reshape(m, [-1])), [-1])
    return gather(flat, positions, axis=axis)


def _one_hot_kernel(indices: np.ndarray, depth: int, on: Any, off: Any, axis: int) -> np.ndarray:
    idx = np.asarray(indices)
    hot = idx[..., None] == np.arange(depth)
    out = np.where(hot, on, off).astype(np.asarray(on).dtype)
    return np.moveaxis(out, -1, axis) if axis != -1 else out


OneHot = Op("OneHot", _one_hot_kernel, shape=shapes.one_hot_rule)


def one_hot(indices: Any, depth: int, on_value: Any = None, off_value: Any = None, axis: int | None = None,
            dtype: Any = None, name: str | None = None) -> Tensor:
    """Each index becomes a row with `on_value` at that position (float32 by default; -1 gives a zero row)."""
    i = convert_to_tensor(indices)
    allowed_dtypes("OneHot", frozenset({dtypes.uint8, dtypes.int8, dtypes.int32, dtypes.int64}), i.dtype)  # type: ignore
    if dtype is None:
        given = next((v for v in (on_value, off_value) if v is not None), None)
        dtype = dtypes.float32 if given is None else convert_to_tensor(given).dtype  # type: ignore[attr-defined]
    dtype = dtypes.as_dtype(dtype)
    on = np.asarray(1 if on_value is None else getattr(on_value, "_value", on_value)).astype(dtype._np)
    off = np.asarray(0 if off_value is None else getattr(off_value, "_value", off_value)).astype(dtype._np)
    rank = (i.shape.rank or 0) + 1
    axis = -1 if axis is None or axis == -1 else _normalise_axis(axis, rank, "OneHot")
    return bind(OneHot, i, depth=int(depth), on=on, off=off, axis=axis)


# ---------------------------------------------------------------------------------------------------
# Slicing: t[1:, ::-1, tf.newaxis, ...]
# ---------------------------------------------------------------------------------------------------

def _resolve(spec: tuple, dynamic: Sequence[Any]) -> tuple:
    """Turn the slice spec (ints, slices, None, Ellipsis; ("input", k) for tensor indices) into a NumPy index."""
    def val(v: Any) -> Any:
        return int(dynamic[v[1]]) if isinstance(v, tuple) else v

    out: list[Any] = []
    for item in spec:
        if isinstance(item, tuple) and item and item[0] == "slice":
            out.append(slice(val(item[1]), val(item[2]), val(item[3])))
        elif isinstance(item, tuple) and item and item[0] == "input":
            out.append(val(item))
        else:
            out.append(item)
    return tuple(out)


def _check_bounds(x: np.ndarray, index: tuple) -> None:
    dim = 0
    ellipsis_extra = np.ndim(x) - sum(1 for i in index if i is not None and i is not Ellipsis)
    for item in index:
        if item is Ellipsis:
            dim += ellipsis_extra
            continue
        if item is None:
            continue
        if dim >= np.ndim(x):
            raise InvalidArgumentError(None, None, f"Index out of range using input dim {dim}; input has only "
                                       f"{np.ndim(x)} dims [Op:StridedSlice] name: strided_slice/")
        if isinstance(item, int | np.integer):
            n = np.shape(x)[dim]
            if not -n <= item < n:
                raise InvalidArgumentError(None, None, f"slice index {item} of dimension {dim} out of bounds. "
                                           f"[Op:StridedSlice] name: strided_slice/\nHint: dimension {dim} has "
                                           f"size {n}, so valid indices are {-n}..{n - 1}.")
        dim += 1


def _strided_slice_kernel(x: np.ndarray, *dynamic: Any, spec: tuple) -> Any:
    index = _resolve(spec, dynamic)
    _check_bounds(x, index)
    out = x[index]
    return out.copy() if isinstance(out, np.ndarray) else out


def _strided_slice_grad(c: Any, g: Tensor) -> list:
    return [bind(StridedSliceGrad, g, c.x, *c.inputs[1:], spec=c.attrs["spec"])] + [None] * (len(c.inputs) - 1)


def _strided_slice_grad_kernel(g: np.ndarray, x: np.ndarray, *dynamic: Any, spec: tuple) -> np.ndarray:
    out = np.zeros(np.shape(x), dtype=np.asarray(g).dtype)
    out[_resolve(spec, dynamic)] = g
    return out


StridedSlice = Op("StridedSlice", _strided_slice_kernel, shape=shapes.strided_slice_rule, grad=_strided_slice_grad,
                  value_dependent=True)
StridedSliceGrad = Op("StridedSliceGrad", _strided_slice_grad_kernel, shape=shapes.same_as_second_with_first_dtype,
                      grad=lambda c, g: [bind(StridedSlice, g, *c.inputs[2:], spec=c.attrs["spec"]), None]
                      + [None] * (len(c.inputs) - 2))


def getitem(x: Tensor, key: Any) -> Tensor:
    """`x[key]` with NumPy's basic indexing; a boolean tensor as key works like `boolean_mask`."""
    if not isinstance(key, tuple):
        key = (key,)
    if len(key) == 1 and isinstance(key[0], Tensor) and key[0].dtype is dtypes.bool:  # type: ignore[attr-defined]
        return boolean_mask(x, key[0])
    if len(key) == 1 and isinstance(key[0], np.ndarray) and key[0].dtype == np.bool_:
        return boolean_mask(x, key[0])
    spec, dynamic = slice_spec(key)
    return bind(StridedSlice, x, *dynamic, spec=spec)


def slice_spec(key: tuple) -> tuple[tuple, list[Tensor]]:
    """The StridedSlice spec of an index tuple, and the symbolic tensors it refers to as ("input", k)."""
    spec: list[Any] = []
    dynamic: list[Tensor] = []

    def part(v: Any) -> Any:
        if v is None:
            return None
        if isinstance(v, Tensor):
            if getattr(v, "_value", None) is not None:
                return int(v._value)  # type: ignore[attr-defined]
            dynamic.append(v)
            return ("input", len(dynamic) - 1)
        if isinstance(v, int | np.integer) and not isinstance(v, bool):
            return int(v)
        raise TypeError(f"Only integers, slices (`:`), ellipsis (`...`), tf.newaxis (`None`) and scalar "
                        f"tf.int32/tf.int64 tensors are valid indices, got {v!r}\nHint: to pick several "
                        f"positions use tf.gather(x, indices).")

    for item in key:
        if isinstance(item, slice):
            spec.append(("slice", part(item.start), part(item.stop), part(item.step)))
        elif item is None or item is Ellipsis:
            spec.append(item)
        elif isinstance(item, list | np.ndarray):
            raise static_error(f"Index {item!r} is a list; tensors support only basic indexing "
                                       "(ints, slices, ..., tf.newaxis) [Op:StridedSlice] name: strided_slice/\n"
                                       "Hint: to pick several positions use tf.gather(x, indices).")
        else:
            spec.append(part(item))
    return tuple(spec), dynamic
