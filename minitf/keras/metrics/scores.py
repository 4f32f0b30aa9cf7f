"""Scores whose state has one entry per class, made when the first batch shows how many classes there are:
F1Score and FBetaScore, R2Score; and RootMeanSquaredError."""

from __future__ import annotations

from typing import Any

from minitf.core.conversion import convert_to_tensor
from minitf.keras.backend import epsilon
from minitf.keras.losses.functions import same_rank
from minitf.keras.metrics.metric import Mean, Metric
from minitf.ops.array.shape_ops import expand_dims, size
from minitf.ops.array.where import where
from minitf.ops.math.cast import cast
from minitf.ops.math.comparisons import greater, greater_equal, logical_and
from minitf.ops.math.elementwise import broadcast_like
from minitf.ops.math.reductions import reduce_max, reduce_mean, reduce_sum
from minitf.ops.math.unary_math import abs, is_inf, sqrt, square


class _PerClass(Metric):
    """A metric whose variables are shaped by the number of classes, known from the first batch."""

    state_names: tuple[str, ...] = ()

    def state_shape(self, classes: int) -> tuple[int, ...]:
        return (classes,)

    def build_state(self, y_true: Any, y_pred: Any) -> None:
        """Make the per-class variables (compile calls this before tracing; else the first update does)."""
        if getattr(self, "_state_built", False):
            return
        if y_pred.shape.rank != 2 or y_true.shape.rank != 2:
            shapes = f"y_pred.shape={tuple(y_pred.shape.as_list())} and y_true.shape={tuple(y_true.shape.as_list())}"
            raise ValueError(
                f"{type(self).__name__} expects 2D inputs with shape (batch_size, output_dim). Received input "
                f"shapes: {shapes}."
            )
        for name in self.state_names:
            variable = self.add_variable(self.state_shape(y_pred.shape[-1]), "zeros", name=name)
            setattr(self, "total_mse" if name == "residual" else name, variable)
        self._state_built = True


class FBetaScore(_PerClass):
    """The weighted harmonic mean of precision and recall (`beta` > 1 favours recall), per class or averaged."""

    state_names = ("true_positives", "false_positives", "false_negatives", "intermediate_weights")
    true_positives: Any
    false_positives: Any
    false_negatives: Any
    intermediate_weights: Any

    def __init__(
        self,
        average: str | None = None,
        beta: float = 1.0,
        threshold: float | None = None,
        name: str = "fbeta_score",
        dtype: Any = None,
    ) -> None:
        super().__init__(name=name, dtype=dtype)
        if average not in (None, "micro", "macro", "weighted"):
            raise ValueError(
                "Invalid `average` argument value. Expected one of: {None, 'micro', 'macro', 'weighted'}. "
                f"Received: average={average}"
            )
        if not isinstance(beta, float) or beta <= 0.0:
            raise ValueError(f"Argument `beta` should be a float greater than 0. Received: beta={beta}")
        self.average, self.beta, self.threshold = average, beta, threshold
        self.axis = None if average == "micro" else 0

    def state_shape(self, classes: int) -> tuple[int, ...]:
        return () if self.average == "micro" else (classes,)

    def update_state(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> None:
        y_true, y_pred = cast(convert_to_tensor(y_true), "float32"), cast(convert_to_tensor(y_pred), "float32")
        self.build_state(y_true, y_pred)
        if self.threshold is None:  # the highest prediction of each row is the predicted class
            top = reduce_max(y_pred, axis=-1, keepdims=True)
            predicted = cast(logical_and(greater_equal(y_pred, top), greater(abs(y_pred), 1e-9)), "float32")
        else:
            predicted = cast(greater(y_pred, self.threshold), "float32")

        def weighted_sum(value: Any) -> Any:
            if sample_weight is not None:
                value = value * expand_dims(cast(convert_to_tensor(sample_weight), "float32"), 1)
            return reduce_sum(value, axis=self.axis)

        self.true_positives.assign_add(weighted_sum(predicted * y_true))
        self.false_positives.assign_add(weighted_sum(predicted * (1 - y_true)))
        self.false_negatives.assign_add(weighted_sum((1 - predicted) * y_true))
        self.intermediate_weights.assign_add(weighted_sum(y_true))

    def result(self) -> Any:
        tp = self.true_positives.read_value()
        precision = tp / (tp + self.false_positives + epsilon())
        recall = tp / (tp + self.false_negatives + epsilon())
        beta_squared = self.beta**2
        score = (precision * recall) / (beta_squared * precision + recall + epsilon()) * (1 + beta_squared)
        if self.average == "weighted":
            weights = self.intermediate_weights / (reduce_sum(self.intermediate_weights) + epsilon())
            return reduce_sum(score * weights)
        return score if self.average is None else reduce_mean(score)

    def get_config(self) -> dict[str, Any]:
        return {**super().get_config(), "average": self.average, "beta": self.beta, "threshold": self.threshold}


class F1Score(FBetaScore):
    """FBetaScore with beta 1: the harmonic mean of precision and recall."""

    def __init__(
        self, average: str | None = None, threshold: float | None = None, name: str = "f1_score", dtype: Any = None
    ) -> None:
        super().__init__(average=average, beta=1.0, threshold=threshold, name=name, dtype=dtype)

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        del config["beta"]
        return config


class R2Score(_PerClass):
    """The coefficient of determination: 1 minus the residual over the total sum of squares, per output."""

    state_names = ("squared_sum", "sum", "residual", "count")
    squared_sum: Any
    sum: Any
    total_mse: Any
    count: Any

    def __init__(
        self,
        class_aggregation: str | None = "uniform_average",
        num_regressors: int = 0,
        name: str = "r2_score",
        dtype: Any = None,
    ) -> None:
        super().__init__(name=name, dtype=dtype)
        if class_aggregation not in (None, "uniform_average", "variance_weighted_average"):
            raise ValueError(
                "Invalid value for argument `class_aggregation`. Expected one of "
                "(None, 'uniform_average', 'variance_weighted_average'). "
                f"Received: class_aggregation={class_aggregation}"
            )
        if num_regressors < 0:
            raise ValueError(
                "Invalid value for argument `num_regressors`. Expected a value >= 0. "
                f"Received: num_regressors={num_regressors}"
            )
        self.class_aggregation, self.num_regressors = class_aggregation, num_regressors
        self.num_samples = self.add_variable((), "zeros", name="num_samples")

    def update_state(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> None:
        y_true, y_pred = cast(convert_to_tensor(y_true), "float32"), cast(convert_to_tensor(y_pred), "float32")
        y_true, y_pred = same_rank(y_true, y_pred)
        self.build_state(y_true, y_pred)
        weight = cast(convert_to_tensor(1.0 if sample_weight is None else sample_weight), "float32")
        if weight.shape.rank == 1:
            weight = expand_dims(weight, 1)
        weight = broadcast_like(weight, y_true)
        self.sum.assign_add(reduce_sum(y_true * weight, axis=0))
        self.squared_sum.assign_add(reduce_sum(y_true * y_true * weight, axis=0))
        self.total_mse.assign_add(reduce_sum(square(y_true - y_pred) * weight, axis=0))
        self.count.assign_add(reduce_sum(weight, axis=0))
        self.num_samples.assign_add(cast(size(y_true), "float32"))

    def result(self) -> Any:
        mean = self.sum / self.count
        total = self.squared_sum - self.sum * mean
        raw = 1 - self.total_mse / total
        raw = where(is_inf(raw), 0.0 * raw, raw)
        if self.class_aggregation == "uniform_average":
            score = reduce_mean(raw)
        elif self.class_aggregation == "variance_weighted_average":
            score = reduce_sum(total * raw) / reduce_sum(total)
        else:
            score = raw
        if self.num_regressors == 0:
            return score
        samples = float(self.num_samples.numpy())  # Keras compares it in Python too (a warning, no adjustment)
        if self.num_regressors < samples - 1:
            score = 1.0 - (1.0 - score) * (samples - 1.0) / (samples - self.num_regressors - 1.0)
        return score

    def get_config(self) -> dict[str, Any]:
        options = {"class_aggregation": self.class_aggregation, "num_regressors": self.num_regressors}
        return {**super().get_config(), **options}


class RootMeanSquaredError(Mean):
    """The square root of the mean squared error over everything seen."""

    def __init__(self, name: str = "root_mean_squared_error", dtype: Any = None) -> None:
        super().__init__(name, dtype=dtype)

    def update_state(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> None:  # type: ignore[override]
        y_true, y_pred = cast(convert_to_tensor(y_true), "float32"), cast(convert_to_tensor(y_pred), "float32")
        y_true, y_pred = same_rank(y_true, y_pred)
        super().update_state(square(y_pred - y_true), sample_weight=sample_weight)

    def result(self) -> Any:
        return sqrt(super().result())
