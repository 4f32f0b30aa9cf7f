"""Activation functions as layers: ReLU (with its slope, threshold and cap), LeakyReLU, PReLU (a learned slope),
ELU, ThresholdedReLU, Softmax and Activation (any activation by name)."""

from __future__ import annotations

import warnings
from typing import Any

import minitf.keras.activations as activations
from minitf.core.conversion import convert_to_tensor
from minitf.keras.layers.layer import Layer
from minitf.keras.layers.options import WeightOptions, add_weight
from minitf.ops.array.where import where
from minitf.ops.math import binary_math, comparisons, reductions, unary_math
from minitf.ops.math.cast import cast
from minitf.ops.nn import nn_ops


class Activation(Layer):
    """Applies an activation given by name (`"relu"`) or as a function."""

    passes_masks = True

    def __init__(self, activation: Any, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.activation = activations.get(activation)
        self.built = True

    def call(self, inputs: Any) -> Any:
        return self.activation(inputs)

    def get_config(self) -> dict[str, Any]:
        return {**super().get_config(), "activation": activations.serialize(self.activation)}


def _not_negative(name: str, value: Any) -> None:
    if value is not None and value < 0:
        raise ValueError(f"{name} of a ReLU layer cannot be a negative value. Received: {value}")


class ReLU(Layer):
    """`x` from `threshold` up (capped at `max_value`), `negative_slope * (x - threshold)` below it."""

    passes_masks = True

    def __init__(
        self, max_value: float | None = None, negative_slope: float = 0.0, threshold: float = 0.0, **kwargs: Any
    ) -> None:
        super().__init__(**kwargs)
        _not_negative("max_value", max_value)
        _not_negative("negative_slope", negative_slope)
        _not_negative("threshold", threshold)
        self.max_value, self.negative_slope, self.threshold = max_value, negative_slope, threshold
        self.built = True

    def call(self, inputs: Any) -> Any:
        if not self.negative_slope and not self.threshold:
            x = nn_ops.relu(inputs)
        else:
            below = (inputs - self.threshold) * self.negative_slope
            x = where(comparisons.greater_equal(inputs, self.threshold), inputs, below)
        if self.max_value is not None:
            x = binary_math.minimum(x, cast(self.max_value, x.dtype))
        return x

    def get_config(self) -> dict[str, Any]:
        return {
            **super().get_config(),
            "max_value": self.max_value,
            "negative_slope": self.negative_slope,
            "threshold": self.threshold,
        }


class LeakyReLU(Layer):
    """`x` for positive inputs, `negative_slope * x` for negative ones."""

    passes_masks = True

    def __init__(self, negative_slope: float = 0.3, **kwargs: Any) -> None:
        if "alpha" in kwargs:
            negative_slope = kwargs.pop("alpha")
            warnings.warn("Argument `alpha` is deprecated. Use `negative_slope` instead.", stacklevel=2)
        super().__init__(**kwargs)
        if negative_slope is None or negative_slope < 0:
            raise ValueError(
                "The negative_slope value of a Leaky ReLU layer cannot be None or negative value. "
                f"Expected a float. Received: negative_slope={negative_slope}"
            )
        self.negative_slope = negative_slope
        self.built = True

    def call(self, inputs: Any) -> Any:
        return nn_ops.leaky_relu(inputs, alpha=self.negative_slope)

    def get_config(self) -> dict[str, Any]:
        return {**super().get_config(), "negative_slope": self.negative_slope}


class PReLU(Layer):
    """LeakyReLU whose slope `alpha` is learned, one per input value (or shared along `shared_axes`)."""

    passes_masks = True

    def __init__(
        self,
        alpha_initializer: Any = "Zeros",
        alpha_regularizer: Any = None,
        alpha_constraint: Any = None,
        shared_axes: Any = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.options = WeightOptions(alpha_initializer, alpha_regularizer, alpha_constraint)
        if shared_axes is None or isinstance(shared_axes, list | tuple):
            self.shared_axes = None if shared_axes is None else list(shared_axes)
        else:
            self.shared_axes = [shared_axes]

    def build(self, input_shape: Any) -> None:
        shape = list(input_shape[1:])
        for axis in self.shared_axes or []:
            shape[axis - 1] = 1
        self.alpha = add_weight(self, "alpha", tuple(shape), self.options)

    def call(self, inputs: Any) -> Any:
        return nn_ops.relu(inputs) - self.alpha * nn_ops.relu(-inputs)

    def get_config(self) -> dict[str, Any]:
        return {**super().get_config(), **self.options.config("alpha"), "shared_axes": self.shared_axes}


class ELU(Layer):
    """`x` for positive inputs, `alpha * (exp(x) - 1)` for negative ones."""

    passes_masks = True

    def __init__(self, alpha: float = 1.0, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.alpha = alpha
        self.built = True

    def call(self, inputs: Any) -> Any:
        if self.alpha == 1.0:
            return nn_ops.elu(inputs)
        return where(
            comparisons.greater(inputs, 0.0),
            inputs,
            self.alpha * (unary_math.exp(binary_math.minimum(inputs, 0.0)) - 1.0),
        )

    def get_config(self) -> dict[str, Any]:
        return {**super().get_config(), "alpha": self.alpha}


class ThresholdedReLU(Layer):
    """`x` where `x > theta`, else 0 (tf.keras keeps this layer from Keras 2)."""

    passes_masks = True

    _keras_module = "keras._legacy.layers"

    def __init__(self, theta: float = 1.0, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        if theta is None or theta < 0:
            raise ValueError(f"The theta value of a Thresholded ReLU layer should be >=0. Received: {theta}")
        self.theta = float(theta)

    def call(self, inputs: Any) -> Any:
        return inputs * cast(comparisons.greater(inputs, self.theta), inputs.dtype)

    def get_config(self) -> dict[str, Any]:
        return {**super().get_config(), "theta": self.theta}


class Softmax(Layer):
    """Softmax along `axis` (the last by default)."""

    passes_masks = True

    def __init__(self, axis: int = -1, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.axis = axis
        self.built = True

    def call(self, inputs: Any, mask: Any = None) -> Any:
        """Masked positions (mask False, or at most 0.5) get no share of the softmax and come out as 0."""
        if mask is not None:
            mask = convert_to_tensor(mask)
            _check_broadcastable(mask.shape.as_list(), inputs.shape.as_list())
            if mask.dtype.name != "bool":
                mask = comparisons.greater(mask, cast(0.5, mask.dtype))
            inputs = where(mask, inputs, cast(-1e9, inputs.dtype))
        if isinstance(self.axis, tuple | list) and len(self.axis) > 1:
            outputs = unary_math.exp(inputs - reductions.reduce_logsumexp(inputs, axis=list(self.axis), keepdims=True))
        else:
            outputs = nn_ops.softmax(inputs, axis=self.axis[0] if isinstance(self.axis, tuple | list) else self.axis)
        return outputs if mask is None else where(mask, outputs, cast(0.0, outputs.dtype))

    def get_config(self) -> dict[str, Any]:
        return {**super().get_config(), "axis": self.axis}


def _check_broadcastable(mask_shape: list[Any], input_shape: list[Any]) -> None:
    """Keras's check that a mask given to Softmax broadcasts against the inputs (from the last axis back)."""
    if len(mask_shape) > len(input_shape):
        raise ValueError(
            "The `mask` must be broadcastable to `inputs` and must not have more dimensions. "
            f"Received: inputs.shape={tuple(input_shape)}, mask.shape={tuple(mask_shape)}"
        )
    for mask_dim, input_dim in zip(mask_shape[::-1], input_shape[::-1], strict=False):
        if mask_dim is not None and input_dim is not None and mask_dim not in (1, input_dim):
            raise ValueError(
                "The `mask` must be broadcastable to `inputs`. Each mask dimension must be 1 or match the "
                f"corresponding input dimension. Received: inputs.shape={tuple(input_shape)}, "
                f"mask.shape={tuple(mask_shape)}"
            )
