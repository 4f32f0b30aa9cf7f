"""`keras.metrics`: running values shown during `fit`, their function forms, and the names `compile` accepts.

metric.py defines `Metric` (subclass it, with `add_weight`) and the reductions; accuracy.py the accuracies;
confusion.py counts at thresholds (Precision, Recall, AUC, ...); scores.py per-class scores (F1, R2) and RMSE.
The loss-like metrics (MeanAbsoluteError, ...) average a loss function of keras.losses per sample.
"""

from __future__ import annotations

from typing import Any

import minitf.keras.losses.crossentropy as ce
import minitf.keras.losses.functions as f
import minitf.keras.metrics.accuracy as acc
import minitf.keras.naming as naming
import minitf.left_out as left_out
from minitf.keras.losses import is_binary_or_sparse_categorical
from minitf.keras.metrics.accuracy import (
    Accuracy,
    BinaryAccuracy,
    CategoricalAccuracy,
    SparseCategoricalAccuracy,
    SparseTopKCategoricalAccuracy,
    TopKCategoricalAccuracy,
)
from minitf.keras.metrics.confusion import (
    AUC,
    FalseNegatives,
    FalsePositives,
    Precision,
    Recall,
    TrueNegatives,
    TruePositives,
)
from minitf.keras.metrics.metric import Mean, MeanMetricWrapper, Metric, Sum, wrapper
from minitf.keras.metrics.scores import F1Score, FBetaScore, R2Score, RootMeanSquaredError

_SEGMENTATION = "intersection-over-union metrics for segmentation are beyond a first course"
_OPERATING_POINT = "metrics at a fixed operating point of the ROC or PR curve are beyond a first course"
_CORRELATION = "correlation metrics are beyond a first course"
LEFT_OUT: dict[str, str] = {
    "BinaryIoU": _SEGMENTATION,
    "IoU": _SEGMENTATION,
    "MeanIoU": _SEGMENTATION,
    "OneHotIoU": _SEGMENTATION,
    "OneHotMeanIoU": _SEGMENTATION,
    "PrecisionAtRecall": _OPERATING_POINT,
    "RecallAtPrecision": _OPERATING_POINT,
    "SensitivityAtSpecificity": _OPERATING_POINT,
    "SpecificityAtSensitivity": _OPERATING_POINT,
    "ConcordanceCorrelation": _CORRELATION,
    "PearsonCorrelation": _CORRELATION,
    "concordance_correlation": _CORRELATION,
    "pearson_correlation": _CORRELATION,
}
__getattr__ = left_out.module_getattr("tf.keras.metrics", LEFT_OUT)

_LOGITS = {"from_logits": False}
MeanAbsoluteError = wrapper("MeanAbsoluteError", f.mean_absolute_error, "mean_absolute_error")
MeanAbsolutePercentageError = wrapper(
    "MeanAbsolutePercentageError", f.mean_absolute_percentage_error, "mean_absolute_percentage_error"
)
MeanSquaredError = wrapper("MeanSquaredError", f.mean_squared_error, "mean_squared_error")
MeanSquaredLogarithmicError = wrapper(
    "MeanSquaredLogarithmicError", f.mean_squared_logarithmic_error, "mean_squared_logarithmic_error"
)


def cosine_similarity(y_true: Any, y_pred: Any, axis: int = -1) -> Any:
    """The cosine of the angle between the vectors (the loss of the same name is its negative)."""
    return -f.cosine_similarity(y_true, y_pred, axis)


CosineSimilarity = wrapper("CosineSimilarity", cosine_similarity, "cosine_similarity", {"axis": -1}, ())
LogCoshError = wrapper("LogCoshError", f.log_cosh, "logcosh")
Hinge = wrapper("Hinge", f.hinge, "hinge")
SquaredHinge = wrapper("SquaredHinge", f.squared_hinge, "squared_hinge")
CategoricalHinge = wrapper("CategoricalHinge", f.categorical_hinge, "categorical_hinge")
KLDivergence = wrapper("KLDivergence", f.kl_divergence, "kl_divergence")
Poisson = wrapper("Poisson", f.poisson, "poisson")
BinaryCrossentropy = wrapper(
    "BinaryCrossentropy", ce.binary_crossentropy, "binary_crossentropy", {**_LOGITS, "label_smoothing": 0}
)
CategoricalCrossentropy = wrapper(
    "CategoricalCrossentropy",
    ce.categorical_crossentropy,
    "categorical_crossentropy",
    {**_LOGITS, "label_smoothing": 0, "axis": -1},
)
SparseCategoricalCrossentropy = wrapper(
    "SparseCategoricalCrossentropy",
    ce.sparse_categorical_crossentropy,
    "sparse_categorical_crossentropy",
    {**_LOGITS, "ignore_class": None, "axis": -1},
)

# The function forms: the accuracies, and keras.losses' functions under the names keras.metrics gives them.
accuracy = acc.accuracy
binary_accuracy = acc.binary_accuracy
categorical_accuracy = acc.categorical_accuracy
sparse_categorical_accuracy = acc.sparse_categorical_accuracy
top_k_categorical_accuracy = acc.top_k_categorical_accuracy
sparse_top_k_categorical_accuracy = acc.sparse_top_k_categorical_accuracy
binary_crossentropy = ce.binary_crossentropy
binary_focal_crossentropy = ce.binary_focal_crossentropy
categorical_crossentropy = ce.categorical_crossentropy
categorical_focal_crossentropy = ce.categorical_focal_crossentropy
sparse_categorical_crossentropy = ce.sparse_categorical_crossentropy
categorical_hinge = f.categorical_hinge
hinge = f.hinge
squared_hinge = f.squared_hinge
huber = f.huber
kl_divergence = f.kl_divergence
log_cosh = f.log_cosh
mean_absolute_error = f.mean_absolute_error
mean_absolute_percentage_error = f.mean_absolute_percentage_error
mean_squared_error = f.mean_squared_error
mean_squared_logarithmic_error = f.mean_squared_logarithmic_error
poisson = f.poisson

CLASSES: list[type[Metric]] = [
    AUC,
    Accuracy,
    BinaryAccuracy,
    BinaryCrossentropy,
    CategoricalAccuracy,
    CategoricalCrossentropy,
    CategoricalHinge,
    CosineSimilarity,
    F1Score,
    FBetaScore,
    FalseNegatives,
    FalsePositives,
    Hinge,
    KLDivergence,
    LogCoshError,
    Mean,
    MeanAbsoluteError,
    MeanAbsolutePercentageError,
    MeanSquaredError,
    MeanSquaredLogarithmicError,
    Poisson,
    Precision,
    R2Score,
    Recall,
    RootMeanSquaredError,
    SparseCategoricalAccuracy,
    SparseCategoricalCrossentropy,
    SparseTopKCategoricalAccuracy,
    SquaredHinge,
    Sum,
    TopKCategoricalAccuracy,
    TrueNegatives,
    TruePositives,
]
ALIASES: dict[str, Any] = {
    "mae": MeanAbsoluteError,
    "MAE": MeanAbsoluteError,
    "mape": MeanAbsolutePercentageError,
    "MAPE": MeanAbsolutePercentageError,
    "mse": MeanSquaredError,
    "MSE": MeanSquaredError,
    "msle": MeanSquaredLogarithmicError,
    "MSLE": MeanSquaredLogarithmicError,
    "bce": BinaryCrossentropy,
    "BCE": BinaryCrossentropy,
}


BY_NAME: dict[str, Any] = {
    **{cls.__name__: cls for cls in [*CLASSES, Metric, MeanMetricWrapper]},
    **{naming.snake_case(cls.__name__): cls for cls in [*CLASSES, Metric, MeanMetricWrapper]},
    **ALIASES,
}
LEFT_OUT_IDENTIFIERS = {**LEFT_OUT, **{naming.snake_case(name): reason for name, reason in LEFT_OUT.items()}}


def get(identifier: Any) -> Any:
    """A metric for a name (a new object of the class it names), a config dict, or the metric or function given."""
    if identifier is None:
        return None
    if isinstance(identifier, dict):
        found: Any = deserialize(identifier)
    elif isinstance(identifier, str):
        if identifier in LEFT_OUT_IDENTIFIERS:
            left_out.refuse_identifier("metric", identifier, LEFT_OUT_IDENTIFIERS[identifier])
        found = BY_NAME.get(identifier)
    else:
        found = identifier
    if isinstance(found, type):
        found = found()
    if callable(found):
        return found
    raise ValueError(f"Could not interpret metric identifier: {identifier}")


def serialize(metric: Any) -> dict[str, Any]:
    return {
        "module": "keras.metrics",
        "class_name": type(metric).__name__,
        "config": metric.get_config(),
        "registered_name": None,
    }


def deserialize(config: dict[str, Any], custom_objects: dict[str, Any] | None = None) -> Any:
    known = {**BY_NAME, **(custom_objects or {})}
    if config["class_name"] not in known:
        raise ValueError(f"Could not interpret metric identifier: {config['class_name']}")
    return known[config["class_name"]].from_config(config.get("config", {}))


def for_compile(identifier: Any, y_true: Any, y_pred: Any) -> Metric:
    """What `compile(metrics=[...])` makes of an entry: "accuracy" (or "acc") becomes binary, sparse or
    categorical accuracy by the shapes; names and functions become metrics named as given."""
    if str(identifier).lower() in ("accuracy", "acc"):
        is_binary, is_sparse = is_binary_or_sparse_categorical(y_true, y_pred)
        kind = BinaryAccuracy if is_binary else SparseCategoricalAccuracy if is_sparse else CategoricalAccuracy
        metric: Any = kind(name=str(identifier))
    else:
        metric = get(identifier)
    name = identifier if isinstance(identifier, str) else _object_name(metric)
    if not isinstance(metric, Metric):
        metric = MeanMetricWrapper(metric)
    metric.name = name
    if hasattr(metric, "build_state"):
        metric.build_state(y_true, y_pred)
    return metric


def _object_name(found: Any) -> str:
    """The name Keras logs a metric object or function under: its `name`, else its (function) name in snake_case."""
    if hasattr(found, "name"):
        return str(found.name)
    return naming.snake_case(getattr(found, "__name__", type(found).__name__))
