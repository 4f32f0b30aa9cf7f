"""`compile(metrics=..., weighted_metrics=...)`: the metrics of a model, for one output or several.

Keras gathers every compiled metric into one Metric, `CompileMetrics`, named `compile_metrics`: it is what
`model.metrics` lists after the loss tracker, and its `result()` is a dict of the metrics' values. For a model of
one output every metric given (flattened) applies to it and logs under its own name (`mae`). For several outputs
`metrics` gives each output its own: a list with one entry per output (`[["mae"], ["mse"]]` or `["mae", "mse"]`)
or a dict by output name (`{"a": ["mae"], "b": "mse"}`), an entry being one metric, a list of them or None; they
log as `<output>_<metric>` (`a_mae`). A weighted metric whose name is taken already logs as `weighted_<name>`.
"""

from __future__ import annotations

from typing import Any

import minitf.keras.metrics as metrics_module
from minitf.keras.layers.keras_tensor import flatten
from minitf.keras.metrics.metric import Metric


def _check_kind(value: Any, argument: str) -> None:
    if value and not isinstance(value, list | tuple | dict):
        raise ValueError(
            f"Expected `{argument}` argument to be a list, tuple, or dict. "
            f"Received instead: {argument}={value} of type {type(value)}"
        )


class MetricsList(Metric):
    """The metrics of one output (`output_name` None for a model of one output)."""

    def __init__(self, metrics: list[Metric], output_name: str | None = None) -> None:
        super().__init__(name="metrics_list")
        self.metrics, self.output_name = metrics, output_name

    @classmethod
    def of(cls, given: Any, y_true: Any, y_pred: Any, output_name: str | None) -> MetricsList | None:
        """The metrics `given` for one output (one identifier or a list of them; None: no metrics)."""
        if given is None:
            return None
        entries = list(given) if isinstance(given, list | tuple) else [given]
        return cls([_one_metric(entry, y_true, y_pred) for entry in entries], output_name)

    def update_state(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> None:
        for metric in self.metrics:
            metric.update_state(y_true, y_pred, sample_weight=sample_weight)

    def reset_state(self) -> None:
        for metric in self.metrics:
            metric.reset_state()


def _one_metric(identifier: Any, y_true: Any, y_pred: Any) -> Metric:
    if identifier is None:
        raise ValueError("Expected metric, received `None`")
    return metrics_module.for_compile(identifier, y_true, y_pred)


class CompileMetrics(Metric):
    """Every metric `compile` was given, built on the first batch (when the outputs' shapes are known)."""

    def __init__(self, metrics: Any, weighted_metrics: Any, output_names: list[str] | None = None) -> None:
        _check_kind(metrics, "metrics")
        _check_kind(weighted_metrics, "weighted_metrics")
        super().__init__(name="compile_metrics")
        self._user_metrics, self._user_weighted_metrics = metrics, weighted_metrics
        self.output_names = output_names
        self.built = False
        self._resolved_names: list[str] | None = None
        self._flat_metrics: list[MetricsList | None] = []
        self._flat_weighted_metrics: list[MetricsList | None] = []

    @property
    def metrics(self) -> list[Metric]:
        """The metric objects themselves, unweighted first (empty until built)."""
        return [m for group in self._flat_metrics + self._flat_weighted_metrics if group for m in group.metrics]

    @property
    def variables(self) -> list[Any]:
        return [variable for metric in self.metrics for variable in metric.variables]

    def build(self, y_true: Any, y_pred: Any) -> None:
        count = len(flatten(y_pred))
        is_flat = isinstance(y_pred, list | tuple | dict) and len(y_pred) == count
        names = self.output_names
        if is_flat and isinstance(y_pred, dict):  # a dict of outputs is named by its keys
            keys = list(y_pred)
            names = names if names and set(keys) == set(names) else sorted(keys)
        self._resolved_names = names if count > 1 and is_flat else None
        for argument in ("metrics", "weighted_metrics"):
            given = self._user_metrics if argument == "metrics" else self._user_weighted_metrics
            groups = self._groups(given, count, names, y_true, y_pred, is_flat, argument)
            setattr(self, "_flat_metrics" if argument == "metrics" else "_flat_weighted_metrics", groups)
        self.built = True

    def _groups(
        self, given: Any, count: int, names: Any, y_true: Any, y_pred: Any, is_flat: bool, argument: str
    ) -> list[MetricsList | None]:
        """One MetricsList (or None) per output."""
        if not given:
            return [None] * count
        if count == 1:  # every metric applies to the one output, whatever the nesting
            return [MetricsList.of(flatten(given), flatten(y_true)[0], flatten(y_pred)[0], None)]
        per_output = None
        if is_flat and isinstance(given, list | tuple) and len(given) == count:
            per_output = list(given)
        elif is_flat and names and isinstance(given, dict) and set(given) <= set(names):
            per_output = [given.get(name) for name in names]
        if per_output is None:
            structure = map_to_x(y_pred)
            known = f"the output names of the functional model {self.output_names} or " if self.output_names else ""
            either = "either be a dict or a list matching " if self.output_names else ""
            raise ValueError(
                f"Invalid `{argument}`. `{argument}` should contain metrics objects and {either}{known}"
                f"match the output structure of the model: {structure}.\nReceived: {argument}={given}"
            )
        try:
            return [
                MetricsList.of(entry, true, pred, name)
                for entry, true, pred, name in zip(
                    per_output, self._flatten_y(y_true), self._flatten_y(y_pred), names or [None] * count, strict=False
                )
            ]
        except ValueError as error:
            raise ValueError(f"{error}\nReceived: {argument}={given}") from error

    def _flatten_y(self, y: Any) -> list[Any]:
        if isinstance(y, dict) and self._resolved_names is not None:
            return [y[name] for name in self._resolved_names]
        return flatten(y)

    def update_state(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> None:
        if not self.built:
            self.build(y_true, y_pred)
        y_true, y_pred = self._flatten_y(y_true), self._flatten_y(y_pred)
        for group, true, pred in zip(self._flat_metrics, y_true, y_pred, strict=False):
            if group:
                group.update_state(true, pred)
        weights = [None] * len(y_true) if sample_weight is None else self._flatten_y(sample_weight)
        if len(weights) < len(y_true):  # one weight array for every output
            weights = [weights[0]] * len(y_true)
        for group, true, pred, weight in zip(self._flat_weighted_metrics, y_true, y_pred, weights, strict=False):
            if group:
                group.update_state(true, pred, sample_weight=weight)

    def reset_state(self) -> None:
        for metric in self.metrics:
            metric.reset_state()

    def result(self) -> dict[str, Any]:
        """Each metric's value by the name it logs under (see the module's docstring)."""
        if not self.built:
            raise ValueError("Cannot get result() since the metric has not yet been built.")
        results: dict[str, Any] = {}
        counts: dict[str, int] = {}
        for weighted, groups in ((False, self._flat_metrics), (True, self._flat_weighted_metrics)):
            for group in groups:
                for metric in group.metrics if group else []:
                    prefix = f"{group.output_name}_" if group and group.output_name else ""
                    name = prefix + metric.name
                    if name in counts and weighted:
                        name = f"{prefix}weighted_{metric.name}"
                    if name in counts:
                        counts[name] += 1
                        name = f"{name}_{counts[name] - 1}"
                    else:
                        counts[name] = 1
                    results[name] = metric.result()
        return results


def map_to_x(structure: Any) -> Any:
    """The model's output structure with each output shown as 'X', as Keras's error messages show it."""
    if isinstance(structure, list | tuple):
        return type(structure)(map_to_x(item) for item in structure)
    if isinstance(structure, dict):
        return {key: map_to_x(value) for key, value in structure.items()}
    return "X"
