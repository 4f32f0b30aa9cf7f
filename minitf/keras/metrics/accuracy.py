"""Accuracies: the share of predictions that are right, per sample, averaged by `MeanMetricWrapper`."""

from __future__ import annotations

from typing import Any

from minitf.keras.losses.functions import same_rank
from minitf.keras.metrics.metric import wrapper
from minitf.ops.array.shape_ops import reshape, squeeze
from minitf.ops.array.sort_ops import in_top_k
from minitf.ops.math.cast import cast
from minitf.ops.math.comparisons import equal, greater
from minitf.ops.math.reductions import argmax


def accuracy(y_true: Any, y_pred: Any) -> Any:
    y_true, y_pred = same_rank(cast(y_true, y_pred.dtype), y_pred)
    return cast(equal(y_true, y_pred), "float32")


def binary_accuracy(y_true: Any, y_pred: Any, threshold: float = 0.5) -> Any:
    y_true, y_pred = same_rank(y_true, y_pred)
    predicted = cast(greater(y_pred, threshold), y_true.dtype)
    return cast(equal(y_true, predicted), "float32")


def categorical_accuracy(y_true: Any, y_pred: Any) -> Any:
    return cast(equal(argmax(y_true, axis=-1), argmax(y_pred, axis=-1)), "float32")


def sparse_categorical_accuracy(y_true: Any, y_pred: Any) -> Any:
    if y_true.shape.rank == y_pred.shape.rank and y_true.shape[-1] == 1:
        y_true = squeeze(y_true, -1)
    return cast(equal(cast(y_true, "float32"), cast(argmax(y_pred, axis=-1), "float32")), "float32")


def _in_top_k(labels: Any, y_pred: Any, k: int) -> Any:
    """Whether each label is among the `k` highest predictions of its row (rows of any leading shape)."""
    leading = labels.shape.as_list()
    found = in_top_k(cast(reshape(labels, [-1]), "int32"), reshape(y_pred, [-1, y_pred.shape[-1]]), k)
    return reshape(cast(found, "float32"), [-1 if d is None else d for d in leading])


def top_k_categorical_accuracy(y_true: Any, y_pred: Any, k: int = 5) -> Any:
    return _in_top_k(argmax(y_true, axis=-1), y_pred, k)


def sparse_top_k_categorical_accuracy(y_true: Any, y_pred: Any, k: int = 5, from_sorted_ids: bool = False) -> Any:
    if from_sorted_ids:
        raise ValueError("minitf does not implement `from_sorted_ids=True`")
    if y_true.shape.rank == y_pred.shape.rank and y_true.shape[-1] == 1:
        y_true = squeeze(y_true, -1)
    return _in_top_k(y_true, y_pred, k)


Accuracy = wrapper("Accuracy", accuracy, "accuracy")
BinaryAccuracy = wrapper("BinaryAccuracy", binary_accuracy, "binary_accuracy", {"threshold": 0.5})
CategoricalAccuracy = wrapper("CategoricalAccuracy", categorical_accuracy, "categorical_accuracy")
SparseCategoricalAccuracy = wrapper(
    "SparseCategoricalAccuracy", sparse_categorical_accuracy, "sparse_categorical_accuracy"
)
TopKCategoricalAccuracy = wrapper(
    "TopKCategoricalAccuracy", top_k_categorical_accuracy, "top_k_categorical_accuracy", {"k": 5}
)
SparseTopKCategoricalAccuracy = wrapper(
    "SparseTopKCategoricalAccuracy",
    sparse_top_k_categorical_accuracy,
    "sparse_top_k_categorical_accuracy",
    {"k": 5, "from_sorted_ids": False},
    configured=("k",),
)
