"""The loss functions that are not cross-entropies: regression errors, hinges, divergences, overlaps.

Each returns one value per sample (the mean over the last axis), except Dice and Tversky, which measure the
overlap of the whole batch unless given an axis.
"""

from __future__ import annotations

import math
from typing import Any

import minitf.ops.nn.nn_ops as nn_ops
from minitf.keras.backend import epsilon
from minitf.ops.array.creation import one_hot
from minitf.ops.array.shape_ops import expand_dims, squeeze
from minitf.ops.array.where import where
from minitf.ops.math.binary_math import clip_by_value, maximum, pow
from minitf.ops.math.cast import cast
from minitf.ops.math.comparisons import equal, logical_or
from minitf.ops.math.reductions import reduce_all, reduce_max, reduce_mean, reduce_sum
from minitf.ops.math.unary_math import abs, log, rsqrt, square


def same_rank(y_true: Any, y_pred: Any, expand_rank_1: bool = True) -> tuple[Any, Any]:
    """Make ranks equal when one has an extra trailing axis of size 1 (Keras's `squeeze_or_expand_to_same_rank`):
    a rank-1 partner gains that axis, any other loses it from the longer one."""
    rank_1, rank_2 = y_true.shape.rank, y_pred.shape.rank
    if rank_1 == rank_2 + 1 and y_true.shape[-1] == 1:
        return (y_true, expand_dims(y_pred, -1)) if rank_2 == 1 and expand_rank_1 else (squeeze(y_true, -1), y_pred)
    if rank_2 == rank_1 + 1 and y_pred.shape[-1] == 1:
        return (expand_dims(y_true, -1), y_pred) if rank_1 == 1 and expand_rank_1 else (y_true, squeeze(y_pred, -1))
    return y_true, y_pred


def _paired(y_true: Any, y_pred: Any) -> tuple[Any, Any]:
    return same_rank(cast(y_true, y_pred.dtype), y_pred)


def mean_squared_error(y_true: Any, y_pred: Any) -> Any:
    y_true, y_pred = _paired(y_true, y_pred)
    return reduce_mean(square(y_true - y_pred), axis=-1)


def mean_absolute_error(y_true: Any, y_pred: Any) -> Any:
    y_true, y_pred = _paired(y_true, y_pred)
    return reduce_mean(abs(y_true - y_pred), axis=-1)


def mean_absolute_percentage_error(y_true: Any, y_pred: Any) -> Any:
    y_true, y_pred = _paired(y_true, y_pred)
    return 100.0 * reduce_mean(abs((y_true - y_pred) / maximum(abs(y_true), epsilon())), axis=-1)


def mean_squared_logarithmic_error(y_true: Any, y_pred: Any) -> Any:
    y_true, y_pred = _paired(y_true, y_pred)
    difference = log(maximum(y_pred, epsilon()) + 1.0) - log(maximum(y_true, epsilon()) + 1.0)
    return reduce_mean(square(difference), axis=-1)


def _l2_normalize(x: Any, axis: int) -> Any:
    return x * rsqrt(maximum(reduce_sum(square(x), axis=axis, keepdims=True), 1e-12))


def cosine_similarity(y_true: Any, y_pred: Any, axis: int = -1) -> Any:
    """Minus the cosine of the angle between the two vectors: -1 when they point the same way."""
    y_true, y_pred = _paired(y_true, y_pred)
    return -reduce_sum(_l2_normalize(y_true, axis) * _l2_normalize(y_pred, axis), axis=axis)


def huber(y_true: Any, y_pred: Any, delta: float = 1.0) -> Any:
    """Squared error for errors up to `delta`, linear beyond: robust to outliers."""
    y_true, y_pred = _paired(y_true, y_pred)
    error = y_pred - y_true
    abs_error = abs(error)
    quadratic, linear = 0.5 * square(error), delta * abs_error - 0.5 * delta**2
    return reduce_mean(where(abs_error <= delta, quadratic, linear), axis=-1)


def log_cosh(y_true: Any, y_pred: Any) -> Any:
    """`log(cosh(error))`, written as `x + softplus(-2x) - log 2` so large errors do not overflow."""
    y_true, y_pred = _paired(y_true, y_pred)
    error = y_pred - y_true
    return reduce_mean(error + nn_ops.softplus(error * -2.0) - math.log(2.0), axis=-1)


def _hinge_labels(y_true: Any) -> Any:
    """Labels of 0 and 1 become -1 and 1 (hinge losses want signed labels); others stay as they are."""
    binary = reduce_all(logical_or(equal(y_true, 0.0), equal(y_true, 1.0)))
    return where(binary, 2.0 * y_true - 1.0, y_true)


def hinge(y_true: Any, y_pred: Any) -> Any:
    y_true = _hinge_labels(cast(y_true, y_pred.dtype))
    return reduce_mean(maximum(1.0 - y_true * y_pred, 0.0), axis=-1)


def squared_hinge(y_true: Any, y_pred: Any) -> Any:
    y_true = _hinge_labels(cast(y_true, y_pred.dtype))
    return reduce_mean(square(maximum(1.0 - y_true * y_pred, 0.0)), axis=-1)


def categorical_hinge(y_true: Any, y_pred: Any) -> Any:
    """The margin between the true class's score and the best wrong one."""
    y_true = cast(y_true, y_pred.dtype)
    positive = reduce_sum(y_true * y_pred, axis=-1)
    negative = reduce_max((1.0 - y_true) * y_pred, axis=-1)
    return maximum(negative - positive + 1.0, 0.0)


def kl_divergence(y_true: Any, y_pred: Any) -> Any:
    y_true = clip_by_value(cast(y_true, y_pred.dtype), epsilon(), 1.0)
    y_pred = clip_by_value(y_pred, epsilon(), 1.0)
    return reduce_sum(y_true * log(y_true / y_pred), axis=-1)


def poisson(y_true: Any, y_pred: Any) -> Any:
    y_true = cast(y_true, y_pred.dtype)
    return reduce_mean(y_pred - y_true * log(y_pred + epsilon()), axis=-1)


def dice(y_true: Any, y_pred: Any, axis: Any = None) -> Any:
    """One minus twice the overlap over the total: 0 when prediction and target coincide."""
    y_true = cast(y_true, y_pred.dtype)
    overlap = reduce_sum(y_true * y_pred, axis=axis)
    total = reduce_sum(y_true, axis=axis) + reduce_sum(y_pred, axis=axis) + epsilon()
    return 1 - 2.0 * overlap / total


def tversky(y_true: Any, y_pred: Any, alpha: float = 0.5, beta: float = 0.5, axis: Any = None) -> Any:
    """Dice with false positives weighted by `alpha` and false negatives by `beta`."""
    y_true = cast(y_true, y_pred.dtype)
    overlap = reduce_sum(y_true * y_pred, axis=axis)
    false_positives = reduce_sum((1 - y_pred) * y_true, axis=axis)
    false_negatives = reduce_sum(y_pred * (1 - y_true), axis=axis)
    return 1 - overlap / (overlap + false_positives * alpha + false_negatives * beta + epsilon())


def categorical_generalized_cross_entropy(y_true: Any, y_pred: Any, q: float) -> Any:
    """`(1 - p ** q) / q` of the true class's probability `p`: cross-entropy made robust to noisy labels."""
    one_hot_true = one_hot(cast(y_true, "int32"), y_pred.shape[-1], dtype=y_pred.dtype)
    true_probability = reduce_sum(y_pred * one_hot_true, axis=-1)
    return (1 - pow(true_probability, q)) / q
