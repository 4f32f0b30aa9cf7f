"""A learner's layer without `get_config` still saves, as in Keras 3: the arguments its constructor was called with
(defaults included) are recorded when the object is made, and become its config when they are all plain values
(strings, numbers, booleans, None, and lists or dicts of them). Otherwise `get_config()` raises Keras's
NotImplementedError asking for one.

minitf's own layers write their configs themselves (checked against Keras's), so only classes defined outside
minitf get one made this way.
"""

from __future__ import annotations

import inspect
import textwrap
from typing import Any

from minitf.keras.layers.keras_tensor import flatten

PLAIN = (str, int, float, bool, type(None))
_EXAMPLE = """
            class CustomLayer(keras.layers.Layer):
                def __init__(self, arg1, arg2, **kwargs):
                    super().__init__(**kwargs)
                    self.arg1 = arg1
                    self.arg2 = arg2

                def get_config(self):
                    config = super().get_config()
                    config.update({
                        "arg1": self.arg1,
                        "arg2": self.arg2,
                    })
                    return config
            """


def record(instance: Any, args: tuple, kwargs: dict[str, Any]) -> Any:
    """Keep the constructor's arguments on `instance` (from `__new__`, before `__init__` runs)."""
    init = type(instance).__init__
    signature, spec = inspect.signature(init), inspect.getfullargspec(init)
    values: dict[str, Any] | None = None
    unsupported_arguments = False  # positional-only or *args: cls(**config) could not pass them back
    try:
        bound = signature.bind(None, *args, **kwargs)
    except TypeError:
        bound = None
    positional_only = [p for n, p in signature.parameters.items() if n != spec.args[0] and p.kind == p.POSITIONAL_ONLY]
    if bound is not None and positional_only:
        unsupported_arguments, bound = True, None
    if bound is not None:
        bound.apply_defaults()
        values = dict(bound.arguments)
        values |= values.pop(spec.varkw, {}) if spec.varkw else {}
        values.pop(spec.args[0])
        values.pop("name", None)
        if spec.varargs is not None and values.pop(spec.varargs):
            unsupported_arguments, values = True, None
    if values is not None and not all(isinstance(value, PLAIN) for value in flatten(values)):
        values = None
    object.__setattr__(instance, "_auto_config", values)
    object.__setattr__(instance, "_auto_config_error_args", unsupported_arguments)
    return instance


def with_arguments(layer: Any, config: dict[str, Any], base: Any) -> dict[str, Any]:
    """`config` (name, trainable, dtype) with the recorded arguments after the name, for a learner's class whose
    `get_config` is still `base` (Layer's); `config` itself for minitf's classes and classes that write one."""
    cls = type(layer)
    if cls.__module__.startswith("minitf.") or cls.get_config is not base:
        return config
    recorded = getattr(layer, "_auto_config", None)
    if recorded is None:
        raise NotImplementedError(_refusal(cls.__name__, getattr(layer, "_auto_config_error_args", False)))
    parameters = inspect.signature(layer.__init__).parameters
    takes_name = "name" in parameters or (
        "kwargs" in parameters and parameters["kwargs"].kind == inspect.Parameter.VAR_KEYWORD
    )
    head = {"name": config["name"]} if takes_name else {}
    rest = {key: value for key, value in config.items() if key != "name"}
    return {**head, **recorded, **rest}


def _refusal(name: str, unsupported_arguments: bool) -> str:
    if unsupported_arguments:
        body = f"""
            Object {name} was created by passing
            positional only or variadic positional arguments (e.g.,
            `*args`) to `__init__()`, which is not supported by the
            automatic config generation. Please remove all positional
            only and variadic arguments from `__init__()`
            or override `get_config()` and `from_config()` to make
            the object serializatble.

            Example:

            {_EXAMPLE}"""
    else:
        body = f"""
            Object {name} was created by passing
            non-serializable argument values in `__init__()`,
            and therefore the object must override `get_config()` in
            order to be serializable. Please implement `get_config()`.

            Example:

            {_EXAMPLE}"""
    return textwrap.dedent(body)
