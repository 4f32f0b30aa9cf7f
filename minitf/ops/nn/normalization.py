"""Moments and batch normalization, composed as TensorFlow composes them: tf.nn.moments (mean and variance),
sufficient_statistics / normalize_moments / weighted_moments, and batch_normalization built on them; and
zero_fraction, the share of zero activations, a statistic TensorFlow files beside them."""

from __future__ import annotations

from typing import Any

from minitf.core import dtypes
from minitf.core.conversion import convert_to_tensor
from minitf.core.tensor import Tensor
from minitf.ops.array.shape_ops import size, squeeze, stop_gradient
from minitf.ops.math.binary_math import (
    add,
    divide,
    multiply,
    squared_difference,
    subtract,
)
from minitf.ops.math.cast import cast
from minitf.ops.math.comparisons import equal
from minitf.ops.math.elementwise import zeros_like_
from minitf.ops.math.reductions import count_nonzero, reduce_mean, reduce_sum
from minitf.ops.math.unary_math import negative, reciprocal, rsqrt, square


def moments(x: Any, axes: Any, shift: Any = None, keepdims: bool = False, name: str | None = None) -> tuple:
    """(mean, variance) over `axes`; float16 is computed in float32, as TensorFlow does."""
    x = convert_to_tensor(x)
    y = cast(x, dtypes.float32) if x.dtype is dtypes.float16 else x
    mean = reduce_mean(y, axes, keepdims=True)
    variance = reduce_mean(squared_difference(y, stop_gradient(mean)), axes, keepdims=True)
    if not keepdims:
        mean, variance = squeeze(mean, axes), squeeze(variance, axes)
    if x.dtype is dtypes.float16:
        return cast(mean, dtypes.float16), cast(variance, dtypes.float16)
    return mean, variance


def sufficient_statistics(
    x: Any, axes: Any, shift: Any = None, keepdims: bool = False, name: str | None = None
) -> tuple:
    """(count, sum, sum of squares, shift) of x over `axes`: what mean and variance are computed from."""
    t = convert_to_tensor(x)
    dims = t.shape.as_list()
    count = 1
    for axis in axes:
        count *= dims[axis]
    counts = cast(count, t.dtype)
    if shift is not None:
        shift = convert_to_tensor(shift, dtype=t.dtype)
        centred = subtract(t, shift)
        return (
            counts,
            reduce_sum(centred, axes, keepdims=keepdims),
            reduce_sum(square(centred), axes, keepdims=keepdims),
            shift,
        )
    return (counts, reduce_sum(t, axes, keepdims=keepdims), reduce_sum(square(t), axes, keepdims=keepdims), None)


def normalize_moments(counts: Any, mean_ss: Any, variance_ss: Any, shift: Any, name: str | None = None) -> tuple:
    """Mean and variance from sufficient statistics."""
    divisor = reciprocal(counts)
    if shift is not None:
        shifted_mean = multiply(mean_ss, divisor)
        mean = add(shifted_mean, shift)
    else:
        shifted_mean = multiply(mean_ss, divisor)
        mean = shifted_mean
    variance = subtract(multiply(variance_ss, divisor), square(shifted_mean))
    return mean, variance


def weighted_moments(
    x: Any, axes: Any, frequency_weights: Any, keepdims: bool = False, name: str | None = None
) -> tuple:
    """Mean and variance of x over `axes`, each value counted `frequency_weights` times."""
    t = convert_to_tensor(x)
    w = convert_to_tensor(frequency_weights, dtype=t.dtype)
    weighted_sum = reduce_sum(w * t, axes, keepdims=True)
    weights = reduce_sum(w + zeros_like_(t), axes, keepdims=True)
    divisor = reciprocal(weights)
    mean = multiply(weighted_sum, divisor)
    variance = reduce_sum(w * squared_difference(t, stop_gradient(mean)), axes, keepdims=True) * divisor
    if not keepdims:
        mean, variance = squeeze(mean, axes), squeeze(variance, axes)
    return mean, variance


def batch_normalization(
    x: Any, mean: Any, variance: Any, offset: Any, scale: Any, variance_epsilon: float, name: str | None = None
) -> Tensor:
    """(x - mean) / sqrt(variance + epsilon) * scale + offset, as TensorFlow arranges it: x * inv +
    (offset - mean * inv) with inv = rsqrt(variance + epsilon) * scale."""
    x = convert_to_tensor(x)
    inv = rsqrt(convert_to_tensor(variance) + variance_epsilon)
    if scale is not None:
        inv = inv * scale
    shift = (offset - mean * inv) if offset is not None else (negative(mean) * inv)
    return x * cast(inv, x.dtype) + cast(shift, x.dtype)


def zero_fraction(value: Any, name: str | None = None) -> Tensor:
    """The fraction of entries that are 0, as a float32 scalar."""
    t = convert_to_tensor(value)
    total = cast(size(t), dtypes.float32)
    zeros = cast(count_nonzero(equal(t, zeros_like_(t))), dtypes.float32)
    return divide(zeros, total)
