"""`keras.layers.serialize` and `deserialize`: a layer as the dictionary Keras writes into a model's config
(class, config, build shape) and back. The class is found among the loaded Layer classes by name (minitf's own
first), so the layers that hold other layers (RNN, Bidirectional, ...) can use these without importing the
package that imports them."""

from __future__ import annotations

from typing import Any

import minitf.left_out as left_out
from minitf.keras.layers.layer import Layer
from minitf.keras.layers.left_out_layers import LEFT_OUT


def serialize(layer: Layer) -> dict[str, Any]:
    """A layer as Keras writes it into a model's config: class, config and the shape it was built for."""
    entry: dict[str, Any] = {
        "module": getattr(layer, "_keras_module", "keras.layers"),
        "class_name": type(layer).__name__,
        "config": layer.get_config(),
        "registered_name": None,
    }
    if layer.built and not getattr(layer, "_keeps_build_shape", True):
        entry["build_config"] = {"input_shape": None}
    elif layer.built and layer._build_input_shape is not None:
        entry["build_config"] = {"input_shape": layer._build_input_shape}
    return entry


def _layer_classes() -> list[type[Layer]]:
    found: list[type[Layer]] = []
    pending = [Layer]
    while pending:
        cls = pending.pop()
        found.append(cls)
        pending.extend(cls.__subclasses__())
    return sorted(found, key=lambda cls: not cls.__module__.startswith("minitf.keras.layers"))


def deserialize(config: dict[str, Any], custom_objects: dict[str, Any] | None = None) -> Layer:
    """The layer back from `serialize`'s dictionary (Keras's or minitf's), unbuilt."""
    name = config["class_name"]
    cls = (custom_objects or {}).get(name) or next((c for c in _layer_classes() if c.__name__ == name), None)
    if cls is None:
        if name in LEFT_OUT:
            raise left_out.LeftOutError(left_out.message(f"tf.keras.layers.{name}", LEFT_OUT[name]))
        raise ValueError(f"Could not locate class '{name}'. Make sure custom classes are passed in `custom_objects`.")
    return cls.from_config(config["config"])
