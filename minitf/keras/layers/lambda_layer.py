"""`Lambda`: any function of the inputs as a layer, written into a config as Keras writes it (a lambda's
compiled code, marshalled and base64-encoded, so the same Python reads it back)."""

from __future__ import annotations

import base64
import inspect
import marshal
import types
from typing import Any

from minitf.keras.layers.layer import Layer


def _function_to_config(function: Any) -> Any:
    if getattr(function, "__name__", "") == "<lambda>":
        code = base64.encodebytes(marshal.dumps(function.__code__)).decode("ascii")
        defaults = list(function.__defaults__) if function.__defaults__ else None
        closure = [cell.cell_contents for cell in function.__closure__] if function.__closure__ else None
        return {"class_name": "__lambda__", "config": {"code": code, "defaults": defaults, "closure": closure}}
    return {
        "module": function.__module__,
        "class_name": "function",
        "config": function.__name__,
        "registered_name": "function",
    }


def _function_from_config(config: Any, safe_mode: bool) -> Any:
    if not isinstance(config, dict):
        return config
    if config.get("class_name") == "__lambda__":
        if safe_mode:
            raise ValueError(
                "Requested the deserialization of a `Lambda` layer whose `function` is a Python lambda. This "
                "carries a potential risk of arbitrary code execution and thus it is disallowed by default. If "
                "you trust the source of the artifact, you can override this error by passing `safe_mode=False` "
                "to the loading function, or calling `keras.config.enable_unsafe_deserialization()."
            )
        inner = config["config"]
        code = marshal.loads(base64.decodebytes(inner["code"].encode("ascii")))  # only with safe_mode=False
        closure = tuple(types.CellType(value) for value in inner["closure"]) if inner["closure"] else None
        defaults = tuple(inner["defaults"]) if inner["defaults"] else None
        return types.FunctionType(code, globals(), None, defaults, closure)
    module = __import__(config["module"], fromlist=["_"])  # the function's own module, named in the config
    return getattr(module, config["config"])


class Lambda(Layer):
    """`function(inputs, **arguments)` as a layer, for quick operations with no weights."""

    safe_mode = True

    def __init__(
        self, function: Any, output_shape: Any = None, mask: Any = None, arguments: Any = None, **kwargs: Any
    ) -> None:
        super().__init__(**kwargs)
        self.function, self.output_shape, self.mask = function, output_shape, mask
        self.arguments = dict(arguments or {})
        self._function_takes = set(inspect.signature(function).parameters) & {"mask", "training"}

    def call(self, inputs: Any, mask: Any = None, training: bool | None = None) -> Any:
        """`mask` and `training` go on to the function when it takes them (as Keras's Lambda passes them)."""
        extra = {key: value for key, value in (("mask", mask), ("training", training)) if key in self._function_takes}
        return self.function(inputs, **self.arguments, **extra)

    def get_config(self) -> dict[str, Any]:
        config: dict[str, Any] = {**super().get_config(), "function": _function_to_config(self.function)}
        if self.output_shape is not None:
            config["output_shape"] = self.output_shape
        return {**config, "arguments": self.arguments}

    @classmethod
    def from_config(cls, config: dict[str, Any], safe_mode: bool | None = None) -> Lambda:
        config = dict(config)
        config["function"] = _function_from_config(
            config["function"], cls.safe_mode if safe_mode is None else safe_mode
        )
        return super().from_config(config)  # type: ignore[return-value]
