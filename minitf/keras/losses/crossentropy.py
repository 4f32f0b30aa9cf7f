"""The cross-entropies: binary, categorical, sparse categorical, and their focal variants.

Cross-entropies on probabilities clip them to [1e-7, 1 - 1e-7] before the log, as Keras does; with
`from_logits=True` they use TensorFlow's fused, stable ops. A probability that a traced `softmax` or `sigmoid`
op produced is traced back to its logits (TensorFlow's backend does the same), so `Dense(10,
activation="softmax")` with a cross-entropy trains as stably as logits would.
"""

from __future__ import annotations

from typing import Any

import minitf.ops.nn.nn_ops as nn_ops
from minitf.core.tensor import Tensor
from minitf.keras.backend import epsilon
from minitf.ops.array.shape_ops import shape as shape_of
from minitf.ops.array.shape_ops import squeeze
from minitf.ops.math.binary_math import clip_by_value, pow
from minitf.ops.math.cast import cast
from minitf.ops.math.reductions import reduce_mean, reduce_sum
from minitf.ops.math.unary_math import log, sigmoid
from minitf.ops.nn.losses import sigmoid_cross_entropy_with_logits


def shape_text(t: Any) -> str:
    return "(" + ", ".join(str(d) for d in t.shape.as_list()) + ("," if t.shape.rank == 1 else "") + ")"


def check_same_shape(target: Any, output: Any) -> None:
    received = f"Received: target.shape={shape_text(target)}, output.shape={shape_text(output)}"
    if target.shape.rank != output.shape.rank:
        raise ValueError(f"Arguments `target` and `output` must have the same rank (ndim). {received}")
    for a, b in zip(target.shape.as_list(), output.shape.as_list(), strict=True):
        if a is not None and b is not None and a != b:
            raise ValueError(f"Arguments `target` and `output` must have the same shape. {received}")


def logits_of(output: Any) -> Any:
    """The input of the traced sigmoid or softmax op that made `output`, or None (eager tensors have no op).
    Keras remembers the logits of both activations and every cross-entropy uses them, whichever it was."""
    op = getattr(output, "op", None) if isinstance(output, Tensor) and hasattr(output, "graph") else None
    if op is not None and op.type == "Identity" and op.inputs:
        op = getattr(op.inputs[0], "op", None)
    if op is not None and op.type in ("Sigmoid", "Softmax") and len(op.inputs) == 1:
        return op.inputs[0]
    return None


def _binary_elementwise(y_true: Any, y_pred: Any, from_logits: bool) -> Any:
    check_same_shape(y_true, y_pred)
    logits = y_pred if from_logits else logits_of(y_pred)
    if logits is not None:
        return sigmoid_cross_entropy_with_logits(labels=y_true, logits=logits)
    p = clip_by_value(y_pred, epsilon(), 1.0 - epsilon())
    return -(y_true * log(p) + (1 - y_true) * log(1 - p))


def _smooth(y_true: Any, label_smoothing: float, classes: Any) -> Any:
    """Labels pulled towards the uniform distribution over `classes` (0.5 for binary labels)."""
    if not label_smoothing:
        return y_true
    return y_true * (1.0 - label_smoothing) + label_smoothing / classes


def binary_crossentropy(
    y_true: Any, y_pred: Any, from_logits: bool = False, label_smoothing: float = 0.0, axis: int = -1
) -> Any:
    y_true = _smooth(cast(y_true, y_pred.dtype), label_smoothing, 2.0)
    return reduce_mean(_binary_elementwise(y_true, y_pred, from_logits), axis=axis)


def _categorical_elementwise(y_true: Any, y_pred: Any, from_logits: bool, axis: int) -> Any:
    check_same_shape(y_true, y_pred)
    logits = y_pred if from_logits else logits_of(y_pred)
    if logits is not None:
        return nn_ops.softmax_cross_entropy_with_logits(labels=y_true, logits=logits, axis=axis)
    p = y_pred / reduce_sum(y_pred, axis=axis, keepdims=True)
    p = clip_by_value(p, epsilon(), 1.0 - epsilon())
    return -reduce_sum(y_true * log(p), axis=axis)


def _classes(y_true: Any, dtype: Any) -> Any:
    return cast(shape_of(y_true)[-1], dtype)


def categorical_crossentropy(
    y_true: Any, y_pred: Any, from_logits: bool = False, label_smoothing: float = 0.0, axis: int = -1
) -> Any:
    if isinstance(axis, bool):
        raise ValueError(f"`axis` must be of type `int`. Received: axis={axis} of type {type(axis)}")
    y_true = cast(y_true, y_pred.dtype)
    if label_smoothing:
        y_true = _smooth(y_true, label_smoothing, _classes(y_true, y_pred.dtype))
    return _categorical_elementwise(y_true, y_pred, from_logits, axis)


def sparse_categorical_crossentropy(
    y_true: Any, y_pred: Any, from_logits: bool = False, ignore_class: int | None = None, axis: int = -1
) -> Any:
    if ignore_class is not None:
        raise ValueError("minitf does not implement `ignore_class` of sparse_categorical_crossentropy")
    logits = y_pred if from_logits else logits_of(y_pred)
    labels = cast(y_true, "int64")
    if labels.shape.rank == y_pred.shape.rank and labels.shape[-1] == 1:
        labels = squeeze(labels, -1)
    received = f"target.shape={shape_text(labels)}, output.shape={shape_text(y_pred)}"
    if labels.shape.rank != y_pred.shape.rank - 1:
        raise ValueError(f"Argument `output` must have rank (ndim) `target.ndim - 1`. Received: {received}")
    for a, b in zip(labels.shape.as_list(), y_pred.shape.as_list()[:-1], strict=True):
        if a is not None and b is not None and a != b:
            raise ValueError(
                f"Arguments `target` and `output` must have the same shape up until the last dimension: {received}"
            )
    if logits is None:
        logits = log(clip_by_value(y_pred, epsilon(), 1 - epsilon()))
    return nn_ops.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits)


def binary_focal_crossentropy(
    y_true: Any,
    y_pred: Any,
    apply_class_balancing: bool = False,
    alpha: float = 0.25,
    gamma: float = 2.0,
    from_logits: bool = False,
    label_smoothing: float = 0.0,
    axis: int = -1,
) -> Any:
    """Binary cross-entropy scaled by `(1 - p_t) ** gamma`: confident, right answers count less."""
    y_true = _smooth(cast(y_true, y_pred.dtype), label_smoothing, 2.0)
    if from_logits:
        y_pred = sigmoid(y_pred)
    bce = _binary_elementwise(y_true, y_pred, from_logits=False)
    p_t = y_true * y_pred + (1 - y_true) * (1 - y_pred)
    focal = pow(1.0 - p_t, gamma) * bce
    if apply_class_balancing:
        focal = (y_true * alpha + (1 - y_true) * (1 - alpha)) * focal
    return reduce_mean(focal, axis=axis)


def categorical_focal_crossentropy(
    y_true: Any,
    y_pred: Any,
    alpha: float = 0.25,
    gamma: float = 2.0,
    from_logits: bool = False,
    label_smoothing: float = 0.0,
    axis: int = -1,
) -> Any:
    """Categorical cross-entropy with each class's term scaled by `alpha * (1 - p) ** gamma`."""
    y_true = cast(y_true, y_pred.dtype)
    if label_smoothing:
        y_true = _smooth(y_true, label_smoothing, _classes(y_true, y_pred.dtype))
    if from_logits:
        y_pred = nn_ops.softmax(y_pred, axis=axis)
    p = y_pred / reduce_sum(y_pred, axis=axis, keepdims=True)
    p = clip_by_value(p, epsilon(), 1.0 - epsilon())
    return reduce_sum(pow(1.0 - p, gamma) * alpha * (-y_true * log(p)), axis=axis)
