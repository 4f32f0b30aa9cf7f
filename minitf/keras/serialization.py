"""How Keras writes an object into a config (`{"module", "class_name", "config", "registered_name"}`) and back."""

from __future__ import annotations

import inspect
from typing import Any

import minitf.keras.constraints as constraints
import minitf.keras.initializers as initializers
import minitf.keras.regularizers as regularizers

_CLASSES: dict[str, dict[str, Any]] = {
    "keras.initializers": initializers.BY_NAME,
    "keras.regularizers": regularizers.BY_NAME,
    "keras.constraints": constraints.BY_NAME,
}


def serialize(obj: Any, module: str) -> dict[str, Any] | None:
    """An initializer or regularizer as Keras writes it into a layer's config."""
    if obj is None:
        return None
    return {"module": module, "class_name": type(obj).__name__, "config": obj.get_config(), "registered_name": None}


def deserialize(value: Any) -> Any:
    """A serialized initializer or regularizer back as an object; anything else unchanged."""
    if isinstance(value, dict) and value.get("module") in _CLASSES and "class_name" in value:
        cls = _CLASSES[value["module"]][value["class_name"]]
        return cls(**accepted(cls, value.get("config", {})))
    return value


def accepted(cls: type, config: dict[str, Any]) -> dict[str, Any]:
    """The entries of `config` that `cls(...)` takes: Keras writes some (constraints, LoRA) minitf does not have."""
    names: set[str] = set()
    for klass in cls.__mro__:
        init = klass.__dict__.get("__init__")
        if init is not None and klass is not object:
            names |= {
                name
                for name, parameter in inspect.signature(init).parameters.items()
                if parameter.kind not in (inspect.Parameter.VAR_KEYWORD, inspect.Parameter.VAR_POSITIONAL)
            }
    return {key: value for key, value in config.items() if key in names}
