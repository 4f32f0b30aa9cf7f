"""`keras.activations`: the functions a layer's `activation=` names ("relu", "softmax", ...)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from minitf.ops.math.unary_math import sigmoid as _sigmoid
from minitf.ops.math.unary_math import tanh as _tanh
from minitf.ops.nn import nn_ops


def linear(x: Any) -> Any:
    return x


def relu(x: Any) -> Any:
    return nn_ops.relu(x)


def sigmoid(x: Any) -> Any:
    return _sigmoid(x)


def tanh(x: Any) -> Any:
    return _tanh(x)


def softmax(x: Any, axis: int = -1) -> Any:
    return nn_ops.softmax(x, axis=axis)


def softplus(x: Any) -> Any:
    return nn_ops.softplus(x)


def elu(x: Any) -> Any:
    return nn_ops.elu(x)


_BY_NAME: dict[str, Callable[..., Any]] = {
    "linear": linear,
    "relu": relu,
    "sigmoid": sigmoid,
    "tanh": tanh,
    "softmax": softmax,
    "softplus": softplus,
    "elu": elu,
}


def get(identifier: Any) -> Callable[..., Any]:
    """The function for a name, `None` meaning linear, as `Dense(activation=...)` resolves it."""
    if identifier is None:
        return linear
    if isinstance(identifier, str):
        if identifier not in _BY_NAME:
            raise ValueError(f"Could not interpret activation function identifier: {identifier}")
        return _BY_NAME[identifier]
    if callable(identifier):
        return identifier
    raise ValueError(f"Could not interpret activation function identifier: {identifier}")


def serialize(function: Callable[..., Any]) -> str:
    for name, known in _BY_NAME.items():
        if known is function:
            return name
    return getattr(function, "__name__", "linear")
