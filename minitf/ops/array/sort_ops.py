"""Ordering: tf.math.top_k (the primitive `TopKV2`), tf.sort and tf.argsort built on it as TensorFlow builds
them, tf.unique and tf.searchsorted (`LowerBound` / `UpperBound`); tf.math.in_top_k (is the target among the
k highest predictions)."""

from __future__ import annotations

import collections
from collections.abc import Sequence
from typing import Any, Literal, cast

import numpy as np

from minitf.core import dtypes
from minitf.core.context import state
from minitf.core.conversion import convert_to_tensor, static_value
from minitf.core.errors import InvalidArgumentError, allowed_dtypes, graph_build_error, op_error, same_dtype
from minitf.core.op import GradContext, Op, bind
from minitf.core.tensor import Tensor
from minitf.core.tensor_shape import TensorShape
from minitf.ops.array.gather_scatter import gather
from minitf.ops.array.index_arguments import at_graph_build, known_ints
from minitf.ops.array.shape_ops import expand_dims, reshape, shape, transpose
from minitf.ops.array.where import where
from minitf.ops.math.cast import cast as tf_cast
from minitf.ops.math.comparisons import greater, greater_equal, less, logical_and
from minitf.ops.math.elementwise import zeros_like_
from minitf.ops.math.reductions import reduce_all, reduce_sum
from minitf.ops.math.unary_math import is_finite, negative

Specs = list[tuple[TensorShape, dtypes.DType]]
REAL_NUMBERS = dtypes.NUMERIC - {dtypes.complex64, dtypes.complex128}

TopKV2Result = collections.namedtuple("TopKV2", ["values", "indices"])  # type: ignore[name-match]  # TensorFlow's class name
UniqueResult = collections.namedtuple("Unique", ["y", "idx"])  # type: ignore[name-match]  # TensorFlow's class name


# ---------------------------------------------------------------------------------------------------
# top_k
# ---------------------------------------------------------------------------------------------------


def _descending_order(x: np.ndarray) -> np.ndarray:
    """Positions that sort the last axis from largest to smallest; equal values keep their order."""
    n = np.shape(x)[-1]
    backwards = np.argsort(x[..., ::-1], axis=-1, kind="stable")[..., ::-1]
    return n - 1 - backwards


def _top_k_kernel(
    x: np.ndarray, k: Any, sorted: bool, index_type: dtypes.DType, known_k: int | None = None
) -> tuple[np.ndarray, np.ndarray]:
    k = int(k)
    if np.ndim(x) < 1:
        raise InvalidArgumentError(
            None,
            None,
            f"input must be >= 1-D, got shape {list(np.shape(x))} [Op:TopKV2]\n"
            "Hint: top_k looks along the last axis; a scalar has none.",
        )
    if k < 0:
        hint = "k is how many of the largest entries to return, so it cannot be negative."
        raise op_error(InvalidArgumentError, "TopKV2", f"Need k >= 0, got {k}", hint)
    if np.shape(x)[-1] < k:
        raise InvalidArgumentError(
            None,
            None,
            f"input must have at least k columns. Had {np.shape(x)[-1]}, needed "
            f"{k} [Op:TopKV2] name: \nHint: k can be at most the size of the last axis.",
        )
    order = _descending_order(x)[..., :k]
    return np.take_along_axis(x, order, axis=-1), order.astype(index_type._np)


def _top_k_shape(shapes: Sequence[TensorShape], types: Sequence[dtypes.DType], attrs: dict) -> Specs:
    x, k = shapes[0], attrs["known_k"]
    if x.rank == 0 or (x.rank is not None and x[-1] is not None and k is not None):
        stand_in = np.broadcast_to(np.float32(0), [0] * (x.rank - 1) + [x[-1]] if x.rank else [])  # a view
        at_graph_build(lambda: _top_k_kernel(stand_in, k or 0, True, dtypes.int32), "TopKV2")
    out = TensorShape(None) if x.rank is None else TensorShape(x.as_list()[:-1] + [k])
    return [(out, types[0]), (out, attrs["index_type"])]


def _top_k_grad(c: GradContext, grads: list) -> list:
    """The gradient of each picked value goes back to the position it was picked from (TensorFlow's rule)."""
    g = grads[0]
    if g is None:
        return [None, None]
    if c.x.shape.rank and c.x.shape[-1] == 0:  # TensorFlow's rule steps through rows with range(0, n, 0): fails
        raise graph_build_error(
            "Range",
            "Requires delta != 0: 0",
            "TensorFlow cannot differentiate top_k (or sort "
            "along an axis) over a dimension of size 0; skip the empty case.",
        )
    if c.outputs[1].dtype is dtypes.int64:  # TensorFlow's rule adds int32 offsets to the indices and fails
        hint = "TensorFlow differentiates top_k only with index_type=tf.int32 (the default)."
        if state.graph is not None:
            raise TypeError(
                f"Input 'y' of 'AddV2' Op has type int32 that does not match type int64 of argument 'x'.\nHint: {hint}"
            )
        raise op_error(
            InvalidArgumentError,
            "AddV2",
            "cannot compute AddV2 as input #1(zero-based) was expected to be a int64 tensor but is a int32 tensor",
            hint,
        )
    return [bind(ScatterLastAxis, g, c.outputs[1], c.inputs[0]), None]


def _scatter_last_axis_kernel(g: np.ndarray, indices: np.ndarray, like: np.ndarray) -> np.ndarray:
    out = np.zeros(np.shape(like), dtype=g.dtype)
    np.put_along_axis(out, indices.astype(np.int64), g, axis=-1)
    return out


# Gradient helpers of top_k (shapes may be unknown while tracing, so no reshapes): put values back at the
# positions they were taken from along the last axis, and take them again.
ScatterLastAxis = Op(
    "ScatterLastAxis",
    _scatter_last_axis_kernel,
    shape=lambda s, t, a: [(s[2], t[0])],
    grad=lambda c, g: [bind(GatherLastAxis, g, c.inputs[1]), None, None],
)
GatherLastAxis: Op = Op(
    "GatherLastAxis",
    lambda y, indices: np.take_along_axis(y, indices.astype(np.int64), axis=-1),
    shape=lambda s, t, a: [(s[1], t[0])],
    grad=lambda c, g: [bind(ScatterLastAxis, g, c.inputs[1], c.inputs[0]), None],
)


def _top_k_check(inputs: Sequence[Tensor], attrs: dict) -> None:
    if inputs[0].dtype not in REAL_NUMBERS:
        allowed_dtypes("TopKV2", REAL_NUMBERS, inputs[0].dtype)


TopKV2 = Op("TopKV2", _top_k_kernel, check=_top_k_check, shape=_top_k_shape, grad=_top_k_grad, num_outputs=2)


def top_k(
    input: Any, k: Any = 1, sorted: bool = True, index_type: Any = dtypes.int32, name: str | None = None
) -> TopKV2Result:
    """The k largest entries along the last axis and where they were (ties: the earlier position first)."""
    x = convert_to_tensor(input)
    k_tensor = convert_to_tensor(k, dtype_hint=dtypes.int32)
    known = known_ints(k_tensor)
    index_type = dtypes.as_dtype(index_type)
    values, indices = bind(
        TopKV2, x, k_tensor, sorted=bool(sorted), index_type=index_type, known_k=None if known is None else known[0]
    )
    return TopKV2Result(values, indices)


# ---------------------------------------------------------------------------------------------------
# sort and argsort, composed as TensorFlow composes them
# ---------------------------------------------------------------------------------------------------


def _descending(x: Tensor, axis: int, return_argsort: bool) -> Tensor:
    rank = x.shape.rank
    if rank is None:
        raise ValueError("sort needs to know the rank of its input in this engine.")
    if axis < 0:
        axis += rank
    if not 0 <= axis < rank and state.graph is not None:  # TensorFlow's transpose finds it at graph building
        raise ValueError(
            f"axis {axis} is out of range for a rank-{rank} input\nHint: axis must be in [{-rank}, {rank})."
        )
    if not 0 <= axis < rank:
        raise InvalidArgumentError(
            None,
            None,
            f"axis {axis} is out of range for a rank-{rank} input [Op:Sort]\nHint: axis must be in [{-rank}, {rank}).",
        )
    perm = None if axis == rank - 1 else list(range(axis)) + [rank - 1] + list(range(axis + 1, rank - 1)) + [axis]
    moved = x if perm is None else transpose(x, perm)
    values, indices = top_k(moved, shape(moved)[-1] if moved.shape[-1] is None else moved.shape[-1])
    out = indices if return_argsort else values
    return out if perm is None else transpose(out, perm)


def _ascending(x: Tensor, axis: int, return_argsort: bool) -> Tensor:
    """Sort the negated values (shifted so that integers cannot overflow) from largest to smallest."""
    dtype = x.dtype
    if dtype.is_unsigned:
        top = convert_to_tensor(dtype.max, dtype=dtype)
        out = _descending(top - x, axis, return_argsort)
        return out if return_argsort else top - out
    if dtype.is_integer:
        out = _descending(-x - 1, axis, return_argsort)
        return out if return_argsort else -out - 1
    out = _descending(negative(x), axis, return_argsort)
    return out if return_argsort else negative(out)


def _sort_or_argsort(values: Any, axis: Any, direction: str, return_argsort: bool) -> Tensor:
    if direction not in ("ASCENDING", "DESCENDING"):
        raise ValueError(
            f"Argument `direction` should be one of ASCENDING, DESCENDING. Received: direction={direction}"
        )
    axis_value = static_value(axis) if isinstance(axis, Tensor) else axis  # a traced constant's value counts
    if axis_value is None or np.ndim(axis_value) != 0:
        raise ValueError(
            f"Argument `axis` must be a constant scalar. Received: axis={axis}.\nHint: pass a Python "
            "int (or a tensor made by tf.constant)."
        )
    x = convert_to_tensor(values)
    how = _ascending if direction == "ASCENDING" else _descending
    return how(x, int(axis_value), return_argsort)


def sort(values: Any, axis: Any = -1, direction: str = "ASCENDING", name: str | None = None) -> Tensor:
    """The values sorted along `axis`."""
    return _sort_or_argsort(values, axis, direction, return_argsort=False)


def argsort(
    values: Any, axis: Any = -1, direction: str = "ASCENDING", stable: bool = False, name: str | None = None
) -> Tensor:
    """The int32 positions that sort `values` along `axis` (equal values keep their order)."""
    return _sort_or_argsort(values, axis, direction, return_argsort=True)


# ---------------------------------------------------------------------------------------------------
# unique
# ---------------------------------------------------------------------------------------------------


def _unique_kernel(x: np.ndarray, out_idx: dtypes.DType) -> tuple[np.ndarray, np.ndarray]:
    if np.ndim(x) != 1:
        raise InvalidArgumentError(
            None, None, "unique expects a 1D vector. [Op:Unique] name: \nHint: flatten first with tf.reshape(x, [-1])."
        )
    _, first, inverse = np.unique(x, return_index=True, return_inverse=True)
    order = np.argsort(first, kind="stable")  # TensorFlow lists values in order of first appearance
    rank_of = np.empty_like(order)
    rank_of[order] = np.arange(len(order))
    return np.asarray(x[first[order]]), rank_of[np.ravel(inverse)].astype(out_idx._np)


def _unique_shape(
    shapes: Sequence[TensorShape], types: Sequence[dtypes.DType], attrs: dict, values: Any = None
) -> Specs:
    if shapes[0].rank not in (None, 1):
        at_graph_build(lambda: _unique_kernel(np.zeros([0] * cast(int, shapes[0].rank)), attrs["out_idx"]), "Unique")
    return [
        (TensorShape([None]), types[0]),
        (TensorShape([None]) if shapes[0].rank is None else shapes[0], attrs["out_idx"]),
    ]


def _unique_grad(c: GradContext, grads: list) -> list:
    """TensorFlow registers no gradient for Unique: differentiating through it is a LookupError."""
    raise LookupError(
        "No gradient defined for operation 'Unique' (op type: Unique).\nHint: tf.unique cannot be "
        "differentiated; to differentiate through distinct values, use tf.gather(x, positions) "
        "with positions found outside the tape."
    )


Unique = Op("Unique", _unique_kernel, shape=_unique_shape, num_outputs=2, value_dependent=True, grad=_unique_grad)


def unique(x: Any, out_idx: Any = dtypes.int32, name: str | None = None) -> UniqueResult:
    """The distinct values of a vector in order of first appearance, and for each entry its value's position."""
    y, idx = bind(Unique, convert_to_tensor(x), out_idx=dtypes.as_dtype(out_idx))
    return UniqueResult(y, idx)


# ---------------------------------------------------------------------------------------------------
# searchsorted
# ---------------------------------------------------------------------------------------------------


def _bound_kernel(side: Literal["left", "right"]) -> Any:
    def kernel(sorted_inputs: np.ndarray, values: np.ndarray, out_type: dtypes.DType) -> np.ndarray:
        if np.shape(sorted_inputs)[0] != np.shape(values)[0]:
            raise InvalidArgumentError(
                None,
                None,
                "Leading dim_size of both tensors must match. [Op:"
                f"{'LowerBound' if side == 'left' else 'UpperBound'}]\nHint: every row of "
                "values is searched in the matching row of sorted_sequence.",
            )
        rows = [np.searchsorted(s, v, side=side) for s, v in zip(sorted_inputs, values)]
        return np.asarray(rows, dtype=out_type._np).reshape(np.shape(values))

    return kernel


def _bound_shape(shapes: Sequence[TensorShape], types: Sequence[dtypes.DType], attrs: dict) -> Specs:
    return [(shapes[1], attrs["out_type"])]


def _bound_check(name: str) -> Any:
    def check(inputs: Sequence[Tensor], attrs: dict) -> None:
        if inputs[0].dtype is not inputs[1].dtype:
            same_dtype(name, inputs)

    return check


LowerBound = Op("LowerBound", _bound_kernel("left"), check=_bound_check("LowerBound"), shape=_bound_shape)
UpperBound = Op("UpperBound", _bound_kernel("right"), check=_bound_check("UpperBound"), shape=_bound_shape)


def _as_rows(t: Tensor) -> Tensor:
    """[..., n] as [rows, n] with a static reshape: -1 stands for the one size known only at run time."""
    dims = t.shape.as_list()
    leading = int(np.prod(cast("list[int]", dims[:-1]))) if None not in dims[:-1] else -1
    last = dims[-1] if dims[-1] is not None else -1
    if leading == -1 and last == -1:
        raise ValueError(
            "minitf's searchsorted inside tf.function needs the batch sizes or the row length known."
            "\nHint: give the function an input_signature with the last dimension set."
        )
    return reshape(t, [leading, last])


def searchsorted(
    sorted_sequence: Any, values: Any, side: str = "left", out_type: Any = dtypes.int32, name: str | None = None
) -> Tensor:
    """Where each value would go in its (sorted) row of `sorted_sequence` to keep the row sorted."""
    if side not in ("left", "right"):
        raise ValueError(f"Argument `side` must be either 'right' or 'left'. Received: `side` = '{side}'.")
    s = convert_to_tensor(sorted_sequence)
    v = convert_to_tensor(values, dtype_hint=s.dtype)
    for t in (s, v):
        if t.shape.rank == 0:  # TensorFlow reads shape(t)[-1]: while tracing, its slice fails at graph building
            message = "slice index -1 of dimension 0 out of bounds."
            hint = "searchsorted needs vectors (or batches of them), not scalars: wrap a single value in a list."
            if state.graph is not None:
                raise ValueError(f"{message} for '{{{{node strided_slice}}}}'\nHint: {hint}")
            raise op_error(InvalidArgumentError, "StridedSlice", message, hint, name="strided_slice/")
    rows_s, rows_v = _as_rows(s), _as_rows(v)
    op = LowerBound if side == "left" else UpperBound
    found = bind(op, rows_s, rows_v, out_type=dtypes.as_dtype(out_type))
    dims = v.shape.as_list() if v.shape.rank is not None else None
    if dims is not None and dims.count(None) == 1:  # one unknown size: -1 stands for it (a static reshape)
        dims[dims.index(None)] = -1
    return reshape(found, dims if dims is not None and None not in dims else shape(v))


def in_top_k(targets: Any, predictions: Any, k: Any, name: str | None = None) -> Tensor:
    """Whether each target class is among the k highest predictions of its row (ties count as in); False for
    a target out of range or a row with a non-finite prediction."""
    p = convert_to_tensor(predictions)
    t = convert_to_tensor(targets)
    classes = shape(p, out_type=t.dtype)[1]
    in_range = logical_and(greater_equal(t, zeros_like_(t)), less(t, classes))
    safe = where(in_range, t, zeros_like_(t))
    target_prediction = gather(p, safe, batch_dims=1)
    above = reduce_sum(tf_cast(greater(p, expand_dims(target_prediction, 1)), dtypes.int32), axis=1)
    finite = reduce_all(is_finite(p), axis=1)
    return logical_and(logical_and(in_range, finite), less(above, tf_cast(k, dtypes.int32)))
