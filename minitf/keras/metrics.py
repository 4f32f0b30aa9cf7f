"""`keras.metrics`: running values shown during `fit` (a total and a count in variables, updated each batch).

Their variables are updated inside the compiled train step, so a metric costs a few ops per batch and its
`result()` is `total / count` over everything seen since the last `reset_state()`.
"""

from __future__ import annotations

from typing import Any

from minitf.core.conversion import convert_to_tensor
from minitf.ops.array.shape_ops import size, squeeze
from minitf.ops.math.binary_math import maximum
from minitf.ops.math.cast import cast
from minitf.ops.math.comparisons import equal, greater
from minitf.ops.math.reductions import argmax, reduce_sum
from minitf.ops.variables import Variable


class Metric:
    def __init__(self, name: str | None = None, dtype: Any = None) -> None:
        self.name = name or _snake(type(self).__name__)
        self.variables: list[Variable] = []

    def add_variable(self, name: str, initial: float = 0.0) -> Variable:
        variable = Variable(initial, trainable=False, name=name, dtype="float32")
        self.variables.append(variable)
        return variable

    def reset_state(self) -> None:
        for variable in self.variables:
            variable.assign(0.0)

    def update_state(self, *args: Any, **kwargs: Any) -> None:
        raise NotImplementedError

    def result(self) -> Any:
        raise NotImplementedError

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        self.update_state(*args, **kwargs)
        return self.result()

    def get_config(self) -> dict[str, Any]:
        return {"name": self.name, "dtype": "float32"}

    def __repr__(self) -> str:
        return f"<{type(self).__name__} name={self.name}>"


def _snake(class_name: str) -> str:
    out = ""
    for i, char in enumerate(class_name):
        if char.isupper() and i and not class_name[i - 1].isupper():
            out += "_"
        out += char.lower()
    return out


class Mean(Metric):
    """The (weighted) mean of every value given to `update_state` so far."""

    def __init__(self, name: str = "mean", dtype: Any = None) -> None:
        super().__init__(name, dtype)
        self.total = self.add_variable("total")
        self.count = self.add_variable("count")

    def update_state(self, values: Any, sample_weight: Any = None) -> None:
        values = cast(values, "float32")
        if sample_weight is None:
            self.total.assign_add(reduce_sum(values))
            self.count.assign_add(cast(size(values), "float32"))
        elif values.shape.rank == 0:  # one value standing for `sample_weight` samples (fit's loss per batch)
            weight = cast(sample_weight, "float32")
            self.total.assign_add(values * weight)
            self.count.assign_add(weight)
        else:
            weight = cast(sample_weight, "float32")
            self.total.assign_add(reduce_sum(values * weight))
            self.count.assign_add(reduce_sum(weight + 0.0 * values))

    def result(self) -> Any:
        # Keras divides with divide_no_nan: an empty metric (total 0, count 0) is 0, not nan
        return self.total / maximum(self.count, TINY)


TINY = 1e-30


class MeanMetricWrapper(Mean):
    """The mean of a per-sample function (accuracies are this)."""

    def __init__(self, fn: Any, name: str | None = None, dtype: Any = None, **fn_kwargs: Any) -> None:
        super().__init__(str(name or getattr(fn, "__name__", "mean")), dtype)
        self._fn, self._fn_kwargs = fn, fn_kwargs

    def update_state(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> None:  # type: ignore[override]
        y_pred = convert_to_tensor(y_pred)
        if y_pred.dtype.is_floating and y_pred.dtype.name != "float32":
            y_pred = cast(y_pred, "float32")
        super().update_state(self._fn(convert_to_tensor(y_true), y_pred, **self._fn_kwargs), sample_weight)


def _squeeze_last(y_true: Any, y_pred: Any) -> Any:
    """Labels of shape (n, 1) against predictions of rank 1 lose their last axis, as in Keras."""
    if y_true.shape.rank == y_pred.shape.rank + 1 and y_true.shape[-1] == 1:
        return squeeze(y_true, -1)
    return y_true


def accuracy(y_true: Any, y_pred: Any) -> Any:
    y_true = _squeeze_last(y_true, y_pred)
    return cast(equal(cast(y_true, y_pred.dtype), y_pred), "float32")


def binary_accuracy(y_true: Any, y_pred: Any, threshold: float = 0.5) -> Any:
    y_true = _squeeze_last(y_true, y_pred)
    predicted = cast(greater(y_pred, threshold), y_pred.dtype)
    return cast(equal(cast(y_true, y_pred.dtype), predicted), "float32")


def categorical_accuracy(y_true: Any, y_pred: Any) -> Any:
    return cast(equal(argmax(y_true, axis=-1), argmax(y_pred, axis=-1)), "float32")


def sparse_categorical_accuracy(y_true: Any, y_pred: Any) -> Any:
    if y_true.shape.rank == y_pred.shape.rank and y_true.shape[-1] == 1:
        y_true = squeeze(y_true, -1)
    return cast(equal(cast(y_true, "float32"), cast(argmax(y_pred, axis=-1), "float32")), "float32")


class Accuracy(MeanMetricWrapper):
    def __init__(self, name: str = "accuracy", dtype: Any = None) -> None:
        super().__init__(accuracy, name, dtype)


class BinaryAccuracy(MeanMetricWrapper):
    def __init__(self, name: str = "binary_accuracy", dtype: Any = None, threshold: float = 0.5) -> None:
        super().__init__(binary_accuracy, name, dtype, threshold=threshold)


class CategoricalAccuracy(MeanMetricWrapper):
    def __init__(self, name: str = "categorical_accuracy", dtype: Any = None) -> None:
        super().__init__(categorical_accuracy, name, dtype)


class SparseCategoricalAccuracy(MeanMetricWrapper):
    def __init__(self, name: str = "sparse_categorical_accuracy", dtype: Any = None) -> None:
        super().__init__(sparse_categorical_accuracy, name, dtype)


_BY_NAME: dict[str, Any] = {
    "binary_accuracy": BinaryAccuracy,
    "categorical_accuracy": CategoricalAccuracy,
    "sparse_categorical_accuracy": SparseCategoricalAccuracy,
    "mean": Mean,
}


def get(identifier: Any, y_true: Any, y_pred: Any) -> Metric:
    """A compiled metric: "accuracy" becomes binary, sparse or categorical accuracy by the shapes, as in Keras."""
    if isinstance(identifier, Metric):
        return identifier
    if isinstance(identifier, str) and identifier.lower() in ("accuracy", "acc"):
        binary = y_pred.shape[-1] == 1
        sparse = y_true.shape.rank < y_pred.shape.rank or (y_true.shape[-1] == 1 and y_pred.shape[-1] > 1)
        kind = BinaryAccuracy if binary else SparseCategoricalAccuracy if sparse else CategoricalAccuracy
        return kind(name=identifier)
    if isinstance(identifier, str):
        if identifier not in _BY_NAME:
            raise ValueError(f"Could not interpret metric identifier: {identifier}")
        return _BY_NAME[identifier](name=identifier)
    if callable(identifier):
        return MeanMetricWrapper(identifier)
    raise ValueError(f"Could not interpret metric identifier: {identifier}")
