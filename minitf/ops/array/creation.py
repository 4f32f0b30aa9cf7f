"""Making tensors: constant, zeros, ones, zeros_like, fill, range, linspace, eye, one_hot."""

from __future__ import annotations

import builtins
import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from minitf.core import dtypes
from minitf.core.context import state
from minitf.core.conversion import constant_tensor, convert_to_tensor, static_value, to_numpy
from minitf.core.dispatch import api_handler
from minitf.core.errors import InvalidArgumentError, allowed_dtypes, dims_text, op_error, static_error
from minitf.core.op import GradContext, Op, bind
from minitf.core.shape_rules import Spec, broadcast_shapes
from minitf.core.tensor import Tensor, make
from minitf.core.tensor_shape import TensorShape
from minitf.ops.array.join_split import stack
from minitf.ops.array.shape_ops import expand_dims, reshape, static_ints, transpose
from minitf.ops.math.binary_math import maximum
from minitf.ops.math.cast import cast
from minitf.ops.math.comparisons import less
from minitf.ops.math.elementwise import OnesLike, ZerosLike
from minitf.ops.math.reductions import reduce_max, reduce_sum


def constant(value: Any, dtype: Any = None, shape: Any = None, name: str = "Const") -> Tensor:
    """A tensor holding `value`, with TensorFlow's dtype inference (Python int -> int32, float -> float32)."""
    dtype = None if dtype is None else dtypes.as_dtype(dtype)
    if isinstance(value, Tensor) and getattr(value, "_value", None) is None:  # a graph tensor
        raise TypeError(
            "Expected any non-tensor type, but got a tensor instead.\nHint: inside a tf.function, "
            "tf.constant takes Python or NumPy values; use tf.identity or tf.cast on tensors."
        )
    if isinstance(value, Tensor) or hasattr(value, "_as_tensor"):
        t = convert_to_tensor(value)
        if dtype is not None and t.dtype is not dtype:
            raise TypeError(
                f"Expected tensor {t.numpy()} with dtype {dtype!r}, but got dtype "  # type: ignore[attr-defined]
                f"{t.dtype!r}.\nHint: use tf.cast(t, {dtype!r}) to change a tensor's dtype."
            )
        return t if shape is None else reshape(t, shape)
    array, dtype = to_numpy(value, dtype)
    if shape is not None:
        shape = static_ints(shape, "shape")
        if np.size(array) == 1:
            array = np.full(shape, np.ravel(array)[0], dtype=np.asarray(array).dtype)
        elif np.size(array) == int(np.prod(shape)):
            array = np.reshape(array, shape)
        else:
            raise TypeError(
                f"Eager execution of tf.constant with unsupported shape. Tensor {value} (converted "
                f"from {value}) has {np.size(array)} elements, but got `shape` {tuple(shape)} with "
                f"{int(np.prod(shape))} elements)."
            )
    if state.graph is not None:
        return state.graph.constant(array, dtype)
    return make(array, dtype)


def fill_dims(dims: Any, name: str | None = "") -> list[int]:
    """The sizes of a filled tensor, checked as TensorFlow's Fill kernel checks them (`name`: the tail of its
    message, which depends on the function that called Fill)."""
    if not isinstance(dims, Tensor) and np.ndim(dims) > 1:
        shape = dims_text(np.shape(dims))
        hint = "a shape is a flat list of sizes, like [2, 3]."
        raise static_error(f"dims must represent a vector, got shape {shape}", "Fill", hint, name)
    sizes = static_ints(dims, "dims")
    negative = next((d for d in sizes if d < 0), None)
    if negative is not None:
        raise static_error(f"Dimension {negative} must be >= 0", "Fill", "a size cannot be negative.", name)
    return sizes


def _known_later(dims: Any) -> bool:
    """Whether some of `dims` is a size known only when the traced graph runs (a symbolic tensor)."""
    parts = dims if isinstance(dims, list | tuple) else [dims]
    return any(isinstance(d, Tensor) and static_value(d) is None for d in parts)


def _filled(shape: Any, dtype: Any, value: float) -> Tensor:
    dtype = dtypes.as_dtype(dtype)
    if _known_later(shape) and dtype is not dtypes.string:
        return fill(shape, constant_tensor(np.asarray(value, dtype=dtype._np), dtype))
    dims = fill_dims(shape)
    if dtype is dtypes.string:
        if value:
            raise TypeError(f"Cannot convert {value} to EagerTensor of dtype string")
        return constant_tensor(np.full(dims, b"", dtype=object), dtype)
    return constant_tensor(np.full(dims, value, dtype=dtype._np), dtype)


def zeros(shape: Any, dtype: Any = dtypes.float32, name: str | None = None) -> Tensor:
    """A tensor of zeros (float32 unless told otherwise)."""
    if (handler := api_handler(zeros, shape)) is not None:  # a ragged shape (minitf/core/dispatch.py)
        return handler(shape, dtype)
    return _filled(shape, dtype, 0)


def ones(shape: Any, dtype: Any = dtypes.float32, name: str | None = None) -> Tensor:
    """A tensor of ones (float32 unless told otherwise)."""
    if (handler := api_handler(ones, shape)) is not None:
        return handler(shape, dtype)
    return _filled(shape, dtype, 1)


def zeros_like(input: Any, dtype: Any = None, name: str | None = None) -> Tensor:
    x = convert_to_tensor(input)
    out = bind(ZerosLike, x)
    return out if dtype is None else cast(out, dtype)


def ones_like(input: Any, dtype: Any = None, name: str | None = None) -> Tensor:
    x = convert_to_tensor(input)
    out = bind(OnesLike, x)
    return out if dtype is None else cast(out, dtype)


def _fill_kernel(dims: np.ndarray, value: np.ndarray) -> np.ndarray:
    sizes = [int(d) for d in np.ravel(dims)]
    negative = next((d for d in sizes if d < 0), None)
    if negative is not None:  # (sizes computed in a traced function are checked here, when it runs)
        raise op_error(InvalidArgumentError, "Fill", f"Dimension {negative} must be >= 0", "sizes cannot be negative.")
    return np.full(sizes, value, dtype=np.asarray(value).dtype)


def fill_rule(
    shapes: Sequence[TensorShape], types: Sequence[dtypes.DType], attrs: dict, values: Sequence[Any] = ()
) -> list[Spec]:
    """The sizes, where they are constants; a known number of unknown sizes otherwise."""
    known = values[0] if values else None
    if known is not None:
        return [(TensorShape([int(d) for d in np.ravel(known)]), types[1])]
    count = shapes[0][0] if shapes[0].rank == 1 else None
    return [(TensorShape(None if count is None else [None] * count), types[1])]


# Fill(dims, value), as TensorFlow's: the sizes are an input, so a traced function can fill a shape it computes
Fill = Op(
    "Fill", _fill_kernel, shape=fill_rule, grad=lambda c, g: [None, reduce_sum(g)], value_dependent=True
)  # (every entry is the value: its gradient is the sum)


def fill(dims: Any, value: Any, name: str | None = None) -> Tensor:
    """A tensor of shape `dims` filled with `value`; the dtype comes from `value` (`fill([2], 7)` is int32)."""
    if _known_later(dims) and isinstance(dims, list | tuple):
        dtype = next(d.dtype for d in dims if isinstance(d, Tensor))  # Python ints join the tensors' dtype
        sizes = stack([convert_to_tensor(d, dtype=dtype) for d in dims])
    elif _known_later(dims):
        sizes = convert_to_tensor(dims)
    else:
        sizes = constant_tensor(np.asarray(fill_dims(dims, name=None), dtype=np.int32), dtypes.int32)
    value = convert_to_tensor(value)
    if value.shape.rank:
        hint = "the value is one number that fills the whole tensor."
        raise static_error(f"value must represent a scalar, got shape {dims_text(value.shape)}", "Fill", hint, None)
    out = bind(Fill, sizes, value)
    if _known_later(dims) and isinstance(dims, list | tuple):  # the sizes given as numbers are known already
        out.set_shape([d if isinstance(d, int) else static_value(d) for d in dims])
    return out


def _number(v: Any) -> str:
    """A number as TensorFlow's C++ messages print it: a float without a needless `.0`."""
    return f"{float(v):g}" if np.asarray(v).dtype.kind == "f" else str(int(v))


def _range_kernel(start: Any, limit: Any, delta: Any) -> np.ndarray:
    if delta == 0:
        raise op_error(
            InvalidArgumentError, "Range", f"Requires delta != 0: {_number(delta)}", "a step of 0 never ends."
        )
    if (delta > 0 and start > limit) or (delta < 0 and start < limit):
        sign = "start <= limit when delta > 0" if delta > 0 else "start >= limit when delta < 0"
        hint = "the step must lead from start towards limit (a negative delta counts down)."
        raise op_error(InvalidArgumentError, "Range", f"Requires {sign}: {_number(start)}/{_number(limit)}", hint)
    return np.arange(start, limit, delta, dtype=np.asarray(start).dtype)


def range_rule(
    shapes: Sequence[TensorShape], types: Sequence[dtypes.DType], attrs: dict, values: Sequence[Any] = ()
) -> list[Spec]:
    """tf.range: the length is known when start, limit and delta are constants (TensorFlow evaluates them)."""
    start, limit, delta = (list(values) + [None] * 3)[:3]
    if start is None or limit is None or delta is None:
        return [(TensorShape([None]), types[0])]
    if delta == 0:
        raise ValueError("Requires delta != 0")
    if delta > 0 and start > limit:
        raise ValueError(f"Requires start <= limit when delta > 0: {start}/{limit}")
    if delta < 0 and start < limit:
        raise ValueError(f"Requires start >= limit when delta < 0: {start}/{limit}")
    if types[0].is_integer:
        length = (abs(int(limit) - int(start)) + abs(int(delta)) - 1) // abs(int(delta))
    else:
        length = int(math.ceil(abs((float(limit) - float(start)) / float(delta))))
    return [(TensorShape([length]), types[0])]


Range = Op("Range", _range_kernel, shape=range_rule, value_dependent=True)


def range(start: Any, limit: Any = None, delta: Any = 1, dtype: Any = None, name: str = "range") -> Tensor:
    """Like Python's range: int32 for ints; float32 as soon as any argument is a float."""
    if limit is None:
        start, limit = 0, start
    given = None if dtype is None else dtypes.as_dtype(dtype)
    # Python numbers are converted to the requested dtype strictly (`range(0, 5, 0.5, dtype=tf.int32)` is a
    # TypeError); without a dtype the widest of the inferred ones wins.
    parts = [v if isinstance(v, Tensor) else convert_to_tensor(v, dtype=given) for v in (start, limit, delta)]
    if given is None:
        order = [dtypes.int32, dtypes.int64, dtypes.float32, dtypes.float64]
        given = builtins.max((p.dtype for p in parts), key=lambda d: order.index(d) if d in order else 0)
    start, limit, delta = (cast(p, given) for p in parts)
    return bind(Range, start, limit, delta)


def _linspace_kernel(start: Any, stop: Any, num: Any) -> np.ndarray:
    return np.linspace(start, stop, int(num), dtype=np.asarray(start).dtype)


def _linspace_grad(c: GradContext, g: Tensor) -> list:
    """Entry i is start + (stop - start) * i / (num - 1): linear in start and stop."""
    n = g.shape[0]
    weights = constant_tensor(np.linspace(0, 1, n) if n > 1 else np.zeros(n), g.dtype)
    return [reduce_sum(g * (1 - weights)), reduce_sum(g * weights), None]


def linspace_rule(
    shapes: Sequence[TensorShape], types: Sequence[dtypes.DType], attrs: dict, values: Sequence[Any] = ()
) -> list[Spec]:
    num = values[2] if len(values) > 2 else None
    batch = broadcast_shapes(shapes[0], shapes[1])  # start and stop broadcast: (num, *batch)
    if batch.rank is None:
        return [(TensorShape(None), types[0])]
    return [(TensorShape([None if num is None else int(num), *batch.as_list()]), types[0])]


LinSpace = Op("LinSpace", _linspace_kernel, shape=linspace_rule, grad=_linspace_grad, value_dependent=True)


def linspace(start: Any, stop: Any, num: Any, name: str | None = None, axis: int = 0) -> Tensor:
    """`num` evenly spaced values from start to stop, both included. Integer ends give float64."""
    start, stop = convert_to_tensor(start), convert_to_tensor(stop)
    if start.dtype.is_integer:
        start, stop = cast(start, dtypes.float64), cast(stop, dtypes.float64)
    stop = cast(stop, start.dtype)
    values = bind(LinSpace, start, stop, convert_to_tensor(num))  # the new axis first: (num, *batch)
    rank = values.shape.rank
    if rank is not None and not -rank <= axis < rank:
        raise static_error(
            f"Tried to expand dim index {axis} for tensor with {rank - 1} dimensions.",
            "ExpandDims",
            hint=f"the result has {rank} axes, so axis must be in [{-rank}, {rank}).",
        )
    if axis == 0 or rank is None or rank < 2:
        return values
    perm = list(builtins.range(1, rank))
    perm.insert(axis % rank, 0)  # move the new axis to `axis` (counted in the result, as TensorFlow does)
    return transpose(values, perm)


def eye(
    num_rows: int,
    num_columns: int | None = None,
    batch_shape: Any = None,
    dtype: Any = dtypes.float32,
    name: str | None = None,
) -> Tensor:
    """An identity matrix (or a batch of them)."""
    columns = num_rows if num_columns is None else num_columns
    fill_dims([int(num_rows), int(columns)])
    matrix = np.eye(int(num_rows), int(columns), dtype=dtypes.as_dtype(dtype)._np)
    if batch_shape is not None:
        matrix = np.broadcast_to(matrix, tuple(static_ints(batch_shape, "batch_shape")) + matrix.shape).copy()
    return constant_tensor(matrix, dtypes.as_dtype(dtype))


def _one_hot_kernel(indices: np.ndarray, depth: int, on: Any, off: Any, axis: int) -> np.ndarray:
    idx = np.asarray(indices)
    if axis != -1 and not 0 <= axis <= idx.ndim:  # (TensorFlow checks it when the op runs, traced or not)
        hint = f"axis is where the new dimension goes: -1 (last) or 0 ... {idx.ndim}."
        raise op_error(InvalidArgumentError, "OneHot", _one_hot_axis(axis, idx.ndim + 1), hint, name=None)
    hot = idx[..., None] == np.arange(depth)
    out = np.where(hot, on, off).astype(np.asarray(on).dtype, copy=False)
    return np.moveaxis(out, -1, axis) if axis != -1 else out


def one_hot_rule(shapes: Sequence[TensorShape], types: Sequence[dtypes.DType], attrs: dict) -> list[Spec]:
    dtype, axis = dtypes.from_numpy(attrs["on"].dtype), attrs["axis"]
    if axis < -1:
        raise ValueError("axis must be >= -1")
    if shapes[0].rank is None:
        return [(TensorShape(None), dtype)]
    dims = list(shapes[0])
    if axis != -1 and not 0 <= axis <= len(dims):  # an error when it runs
        return [(TensorShape(None), dtype)]
    dims.insert(len(dims) if axis == -1 else axis, attrs["depth"])
    return [(TensorShape(dims), dtype)]


OneHot = Op("OneHot", _one_hot_kernel, shape=one_hot_rule)


def one_hot(
    indices: Any,
    depth: int,
    on_value: Any = None,
    off_value: Any = None,
    axis: int | None = None,
    dtype: Any = None,
    name: str | None = None,
) -> Tensor:
    """Each index becomes a row with `on_value` at that position (float32 by default; -1 gives a zero row)."""
    i = convert_to_tensor(indices)
    allowed_dtypes("OneHot", frozenset({dtypes.uint8, dtypes.int8, dtypes.int32, dtypes.int64}), i.dtype)
    if dtype is None:
        given = next((v for v in (on_value, off_value) if v is not None), None)
        dtype = dtypes.float32 if given is None else convert_to_tensor(given).dtype
    dtype = dtypes.as_dtype(dtype)
    on = np.asarray(1 if on_value is None else getattr(on_value, "_value", on_value)).astype(dtype._np)
    off = np.asarray(0 if off_value is None else getattr(off_value, "_value", off_value)).astype(dtype._np)
    axis = -1 if axis is None else int(axis)  # (checked by the kernel: only -1 counts from the end)
    if int(depth) < 0:
        hint = "depth is the number of classes."
        raise static_error(f"depth must be non-negative, got: {int(depth)}", "OneHot", hint, None)
    return bind(OneHot, i, depth=int(depth), on=on, off=off, axis=axis)


def _one_hot_axis(axis: int, rank: int) -> str:
    return f"Expected axis to be -1 or between [0, {rank}).  But received: {axis}"


def sequence_mask(lengths: Any, maxlen: Any = None, dtype: Any = dtypes.bool, name: str | None = None) -> Tensor:
    """mask[i, j] = j < lengths[i]: one row of `maxlen` entries (the longest length by default) per length."""
    lengths = convert_to_tensor(lengths)
    if maxlen is None:
        maxlen = reduce_max(lengths) if lengths.shape.rank else lengths
        maxlen = maximum(maxlen, zeros_like(maxlen))
    else:
        maxlen = convert_to_tensor(maxlen)
        if maxlen.shape.rank not in (None, 0):
            raise ValueError(
                f"Argument `maxlen` must be scalar for sequence_mask, received `maxlen` = {maxlen} "
                f"with shape '{maxlen.shape}' instead\nHint: maxlen is one number, the length of "
                "every row of the mask."
            )
    row = range(cast(maxlen, lengths.dtype))
    mask = less(row, expand_dims(lengths, -1))
    target = dtypes.as_dtype(dtype)
    return mask if target is dtypes.bool else cast(mask, target)
