"""Summing by group: tf.math.segment_sum, unsorted_segment_sum, bincount and confusion_matrix; the segment means
(segment_mean, unsorted_segment_mean / sqrt_n: sums divided by counts of at least 1, as TensorFlow composes them);
and tf.math.polyval, which TensorFlow composes from multiply and add (Horner's rule)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from minitf.composite.indexed_slices import TO_DENSE, IndexedSlices
from minitf.core import dtypes
from minitf.core.conversion import convert_to_tensor
from minitf.core.errors import InvalidArgumentError, allowed_dtypes
from minitf.core.op import GradContext, Op, bind
from minitf.core.shape_rules import merge_dims
from minitf.core.tensor import Tensor
from minitf.core.tensor_shape import TensorShape
from minitf.ops.array import creation, shape_ops
from minitf.ops.array.creation import ones_like, zeros, zeros_like
from minitf.ops.array.gather_scatter import gather, scatter_nd
from minitf.ops.array.index_arguments import INDEX_TYPES, known_ints
from minitf.ops.array.join_split import concat, stack
from minitf.ops.array.shape_ops import reshape, squeeze
from minitf.ops.array.sort_ops import searchsorted
from minitf.ops.array.where import where
from minitf.ops.math.binary_math import divide, maximum, minimum
from minitf.ops.math.cast import cast
from minitf.ops.math.comparisons import greater, greater_equal
from minitf.ops.math.elementwise import ones_like_
from minitf.ops.math.reductions import cumsum, reduce_max
from minitf.ops.math.unary_math import sqrt

Specs = list[tuple[TensorShape, dtypes.DType]]


def _check_ids(name: str) -> Any:
    def check(inputs: Sequence[Tensor], attrs: dict) -> None:
        if inputs[1].dtype not in INDEX_TYPES:
            allowed_dtypes(name, INDEX_TYPES, inputs[1].dtype)

    return check


def check_sorted_ids(ids: np.ndarray, rows: int, op: str) -> None:
    """TensorFlow's kernel walks the runs of equal ids: a run followed by a smaller id is out of order, a run
    whose id is negative is out of range."""
    starts = np.flatnonzero(np.r_[True, ids[1:] != ids[:-1]]) if len(ids) else np.zeros(0, int)
    for k, start in enumerate(starts):
        current = int(ids[start])
        following = int(ids[starts[k + 1]]) if k + 1 < len(starts) else None
        if following is not None and following < current:
            raise InvalidArgumentError(
                None,
                None,
                f"segment ids are not increasing [Op:{op}]\nHint: {op} needs "
                "sorted ids; the unsorted_segment_* functions take them in any order.",
            )
        if not 0 <= current < rows:
            raise InvalidArgumentError(
                None,
                None,
                f"Segment id {current} out of range [0, {rows}), possibly "
                f"because 'segment_ids' input is not sorted. [Op:{op}]\nHint: segment ids "
                "count from 0.",
            )


# ---------------------------------------------------------------------------------------------------
# segment_sum: sorted segment ids, one output row per id up to the largest
# ---------------------------------------------------------------------------------------------------


def _segment_sum_kernel(data: np.ndarray, segment_ids: np.ndarray) -> np.ndarray:
    ids = np.asarray(segment_ids)
    if ids.ndim != 1 or np.ndim(data) < 1 or len(ids) != np.shape(data)[0]:
        raise InvalidArgumentError(
            None,
            None,
            "segment_ids should be the same size as dimension 0 of input. "
            "[Op:SegmentSum]\nHint: give one segment id per row of data.",
        )
    count = int(ids[-1]) + 1 if len(ids) else 0
    check_sorted_ids(ids, count, "SegmentSum")
    out = np.zeros((count,) + np.shape(data)[1:], dtype=data.dtype)
    np.add.at(out, ids, data)
    return out


def _segment_sum_shape(
    shapes: Sequence[TensorShape], types: Sequence[dtypes.DType], attrs: dict, values: Any = None
) -> Specs:
    data = shapes[0]
    return [(TensorShape(None) if data.rank is None else TensorShape([None] + data.as_list()[1:]), types[0])]


SegmentSum = Op(
    "SegmentSum",
    _segment_sum_kernel,
    check=_check_ids("SegmentSum"),
    shape=_segment_sum_shape,
    grad=lambda c, g: [gather(g, c.inputs[1]), None],
    value_dependent=True,
)


def segment_sum(data: Any, segment_ids: Any, name: str | None = None) -> Tensor:
    """Row i of the result is the sum of the rows of `data` whose (sorted) segment id is i."""
    return bind(SegmentSum, convert_to_tensor(data), convert_to_tensor(segment_ids, dtype_hint=dtypes.int32))


# ---------------------------------------------------------------------------------------------------
# unsorted_segment_sum: ids in any order, a given number of segments; negative ids are dropped
# ---------------------------------------------------------------------------------------------------


def reduce_unsorted(
    op: str, data: np.ndarray, segment_ids: np.ndarray, num_segments: Any, fill: Any, ufunc: np.ufunc
) -> np.ndarray:
    """What every unsorted segment kernel does: TensorFlow's checks of the ids, then `ufunc` applied at each id
    into rows that start as `fill`; negative ids are dropped."""
    ids = np.asarray(segment_ids)
    n = int(num_segments)
    if np.shape(data)[: ids.ndim] != ids.shape:
        raise InvalidArgumentError(
            None,
            None,
            f"data.shape = [{','.join(map(str, np.shape(data)))}] does not start "
            f"with segment_ids.shape = [{','.join(map(str, ids.shape))}] "
            f"[Op:{op}]\nHint: give one segment id per entry of the leading "
            "dimensions of data.",
        )
    flat = ids.ravel()
    bad = np.flatnonzero(flat >= n)
    if bad.size:
        i = int(bad[0])
        raise InvalidArgumentError(
            None,
            None,
            f"segment_ids[{i}] = {flat[i]} is out of range [0, {n}) "
            f"[Op:{op}]\nHint: num_segments must exceed every segment id.",
        )
    out = np.full((n,) + np.shape(data)[ids.ndim :], fill, dtype=data.dtype)
    rows = np.reshape(data, (-1,) + np.shape(data)[ids.ndim :])
    keep = flat >= 0
    ufunc.at(out, flat[keep], rows[keep])
    return out


def _unsorted_kernel(
    data: np.ndarray, segment_ids: np.ndarray, num_segments: Any, known_segments: int | None = None
) -> np.ndarray:
    return reduce_unsorted("UnsortedSegmentSum", data, segment_ids, num_segments, 0, np.add)


def _unsorted_shape(shapes: Sequence[TensorShape], types: Sequence[dtypes.DType], attrs: dict) -> Specs:
    data, ids = shapes[0], shapes[1]
    if data.rank is None or ids.rank is None:
        return [(TensorShape(None), types[0])]
    for have, want in zip(data.as_list(), ids.as_list()):  # data's shape starts with the ids'
        merge_dims(have, want, "")
    return [(TensorShape([attrs["known_segments"]] + data.as_list()[ids.rank :]), types[0])]


def _unsorted_grad(c: GradContext, g: Tensor) -> list:
    """Each entry of data receives its segment's gradient; entries with a negative id receive zero."""
    ids = c.inputs[1]
    picked = gather(g, maximum(ids, zeros_like(ids)))
    kept = greater_equal(ids, zeros_like(ids))
    extra = (picked.shape.rank or 0) - (ids.shape.rank or 0)
    mask = reshape(kept, ids.shape.as_list() + [1] * extra) if extra else kept
    return [where(mask, picked, zeros_like(picked)), None, None]


def _check_unsorted_sum(inputs: Sequence[Tensor], attrs: dict) -> None:
    allowed_dtypes("UnsortedSegmentSum", dtypes.NUMERIC, inputs[0].dtype)
    if inputs[1].dtype not in INDEX_TYPES | {dtypes.int16}:
        allowed_dtypes("UnsortedSegmentSum", INDEX_TYPES | {dtypes.int16}, inputs[1].dtype)


UnsortedSegmentSum = Op(
    "UnsortedSegmentSum", _unsorted_kernel, check=_check_unsorted_sum, shape=_unsorted_shape, grad=_unsorted_grad
)


def unsorted_segment_sum(data: Any, segment_ids: Any, num_segments: Any, name: str | None = None) -> Tensor:
    """Row i of the result sums the entries of `data` with segment id i (ids in any order; -1 drops an entry)."""
    ids = convert_to_tensor(segment_ids, dtype_hint=dtypes.int32)
    count = convert_to_tensor(num_segments, dtype_hint=dtypes.int32)
    known = known_ints(count)
    return bind(
        UnsortedSegmentSum, convert_to_tensor(data), ids, count, known_segments=None if known is None else known[0]
    )


def indexed_slices_to_dense(slices: IndexedSlices) -> Tensor:
    """The dense tensor IndexedSlices stand for: their rows summed into place (repeated indices add up), the
    unsorted segment sum TensorFlow converts them with."""
    return unsorted_segment_sum(slices.values, slices.indices, gather(slices.dense_shape, 0))


# IndexedSlices (gather's sparse gradient) sit below gather; converting them needs this op, defined above it.
TO_DENSE.provide(rule=indexed_slices_to_dense)


# ---------------------------------------------------------------------------------------------------
# bincount
# ---------------------------------------------------------------------------------------------------


def _bincount_kernel(arr: np.ndarray, size: Any, weights: np.ndarray, binary_output: bool) -> np.ndarray:
    if np.any(np.asarray(arr) < 0):
        raise InvalidArgumentError(
            None,
            None,
            "Input arr must be non-negative! [Op:DenseBincount] name: \nHint: bincount "
            "counts the values 0, 1, 2, ...; shift or mask negative values first.",
        )
    size = int(size)
    rows = np.asarray(arr) if np.ndim(arr) == 2 else np.ravel(arr)[None]
    weight_rows = None if np.size(weights) == 0 else np.reshape(weights, rows.shape)
    out = np.zeros((len(rows), size), dtype=weights.dtype)
    for r, row in enumerate(rows):
        keep = row < size
        counts = np.bincount(row[keep], weights=None if weight_rows is None else weight_rows[r][keep], minlength=size)[
            :size
        ]
        out[r] = np.minimum(counts, 1) if binary_output else counts
    return out if np.ndim(arr) == 2 else out[0]


def _bincount_shape(
    shapes: Sequence[TensorShape], types: Sequence[dtypes.DType], attrs: dict, values: Any = None
) -> Specs:
    if shapes[0].rank is None:  # 1-D counts, or one row of counts per row of a matrix
        return [(TensorShape(None), types[2])]
    rows = shapes[0].as_list()[:1] if shapes[0].rank == 2 else []
    size = values[1] if values is not None and len(values) > 1 else None
    return [(TensorShape(rows + [None if size is None else int(np.asarray(size))]), types[2])]


DenseBincount = Op("DenseBincount", _bincount_kernel, shape=_bincount_shape, value_dependent=True)


def bincount(
    arr: Any,
    weights: Any = None,
    minlength: Any = None,
    maxlength: Any = None,
    dtype: Any = dtypes.int32,
    name: str | None = None,
    axis: int | None = None,
    binary_output: bool = False,
) -> Tensor:
    """How often each value 0, 1, 2, ... occurs in `arr` (or the sum of its `weights`), per row with axis=-1."""
    a = convert_to_tensor(arr)
    w = None if weights is None else convert_to_tensor(weights)
    if w is not None and binary_output:
        raise ValueError("Arguments `binary_output` and `weights` are mutually exclusive. Please specify only one.")
    if not a.dtype.is_integer:
        a = cast(a, dtypes.int32)
    axis = 0 if axis is None else axis
    if axis not in (0, -1):
        raise ValueError(f"Unsupported value for argument axis={axis}. Only 0 and -1 are currently supported.")
    nonempty = cast(greater(shape_ops.size(a), 0), a.dtype)
    size = nonempty * (reduce_max(a) + 1)
    if minlength is not None:
        size = maximum(convert_to_tensor(minlength, dtype=a.dtype), size)
    if maxlength is not None:
        size = minimum(convert_to_tensor(maxlength, dtype=a.dtype), size)
    if axis == 0:
        a = reshape(a, [-1])
        w = None if w is None else reshape(w, [-1])
    if w is None:
        w = zeros([0], dtype=dtypes.as_dtype(dtype))  # no weights: count in `dtype`
    return bind(DenseBincount, a, size, w, binary_output=bool(binary_output))


# ---------------------------------------------------------------------------------------------------
# confusion_matrix: counts of (label, prediction) pairs, scattered into an n x n matrix as TensorFlow does
# ---------------------------------------------------------------------------------------------------


def _class_id_kernel(ids: np.ndarray, limit: np.ndarray, what: str) -> np.ndarray:
    """`ids` unchanged if every id lies in [0, limit) (no upper limit when `limit` is empty)."""
    values = np.asarray(ids)
    if np.any(values < 0):
        raise InvalidArgumentError(
            None,
            None,
            f"`{what}` contains negative values.\nCondition x >= 0 did not "
            f"hold element-wise:\nx (shape={values.shape} dtype=int64) = \n{values}\n"
            "Hint: class numbers start at 0.",
        )
    if np.size(limit) and np.any(values >= limit):
        raise InvalidArgumentError(
            None,
            None,
            f"`{what}` out of bound\nCondition x < y did not hold.\n"
            f"First {values.size} elements of x:\n{np.ravel(values)}\nFirst 1 elements of "
            f"y:\n{np.ravel(limit)}\nHint: num_classes must exceed every class number.",
        )
    return values


# Stateful, as TensorFlow's asserts are: inside a tf.function the check runs with the function.
CheckClassIds = Op("CheckClassIds", _class_id_kernel, shape=lambda s, t, a: [(s[0], t[0])], stateful=True)


def _squeeze_last(labels: Tensor, predictions: Tensor) -> tuple[Tensor, Tensor]:
    """TensorFlow's remove_squeezable_dimensions: a trailing size-1 axis goes when the ranks differ by one."""
    lr, pr = labels.shape.rank, predictions.shape.rank
    if lr is not None and pr is not None:
        if pr == lr + 1 and predictions.shape.as_list()[-1] in (1, None):
            predictions = squeeze(predictions, [-1])
        elif lr == pr + 1 and labels.shape.as_list()[-1] in (1, None):
            labels = squeeze(labels, [-1])
    return labels, predictions


def confusion_matrix(
    labels: Any,
    predictions: Any,
    num_classes: Any = None,
    weights: Any = None,
    dtype: Any = dtypes.int32,
    name: str | None = None,
) -> Tensor:
    """Row i, column j counts the examples of class i predicted as j (or sums their `weights`); the matrix
    has num_classes rows, or one more than the largest class seen."""

    out_type = dtypes.as_dtype(dtype)
    labels, predictions = _squeeze_last(convert_to_tensor(labels), convert_to_tensor(predictions))
    labels = cast(labels, dtypes.int64)
    predictions = cast(predictions, dtypes.int64)
    count = None if num_classes is None else convert_to_tensor(num_classes)
    known = None if count is None else known_ints(count)
    if count is None:
        limit = zeros([0], dtype=dtypes.int64)
    else:
        limit = cast(count, dtypes.int64)
    labels = bind(CheckClassIds, labels, limit, what="labels")
    predictions = bind(CheckClassIds, predictions, limit, what="predictions")
    if count is None:
        size = maximum(reduce_max(predictions), reduce_max(labels)) + 1
    else:
        size = limit
    if weights is None:
        values = ones_like(predictions, dtype=out_type)
    else:
        weights = convert_to_tensor(weights)
        if not predictions.shape.is_compatible_with(weights.shape):
            raise ValueError(f"Shapes {predictions.shape} and {weights.shape} are incompatible")
        values = cast(weights, out_type)
    indices = stack([labels, predictions], axis=1)
    if known is not None:  # a number known while tracing: so is the matrix's shape, as in TensorFlow
        return scatter_nd(indices, values, [known[0], known[0]])
    return scatter_nd(indices, values, cast(stack([size, size]), dtypes.int64))


# ---------------------------------------------------------------------------------------------------
# polyval
# ---------------------------------------------------------------------------------------------------


def polyval(coeffs: Sequence[Any], x: Any, name: str | None = None) -> Tensor:
    """coeffs[0] * x**(n-1) + ... + coeffs[n-1], evaluated by Horner's rule."""
    if not isinstance(coeffs, list | tuple):
        raise ValueError(f"Argument coeffs must be list type. Received type {type(coeffs)}.")
    x = convert_to_tensor(x)
    if not coeffs:
        return zeros_like(x)
    terms = [convert_to_tensor(c) for c in coeffs]
    p = terms[0]
    for c in terms[1:]:
        p = c + p * x
    return p


def row_splits_to_segment_ids(splits: Any, name: str | None = None, out_type: Any = None) -> Tensor:
    """For each value, the row it belongs to: splits [0, 2, 2, 3] give [0, 0, 2]."""
    splits = convert_to_tensor(splits, dtype_hint=dtypes.int64)
    if splits.shape.rank not in (None, 1):
        raise ValueError(f"Shape {splits.shape} must have rank 1\nHint: row splits are a vector.")
    out_type = splits.dtype if out_type is None else dtypes.as_dtype(out_type)
    positions = creation.range(splits[-1], dtype=splits.dtype)
    rows = searchsorted(splits[1:], positions, side="right", out_type=out_type)
    return rows


def segment_ids_to_row_splits(
    segment_ids: Any, num_segments: Any = None, out_type: Any = None, name: str | None = None
) -> Tensor:
    """The row splits of sorted segment ids: [0, 0, 2] (with 3 segments) gives [0, 2, 2, 3]."""
    ids = convert_to_tensor(segment_ids, dtype_hint=dtypes.int64)
    if ids.shape.rank not in (None, 1):
        raise ValueError(f"Shape {ids.shape} must have rank 1\nHint: segment ids are a vector.")
    out_type = ids.dtype if out_type is None else dtypes.as_dtype(out_type)
    lengths = bincount(ids, minlength=num_segments, maxlength=num_segments, dtype=out_type)
    zero = zeros([1], dtype=out_type)
    return concat([zero, cumsum(lengths)], axis=0)


def _segment_counts(data: Tensor, counts: Tensor, ids: Tensor) -> Tensor:
    """Counts reshaped to broadcast over the data's trailing axes, at least 1."""
    extra = (data.shape.rank or 0) - (ids.shape.rank or 0)
    counts = reshape(counts, [-1] + [1] * extra)
    return maximum(counts, ones_like_(counts))


def segment_mean(data: Any, segment_ids: Any, name: str | None = None) -> Tensor:
    """Row i is the mean of the rows of `data` whose (sorted) segment id is i (0 for an empty segment)."""
    d = convert_to_tensor(data)
    ids = convert_to_tensor(segment_ids, dtype_hint=dtypes.int32)
    counts = segment_sum(ones_like_(cast(ids, d.dtype)), ids)
    return divide(segment_sum(d, ids), _segment_counts(d, counts, ids))


def unsorted_segment_mean(data: Any, segment_ids: Any, num_segments: Any, name: str | None = None) -> Tensor:
    """Row i is the mean of the entries of `data` with segment id i (ids in any order)."""
    d = convert_to_tensor(data)
    ids = convert_to_tensor(segment_ids, dtype_hint=dtypes.int32)
    counts = unsorted_segment_sum(ones_like_(cast(ids, d.dtype)), ids, num_segments)
    return divide(unsorted_segment_sum(d, ids, num_segments), _segment_counts(d, counts, ids))


def unsorted_segment_sqrt_n(data: Any, segment_ids: Any, num_segments: Any, name: str | None = None) -> Tensor:
    """Row i is the sum of the entries with segment id i divided by the square root of their count."""
    d = convert_to_tensor(data)
    ids = convert_to_tensor(segment_ids, dtype_hint=dtypes.int32)
    counts = unsorted_segment_sum(ones_like_(cast(ids, d.dtype)), ids, num_segments)
    return divide(unsorted_segment_sum(d, ids, num_segments), sqrt(_segment_counts(d, counts, ids)))
