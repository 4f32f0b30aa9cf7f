"""Objects as Keras writes them into a saved file's config, and back: `{"module", "class_name", "config",
"registered_name"}` for a layer or model (built-in ones filed under `keras.layers`, custom ones under their own
module and registered name, with how to build them again), `{"class_name": "function", "config": name}` for a
function, and a model's `compile()` arguments (`compile_config`)."""

from __future__ import annotations

import inspect
import types
from typing import Any

from minitf.keras.saving import registry

# Plain values a config holds as they are.
PLAIN = (str, int, float, bool, type(None))


def _module(cls_or_fn: Any) -> str | None:
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
            "module": _module(cls),
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


def layer_class(entry: dict[str, Any]) -> Any:
    """The class a saved entry names: a built-in layer or model, else a registered or passed custom class."""
    import minitf.keras.layers as layers  # here: it imports this module (a cycle at load time)
    import minitf.keras.models as models  # here: it imports this module (a cycle at load time)

    name, module = entry["class_name"], entry.get("module") or ""
    if module == "keras" or module.startswith("keras."):
        found = getattr(layers, name, None) or getattr(models, name, None)
        if found is not None:
            return found
        if name == "Functional":
            return models.Functional
    found = registry.get_registered_object(entry.get("registered_name") or name)
    if found is None:
        raise registry.not_found("class", name, entry)
    return found


def build_from_config(layer: Any, config: dict[str, Any] | None) -> None:
    """Create a custom layer's or model's weights by running it once on zeros of the saved input shape."""
    import minitf  # here: minitf imports keras, which imports this module

    if not config or "input_shape" not in config or layer.built and layer.weights:
        return

    def zeros(shape: Any) -> Any:
        if isinstance(shape, dict):
            return {key: zeros(value) for key, value in shape.items()}
        if shape and isinstance(shape[0], list | tuple):
            return [zeros(s) for s in shape]
        return minitf.zeros([1 if d is None else d for d in shape])

    layer(zeros(config["input_shape"]))


def compile_config(model: Any) -> dict[str, Any] | None:
    """`compile()`'s arguments as Keras writes them (optimizer, loss and metrics serialized)."""
    import minitf.keras.optimizers as optimizers  # here: it imports this module (a cycle at load time)

    if not getattr(model, "compiled", False):
        return None
    return {
        "optimizer": optimizers.serialize(model.optimizer),
        "loss": _serialize_compiled(model.loss),
        "loss_weights": None,
        "metrics": [_serialize_compiled(metric) for metric in model._metric_identifiers] or None,
        "weighted_metrics": None,
        "run_eagerly": bool(model.run_eagerly),
        "steps_per_execution": 1,
        "jit_compile": False,
    }


def _serialize_compiled(value: Any) -> Any:
    if isinstance(value, PLAIN):
        return value
    if isinstance(value, list | tuple):
        return [_serialize_compiled(item) for item in value]
    if isinstance(value, dict):
        return {key: _serialize_compiled(item) for key, item in value.items()}
    if isinstance(value, types.FunctionType):
        return serialize_function(value)
    cls = type(value)
    family = cls.__module__.split(".")[2] if is_builtin(cls) else None  # minitf.keras.<family>...
    return {
        "module": f"keras.{family}" if family else _module(cls),
        "class_name": cls.__name__,
        "config": value.get_config(),
        "registered_name": None if family else registry.get_registered_name(cls),
    }


def compile_from_config(model: Any, config: dict[str, Any]) -> None:
    """Compile a loaded model as it was compiled when saved."""
    import minitf.keras.optimizers as optimizers  # here: it imports this module (a cycle at load time)

    model.compile(
        optimizer=optimizers.deserialize(config["optimizer"]),
        loss=_deserialize_compiled(config.get("loss"), "losses"),
        metrics=_deserialize_compiled(config.get("metrics"), "metrics"),
    )


def _deserialize_compiled(value: Any, family: str) -> Any:
    import minitf.keras.losses as losses  # here: it imports this module (a cycle at load time)
    import minitf.keras.metrics as metrics  # here: it imports this module (a cycle at load time)

    if isinstance(value, PLAIN):
        return value
    if isinstance(value, list):
        return [_deserialize_compiled(item, family) for item in value]
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
        return {key: _deserialize_compiled(item, family) for key, item in value.items()}
    return value


def serialize_keras_object(obj: Any) -> Any:
    """`keras.saving.serialize_keras_object`: a layer, loss, metric, optimizer or function as a config."""
    import minitf.keras.layers as layers  # here: it imports this module (a cycle at load time)

    if isinstance(obj, layers.Layer):
        return serialize_layer(obj)
    return _serialize_compiled(obj)


def deserialize_keras_object(config: Any, custom_objects: dict[str, Any] | None = None, **kwargs: Any) -> Any:
    """`keras.saving.deserialize_keras_object`: the object a config describes (custom ones by name)."""
    import minitf.keras.activations as activations  # here: it imports this module (a cycle at load time)
    import minitf.keras.optimizers as optimizers  # here: it imports this module (a cycle at load time)

    with registry.custom_object_scope(custom_objects):
        if not isinstance(config, dict) or "class_name" not in config:
            return config
        module = config.get("module") or ""
        if config["class_name"] == "function":
            return activations.deserialize(config)
        if module.startswith("keras.optimizers"):
            return optimizers.deserialize(config)
        if module.startswith("keras.losses"):
            return _deserialize_compiled(config, "losses")
        if module.startswith("keras.metrics"):
            return _deserialize_compiled(config, "metrics")
        cls = layer_class(config)
        layer = cls.from_config(config.get("config", {}))
        build_from_config(layer, config.get("build_config"))
        return layer
