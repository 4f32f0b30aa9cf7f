"""`keras.optimizers`: every built-in Keras optimizer, its string name for `compile`, and the schedules.

optimizer.py holds what they share (step count, learning rate or schedule, clipping, weight decay, EMA),
momentum.py the SGD family and per-weight-rate methods, adam.py Adam and its relatives, schedules.py the
learning-rate schedules (`keras.optimizers.schedules`).
"""

from __future__ import annotations

from typing import Any

import minitf.keras.optimizers.schedules as schedules
import minitf.left_out as left_out
from minitf.keras.optimizers.adam import Adafactor, Adam, Adamax, AdamW, Lamb, Lion, Nadam
from minitf.keras.optimizers.momentum import SGD, Adadelta, Adagrad, Ftrl, RMSprop
from minitf.keras.optimizers.optimizer import Optimizer

LEFT_OUT: dict[str, str] = {
    "LossScaleOptimizer": "loss scaling serves float16 mixed precision, and minitf trains in float32",
    "MultiOptimizer": "one optimizer per group of layers is beyond a first course",
    "OptimizerMap": "one optimizer per group of layers is beyond a first course",
    "Muon": "orthogonalized updates for large models are beyond a first course",
    "ScheduleFreeAdamW": "schedule-free training keeps two weight copies and is beyond a first course",
    "legacy": "Keras 2's optimizers are not part of Keras 3's API that minitf follows",
}
__getattr__ = left_out.module_getattr("tf.keras.optimizers", LEFT_OUT)

OPTIMIZERS: list[type[Optimizer]] = [
    SGD,
    Adadelta,
    Adafactor,
    Adagrad,
    Adam,
    AdamW,
    Adamax,
    Ftrl,
    Lamb,
    Lion,
    Nadam,
    RMSprop,
]
BY_NAME: dict[str, type[Optimizer]] = {cls.__name__.lower(): cls for cls in [*OPTIMIZERS, Optimizer]}


def serialize(optimizer: Optimizer) -> dict[str, Any]:
    return {
        "module": "keras.optimizers",
        "class_name": type(optimizer).__name__,
        "config": optimizer.get_config(),
        "registered_name": None,
    }


def deserialize(config: dict[str, Any], custom_objects: dict[str, Any] | None = None) -> Optimizer:
    """An optimizer from `{"class_name": ..., "config": ...}`; class names are matched without case, as Keras does."""
    name = config["class_name"]
    if custom_objects and name in custom_objects:
        return custom_objects[name].from_config(config.get("config", {}))
    key = name.lower()
    if key not in BY_NAME:
        for left_out_name, reason in LEFT_OUT.items():
            if left_out_name.lower() == key:
                left_out.refuse_identifier("optimizer", name, reason)
        raise ValueError(f"Could not interpret optimizer identifier: {name}")
    return BY_NAME[key].from_config(config.get("config", {}))


def get(identifier: Any) -> Optimizer:
    """An optimizer for a name (`"nadam"`: Keras's defaults), a config dict, or the optimizer given."""
    if identifier is None:
        return None  # type: ignore[return-value]
    if isinstance(identifier, dict):
        found: Any = deserialize(identifier)
    elif isinstance(identifier, str):
        found = deserialize({"class_name": identifier, "config": {}})
    else:
        found = identifier
    if isinstance(found, Optimizer):
        return found
    raise ValueError(f"Could not interpret optimizer identifier: {identifier}")


__all__ = [
    "SGD",
    "Adadelta",
    "Adafactor",
    "Adagrad",
    "Adam",
    "AdamW",
    "Adamax",
    "Ftrl",
    "Lamb",
    "Lion",
    "Nadam",
    "Optimizer",
    "RMSprop",
    "deserialize",
    "get",
    "schedules",
    "serialize",
]
