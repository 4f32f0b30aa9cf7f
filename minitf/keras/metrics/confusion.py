"""Counts of the confusion matrix at one or more thresholds, and what is computed from them: TruePositives and
its siblings, Precision, Recall, AUC (the area under the ROC or precision-recall curve).

A prediction above a threshold counts as positive; a label counts as positive when it is nonzero. With several
thresholds each count is a vector, one entry per threshold.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from minitf.core.conversion import convert_to_tensor
from minitf.keras.backend import epsilon
from minitf.keras.losses.functions import same_rank
from minitf.keras.metrics.metric import Metric
from minitf.ops.array.creation import one_hot
from minitf.ops.array.shape_ops import expand_dims, reshape
from minitf.ops.array.sort_ops import top_k as top_k_op
from minitf.ops.array.where import where
from minitf.ops.math.binary_math import divide_no_nan, maximum, minimum
from minitf.ops.math.cast import cast
from minitf.ops.math.comparisons import greater, logical_and, logical_not
from minitf.ops.math.elementwise import broadcast_like
from minitf.ops.math.reductions import reduce_sum
from minitf.ops.math.unary_math import log
from minitf.ops.math.unary_math import sigmoid as sigmoid_op

CONDITIONS = {
    "true_positives": (True, True),
    "false_positives": (False, True),
    "true_negatives": (False, False),
    "false_negatives": (True, False),
}


def parse_thresholds(thresholds: Any, default: float) -> list[float]:
    listed = default if thresholds is None else thresholds
    listed = list(listed) if isinstance(listed, list | tuple) else [listed]
    if thresholds is not None and any(not 0 <= t <= 1 for t in listed):
        raise ValueError(f"Threshold values must be in [0, 1]. Received: {listed}")
    return listed


def update_confusion_counts(
    counts: dict[str, Any],
    y_true: Any,
    y_pred: Any,
    thresholds: list[float],
    top_k: int | None = None,
    class_id: int | None = None,
    sample_weight: Any = None,
) -> None:
    """Add this batch's (weighted) counts to each variable in `counts` (keys of CONDITIONS), per threshold."""
    y_true, y_pred = cast(convert_to_tensor(y_true), "float32"), cast(convert_to_tensor(y_pred), "float32")
    y_pred, y_true = same_rank(y_pred, y_true)
    weight = None
    if sample_weight is not None:
        weight = expand_dims(cast(convert_to_tensor(sample_weight), "float32"), -1)
        _, weight = same_rank(y_true, weight, expand_rank_1=False)
    if top_k is not None:  # all but the k highest predictions of a row become -inf: never positive
        indices = top_k_op(y_pred, top_k).indices
        in_top = reduce_sum(one_hot(indices, y_pred.shape[-1], dtype="float32"), axis=-2)
        y_pred = where(in_top > 0, y_pred, -np.inf)
    if class_id is not None:
        if y_pred.shape.rank == 1:
            raise ValueError(
                "When class_id is provided, y_pred must be a 2D array with shape (num_samples, num_classes), "
                f"found shape: {tuple(y_pred.shape.as_list())}"
            )
        y_true, y_pred = y_true[..., class_id : class_id + 1], y_pred[..., class_id : class_id + 1]
    if weight is not None:
        weight = reshape(broadcast_like(weight, y_pred), [1, -1])
    predicted = greater(reshape(y_pred, [1, -1]), reshape(convert_to_tensor(thresholds, "float32"), [-1, 1]))
    actual = reshape(cast(y_true, "bool"), [1, -1])  # against every threshold's row by broadcasting
    for key, variable in counts.items():
        label_positive, prediction_positive = CONDITIONS[key]
        label = actual if label_positive else logical_not(actual)
        prediction = predicted if prediction_positive else logical_not(predicted)
        both = logical_and(label, prediction)
        added = cast(both, "float32") if weight is None else where(both, broadcast_like(weight, both), 0.0)
        variable.assign_add(reduce_sum(added, axis=1))


class _Count(Metric):
    """One count of the confusion matrix (`accumulator`), per threshold."""

    condition = ""

    def __init__(self, thresholds: Any = None, name: str | None = None, dtype: Any = None) -> None:
        super().__init__(name=name, dtype=dtype)
        self.init_thresholds = thresholds
        self.thresholds = parse_thresholds(thresholds, 0.5)
        self.accumulator = self.add_variable((len(self.thresholds),), "zeros", name="accumulator")

    def update_state(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> None:
        counts = {self.condition: self.accumulator}
        update_confusion_counts(counts, y_true, y_pred, self.thresholds, sample_weight=sample_weight)

    def result(self) -> Any:
        return self.accumulator[0] if len(self.thresholds) == 1 else self.accumulator.read_value()

    def get_config(self) -> dict[str, Any]:
        return {**super().get_config(), "thresholds": self.init_thresholds}


class TruePositives(_Count):
    condition = "true_positives"


class FalsePositives(_Count):
    condition = "false_positives"


class TrueNegatives(_Count):
    condition = "true_negatives"


class FalseNegatives(_Count):
    condition = "false_negatives"


class _Ratio(Metric):
    """`true_positives / (true_positives + other)`: Precision (other = false positives) or Recall (false
    negatives), for the top-k predictions or one class only if asked."""

    other = ""

    def __init__(
        self,
        thresholds: Any = None,
        top_k: int | None = None,
        class_id: int | None = None,
        name: str | None = None,
        dtype: Any = None,
    ) -> None:
        super().__init__(name=name, dtype=dtype)
        self.init_thresholds, self.top_k, self.class_id = thresholds, top_k, class_id
        self.thresholds = parse_thresholds(thresholds, 0.5 if top_k is None else float("-inf"))
        size = (len(self.thresholds),)
        self.true_positives = self.add_variable(size, "zeros", name="true_positives")
        setattr(self, self.other, self.add_variable(size, "zeros", name=self.other))

    def update_state(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> None:
        counts = {"true_positives": self.true_positives, self.other: getattr(self, self.other)}
        update_confusion_counts(counts, y_true, y_pred, self.thresholds, self.top_k, self.class_id, sample_weight)

    def result(self) -> Any:
        true_positives = self.true_positives.read_value()
        ratio = divide_no_nan(true_positives, true_positives + getattr(self, self.other))
        return ratio[0] if len(self.thresholds) == 1 else ratio

    def get_config(self) -> dict[str, Any]:
        options = {"thresholds": self.init_thresholds, "top_k": self.top_k, "class_id": self.class_id}
        return {**super().get_config(), **options}


class Precision(_Ratio):
    other = "false_positives"


class Recall(_Ratio):
    other = "false_negatives"


class AUC(Metric):
    """The area under the ROC curve (recall against false-positive rate) or the precision-recall curve ("PR"),
    summed over `num_thresholds` evenly spaced thresholds."""

    def __init__(
        self,
        num_thresholds: int = 200,
        curve: str = "ROC",
        summation_method: str = "interpolation",
        name: str | None = None,
        dtype: Any = None,
        thresholds: Any = None,
        multi_label: bool = False,
        num_labels: int | None = None,
        label_weights: Any = None,
        from_logits: bool = False,
    ) -> None:
        if multi_label or label_weights is not None:
            raise ValueError("minitf's AUC does not implement `multi_label` or `label_weights`")
        if curve.upper() not in ("ROC", "PR"):
            raise ValueError(f'Invalid AUCCurve value: "{curve}". Expected values are ["PR", "ROC", "PRGAIN"]')
        if thresholds is not None:
            self.num_thresholds, inner = len(thresholds) + 2, sorted(thresholds)
        else:
            if num_thresholds <= 1:
                raise ValueError(
                    f"Argument `num_thresholds` must be an integer > 1. Received: num_thresholds={num_thresholds}"
                )
            self.num_thresholds = num_thresholds
            inner = [(i + 1) * 1.0 / (num_thresholds - 1) for i in range(num_thresholds - 2)]
        self._thresholds = [0.0 - epsilon(), *inner, 1.0 + epsilon()]
        self._init_from_thresholds = thresholds is not None
        self.curve, self.summation_method = curve.upper(), summation_method.lower()
        super().__init__(name=name, dtype=dtype)
        self.multi_label, self.num_labels, self.label_weights, self._from_logits = False, num_labels, None, from_logits
        for key in ("true_positives", "false_positives", "true_negatives", "false_negatives"):
            setattr(self, key, self.add_variable((self.num_thresholds,), "zeros", name=key))

    @property
    def thresholds(self) -> list[float]:
        return list(self._thresholds)

    def update_state(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> None:
        if self._from_logits:
            y_pred = sigmoid_op(convert_to_tensor(y_pred))
        counts = {key: getattr(self, key) for key in CONDITIONS}
        update_confusion_counts(counts, y_true, y_pred, self._thresholds, sample_weight=sample_weight)

    def _interpolated_pr_auc(self) -> Any:
        """Precision-recall area with precision interpolated between thresholds (Davis & Goadrich)."""
        n = self.num_thresholds
        tp, fp, fn = (getattr(self, k).read_value() for k in ("true_positives", "false_positives", "false_negatives"))
        dtp = tp[: n - 1] - tp[1:]
        p = tp + fp
        dp = p[: n - 1] - p[1:]
        slope = divide_no_nan(dtp, maximum(dp, 0.0))
        intercept = tp[1:] - slope * p[1:]
        both_positive = logical_and(p[: n - 1] > 0, p[1:] > 0)
        ratio = where(both_positive, divide_no_nan(p[: n - 1], maximum(p[1:], 0.0)), 1.0 + 0 * p[1:])
        increment = divide_no_nan(slope * (dtp + intercept * log(ratio)), maximum(tp[1:] + fn[1:], 0.0))
        return reduce_sum(increment)

    def result(self) -> Any:
        if self.curve == "PR" and self.summation_method == "interpolation":
            return self._interpolated_pr_auc()
        tp, fp, tn, fn = (getattr(self, key).read_value() for key in CONDITIONS)
        recall = divide_no_nan(tp, tp + fn)
        if self.curve == "ROC":
            x, y = divide_no_nan(fp, fp + tn), recall
        else:
            x, y = recall, divide_no_nan(tp, tp + fp)
        n = self.num_thresholds
        if self.summation_method == "interpolation":
            heights = (y[: n - 1] + y[1:]) / 2.0
        elif self.summation_method == "minoring":
            heights = minimum(y[: n - 1], y[1:])
        else:
            heights = maximum(y[: n - 1], y[1:])
        return reduce_sum((x[: n - 1] - x[1:]) * heights)

    def get_config(self) -> dict[str, Any]:
        config = {
            **super().get_config(),
            "num_thresholds": self.num_thresholds,
            "curve": self.curve,
            "summation_method": self.summation_method,
            "multi_label": self.multi_label,
            "num_labels": self.num_labels,
            "label_weights": None,
            "from_logits": self._from_logits,
        }
        if self._init_from_thresholds:
            config["thresholds"] = self.thresholds[1:-1]
        return config
