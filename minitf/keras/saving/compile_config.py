"""A model's `compile()` arguments as Keras writes them into a saved file (`compile_config`: the optimizer, loss
and metrics serialized, custom functions and classes by registered name), and compiling a loaded model from them."""

from __future__ import annotations

import types
from typing import Any

import minitf.keras.losses as losses
import minitf.keras.metrics as metrics
import minitf.keras.optimizers as optimizers
import minitf.keras.saving.registry as registry
from minitf.keras.saving.objects import PLAIN, deserialize_function, is_builtin, module_of, serialize_function


def compile_config(model: Any) -> dict[str, Any] | None:
    """`compile()`'s arguments as Keras writes them (optimizer, loss and metrics serialized)."""
    if not getattr(model, "compiled", False):
        return None
    return {
        "optimizer": optimizers.serialize(model.optimizer),
        "loss": serialize_compiled(model.loss),
        "loss_weights": None,
        "metrics": serialize_compiled(model._compile_arguments["metrics"]),
        "weighted_metrics": serialize_compiled(model._compile_arguments["weighted_metrics"]),
        "run_eagerly": bool(model.run_eagerly),
        "steps_per_execution": 1,
        "jit_compile": False,
    }


def serialize_compiled(value: Any) -> Any:
    if isinstance(value, PLAIN):
        return value
    if isinstance(value, list | tuple):
        return [serialize_compiled(item) for item in value]
    if isinstance(value, dict):
        return {key: serialize_compiled(item) for key, item in value.items()}
    if isinstance(value, types.FunctionType):
        return serialize_function(value)
    cls = type(value)
    family = cls.__module__.split(".")[2] if is_builtin(cls) else None  # minitf.keras.<family>...
    return {
        "module": f"keras.{family}" if family else module_of(cls),
        "class_name": cls.__name__,
        "config": value.get_config(),
        "registered_name": None if family else registry.get_registered_name(cls),
    }


def compile_from_config(model: Any, config: dict[str, Any]) -> None:
    """Compile a loaded model as it was compiled when saved."""
    model.compile(
        optimizer=optimizers.deserialize(config["optimizer"]),
        loss=deserialize_compiled(config.get("loss"), "losses"),
        metrics=deserialize_compiled(config.get("metrics"), "metrics"),
    )


def deserialize_compiled(value: Any, family: str) -> Any:
    if isinstance(value, PLAIN):
        return value
    if isinstance(value, list):
        return [deserialize_compiled(item, family) for item in value]
    if isinstance(value, dict) and value.get("class_name") == "function":
        return deserialize_function(value, losses.BY_NAME if family == "losses" else metrics.BY_NAME)
    if isinstance(value, dict) and "class_name" in value:
        builtins = losses.BY_NAME if family == "losses" else metrics.BY_NAME
        module = value.get("module") or ""
        cls = builtins.get(value["class_name"]) if module.startswith("keras") else None
        cls = cls or registry.get_registered_object(value.get("registered_name") or value["class_name"])
        if cls is None:
            raise registry.not_found("class", value["class_name"], value)
        return cls.from_config(value.get("config", {}))
    if isinstance(value, dict):
        return {key: deserialize_compiled(item, family) for key, item in value.items()}
    return value
