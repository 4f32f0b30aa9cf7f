"""`keras.saving.serialize_keras_object` / `deserialize_keras_object`: one object (a layer or model, a loss,
metric or optimizer, a function) as a config and back, custom ones by registered name."""

from __future__ import annotations

from typing import Any

import minitf.keras.activations as activations
import minitf.keras.optimizers as optimizers
import minitf.keras.saving.registry as registry
from minitf.keras.layers.layer import Layer
from minitf.keras.models.loading import layer_from_config
from minitf.keras.saving.compile_config import deserialize_compiled, serialize_compiled
from minitf.keras.saving.objects import serialize_layer


def serialize_keras_object(obj: Any) -> Any:
    """A layer, loss, metric, optimizer or function as a config."""
    if isinstance(obj, Layer):
        return serialize_layer(obj)
    return serialize_compiled(obj)


def deserialize_keras_object(config: Any, custom_objects: dict[str, Any] | None = None, **kwargs: Any) -> Any:
    """The object a config describes (custom ones by name, in `custom_objects` or registered)."""
    with registry.custom_object_scope(custom_objects):
        if not isinstance(config, dict) or "class_name" not in config:
            return config
        module = config.get("module") or ""
        if config["class_name"] == "function":
            return activations.deserialize(config)
        if module.startswith("keras.optimizers"):
            return optimizers.deserialize(config)
        if module.startswith("keras.losses"):
            return deserialize_compiled(config, "losses")
        if module.startswith("keras.metrics"):
            return deserialize_compiled(config, "metrics")
        return layer_from_config(config)
