"""More of `tf.math`, composed of existing ops as TensorFlow composes them (so gradients and traced graphs
follow): realdiv, in_top_k, invert_permutation, is_non_decreasing / is_strictly_increasing, segment_mean,
unsorted_segment_mean / unsorted_segment_sqrt_n, cumulative_logsumexp, accumulate_n, lbeta; and nextafter, an op
of its own (NumPy's, with no gradient, as in TensorFlow)."""

from __future__ import annotations

from typing import Any

import numpy as np

from minitf.core import dtypes
from minitf.core.conversion import convert_to_tensor
from minitf.core.tensor import Tensor
from minitf.ops.array.creation import range as range_
from minitf.ops.array.gather_scatter import gather, scatter_nd
from minitf.ops.array.shape_ops import expand_dims, reshape, shape, size, stop_gradient
from minitf.ops.array.where import where
from minitf.ops.math.binary_math import RealDiv, add, add_n, divide, maximum, subtract
from minitf.ops.math.cast import cast
from minitf.ops.math.comparisons import greater, greater_equal, less, less_equal, logical_and
from minitf.ops.math.elementwise import binary_call, binary_op, ones_like_, zeros_like_
from minitf.ops.math.reductions import cumsum, reduce_all, reduce_max, reduce_sum
from minitf.ops.math.segment_ops import segment_sum, unsorted_segment_sum
from minitf.ops.math.special import lgamma
from minitf.ops.math.unary_math import exp, is_finite, log, sqrt


def realdiv(x: Any, y: Any, name: str | None = None) -> Tensor:
    """x / y for real floats (TensorFlow's RealDiv op)."""
    return binary_call(RealDiv, x, y)


def in_top_k(targets: Any, predictions: Any, k: Any, name: str | None = None) -> Tensor:
    """Whether each target class is among the k highest predictions of its row (ties count as in); False for
    a target out of range or a row with a non-finite prediction."""
    p = convert_to_tensor(predictions)
    t = convert_to_tensor(targets)
    classes = shape(p, out_type=t.dtype)[1]
    in_range = logical_and(greater_equal(t, zeros_like_(t)), less(t, classes))
    safe = where(in_range, t, zeros_like_(t))
    target_prediction = gather(p, safe, batch_dims=1)
    above = reduce_sum(cast(greater(p, expand_dims(target_prediction, 1)), dtypes.int32), axis=1)
    finite = reduce_all(is_finite(p), axis=1)
    return logical_and(logical_and(in_range, finite), less(above, cast(k, dtypes.int32)))


def invert_permutation(x: Any, name: str | None = None) -> Tensor:
    """y with y[x[i]] = i: the inverse of a permutation of 0 ... n-1."""
    p = convert_to_tensor(x)
    n = size(p, out_type=p.dtype)
    return scatter_nd(expand_dims(p, 1), range_(n, dtype=p.dtype), expand_dims(n, 0))


def _steps(x: Any) -> Tensor:
    """The differences of neighbouring elements in row-major order."""
    t = convert_to_tensor(x)
    if not (t.dtype.is_floating or t.dtype.is_integer):
        raise TypeError(f"Expected x to be numeric, but got {t.dtype.name}")
    flat = reshape(t, [-1])
    return subtract(flat[1:], flat[:-1])


def is_non_decreasing(x: Any, name: str | None = None) -> Tensor:
    """True if each element (in row-major order) is >= the one before it."""
    diff = _steps(x)
    return reduce_all(less_equal(zeros_like_(diff), diff))


def is_strictly_increasing(x: Any, name: str | None = None) -> Tensor:
    """True if each element (in row-major order) is > the one before it."""
    diff = _steps(x)
    return reduce_all(less(zeros_like_(diff), diff))


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


def cumulative_logsumexp(x: Any, axis: int = 0, exclusive: bool = False, reverse: bool = False,
                         name: str | None = None) -> Tensor:
    """log(cumsum(exp(x))) along `axis`, computed without overflow (shifted by the largest value)."""
    t = convert_to_tensor(x)
    top = stop_gradient(reduce_max(t, axis=axis, keepdims=True))
    return add(log(cumsum(exp(subtract(t, top)), axis=axis, exclusive=exclusive, reverse=reverse)), top)


def accumulate_n(inputs: Any, shape: Any = None, tensor_dtype: Any = None, name: str | None = None) -> Tensor:
    """The sum of a list of tensors of one shape (TensorFlow's older name for add_n)."""
    return add_n(inputs)


def lbeta(x: Any, name: str | None = None) -> Tensor:
    """log |Beta(x)| over the last axis: sum(lgamma(x)) - lgamma(sum(x))."""
    t = convert_to_tensor(x)
    return subtract(reduce_sum(lgamma(t), axis=[-1]), lgamma(reduce_sum(t, axis=[-1])))


NextAfter = binary_op("NextAfter", np.nextafter, frozenset({dtypes.float32, dtypes.float64}))


def nextafter(x1: Any, x2: Any, name: str | None = None) -> Tensor:
    """The next representable float after x1 in the direction of x2."""
    return binary_call(NextAfter, x1, x2)
