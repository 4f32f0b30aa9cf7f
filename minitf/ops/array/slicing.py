"""Slicing: `t[1:, ::-1, tf.newaxis, ...]` (`StridedSlice`), tf.slice, tf.strided_slice, and writing into a
slice (`v[...].assign`, `TensorStridedSliceUpdate`).
"""

from __future__ import annotations

import builtins
from collections.abc import Sequence
from typing import Any, cast

import numpy as np

from minitf.core import dtypes, shape_rules
from minitf.core.context import state
from minitf.core.conversion import convert_to_tensor
from minitf.core.errors import (
    InvalidArgumentError,
    allowed_dtypes,
    dims_text,
    graph_build_error,
    op_error,
    static_error,
)
from minitf.core.op import GradContext, Op, bind
from minitf.core.shape_rules import Spec
from minitf.core.tensor import EagerTensor, Tensor
from minitf.core.tensor_shape import TensorShape
from minitf.ops.array.creation import zeros_like
from minitf.ops.array.gather_scatter import boolean_mask
from minitf.ops.array.index_arguments import INDEX_TYPES, at_graph_build, known_ints
from minitf.ops.array.shape_ops import static_ints
from minitf.ops.math.elementwise import unbroadcast

newaxis = None

Specs = list[shape_rules.Spec]


def _resolve(spec: tuple, dynamic: Sequence[Any]) -> tuple:
    """Turn the slice spec (ints, slices, None, Ellipsis; ("input", k) for tensor indices) into a NumPy index."""

    def val(v: Any) -> Any:
        return int(dynamic[v[1]]) if isinstance(v, tuple) else v

    out: list[Any] = []
    for item in spec:
        if isinstance(item, tuple) and item and item[0] == "slice":
            out.append(builtins.slice(val(item[1]), val(item[2]), val(item[3])))
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
            raise op_error(
                InvalidArgumentError,
                "StridedSlice",
                f"Index out of range using input dim {dim}; input has only {np.ndim(x)} dims",
                name="strided_slice/",
            )
        if isinstance(item, int | np.integer):
            n = np.shape(x)[dim]
            if not -n <= item < n:
                raise op_error(
                    InvalidArgumentError,
                    "StridedSlice",
                    f"slice index {item} of dimension {dim} out of bounds.",
                    name="strided_slice/",
                    hint=f"dimension {dim} has size {n}, so valid indices are {-n}..{n - 1}.",
                )
        dim += 1


def _strided_slice_kernel(x: np.ndarray, *dynamic: Any, spec: tuple) -> Any:
    index = _resolve(spec, dynamic)
    _check_bounds(x, index)
    out = x[index]
    return out.copy() if isinstance(out, np.ndarray) else out


def _strided_slice_grad(c: GradContext, g: Tensor) -> list:
    return [bind(StridedSliceGrad, g, c.x, *c.inputs[1:], spec=c.attrs["spec"])] + [None] * (len(c.inputs) - 1)


def _strided_slice_grad_kernel(g: np.ndarray, x: np.ndarray, *dynamic: Any, spec: tuple) -> np.ndarray:
    out = np.zeros(np.shape(x), dtype=np.asarray(g).dtype)
    out[_resolve(spec, dynamic)] = g
    return out


def strided_slice_rule(
    shapes: Sequence[TensorShape], types: Sequence[dtypes.DType], attrs: dict, values: Sequence[Any] = ()
) -> list[Spec]:
    """`x[spec]`: each int removes a dimension, each slice keeps one (its length known when the dimension and
    the bounds are), `tf.newaxis` adds a 1 and `...` stands for the dimensions nobody names.

    Bounds given as tensors (`("input", k)` in the spec) count as known when they are constants."""
    source = shapes[0]
    if source.rank is None:
        return [(TensorShape(None), types[0])]

    def known(v: Any) -> Any:
        return values[1 + v[1]] if len(values) > 1 + v[1] else None

    spec = attrs["spec"]
    bounds = [v for item in spec if isinstance(item, tuple) for v in (item[1:] if item and item[0] == "slice" else ())]
    # TensorFlow packs the given bounds into one begin, one end and one strides tensor: one bound that is not
    # a constant makes every given bound unknown (omitted ones, `x[:, 1:]`, are masks and stay known).
    refs = [v for v in bounds + list(spec) if isinstance(v, tuple) and v and v[0] == "input"]
    packed_unknown = any(known(v) is None for v in refs)

    def bound(v: Any) -> Any:
        """A bound's value: an int, None where omitted (`x[1:]`), UNKNOWN for a non-constant tensor."""
        if v is None:
            return None
        if packed_unknown:
            return UNKNOWN
        return int(known(v)) if isinstance(v, tuple) else v

    named = sum(1 for item in spec if item is not None and item is not Ellipsis)
    dims = list(source)
    out: list[int | None] = []
    dim = 0
    for item in spec:
        if item is Ellipsis:
            take = max(len(dims) - named, 0)
            out.extend(dims[dim : dim + take])
            dim += take
            continue
        if item is None:
            out.append(1)
            continue
        if dim >= len(dims):
            raise ValueError(f"Index out of range using input dim {dim}; input has only {len(dims)} dims")
        size = dims[dim]
        if isinstance(item, tuple) and item and item[0] == "slice":
            out.append(_slice_length(size, bound(item[1]), bound(item[2]), bound(item[3]), dim))
        else:
            index = bound(item)
            if index is not UNKNOWN and size is not None and not -size <= index < size:
                raise ValueError(f"slice index {index} of dimension {dim} out of bounds.")
        dim += 1
    out.extend(dims[dim:])
    return [(TensorShape(out), types[0])]


UNKNOWN = object()  # a slice bound given as a tensor whose value is not known while tracing


def _slice_length(size: int | None, start: Any, stop: Any, step: Any, dim: int) -> int | None:
    if step == 0:
        raise ValueError(f"strides[{dim}] must be non-zero")
    if size is None or UNKNOWN in (start, stop, step):
        return None
    return len(range(*builtins.slice(start, stop, step).indices(size)))


StridedSlice = Op(
    "StridedSlice", _strided_slice_kernel, shape=strided_slice_rule, grad=_strided_slice_grad, value_dependent=True
)
StridedSliceGrad = Op(
    "StridedSliceGrad",
    _strided_slice_grad_kernel,
    shape=shape_rules.same_as_second_with_first_dtype,
    grad=lambda c, g: [bind(StridedSlice, g, *c.inputs[2:], spec=c.attrs["spec"]), None] + [None] * (len(c.inputs) - 2),
)


def getitem(x: Tensor, key: Any) -> Tensor:
    """`x[key]` with NumPy's basic indexing; a boolean tensor as key works like `boolean_mask`."""
    if not isinstance(key, tuple):
        key = (key,)
    if len(key) == 1 and isinstance(key[0], Tensor) and key[0].dtype is dtypes.bool:
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
                return int(cast(EagerTensor, v)._value)
            dynamic.append(v)
            return ("input", len(dynamic) - 1)
        if isinstance(v, int | np.integer) and not isinstance(v, bool):
            return int(v)
        raise TypeError(
            f"Only integers, slices (`:`), ellipsis (`...`), tf.newaxis (`None`) and scalar "
            f"tf.int32/tf.int64 tensors are valid indices, got {v!r}\nHint: to pick several "
            f"positions use tf.gather(x, indices)."
        )

    for item in key:
        if isinstance(item, builtins.slice):
            if part(item.step) == 0:
                raise static_error(
                    f"strides[{len(spec)}] must be non-zero",
                    "StridedSlice",
                    "a step of 0 would never move; use 1 (or -1 to go backwards).",
                    name="strided_slice/",
                )
            spec.append(("slice", part(item.start), part(item.stop), part(item.step)))
        elif item is None or item is Ellipsis:
            spec.append(item)
        elif isinstance(item, list | np.ndarray):
            raise static_error(
                f"Index {item!r} is a list; tensors support only basic indexing (ints, slices, ..., tf.newaxis)",
                "StridedSlice",
                "to pick several positions use tf.gather(x, indices).",
                name="strided_slice/",
            )
        else:
            spec.append(part(item))
    return tuple(spec), dynamic


def _slice_bounds(shape: Sequence[int], begin: np.ndarray, size: np.ndarray) -> tuple[builtins.slice, ...]:
    """The NumPy index of `tf.slice(x, begin, size)`, with TensorFlow's checks (no clamping, unlike `x[a:b]`)."""
    if np.ndim(begin) != 1 or np.ndim(size) != 1 or len(begin) != len(shape) or len(size) != len(shape):
        raise InvalidArgumentError(
            None,
            None,
            f"Expected begin and size arguments to be 1-D tensors of size "
            f"{len(shape)}, but got shapes {dims_text(np.shape(begin))} and "
            f"{dims_text(np.shape(size))} instead. [Op:Slice]\nHint: give one begin and one "
            f"size per dimension of the input (it has {len(shape)}).",
        )
    index = []
    for d, (b, s, n) in enumerate(zip(begin.tolist(), size.tolist(), shape)):
        if not 0 <= b <= n:
            raise InvalidArgumentError(
                None,
                None,
                f"Expected begin[{d}] in [0, {n}], but got {b} [Op:Slice]\n"
                f"Hint: tf.slice does not accept negative or too large starts.",
            )
        s = n - b if s == -1 else s
        if not 0 <= s <= n - b:
            raise InvalidArgumentError(
                None,
                None,
                f"Expected size[{d}] in [0, {n - b}], but got {s} [Op:Slice]\n"
                f"Hint: begin + size must stay within the dimension ({n}); -1 means "
                f"'up to the end'.",
            )
        index.append(builtins.slice(b, b + s))
    return tuple(index)


def _slice_kernel(x: np.ndarray, begin: np.ndarray, size: np.ndarray, known_size: Any = None) -> np.ndarray:
    return np.array(x[_slice_bounds(np.shape(x), begin, size)], copy=True)


def _slice_shape(shapes: Sequence[TensorShape], types: Sequence[dtypes.DType], attrs: dict) -> Specs:
    x, begin, size = shapes
    if (
        x.rank is not None
        and begin.rank == 1
        and size.rank == 1
        and None not in (begin[0], size[0])
        and x.rank not in (begin[0], size[0])
    ):
        # Only the rank matters: it differs from begin's and size's lengths, so the check raises before any size.
        at_graph_build(
            lambda: _slice_bounds(cast("list[int]", x.as_list()), np.zeros(begin[0]), np.zeros(size[0])), "Slice"
        )
    known = attrs["known_size"]
    if known is not None:
        return [(TensorShape(known), types[0])]
    rank = shapes[2][0] if shapes[2].rank == 1 else shapes[0].rank
    return [(TensorShape(None if rank is None else [None] * rank), types[0])]


def _slice_grad_kernel(g: np.ndarray, x: np.ndarray, begin: np.ndarray, size: np.ndarray) -> np.ndarray:
    out = np.zeros(np.shape(x), dtype=g.dtype)
    out[_slice_bounds(np.shape(x), begin, size)] = g
    return out


def _slice_grad(c: GradContext, g: Tensor) -> list:
    return [bind(SliceGrad, g, c.x, c.inputs[1], c.inputs[2]), None, None]


def _slice_grad_grad(c: GradContext, g: Tensor) -> list:
    return [
        bind(
            Slice,
            g,
            c.inputs[2],
            c.inputs[3],
            known_size=None if c.x.shape.rank is None else tuple(c.x.shape.as_list()),
        ),
        None,
        None,
        None,
    ]


def _slice_check(inputs: Sequence[Tensor], attrs: dict) -> None:
    for t in inputs[1:]:
        if t.dtype not in INDEX_TYPES:
            allowed_dtypes("Slice", INDEX_TYPES, t.dtype)


Slice = Op("Slice", _slice_kernel, check=_slice_check, shape=_slice_shape, grad=_slice_grad)
SliceGrad = Op("SliceGrad", _slice_grad_kernel, shape=lambda s, t, a: [(s[1], t[0])], grad=_slice_grad_grad)


def slice(input_: Any, begin: Any, size: Any, name: str | None = None) -> Tensor:  # TensorFlow's name
    """The block of `input_` that starts at `begin` and has `size` (-1: to the end) along each dimension."""
    x = convert_to_tensor(input_)
    b = convert_to_tensor(begin, dtype_hint=dtypes.int32)
    s = convert_to_tensor(size, dtype_hint=dtypes.int32)
    begin_values, size_values = known_ints(b), known_ints(s)
    known_size = None
    if size_values is not None and x.shape.rank == len(size_values):
        starts = begin_values if begin_values is not None else [None] * len(size_values)
        known_size = tuple(
            n - st if v == -1 and n is not None and st is not None else (None if v == -1 else v)
            for v, n, st in zip(size_values, x.shape.as_list(), starts)
        )
    return bind(Slice, x, b, s, known_size=known_size)


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
    if isinstance(value, list | tuple) and any(
        isinstance(v, Tensor) and getattr(v, "_value", None) is None for v in value
    ):
        return list(value)
    return static_ints(value, "begin/end")


def strided_slice(
    input_: Any,
    begin: Any,
    end: Any,
    strides: Any = None,
    begin_mask: int = 0,
    end_mask: int = 0,
    ellipsis_mask: int = 0,
    new_axis_mask: int = 0,
    shrink_axis_mask: int = 0,
    var: Any = None,
    name: str | None = None,
) -> Tensor:
    """`x[begin:end:strides]` spelled as TensorFlow's op: bit i of a mask changes what entry i means."""
    starts, stops = _entries(begin), _entries(end)
    steps = [1] * len(starts) if strides is None else static_ints(strides, "strides")
    if not len(starts) == len(stops) == len(steps):
        raise InvalidArgumentError(
            None,
            None,
            f"Expected begin, end, and strides to be 1D equal size tensors, but "
            f"got shapes [{len(starts)}], [{len(stops)}], and [{len(steps)}] instead. "
            "[Op:StridedSlice]\nHint: give one begin, end and stride per sliced dimension.",
        )
    if 0 in steps:  # (while tracing, TensorFlow's shape function reads the constant strides)
        message, hint = f"strides[{steps.index(0)}] must be non-zero", "a stride of 0 never moves; use 1 (or -1)."
        if state.graph is not None:
            raise graph_build_error("StridedSlice", message, hint)
        raise static_error(message, "StridedSlice", hint, None)
    key: list[Any] = []
    for i, (start, stop, step) in enumerate(zip(starts, stops, steps)):
        if _bit(ellipsis_mask, i):
            key.append(Ellipsis)
        elif _bit(new_axis_mask, i):
            key.append(None)
        elif _bit(shrink_axis_mask, i):
            key.append(start)
        else:
            key.append(
                builtins.slice(None if _bit(begin_mask, i) else start, None if _bit(end_mask, i) else stop, step)
            )
    x = convert_to_tensor(input_)
    return getitem(x, tuple(key))


def _slice_update_kernel(x: np.ndarray, value: np.ndarray, *dynamic: Any, spec: tuple) -> np.ndarray:
    index = _resolve(spec, dynamic)
    _check_bounds(x, index)
    out = np.array(x, copy=True)
    target = np.shape(out[index])
    try:
        np.broadcast_to(value, target)
    except ValueError:
        raise op_error(
            InvalidArgumentError,
            "ResourceStridedSliceAssign",
            f"Cannot broadcast input shape {dims_text(np.shape(value))} into final shape {dims_text(target)}",
            f"the assigned value must fit the slice {dims_text(target)} (or broadcast to it).",
            name="strided_slice/_assign",
        ) from None
    out[index] = value
    return out


def _slice_update_grad(c: GradContext, g: Tensor) -> list:
    """The old entries of the slice are overwritten (no gradient); the value's gradient is the slice of g."""
    x, value, *dynamic = c.inputs
    spec = c.attrs["spec"]
    cleared = bind(TensorStridedSliceUpdate, g, zeros_like(value), *dynamic, spec=spec)
    return [cleared, unbroadcast(bind(StridedSlice, g, *dynamic, spec=spec), value)] + [None] * len(dynamic)


TensorStridedSliceUpdate = Op(
    "TensorStridedSliceUpdate", _slice_update_kernel, shape=lambda s, t, a: [(s[0], t[0])], grad=_slice_update_grad
)


def slice_update(x: Tensor, key: Any, value: Tensor) -> Tensor:
    """`x` with `x[key]` replaced by `value` (broadcast), as a new tensor."""
    spec, dynamic = slice_spec(key if isinstance(key, tuple) else (key,))
    return bind(TensorStridedSliceUpdate, x, value, *dynamic, spec=spec)
