"""`tf.nn`: activations, softmax and the cross-entropy losses a first neural network needs."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from minitf import dtypes
from minitf.core import Op, _tf_name, allowed_dtypes, bind, convert_to_tensor, state, static_error
from minitf.errors import InvalidArgumentError
from minitf.ops import math_ops as m
from minitf.ops import shapes, summation, vector_math
from minitf.ops.array_ops import one_hot
from minitf.ops.label_check_ops import checked_labels
from minitf.tensor import Tensor

relu = m.relu
sigmoid = m.sigmoid
tanh = m.tanh


def _softmax_kernel(x: np.ndarray, axis: int) -> np.ndarray:
    if x.size == 0:
        return x.copy()
    if x.dtype in (np.float32, np.float64):
        return _along_last_axis(_tf_softmax, x, axis)
    shifted = x - np.max(x, axis=axis, keepdims=True)
    e = np.exp(shifted)
    return (e / np.sum(e, axis=axis, keepdims=True)).astype(x.dtype)


def _log_softmax_kernel(x: np.ndarray, axis: int) -> np.ndarray:
    if x.size == 0:
        return x.copy()
    if x.dtype in (np.float32, np.float64):
        return _along_last_axis(_tf_log_softmax, x, axis)
    shifted = x - np.max(x, axis=axis, keepdims=True)
    return (shifted - np.log(np.sum(np.exp(shifted), axis=axis, keepdims=True))).astype(x.dtype)


# TensorFlow's kernels, on rows (the class axis last): the sum adds in TensorFlow's order, softmax multiplies by
# the sum's reciprocal. float32 exp and log are TensorFlow's own (`vector_math`): softmax takes the exp of the
# whole tensor of shifted logits (packets, then the C library for the last n % 8 values); log_softmax takes
# the exp inside the sum, row by row (packets, then the C library for the last k % 8 values of each row), and
# the log of the row sums as a tensor of its own. float64 exp and log are NumPy's.

def _along_last_axis(kernel: Callable[[np.ndarray], np.ndarray], x: np.ndarray, axis: int) -> np.ndarray:
    """`kernel` on the rows of `x` with `axis` swapped to the end, as `tf.nn.softmax(axis=...)` swaps it (the
    order of the rows decides which values the float32 exp computes in a packet)."""
    swapped = np.swapaxes(x, axis, -1)
    rows = np.ascontiguousarray(swapped).reshape(-1, swapped.shape[-1])
    return np.swapaxes(kernel(rows).reshape(swapped.shape), -1, axis)


def _tf_softmax(rows: np.ndarray) -> np.ndarray:
    shifted = rows - rows.max(axis=1, keepdims=True)
    e = vector_math.exp(shifted) if rows.dtype == np.float32 else np.exp(shifted)
    return e * (rows.dtype.type(1) / summation.row_sums(e))[:, None]


def _tf_log_softmax(rows: np.ndarray) -> np.ndarray:
    shifted = rows - rows.max(axis=1, keepdims=True)
    if rows.dtype == np.float32:
        sums = summation.row_sums(vector_math.along_rows(shifted, vector_math.exp_packet, vector_math.exp_scalar))
        return shifted - vector_math.log(sums)[:, None]
    return shifted - np.log(summation.row_sums(np.exp(shifted)))[:, None]


def _softmax_grad(c: Any, g: Tensor) -> list:
    y = c.out
    return [(g - m.reduce_sum(g * y, axis=c.attrs["axis"], keepdims=True)) * y]


def _log_softmax_grad(c: Any, g: Tensor) -> list:
    return [g - m.reduce_sum(g, axis=c.attrs["axis"], keepdims=True) * m.exp(c.out)]


def _float_check(name: str) -> Any:
    def check(inputs: Sequence[Tensor], attrs: dict) -> None:
        allowed_dtypes(name, dtypes.FLOATS, inputs[0].dtype)  # type: ignore[attr-defined]
        if inputs[0].shape.rank == 0:
            # (TensorFlow's oneDNN float32 kernel, used on some CPUs only, raises AbortedError here instead.)
            raise InvalidArgumentError(None, None, f"logits must have >= 1 dimension, got [] [Op:{name}] name: \n"
                                       "Hint: softmax needs a vector (or a batch of them), not a scalar.")
    return check


Softmax = Op("Softmax", _softmax_kernel, check=_float_check("Softmax"), shape=shapes.same_as_first,
             grad=_softmax_grad)
LogSoftmax = Op("LogSoftmax", _log_softmax_kernel, check=_float_check("LogSoftmax"), shape=shapes.same_as_first,
                grad=_log_softmax_grad)


def _axis(x: Tensor, axis: int | None) -> int:
    rank = x.shape.rank or 1
    axis = -1 if axis is None else int(axis)
    if x.shape.rank == 0 and axis != -1:
        raise InvalidArgumentError(None, None, f"`dim` must be in the range [0, 0) where 0 is the number of dimensions "
                                   f"in the input. Received: dim={axis}")
    if not -rank <= axis < rank:
        raise InvalidArgumentError(None, None, f"`axis` must be in the range [{-rank}, {rank}) where {rank} is the "
                                   f"number of dimensions in the input. Received: axis={axis}")
    return axis % rank


def softmax(logits: Any, axis: int | None = None, name: str | None = None) -> Tensor:
    """exp(x) / sum(exp(x)) along `axis` (the last by default), computed stably."""
    x = convert_to_tensor(logits)
    return bind(Softmax, x, axis=_axis(x, axis))


def log_softmax(logits: Any, axis: int | None = None, name: str | None = None) -> Tensor:
    x = convert_to_tensor(logits)
    return bind(LogSoftmax, x, axis=_axis(x, axis))


def softmax_cross_entropy_with_logits(labels: Any, logits: Any, axis: int = -1, name: str | None = None) -> Tensor:
    """Cross-entropy between a probability distribution `labels` and unnormalised `logits`, per example."""
    logits = convert_to_tensor(logits)
    labels = convert_to_tensor(labels, dtype=logits.dtype)  # type: ignore[attr-defined]
    if labels.shape.is_fully_defined() and logits.shape.is_fully_defined() and labels.shape != logits.shape:
        raise static_error(f"logits and labels must be broadcastable: logits_size="
                                   f"{logits.shape.as_list()} labels_size={labels.shape.as_list()} "
                                   "[Op:SoftmaxCrossEntropyWithLogits] name: ")
    return m.negative(m.reduce_sum(labels * log_softmax(logits, axis), axis=axis))


def sparse_softmax_cross_entropy_with_logits(labels: Any, logits: Any, name: str | None = None) -> Tensor:
    """Cross-entropy with integer class labels (one per example) instead of distributions."""
    logits = convert_to_tensor(logits)
    labels = convert_to_tensor(labels)
    if labels.dtype not in (dtypes.int32, dtypes.int64) and state.graph is not None:  # type: ignore[attr-defined]
        raise TypeError(f"Value passed to parameter 'labels' has DataType {labels.dtype.name} not in list of "  # type: ignore
                        "allowed values: int32, int64\nHint: labels are class indices; tf.cast them to tf.int32.")
    if labels.dtype not in (dtypes.int32, dtypes.int64):  # type: ignore[attr-defined]
        raise InvalidArgumentError(None, None, f"Value for attr 'Tlabels' of {_tf_name(labels.dtype)} is not in "  # type: ignore
                                   "the list of allowed values: int32, int64 "
                                   "[Op:SparseSoftmaxCrossEntropyWithLogits] name: \nHint: labels are class "
                                   "indices; tf.cast them to tf.int32.")
    n = logits.shape[-1]
    if labels.shape.rank != logits.shape.rank - 1:
        raise ValueError(f"Rank mismatch: Rank of labels (received {labels.shape.rank}) should equal rank of "
                         f"logits minus 1 (received {logits.shape.rank}).")
    labels = checked_labels(labels, n)
    picked = one_hot(labels, n, dtype=logits.dtype)  # type: ignore[attr-defined]
    return m.negative(m.reduce_sum(picked * log_softmax(logits), axis=-1))


def l2_loss(t: Any, name: str | None = None) -> Tensor:
    x = convert_to_tensor(t)
    allowed_dtypes("L2Loss", dtypes.FLOATS, x.dtype)  # type: ignore[attr-defined]
    return m.reduce_sum(m.square(x)) / 2


def _leaky_relu_grad_kernel(dy: np.ndarray, x: np.ndarray, alpha: float) -> np.ndarray:
    return np.where(x > 0, dy, dy * np.asarray(alpha, dy.dtype)).astype(dy.dtype)


# As in TensorFlow, the gradient is an op of its own, whose gradient is zero with respect to the features
# (so a second derivative is 0, not None). At 0 the slope is alpha.
LeakyReluGrad = Op("LeakyReluGrad", _leaky_relu_grad_kernel,
                   shape=shapes.same_as_first,
                   grad=lambda c, g: [bind(LeakyReluGrad, g, c.y, alpha=c.attrs["alpha"]), m.zeros_like_(c.y)])
LeakyRelu = Op("LeakyRelu", lambda x, alpha: np.where(x > 0, x, x * np.asarray(alpha, x.dtype)).astype(x.dtype),
               check=lambda inputs, attrs: allowed_dtypes("LeakyRelu", dtypes.FLOATS, inputs[0].dtype),
               shape=shapes.same_as_first, grad=lambda c, g: [bind(LeakyReluGrad, g, c.x, alpha=c.attrs["alpha"])])


def leaky_relu(features: Any, alpha: float = 0.2, name: str | None = None) -> Tensor:
    """max(x, alpha * x) for alpha < 1; integer features are cast to float32 first, as in TensorFlow."""
    x = convert_to_tensor(features)
    if x.dtype.is_integer:  # type: ignore[attr-defined]
        x = m.cast(x, dtypes.float32)
    # alpha is a 32-bit float attribute in TensorFlow: on float64 inputs 0.2 acts as 0.20000000298...
    return bind(LeakyRelu, x, alpha=float(np.float32(np.asarray(getattr(alpha, "_value", alpha)))))


def _float_only(name: str) -> Any:
    def check(inputs: Sequence[Tensor], attrs: dict) -> None:
        allowed_dtypes(name, dtypes.FLOATS, inputs[0].dtype)  # type: ignore[attr-defined]
    return check


# Elu and Softplus are TensorFlow ops with gradient ops of their own; composing them from where/abs/maximum
# would give other derivatives at 0 (softplus'(0) is 0.5, not 1) and other second derivatives.
EluGrad = Op("EluGrad", lambda dy, y: np.where(y < 0, dy * (y + 1), dy).astype(dy.dtype),
             shape=shapes.same_as_first,
             grad=lambda c, g: [bind(EluGrad, g, c.y), m.where(c.y < 0, g * c.x, m.zeros_like_(c.y))])
Elu = Op("Elu", lambda x: np.where(x > 0, x, np.expm1(np.minimum(x, 0))).astype(x.dtype), check=_float_only("Elu"),
         shape=shapes.same_as_first, grad=lambda c, g: [bind(EluGrad, g, c.out)])
SoftplusGrad = Op("SoftplusGrad", lambda dy, x: (dy / (1 + np.exp(-x))).astype(dy.dtype),
                  shape=shapes.same_as_first, grad=lambda c, g: [bind(SoftplusGrad, g, c.y),
                                     g * c.x / (m.exp(m.negative(c.y)) + 2.0 + m.exp(c.y))])
Softplus = Op("Softplus", lambda x: np.logaddexp(np.zeros((), x.dtype), x).astype(x.dtype),
              check=_float_only("Softplus"), shape=shapes.same_as_first,
              grad=lambda c, g: [bind(SoftplusGrad, g, c.x)])


def elu(features: Any, name: str | None = None) -> Tensor:
    """x for x > 0, exp(x) - 1 otherwise."""
    return bind(Elu, convert_to_tensor(features))


def softplus(features: Any, name: str | None = None) -> Tensor:
    """log(1 + exp(x)), computed without overflow."""
    return bind(Softplus, convert_to_tensor(features))
