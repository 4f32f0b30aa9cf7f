"""What training a network needs beyond activations, each composed of other ops exactly as TensorFlow composes
them (so gradients, dtypes and errors follow): the other losses (sigmoid, weighted and Poisson cross-entropies,
compute_average_loss, scale_regularization_loss), dropout, batch normalization and the moments behind it
(sufficient_statistics, normalize_moments, weighted_moments), zero_fraction, and embedding_lookup (a gather)."""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np

from minitf.core import dtypes
from minitf.core.conversion import convert_to_tensor
from minitf.core.tensor import Tensor
from minitf.ops.array.creation import zeros_like
from minitf.ops.array.gather_scatter import gather
from minitf.ops.array.join_split import concat
from minitf.ops.array.shape_ops import identity, shape, size, squeeze, stop_gradient
from minitf.ops.array.where import where
from minitf.ops.linalg.norms import clip_by_norm
from minitf.ops.math import unary_math
from minitf.ops.math.binary_math import add, divide, divide_no_nan, multiply, squared_difference, subtract, truediv
from minitf.ops.math.cast import cast
from minitf.ops.math.comparisons import equal, greater_equal, less_equal, logical_and
from minitf.ops.math.elementwise import ones_like_, zeros_like_
from minitf.ops.math.reductions import count_nonzero, reduce_sum
from minitf.ops.math.unary_math import exp, log, log1p, negative, reciprocal, relu, rsqrt, square
from minitf.ops.random import random_ops


def sigmoid_cross_entropy_with_logits(labels: Any = None, logits: Any = None, name: str | None = None) -> Tensor:
    """-labels * log(sigmoid(logits)) - (1 - labels) * log(1 - sigmoid(logits)), computed without overflow as
    max(logits, 0) - logits * labels + log(1 + exp(-|logits|))."""
    if labels is None or logits is None:
        raise ValueError("Both labels and logits must be provided.")
    logits = convert_to_tensor(logits)
    labels = convert_to_tensor(labels)
    if not labels.shape.is_compatible_with(logits.shape):
        raise ValueError(f"`logits` and `labels` must have the same shape, received ({logits.shape} vs "
                         f"{labels.shape}).")
    zeros = zeros_like(logits, dtype=logits.dtype)
    positive = greater_equal(logits, zeros)
    relu_logits = where(positive, logits, zeros)
    neg_abs_logits = where(positive, negative(logits), logits)
    return add(relu_logits - logits * labels, log1p(exp(neg_abs_logits)))


def dropout(x: Any, rate: Any, noise_shape: Any = None, seed: int | None = None, name: str | None = None) -> Tensor:
    """Zero each entry with probability `rate` and scale the kept ones by 1 / (1 - rate), so that the expected
    sum stays the same. Training only: at inference, use the input as it is."""
    is_number = isinstance(rate, numbers.Real)
    if is_number and not 0 <= rate < 1:
        raise ValueError(f"`rate` must be a scalar tensor or a float in the range [0, 1). Received: rate={rate}")
    x = convert_to_tensor(x)
    x_dtype = x.dtype
    if not x_dtype.is_floating:
        raise ValueError(f"`x.dtype` must be a floating point tensor as `x` will be scaled. Received: "
                         f"x_dtype={x_dtype!r}")
    if is_number and rate == 0:
        random_ops.seeds.seeds_for(seed)  # TensorFlow still takes an op seed, so later seeded ops line up
        return x
    if is_number:
        scaled = multiply(x, convert_to_tensor(1 / (1 - rate), dtype=x_dtype))
    elif isinstance(rate, Tensor):
        if rate.shape.rank not in (0, None):
            raise ValueError(f"Shape {rate.shape} must have rank 0")
        rate = cast(rate, x_dtype) if rate.dtype is not x_dtype else rate
        scaled = truediv(x, subtract(convert_to_tensor(1, dtype=x_dtype), rate))
    else:
        raise ValueError(f"`rate` must be a scalar or scalar tensor. Received: rate={rate}")
    shape = x.shape.as_list()
    if noise_shape is not None:  # None entries of noise_shape take x's size
        shape = [shape[i] if d is None else int(getattr(d, "_value", d)) for i, d in enumerate(noise_shape)]
    keep = greater_equal(random_ops.uniform(shape, dtype=x_dtype, seed=seed), rate)
    return where(keep, scaled, convert_to_tensor(0, dtype=x_dtype))


def batch_normalization(x: Any, mean: Any, variance: Any, offset: Any, scale: Any, variance_epsilon: float,
                        name: str | None = None) -> Tensor:
    """(x - mean) / sqrt(variance + epsilon) * scale + offset, as TensorFlow arranges it: x * inv +
    (offset - mean * inv) with inv = rsqrt(variance + epsilon) * scale."""
    x = convert_to_tensor(x)
    inv = rsqrt(convert_to_tensor(variance) + variance_epsilon)
    if scale is not None:
        inv = inv * scale
    shift = (offset - mean * inv) if offset is not None else (negative(mean) * inv)
    return x * cast(inv, x.dtype) + cast(shift, x.dtype)


def sufficient_statistics(x: Any, axes: Any, shift: Any = None, keepdims: bool = False,
                          name: str | None = None) -> tuple:
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
        return (counts, reduce_sum(centred, axes, keepdims=keepdims),
                reduce_sum(square(centred), axes, keepdims=keepdims), shift)
    return (counts, reduce_sum(t, axes, keepdims=keepdims), reduce_sum(square(t), axes, keepdims=keepdims),
            None)


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


def weighted_moments(x: Any, axes: Any, frequency_weights: Any, keepdims: bool = False,
                     name: str | None = None) -> tuple:
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


def weighted_cross_entropy_with_logits(labels: Any, logits: Any, pos_weight: Any,
                                       name: str | None = None) -> Tensor:
    """Sigmoid cross-entropy with the positive term weighted by `pos_weight`, computed stably."""
    x = convert_to_tensor(logits)
    z = convert_to_tensor(labels, dtype=x.dtype)
    log_weight = 1 + (pos_weight - 1) * z
    return add((1 - z) * x, log_weight * (log1p(exp(negative(unary_math.abs(x)))) + relu(negative(x))))


def log_poisson_loss(targets: Any, log_input: Any, compute_full_loss: bool = False,
                     name: str | None = None) -> Tensor:
    """exp(log_input) - log_input * targets (plus Stirling's term for targets > 1 with compute_full_loss)."""
    c = convert_to_tensor(log_input)
    z = convert_to_tensor(targets, dtype=c.dtype)
    result = exp(c) - c * z
    if compute_full_loss:
        point_five = cast(0.5, z.dtype)
        two_pi = cast(2 * np.pi, z.dtype)
        stirling = z * log(z) - z + point_five * log(two_pi * z)
        zeros, ones = zeros_like_(z), ones_like_(z)
        cond = logical_and(greater_equal(z, zeros), less_equal(z, ones))
        result += where(cond, zeros, stirling)
    return result


def zero_fraction(value: Any, name: str | None = None) -> Tensor:
    """The fraction of entries that are 0, as a float32 scalar."""
    t = convert_to_tensor(value)
    total = cast(size(t), dtypes.float32)
    zeros = cast(count_nonzero(equal(t, zeros_like_(t))), dtypes.float32)
    return divide(zeros, total)


def compute_average_loss(per_example_loss: Any, sample_weight: Any = None, global_batch_size: Any = None,
                         name: str | None = None) -> Tensor:
    """The sum of the (weighted) per-example losses over the global batch size (one replica: the batch)."""
    loss = convert_to_tensor(per_example_loss)
    if sample_weight is not None:
        loss = loss * convert_to_tensor(sample_weight, dtype=loss.dtype)
    if global_batch_size is None:
        global_batch_size = cast(shape(loss, out_type=dtypes.int64)[0], loss.dtype)
    return divide_no_nan(reduce_sum(loss), cast(global_batch_size, loss.dtype))


def scale_regularization_loss(regularization_loss: Any, name: str | None = None) -> Tensor:
    """The regularisation loss divided by the number of replicas (one here: unchanged)."""
    return reduce_sum(convert_to_tensor(regularization_loss)) / 1


def embedding_lookup(params: Any, ids: Any, max_norm: Any = None, name: str | None = None) -> Tensor:
    """Rows of the embedding matrix `params` (or of a list of shards of it, split by rows) at `ids`."""
    shards = list(params) if isinstance(params, list | tuple) else [params]
    if not shards:
        raise ValueError("Length of params is currently 0. Need at least one param.")
    table = convert_to_tensor(shards[0]) if len(shards) == 1 else concat([convert_to_tensor(s) for s in shards], 0)
    rows = gather(table, ids)
    if max_norm is None:
        return identity(rows)
    ids_rank = convert_to_tensor(ids).shape.rank or 0
    axes = list(range(ids_rank, rows.shape.rank or ids_rank + 1))
    return clip_by_norm(rows, max_norm, axes=axes)
