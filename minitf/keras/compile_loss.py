"""`compile(loss=..., loss_weights=...)` for a model with one output or several.

A model with several outputs (a list, or a dict keyed by output name) takes one loss per output: a dict keyed
by output name, a list in the outputs' order, or one loss for all of them. The loss `fit` minimises is the sum of
each output's loss times its weight (`loss_weights`, 1 by default); each output's own loss is also tracked as the
metric `<output name>_loss`, which is what Keras logs beside `loss`.
"""

from __future__ import annotations

from typing import Any

import minitf.keras.losses as losses_module
from minitf.keras.layers.keras_tensor import flatten
from minitf.keras.metrics.metric import Mean
from minitf.ops.array.shape_ops import shape


def _is_several(value: Any) -> bool:
    return isinstance(value, dict | list | tuple)


def _by_name(values: Any, names: list[str], what: str) -> dict[str, Any]:
    """One entry per output name from a dict (by key) or a list (in the outputs' order)."""
    if isinstance(values, dict):
        unknown = sorted(set(values) - set(names))
        if unknown:
            raise ValueError(
                f"In the dict argument `{what}`, key '{unknown[0]}' does not correspond to any model output. "
                f"Received:\n{what}={values}"
            )
        return {name: values.get(name) for name in names}
    values = list(values)
    if len(values) != len(names):
        raise ValueError(
            f"For a model with multiple outputs, when providing the `{what}` argument as a list, it should have "
            f"as many entries as the model has outputs. Received:\n{what}={values}\nof length {len(values)} "
            f"whereas the model has {len(names)} outputs."
        )
    return dict(zip(names, values, strict=True))


class CompileLoss:
    """The compiled loss: called as `loss(y, y_pred, sample_weight)` like a single Loss object."""

    def __init__(self, loss: Any, loss_weights: Any = None) -> None:
        self.loss, self.loss_weights = loss, loss_weights
        self.names: list[str] | None = None  # the outputs' names, once a prediction showed how many there are
        self.losses: dict[str, Any] = {}
        self.weights: dict[str, float] = {}
        self.trackers: list[Mean] = []
        if _is_several(loss) and len(loss) == 1:  # `loss=["mse"]` for a model of one output
            loss = next(iter(loss.values())) if isinstance(loss, dict) else loss[0]
        self.single = None if _is_several(loss) else losses_module.for_compile(loss)

    def build(self, y_pred: Any, output_names: list[str]) -> None:
        if self.names is not None or not _is_several(y_pred):
            return
        self.names = list(y_pred) if isinstance(y_pred, dict) else list(output_names)
        given = (
            _by_name(self.loss, self.names, "loss") if _is_several(self.loss) else dict.fromkeys(self.names, self.loss)
        )
        self.losses = {name: losses_module.for_compile(loss) for name, loss in given.items() if loss is not None}
        weights = _by_name(self.loss_weights, self.names, "loss_weights") if self.loss_weights is not None else {}
        self.weights = {name: 1.0 if weights.get(name) is None else float(weights[name]) for name in self.names}
        self.trackers = [Mean(name=f"{name}_loss") for name in self.losses]

    def __call__(self, y: Any, y_pred: Any, sample_weight: Any = None) -> Any:
        if self.names is None:
            if self.single is None:
                raise ValueError(f"The model has one output, but `loss` was given for several: {self.loss}")
            return self.single(y, y_pred, sample_weight)
        # a list of targets for dict outputs goes with the outputs' names in sorted order (as Keras flattens them)
        order = sorted(self.names) if isinstance(y_pred, dict) and not isinstance(y, dict) else self.names
        targets = _by_name(y, order, "y") if _is_several(y) else {self.names[0]: y}
        outputs = _by_name(y_pred, self.names, "y_pred")
        total = None
        for tracker, (name, loss) in zip(self.trackers, self.losses.items(), strict=True):
            value = loss(targets[name], outputs[name], sample_weight)
            tracker.update_state(value, sample_weight=shape(flatten(y_pred)[0])[0])
            weighted = value * self.weights[name]
            total = weighted if total is None else total + weighted
        return total
