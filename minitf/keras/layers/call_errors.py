"""An error raised inside a layer's `call` comes back as Keras reports it: "Exception encountered when calling
Dense.call()", the original message in bold, and the arguments the call received, one per line of `call`'s
signature (tensors as `tf.Tensor(shape=..., dtype=...)`, other values by repr, defaults for those not given).

Only the innermost failing call reports (an outer layer or model passes the report on unchanged); the error keeps
its class where it can be made again from a message (TensorFlow's op errors included), else it becomes a
RuntimeError, as in Keras. A call on KerasTensors (building a functional model) that fails reports that the
output shape could not be inferred, then the arguments of that symbolic call. minitf's own hint (a last line
"Hint: ...") stays the last line, after the arguments.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

from minitf.core.errors import OpError
from minitf.core.tensor import Tensor
from minitf.keras.layers.keras_tensor import map_structure

_REPORTED = "_keras_call_info_injected"  # the attribute Keras marks a reported error with


def format_argument(value: Any) -> str:
    if isinstance(value, Tensor):
        return f"tf.Tensor(shape={value.shape}, dtype={value.dtype.name})"
    return repr(value)


def _message(error: BaseException) -> str:
    if isinstance(error, OpError):
        return error.message
    return str(error.args[0]) if error.args else ""


def _split_hint(message: str) -> tuple[str, str]:
    head, hint, tail = message.partition("\nHint:")
    return head, hint + tail


def _remade(error: BaseException, message: str) -> BaseException:
    """The same kind of error with a new message (a RuntimeError when its class takes no plain message)."""
    if isinstance(error, OpError):
        return type(error)(error.node_def, error.op, message, error.error_code)
    try:
        return type(error)(message)
    except TypeError:
        return RuntimeError(message)


def report(error: BaseException, function: Callable[..., Any], name: str, args: tuple, kwargs: dict) -> BaseException:
    """`error`, raised by `function(*args, **kwargs)` (a layer's call), with the call's arguments added."""
    if getattr(error, _REPORTED, False):
        return error
    signature = inspect.signature(function)
    try:
        bound = signature.bind(*args, **kwargs)
    except TypeError:
        return error
    lines = []
    for parameter in signature.parameters.values():
        if parameter.name in bound.arguments:
            value = map_structure(format_argument, bound.arguments[parameter.name])
        else:
            value = parameter.default
        lines.append(f"  • {parameter.name}={value}")
    message, hint = _split_hint(_message(error))
    new = _remade(
        error,
        f"Exception encountered when calling {name}.\n\n\x1b[1m{message}\x1b[0m\n\n"
        f"Arguments received by {name}:\n" + "\n".join(lines) + hint,
    )
    setattr(new, _REPORTED, True)
    return new


def call_reporting(layer: Any, call: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """`call(*args, **kwargs)`, an error from it reported as Keras reports it (the module's docstring)."""
    try:
        return call(*args, **kwargs)
    except Exception as error:
        reported = report(error, call, f"{type(layer).__name__}.call()", args, kwargs)
        if reported is error:
            raise
        raise reported.with_traceback(error.__traceback__) from None


def symbolic_call_reporting(layer: Any, trace: Callable[[], Any], args: tuple, kwargs: dict) -> Any:
    """`trace()` (tracing `layer.call` on KerasTensors); an error from it says the output could not be inferred,
    reported with the symbolic call's arguments."""
    try:
        return trace()
    except Exception as error:
        if getattr(error, _REPORTED, False):
            raise
        name = type(layer).__name__
        message, hint = _split_hint(_message(error))
        inferred = _remade(
            error,
            f"Could not automatically infer the output shape / dtype of '{layer.name}' (of type {name}). Either "
            f"the `{name}.call()` method is incorrect, or you need to implement the `{name}.compute_output_spec() / "
            f"compute_output_shape()` method. Error encountered:\n\n{message}{hint}",
        )

        def symbolic_call(*args: Any, **kwargs: Any) -> None: ...

        reported = report(inferred, symbolic_call, f"{name}.call()", args, kwargs)
        raise reported.with_traceback(error.__traceback__) from None
