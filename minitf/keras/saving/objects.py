"""Objects as Keras writes them into a saved file's config: `{"module", "class_name", "config",
"registered_name"}` for a layer or model (built-in ones filed under `keras.layers`, custom ones under their own
module and registered name, with the input shape to build them for again), `{"class_name": "function", "config":
name}` for a function. Loading them back needs the layer classes: models/loading.py."""

from __future__ import annotations

import inspect
from typing import Any

import minitf.keras.saving.registry as registry

# Plain values a config holds as they are.
PLAIN = (str, int, float, bool, type(None))


def module_of(cls_or_fn: Any) -> str | None:
    """Keras writes no module for what a script (`__main__`) defines."""
    module = cls_or_fn.__module__
    return None if module == "__main__" else module


def is_builtin(cls: type) -> bool:
    return cls.__module__.startswith("minitf.")


def serialize_function(fn: Any) -> dict[str, Any]:
    """A custom function: Keras files it under its registered name (or its own)."""
    return {
        "module": "builtins",
        "class_name": "function",
        "config": registry.get_registered_name(fn),
        "registered_name": "function",
    }


def deserialize_function(config: Any, builtins: dict[str, Any]) -> Any:
    """A function named in a config: a Keras built-in of the family (`builtins`), else a custom one."""
    name = config["config"] if isinstance(config, dict) else config
    if name in builtins:
        return builtins[name]
    found = registry.get_registered_object(name)
    if found is None:
        raise registry.not_found("function", name, config)
    return found


def build_config(layer: Any) -> dict[str, Any] | None:
    """The input shape the layer was first called with, which a loaded layer is built for again."""
    shape = getattr(layer, "_build_input_shape", None)
    if shape is None or not getattr(layer, "built", False):
        return None
    return {"input_shape": _listed(shape)}


def _listed(shape: Any) -> Any:
    if isinstance(shape, dict):
        return {key: _listed(value) for key, value in shape.items()}
    if isinstance(shape, list | tuple) and shape and isinstance(shape[0], list | tuple | dict):
        return [_listed(s) for s in shape]
    return list(shape)


def serialize_layer(layer: Any) -> dict[str, Any]:
    """A layer or model as a saved file lists it."""
    cls = type(layer)
    _check_config(layer)
    if is_builtin(cls):
        module, class_name = getattr(layer, "_saved_as", None) or ("keras.layers", cls.__name__)
        entry: dict[str, Any] = {"module": module, "class_name": class_name, "config": layer.get_config()}
        entry["registered_name"] = None
    else:
        entry = {
            "module": module_of(cls),
            "class_name": cls.__name__,
            "config": layer.get_config(),
            "registered_name": registry.get_registered_name(cls),
        }
    built = build_config(layer)
    if built is not None and cls.__name__ != "InputLayer":
        entry["build_config"] = built
    return entry


def _check_config(layer: Any) -> None:
    """A custom class whose constructor needs arguments must say them in `get_config` to be saved."""
    cls = type(layer)
    if is_builtin(cls) or any("get_config" in vars(klass) for klass in cls.__mro__ if not is_builtin(klass)):
        return
    required = [
        p
        for p in list(inspect.signature(cls.__init__).parameters.values())[1:]
        if p.default is inspect.Parameter.empty and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
    ]
    if required:
        raise NotImplementedError(
            f"\nObject {cls.__name__} was created by passing\nnon-serializable argument values in `__init__()`,\n"
            "and therefore the object must override `get_config()` in\norder to be serializable. Please implement "
            "`get_config()`.\nHint: return {**super().get_config(), 'arg': self.arg, ...} with every argument "
            "of __init__."
        )
