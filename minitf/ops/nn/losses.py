"""The losses beyond softmax's (which lives beside softmax in nn_ops.py), composed of other ops exactly as
TensorFlow composes them, so gradients, dtypes and errors follow: sigmoid, weighted and Poisson
cross-entropies, and the loss-scaling helpers of distributed training (one replica here)."""

from __future__ import annotations

from typing import Any

import numpy as np

from minitf.core import dtypes
from minitf.core.conversion import convert_to_tensor
from minitf.core.tensor import Tensor
from minitf.ops.array.creation import zeros_like
from minitf.ops.array.shape_ops import shape
from minitf.ops.array.where import where
from minitf.ops.math import unary_math
from minitf.ops.math.binary_math import (
    add,
    divide_no_nan,
)
from minitf.ops.math.cast import cast
from minitf.ops.math.comparisons import greater_equal, less_equal, logical_and
from minitf.ops.math.elementwise import ones_like_, zeros_like_
from minitf.ops.math.reductions import reduce_sum
from minitf.ops.math.unary_math import exp, log, log1p, negative, relu


def sigmoid_cross_entropy_with_logits(labels: Any = None, logits: Any = None, name: str | None = None) -> Tensor:
    """-labels * log(sigmoid(logits)) - (1 - labels) * log(1 - sigmoid(logits)), computed without overflow as
    max(logits, 0) - logits * labels + log(1 + exp(-|logits|))."""
    if labels is None or logits is None:
        raise ValueError("Both labels and logits must be provided.")
    logits = convert_to_tensor(logits)
    labels = convert_to_tensor(labels)
    if not labels.shape.is_compatible_with(logits.shape):
        raise ValueError(
            f"`logits` and `labels` must have the same shape, received ({logits.shape} vs {labels.shape})."
        )
    zeros = zeros_like(logits, dtype=logits.dtype)
    positive = greater_equal(logits, zeros)
    relu_logits = where(positive, logits, zeros)
    neg_abs_logits = where(positive, negative(logits), logits)
    return add(relu_logits - logits * labels, log1p(exp(neg_abs_logits)))


def weighted_cross_entropy_with_logits(labels: Any, logits: Any, pos_weight: Any, name: str | None = None) -> Tensor:
    """Sigmoid cross-entropy with the positive term weighted by `pos_weight`, computed stably."""
    x = convert_to_tensor(logits)
    z = convert_to_tensor(labels, dtype=x.dtype)
    log_weight = 1 + (pos_weight - 1) * z
    return add((1 - z) * x, log_weight * (log1p(exp(negative(unary_math.abs(x)))) + relu(negative(x))))


def log_poisson_loss(targets: Any, log_input: Any, compute_full_loss: bool = False, name: str | None = None) -> Tensor:
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


def compute_average_loss(
    per_example_loss: Any, sample_weight: Any = None, global_batch_size: Any = None, name: str | None = None
) -> Tensor:
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
