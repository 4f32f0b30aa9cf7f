"""`tf.nn`: activations (with gelu and crelu, composed as TensorFlow composes them), softmax and the
cross-entropy losses a first neural network needs."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from minitf.autodiff.custom_gradients import custom_gradient
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
    tf_type_name,
)
from minitf.core.op import GradContext, Op, bind
from minitf.core.tensor import Tensor
from minitf.ops.array.creation import one_hot, ones_like, zeros_like
from minitf.ops.array.join_split import concat
from minitf.ops.array.where import where
from minitf.ops.checks.check_ops import checked_labels
from minitf.ops.math import binary_math, unary_math
from minitf.ops.math.binary_math import add, divide, multiply, subtract
from minitf.ops.math.cast import cast
from minitf.ops.math.comparisons import less
from minitf.ops.math.elementwise import zeros_like_
from minitf.ops.math.reductions import reduce_sum
from minitf.ops.math.special import erf
from minitf.ops.math.unary_math import exp, negative, square

relu = unary_math.relu
sigmoid = unary_math.sigmoid
tanh = unary_math.tanh


def softmax_kernel(x: np.ndarray, axis: int) -> np.ndarray:
    """exp(x - max) / sum: shifting by the row's largest value keeps exp from overflowing."""
    if x.size == 0:
        return x.copy()
    e = np.exp(x - np.max(x, axis=axis, keepdims=True))
    return (e / np.sum(e, axis=axis, keepdims=True)).astype(x.dtype, copy=False)


def log_softmax_kernel(x: np.ndarray, axis: int) -> np.ndarray:
    """(x - max) - log(sum(exp(x - max))): the log of a sum of values that are at most 1, never of 0."""
    if x.size == 0:
        return x.copy()
    shifted = x - x.max(axis=axis, keepdims=True)
    return (shifted - np.log(np.exp(shifted).sum(axis=axis, keepdims=True))).astype(x.dtype, copy=False)


def _softmax_grad(c: GradContext, g: Tensor) -> list:
    y = c.out
    return [(g - reduce_sum(g * y, axis=c.attrs["axis"], keepdims=True)) * y]


def _log_softmax_grad(c: GradContext, g: Tensor) -> list:
    return [g - reduce_sum(g, axis=c.attrs["axis"], keepdims=True) * exp(c.out)]


def _float_check(name: str) -> Any:
    def check(inputs: Sequence[Tensor], attrs: dict) -> None:
        allowed_dtypes(name, dtypes.FLOATS, inputs[0].dtype)
        if inputs[0].shape.rank == 0:
            # (TensorFlow's oneDNN float32 kernel, used on some CPUs only, raises AbortedError here instead.)
            raise op_error(
                InvalidArgumentError,
                name,
                "logits must have >= 1 dimension, got []",
                hint="softmax needs a vector (or a batch of them), not a scalar.",
            )

    return check


Softmax = Op(
    "Softmax", softmax_kernel, check=_float_check("Softmax"), shape=shape_rules.same_as_first, grad=_softmax_grad
)
LogSoftmax = Op(
    "LogSoftmax",
    log_softmax_kernel,
    check=_float_check("LogSoftmax"),
    shape=shape_rules.same_as_first,
    grad=_log_softmax_grad,
)


def _axis(x: Tensor, axis: int | None) -> int:
    rank = x.shape.rank or 1
    axis = -1 if axis is None else int(axis)
    if x.shape.rank == 0 and axis != -1:
        raise InvalidArgumentError(
            None,
            None,
            f"`dim` must be in the range [0, 0) where 0 is the number of dimensions in the input. Received: dim={axis}",
        )
    if not -rank <= axis < rank:
        raise InvalidArgumentError(
            None,
            None,
            f"`axis` must be in the range [{-rank}, {rank}) where {rank} is the "
            f"number of dimensions in the input. Received: axis={axis}",
        )
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
    labels = convert_to_tensor(labels, dtype=logits.dtype)
    if labels.shape.is_fully_defined() and logits.shape.is_fully_defined() and labels.shape != logits.shape:
        raise static_error(
            f"logits and labels must be broadcastable: logits_size={dims_text(logits.shape)} "
            f"labels_size={dims_text(labels.shape)}",
            "SoftmaxCrossEntropyWithLogits",
            "labels hold one probability per class and example: the shape of the logits.",
        )
    return negative(reduce_sum(labels * log_softmax(logits, axis), axis=axis))


def sparse_softmax_cross_entropy_with_logits(labels: Any, logits: Any, name: str | None = None) -> Tensor:
    """Cross-entropy with integer class labels (one per example) instead of distributions."""
    logits = convert_to_tensor(logits)
    labels = convert_to_tensor(labels)
    if labels.dtype not in (dtypes.int32, dtypes.int64) and state.graph is not None:
        raise TypeError(
            f"Value passed to parameter 'labels' has DataType {labels.dtype.name} not in list of "
            "allowed values: int32, int64\nHint: labels are class indices; tf.cast them to tf.int32."
        )
    if labels.dtype not in (dtypes.int32, dtypes.int64):
        raise op_error(
            InvalidArgumentError,
            "SparseSoftmaxCrossEntropyWithLogits",
            f"Value for attr 'Tlabels' of {tf_type_name(labels.dtype)} is not in the list of allowed "
            "values: int32, int64",
            hint="labels are class indices; tf.cast them to tf.int32.",
        )
    n = logits.shape[-1]
    if labels.shape.rank != logits.shape.rank - 1:
        raise ValueError(
            f"Rank mismatch: Rank of labels (received {labels.shape.rank}) should equal rank of "
            f"logits minus 1 (received {logits.shape.rank})."
        )
    labels = checked_labels(labels, n)
    picked = one_hot(labels, n, dtype=logits.dtype)
    return negative(reduce_sum(picked * log_softmax(logits), axis=-1))


def l2_loss(t: Any, name: str | None = None) -> Tensor:
    x = convert_to_tensor(t)
    allowed_dtypes("L2Loss", dtypes.FLOATS, x.dtype)
    return reduce_sum(square(x)) / 2


def _leaky_relu_grad_kernel(dy: np.ndarray, x: np.ndarray, alpha: float) -> np.ndarray:
    return np.where(x > 0, dy, dy * np.asarray(alpha, dy.dtype)).astype(dy.dtype)


# As in TensorFlow, the gradient is an op of its own, whose gradient is zero with respect to the features
# (so a second derivative is 0, not None). At 0 the slope is alpha.
LeakyReluGrad: Op = Op(
    "LeakyReluGrad",
    _leaky_relu_grad_kernel,
    shape=shape_rules.same_as_first,
    grad=lambda c, g: [bind(LeakyReluGrad, g, c.y, alpha=c.attrs["alpha"]), zeros_like_(c.y)],
)
LeakyRelu = Op(
    "LeakyRelu",
    lambda x, alpha: np.where(x > 0, x, x * np.asarray(alpha, x.dtype)).astype(x.dtype),
    check=lambda inputs, attrs: allowed_dtypes("LeakyRelu", dtypes.FLOATS, inputs[0].dtype),
    shape=shape_rules.same_as_first,
    grad=lambda c, g: [bind(LeakyReluGrad, g, c.x, alpha=c.attrs["alpha"])],
)


def leaky_relu(features: Any, alpha: float = 0.2, name: str | None = None) -> Tensor:
    """max(x, alpha * x) for alpha < 1; integer features are cast to float32 first, as in TensorFlow."""
    x = convert_to_tensor(features)
    if x.dtype.is_integer:
        x = cast(x, dtypes.float32)
    # alpha is a 32-bit float attribute in TensorFlow: on float64 inputs 0.2 acts as 0.20000000298...
    return bind(LeakyRelu, x, alpha=float(np.float32(np.asarray(getattr(alpha, "_value", alpha)))))


def _float_only(name: str) -> Any:
    def check(inputs: Sequence[Tensor], attrs: dict) -> None:
        allowed_dtypes(name, dtypes.FLOATS, inputs[0].dtype)

    return check


# Elu and Softplus are TensorFlow ops with gradient ops of their own; composing them from where/abs/maximum
# would give other derivatives at 0 (softplus'(0) is 0.5, not 1) and other second derivatives.
EluGrad: Op = Op(
    "EluGrad",
    lambda dy, y: np.where(y < 0, dy * (y + 1), dy).astype(dy.dtype),
    shape=shape_rules.same_as_first,
    grad=lambda c, g: [bind(EluGrad, g, c.y), where(c.y < 0, g * c.x, zeros_like_(c.y))],
)


def _elu_kernel(x: np.ndarray) -> np.ndarray:
    return np.where(x > 0, x, np.expm1(np.minimum(x, 0))).astype(x.dtype)


Elu = Op(
    "Elu",
    _elu_kernel,
    check=_float_only("Elu"),
    shape=shape_rules.same_as_first,
    grad=lambda c, g: [bind(EluGrad, g, c.out)],
)

SoftplusGrad: Op = Op(
    "SoftplusGrad",
    lambda dy, x: (dy / (1 + np.exp(-x))).astype(dy.dtype),
    shape=shape_rules.same_as_first,
    grad=lambda c, g: [bind(SoftplusGrad, g, c.y), g * c.x / (exp(negative(c.y)) + 2.0 + exp(c.y))],
)


def softplus_kernel(x: np.ndarray, exp: Callable[[np.ndarray], np.ndarray] = np.exp) -> np.ndarray:
    """TensorFlow's formula: x where exp(x) would overflow (above -threshold), exp(x) where 1 + exp(x) rounds to 1
    (below threshold = log(eps) + 2), log1p(exp(x)) between. TensorFlow's CPU kernels flush results too small for
    a normal float to zero, so softplus(-100.0) is 0 (and log_sigmoid(100.0) is -0.0), not a denormal."""
    x = np.asarray(x)
    threshold = np.log(np.finfo(x.dtype).eps) + 2
    wide = x.astype(np.float32) if x.dtype == np.float16 else x  # half precision is computed in float32
    below = np.minimum(wide, -threshold)
    e = exp(below)
    out = np.where(wide > -threshold, wide, np.where(wide < threshold, e, np.log1p(e)))
    return np.where(np.abs(out) < np.finfo(wide.dtype).tiny, np.zeros((), wide.dtype), out).astype(x.dtype)


Softplus = Op(
    "Softplus",
    softplus_kernel,
    check=_float_only("Softplus"),
    shape=shape_rules.same_as_first,
    grad=lambda c, g: [bind(SoftplusGrad, g, c.x)],
)


def elu(features: Any, name: str | None = None) -> Tensor:
    """x for x > 0, exp(x) - 1 otherwise."""
    return bind(Elu, convert_to_tensor(features))


def softplus(features: Any, name: str | None = None) -> Tensor:
    """log(1 + exp(x)), computed without overflow."""
    return bind(Softplus, convert_to_tensor(features))


def bias_add(value: Any, bias: Any, data_format: str | None = None, name: str | None = None) -> Tensor:
    """value + bias along the last (channel) axis; bias is a vector as long as that axis."""
    if data_format not in (None, "NHWC", "N...C"):
        raise ValueError(
            f"minitf's bias_add supports the channels-last layout only; got data_format="
            f"{data_format!r}.\nHint: leave data_format unset (channels last)."
        )
    value = convert_to_tensor(value)
    if isinstance(bias, Tensor) and bias.dtype is not value.dtype and state.graph is not None:
        raise ValueError(
            f"bias: Tensor conversion requested dtype {value.dtype.name} for Tensor with dtype "
            f"{bias.dtype.name}: {bias!r}\nHint: tf.cast the bias to the input's dtype."
        )
    bias = convert_to_tensor(bias, dtype_hint=value.dtype)
    if bias.shape.rank not in (None, 1):
        raise graph_build_error(
            "BiasAdd", f"Biases must be 1D: {bias.shape.as_list()}", "bias is one number per channel (a vector)."
        )
    if value.shape.rank is not None and value.shape.rank < 2:
        raise graph_build_error(
            "BiasAdd",
            f"Input tensor must be at least 2D: {value.shape.as_list()}",
            "bias_add adds to [batch, ..., channels]; for a vector use tf.add.",
        )
    channels, size = value.shape[-1], bias.shape[-1]
    if None not in (channels, size) and channels != size:
        raise graph_build_error(
            "BiasAdd",
            f"Must provide as many biases as the last dimension of the input tensor: "
            f"[{size}] vs. {value.shape.as_list()}",
            "bias needs one entry per channel (the last dimension).",
        )
    return add(value, bias)


def relu6(features: Any, name: str | None = None) -> Tensor:
    """min(max(x, 0), 6); the gradient is 1 strictly between 0 and 6, as TensorFlow's."""
    x = convert_to_tensor(features)
    six = multiply(ones_like(x), 6)
    return where(less(x, six), relu(x), six)


def silu(features: Any, beta: Any = 1.0, name: str | None = None) -> Tensor:
    """x * sigmoid(beta * x), also called swish."""
    x = convert_to_tensor(features)
    return multiply(x, unary_math.sigmoid(multiply(x, convert_to_tensor(beta, dtype=x.dtype))))


swish = silu

_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


def selu(features: Any, name: str | None = None) -> Tensor:
    """scale * x for x > 0, scale * alpha * (exp(x) - 1) otherwise (self-normalizing networks)."""
    x = convert_to_tensor(features)
    scale = convert_to_tensor(_SELU_SCALE, dtype=x.dtype)
    scale_alpha = convert_to_tensor(_SELU_SCALE * _SELU_ALPHA, dtype=x.dtype)

    @custom_gradient
    def forward(x: Tensor) -> Any:
        below = less(x, zeros_like(x))
        y = where(below, multiply(scale_alpha, subtract(exp(x), ones_like(x))), multiply(scale, x))

        def grad(dy: Tensor) -> Tensor:  # TensorFlow's SeluGrad: from the output, so its rounding shows too
            return multiply(dy, where(below, add(y, scale_alpha), multiply(ones_like(y), scale)))

        return y, grad

    return forward(x)


def softsign(features: Any, name: str | None = None) -> Tensor:
    """x / (1 + |x|)."""
    x = convert_to_tensor(features)
    return divide(x, add(ones_like(x), unary_math.abs(x)))


def log_sigmoid(x: Any, name: str | None = None) -> Tensor:
    """log(sigmoid(x)), computed as -softplus(-x) so that large negative x does not give log(0)."""
    x = convert_to_tensor(x)
    return negative(softplus(negative(x)))


def gelu(features: Any, approximate: bool = False, name: str | None = None) -> Tensor:
    """x * P(X <= x) for a standard normal X: with erf, or (approximate=True) the tanh formula."""
    x = convert_to_tensor(features)
    if not x.dtype.is_floating:
        raise ValueError(f"`features.dtype` must be a floating point tensor.Received:features.dtype={x.dtype}")
    if approximate:
        coeff = cast(0.044715, x.dtype)
        return 0.5 * x * (1.0 + tanh(0.7978845608028654 * (x + coeff * binary_math.pow(x, 3))))
    return 0.5 * x * (1.0 + erf(x / cast(1.4142135623730951, x.dtype)))


def crelu(features: Any, axis: int = -1, name: str | None = None) -> Tensor:
    """relu(x) and relu(-x) side by side along `axis` (twice the channels)."""
    x = convert_to_tensor(features)
    return relu(concat([x, negative(x)], axis))
