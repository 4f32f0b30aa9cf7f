"""`keras.activations`: the functions a layer's `activation=` names ("relu", "softmax", "gelu", ...).

Each is Keras's formula written with minitf ops; `get` resolves a name (or None, meaning linear) as layers do,
and `serialize` gives back the name a layer's config stores.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import minitf.keras.saving.objects as objects
import minitf.keras.saving.registry as registry
import minitf.left_out as left_out
import minitf.ops.nn.nn_ops as nn_ops
from minitf.core.conversion import convert_to_tensor
from minitf.ops.array.join_split import split
from minitf.ops.array.where import where
from minitf.ops.math.binary_math import clip_by_value, maximum, minimum
from minitf.ops.math.cast import cast
from minitf.ops.math.comparisons import greater
from minitf.ops.math.unary_math import abs, exp, expm1, sqrt, square
from minitf.ops.math.unary_math import sigmoid as _sigmoid
from minitf.ops.math.unary_math import tanh as _tanh

LEFT_OUT: dict[str, str] = {
    "sparsemax": "sparsemax needs a sort-based projection onto the simplex, which minitf does not implement",
}
__getattr__ = left_out.module_getattr("tf.keras.activations", LEFT_OUT)


def _tensor(x: Any) -> Any:
    return convert_to_tensor(x)


def linear(x: Any) -> Any:
    return x


def relu(x: Any, negative_slope: float = 0.0, max_value: float | None = None, threshold: float = 0.0) -> Any:
    """max(x, 0); below `threshold` the slope is `negative_slope`, and `max_value` caps the output."""
    x = _tensor(x)
    if negative_slope == 0.0 and max_value is None and threshold == 0.0:
        return nn_ops.relu(x)
    if negative_slope != 0.0 and max_value is None and threshold == 0:
        return nn_ops.leaky_relu(x, alpha=negative_slope)
    negative_part = nn_ops.relu(-x + threshold) if negative_slope != 0.0 else None
    out = where(greater(x, threshold), x, 0.0 * x) if threshold != 0 else nn_ops.relu(x)
    if max_value is not None:
        out = clip_by_value(out, 0.0, float(max_value))
    return out if negative_part is None else out - negative_slope * negative_part


def leaky_relu(x: Any, negative_slope: float = 0.2) -> Any:
    return nn_ops.leaky_relu(_tensor(x), alpha=negative_slope)


def relu6(x: Any) -> Any:
    return nn_ops.relu6(_tensor(x))


def sigmoid(x: Any) -> Any:
    return _sigmoid(_tensor(x))


def tanh(x: Any) -> Any:
    return _tanh(_tensor(x))


def softmax(x: Any, axis: int = -1) -> Any:
    return nn_ops.softmax(_tensor(x), axis=axis)


def log_softmax(x: Any, axis: int = -1) -> Any:
    return nn_ops.log_softmax(_tensor(x), axis=axis)


def softplus(x: Any) -> Any:
    return nn_ops.softplus(_tensor(x))


def softsign(x: Any) -> Any:
    return nn_ops.softsign(_tensor(x))


def elu(x: Any, alpha: float = 1.0) -> Any:
    x = _tensor(x)
    return nn_ops.elu(x) if alpha == 1.0 else where(greater(x, 0.0), x, alpha * expm1(x))


def selu(x: Any) -> Any:
    return nn_ops.selu(_tensor(x))


def celu(x: Any, alpha: float = 1.0) -> Any:
    """Continuously differentiable ELU: `max(x, 0) + alpha * expm1(min(x, 0) / alpha)`."""
    x = _tensor(x)
    return maximum(x, 0.0) + alpha * expm1(minimum(x, 0.0) / alpha)


def exponential(x: Any) -> Any:
    return exp(_tensor(x))


def gelu(x: Any, approximate: bool = False) -> Any:
    return nn_ops.gelu(_tensor(x), approximate=approximate)


def silu(x: Any) -> Any:
    return nn_ops.silu(_tensor(x))


def hard_sigmoid(x: Any) -> Any:
    """A piecewise-linear sigmoid: `relu6(x + 3) / 6`."""
    return nn_ops.relu6(_tensor(x) + 3.0) / 6.0


def hard_silu(x: Any) -> Any:
    x = _tensor(x)
    return x * hard_sigmoid(x)


def log_sigmoid(x: Any) -> Any:
    return nn_ops.log_sigmoid(_tensor(x))


def mish(x: Any) -> Any:
    x = _tensor(x)
    return x * _tanh(nn_ops.softplus(x))


def glu(x: Any, axis: int = -1) -> Any:
    """Gated linear unit: the first half of `axis` times the sigmoid of the second half."""
    a, b = split(_tensor(x), 2, axis=axis)
    return a * _sigmoid(b)


def hard_tanh(x: Any) -> Any:
    return clip_by_value(_tensor(x), -1.0, 1.0)


def tanh_shrink(x: Any) -> Any:
    x = _tensor(x)
    return x - _tanh(x)


def hard_shrink(x: Any, threshold: float = 0.5) -> Any:
    x = _tensor(x)
    return where(greater(abs(x), threshold), x, 0.0 * x)


def soft_shrink(x: Any, threshold: float = 0.5) -> Any:
    x = _tensor(x)
    return where(x > threshold, x - threshold, where(x < -threshold, x + threshold, 0.0 * x))


def sparse_plus(x: Any) -> Any:
    """0 below -1, x above 1, and the parabola `(x + 1)^2 / 4` joining them."""
    x = _tensor(x)
    return where(x <= -1.0, 0.0 * x, where(x >= 1.0, x, square(x + 1.0) / 4.0))


def sparse_sigmoid(x: Any) -> Any:
    x = _tensor(x)
    return where(x <= -1.0, 0.0 * x, where(x >= 1.0, 1.0 + 0.0 * x, 0.5 * (x + 1.0)))


def squareplus(x: Any, b: float = 4) -> Any:
    x = _tensor(x)
    return (x + sqrt(square(x) + cast(b, x.dtype))) / 2.0


def threshold(x: Any, threshold: float, default_value: float) -> Any:
    x = _tensor(x)
    return where(greater(x, threshold), x, default_value + 0.0 * x)


swish = silu
hard_swish = hard_silu

FUNCTIONS: list[Callable[..., Any]] = [
    celu,
    elu,
    exponential,
    gelu,
    glu,
    hard_shrink,
    hard_sigmoid,
    hard_silu,
    hard_tanh,
    leaky_relu,
    linear,
    log_sigmoid,
    log_softmax,
    mish,
    relu,
    relu6,
    selu,
    sigmoid,
    silu,
    soft_shrink,
    softmax,
    softplus,
    softsign,
    sparse_plus,
    sparse_sigmoid,
    squareplus,
    tanh,
    tanh_shrink,
    threshold,
]
_BY_NAME: dict[str, Callable[..., Any]] = {
    **{function.__name__: function for function in FUNCTIONS},
    "swish": silu,
    "hard_swish": hard_silu,
}


def get(identifier: Any) -> Callable[..., Any]:
    """The function for a name, `None` meaning linear, as `Dense(activation=...)` resolves it."""
    if identifier is None:
        return linear
    if isinstance(identifier, dict):
        return deserialize(identifier)
    if isinstance(identifier, str):
        if identifier in LEFT_OUT:
            left_out.refuse_identifier("activation", identifier, LEFT_OUT[identifier])
        if identifier not in _BY_NAME:
            raise ValueError(f"Could not interpret activation function identifier: {identifier}")
        return _BY_NAME[identifier]
    if callable(identifier):
        return identifier
    raise ValueError(f"Could not interpret activation function identifier: {identifier}")


def serialize(function: Callable[..., Any]) -> Any:
    """A built-in activation by its name; a custom function as Keras files it (by its registered name)."""
    for name, known in _BY_NAME.items():
        if known is function:
            return name
    return objects.serialize_function(function)


def deserialize(config: Any, custom_objects: dict[str, Any] | None = None) -> Callable[..., Any]:
    if custom_objects and isinstance(config, str) and config in custom_objects:
        return custom_objects[config]
    if isinstance(config, dict):
        with registry.custom_object_scope(custom_objects):
            return objects.deserialize_function(config, _BY_NAME)
    return get(config)
