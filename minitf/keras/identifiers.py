"""How a Keras family of small objects (initializers, regularizers, constraints) turns names and configs into
objects and back: `get("l2")`, `serialize(obj)`, `deserialize({"class_name": ..., "config": ...})`. Each family
module makes one `Family` and exposes its three methods as module functions."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import minitf.left_out as left_out


class Family:
    """`kind` names the family in messages ("regularizer"), `module` is where Keras files its classes
    ("keras.regularizers"), `by_name` maps every identifier to its class."""

    def __init__(self, kind: str, module: str, by_name: Mapping[str, type], left_out_names: Mapping[str, str]) -> None:
        self.kind, self.module, self.by_name, self.left_out = kind, module, by_name, left_out_names

    def serialize(self, obj: Any) -> dict[str, Any] | None:
        if obj is None:
            return None
        config = obj.get_config()
        return {"module": self.module, "class_name": type(obj).__name__, "config": config, "registered_name": None}

    def deserialize(self, config: dict[str, Any], custom_objects: dict[str, Any] | None = None) -> Any:
        known = {**self.by_name, **(custom_objects or {})}
        if config["class_name"] not in known:
            raise ValueError(f"Could not interpret {self.kind} identifier: {config['class_name']}")
        return known[config["class_name"]].from_config(config.get("config", {}))

    def get(self, identifier: Any) -> Any:
        """An object for a name (with Keras's defaults), a config dict, a class, or the object or function given."""
        if identifier is None:
            return None
        if isinstance(identifier, dict):
            return self.deserialize(identifier)
        if isinstance(identifier, str):
            if identifier in self.left_out:
                left_out.refuse_identifier(self.kind, identifier, self.left_out[identifier])
            if identifier not in self.by_name:
                raise ValueError(f"Could not interpret {self.kind} identifier: {identifier}")
            return self.by_name[identifier].from_config({})  # type: ignore[attr-defined]
        if isinstance(identifier, type):
            return identifier()
        if callable(identifier):
            return identifier
        raise ValueError(f"Could not interpret {self.kind} identifier: {identifier}")
