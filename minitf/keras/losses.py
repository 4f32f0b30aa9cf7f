"""`keras.losses`: a value per sample, averaged over the batch ("sum_over_batch_size").

Cross-entropies on probabilities clip them to [1e-7, 1 - 1e-7] before the log, as Keras does; with
`from_logits=True` they use TensorFlow's fused, stable ops. A probability that a traced `softmax` or `sigmoid`
op produced is traced back to its logits (TensorFlow's backend does the same), so `Dense(10,
activation="softmax")` with a cross-entropy trains as stably as logits would.
"""

from __future__ import annotations

from typing import Any

from minitf.core.conversion import convert_to_tensor
from minitf.core.tensor import Tensor
from minitf.keras.backend import epsilon
from minitf.ops.array.shape_ops import squeeze
from minitf.ops.math.binary_math import clip_by_value
from minitf.ops.math.cast import cast
from minitf.ops.math.reductions import reduce_mean, reduce_sum
from minitf.ops.math.unary_math import log, square
from minitf.ops.nn import nn_ops
from minitf.ops.nn.losses import sigmoid_cross_entropy_with_logits


def _same_rank(y_true: Any, y_pred: Any) -> tuple[Any, Any]:
    """Drop a trailing axis of size 1 from whichever of the two has one more axis (Keras's rule)."""
    true_rank, pred_rank = y_true.shape.rank, y_pred.shape.rank
    if true_rank == pred_rank + 1 and y_true.shape[-1] == 1:
        y_true = squeeze(y_true, -1)
    elif pred_rank == true_rank + 1 and y_pred.shape[-1] == 1:
        y_pred = squeeze(y_pred, -1)
    return y_true, y_pred


def _shape(t: Any) -> str:
    return "(" + ", ".join(str(d) for d in t.shape.as_list()) + ("," if t.shape.rank == 1 else "") + ")"


def _check_same_shape(target: Any, output: Any) -> None:
    received = f"Received: target.shape={_shape(target)}, output.shape={_shape(output)}"
    if target.shape.rank != output.shape.rank:
        raise ValueError(f"Arguments `target` and `output` must have the same rank (ndim). {received}")
    for a, b in zip(target.shape.as_list(), output.shape.as_list(), strict=True):
        if a is not None and b is not None and a != b:
            raise ValueError(f"Arguments `target` and `output` must have the same shape. {received}")


def _logits_of(output: Any) -> Any:
    """The input of the traced sigmoid or softmax op that made `output`, or None (eager tensors have no op).
    Keras remembers the logits of both activations and every cross-entropy uses them, whichever it was."""
    op = getattr(output, "op", None) if isinstance(output, Tensor) and hasattr(output, "graph") else None
    if op is not None and op.type == "Identity" and op.inputs:
        op = getattr(op.inputs[0], "op", None)
    if op is not None and op.type in ("Sigmoid", "Softmax") and len(op.inputs) == 1:
        return op.inputs[0]
    return None


def _as_float32(value: Any) -> Any:
    """Predictions in the loss's dtype: float64 NumPy arrays are computed in float32, as Keras does."""
    tensor = convert_to_tensor(value)
    return cast(tensor, "float32") if tensor.dtype.is_floating and tensor.dtype.name != "float32" else tensor


def mean_squared_error(y_true: Any, y_pred: Any) -> Any:
    return reduce_mean(square(y_pred - y_true), axis=-1)


def binary_crossentropy(y_true: Any, y_pred: Any, from_logits: bool = False) -> Any:
    _check_same_shape(y_true, y_pred)
    logits = y_pred if from_logits else _logits_of(y_pred)
    if logits is not None:
        return reduce_mean(sigmoid_cross_entropy_with_logits(labels=y_true, logits=logits), axis=-1)
    p = clip_by_value(y_pred, epsilon(), 1.0 - epsilon())
    return reduce_mean(-(y_true * log(p) + (1 - y_true) * log(1 - p)), axis=-1)


def categorical_crossentropy(y_true: Any, y_pred: Any, from_logits: bool = False) -> Any:
    _check_same_shape(y_true, y_pred)
    logits = y_pred if from_logits else _logits_of(y_pred)
    if logits is not None:
        return nn_ops.softmax_cross_entropy_with_logits(labels=y_true, logits=logits)
    p = y_pred / reduce_sum(y_pred, axis=-1, keepdims=True)
    p = clip_by_value(p, epsilon(), 1.0 - epsilon())
    return -reduce_sum(y_true * log(p), axis=-1)


def sparse_categorical_crossentropy(y_true: Any, y_pred: Any, from_logits: bool = False) -> Any:
    logits = y_pred if from_logits else _logits_of(y_pred)
    labels = cast(y_true, "int64")
    if labels.shape.rank == y_pred.shape.rank and labels.shape[-1] == 1:
        labels = squeeze(labels, -1)
    received = f"target.shape={_shape(labels)}, output.shape={_shape(y_pred)}"
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


class Loss:
    """A loss object: `loss(y_true, y_pred)` is the mean of the per-sample values."""

    function: Any = staticmethod(mean_squared_error)
    default_name = "loss"

    def __init__(
        self, from_logits: bool = False, reduction: str = "sum_over_batch_size", name: str | None = None, **kwargs: Any
    ) -> None:
        self.from_logits, self.reduction = from_logits, reduction
        self.name = name or self.default_name
        self._kwargs = kwargs

    def call(self, y_true: Any, y_pred: Any) -> Any:
        kwargs = dict(self._kwargs)
        if self.function is not mean_squared_error:
            kwargs["from_logits"] = self.from_logits
        return type(self).function(y_true, y_pred, **kwargs)

    def __call__(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> Any:
        y_pred, y_true = _as_float32(y_pred), convert_to_tensor(y_true)
        if not isinstance(self, SparseCategoricalCrossentropy):
            y_true = cast(y_true, y_pred.dtype)
        y_true, y_pred = _same_rank(y_true, y_pred)
        values = self.call(y_true, y_pred)
        if sample_weight is not None:
            values = values * cast(sample_weight, values.dtype)
        if self.reduction == "none":
            return values
        if self.reduction == "sum":
            return reduce_sum(values)
        return reduce_mean(values)

    def get_config(self) -> dict[str, Any]:
        return {"name": self.name, "reduction": self.reduction, "from_logits": self.from_logits}


class MeanSquaredError(Loss):
    function = staticmethod(mean_squared_error)
    default_name = "mean_squared_error"

    def get_config(self) -> dict[str, Any]:
        return {"name": self.name, "reduction": self.reduction}


class BinaryCrossentropy(Loss):
    function = staticmethod(binary_crossentropy)
    default_name = "binary_crossentropy"


class CategoricalCrossentropy(Loss):
    function = staticmethod(categorical_crossentropy)
    default_name = "categorical_crossentropy"


class SparseCategoricalCrossentropy(Loss):
    function = staticmethod(sparse_categorical_crossentropy)
    default_name = "sparse_categorical_crossentropy"


_BY_NAME: dict[str, type[Loss]] = {
    "mse": MeanSquaredError,
    "mean_squared_error": MeanSquaredError,
    "binary_crossentropy": BinaryCrossentropy,
    "categorical_crossentropy": CategoricalCrossentropy,
    "sparse_categorical_crossentropy": SparseCategoricalCrossentropy,
}
ALL = [MeanSquaredError, BinaryCrossentropy, CategoricalCrossentropy, SparseCategoricalCrossentropy]


def get(identifier: Any) -> Any:
    """A loss object for a name (`"sparse_categorical_crossentropy"`), or the object or function given."""
    if isinstance(identifier, str):
        if identifier not in _BY_NAME:
            raise ValueError(f"Could not interpret loss identifier: {identifier}")
        return _BY_NAME[identifier]()
    if isinstance(identifier, Loss) or callable(identifier):
        return identifier
    raise ValueError(f"Could not interpret loss identifier: {identifier}")
