"""Layers that rescale their inputs: `Normalization` (statistics of the data, from `adapt`) and
`BatchNormalization` (statistics of each training batch, kept as moving averages for inference)."""

from __future__ import annotations

from typing import Any

import numpy as np

from minitf.keras import backend, initializers
from minitf.keras.layers.layer import Layer
from minitf.ops.math.binary_math import maximum, multiply
from minitf.ops.math.unary_math import rsqrt, sqrt
from minitf.ops.nn.normalization import moments


class Normalization(Layer):
    """`(x - mean) / sqrt(variance)` with the mean and variance of the data given to `adapt`, per feature."""

    def __init__(
        self, axis: int = -1, mean: Any = None, variance: Any = None, invert: bool = False, **kwargs: Any
    ) -> None:
        super().__init__(**kwargs)
        self.axis, self.invert = axis, invert
        self.input_mean, self.input_variance = mean, variance

    def build(self, input_shape: Any) -> None:
        features = (input_shape[self.axis],)
        self.adapt_mean = self.add_weight(features, "zeros", trainable=False, name="mean")
        self.adapt_variance = self.add_weight(features, "ones", trainable=False, name="variance")
        self.count = self.add_weight((), "zeros", dtype="int64", trainable=False, name="count")
        if self.input_mean is not None:
            self.adapt_mean.assign(np.broadcast_to(self.input_mean, features).astype("float32"))
            self.adapt_variance.assign(np.broadcast_to(self.input_variance, features).astype("float32"))

    def adapt(self, data: Any, batch_size: int | None = None, steps: int | None = None) -> None:
        """Measure the mean and (population) variance of `data` over every axis but the feature axis."""
        if hasattr(data, "element_spec"):  # a tf.data.Dataset: its batches, stacked
            data = np.concatenate([np.asarray(batch) for batch in data])
        values = np.asarray(data, dtype="float32")
        if not self.built:
            self._maybe_build(values)
        axes = tuple(i for i in range(values.ndim) if i != values.ndim + self.axis and i != self.axis)
        self.adapt_mean.assign(values.mean(axis=axes, dtype="float64").astype("float32"))
        self.adapt_variance.assign(values.var(axis=axes, dtype="float64").astype("float32"))

    def call(self, inputs: Any) -> Any:
        scale = maximum(sqrt(self.adapt_variance), backend.epsilon())
        if self.invert:
            return inputs * scale + self.adapt_mean
        return (inputs - self.adapt_mean) / scale

    def get_config(self) -> dict[str, Any]:
        return {**super().get_config(), "axis": (self.axis,), "invert": self.invert, "mean": None, "variance": None}

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> Layer:
        config = dict(config)
        if isinstance(config.get("axis"), list | tuple):
            config["axis"] = config["axis"][0]
        return super().from_config(config)


class BatchNormalization(Layer):
    """Training: normalise with the batch's mean and variance and update the moving averages.
    Inference: normalise with the moving averages. Then scale by `gamma` and shift by `beta` (trained)."""

    def __init__(
        self,
        axis: int = -1,
        momentum: float = 0.99,
        epsilon: float = 0.001,
        center: bool = True,
        scale: bool = True,
        beta_initializer: Any = "zeros",
        gamma_initializer: Any = "ones",
        moving_mean_initializer: Any = "zeros",
        moving_variance_initializer: Any = "ones",
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.axis, self.momentum, self.epsilon, self.center, self.scale = axis, momentum, epsilon, center, scale
        self.beta_initializer = initializers.get(beta_initializer)
        self.gamma_initializer = initializers.get(gamma_initializer)
        self.moving_mean_initializer = initializers.get(moving_mean_initializer)
        self.moving_variance_initializer = initializers.get(moving_variance_initializer)

    def build(self, input_shape: Any) -> None:
        features = (input_shape[self.axis],)
        self.gamma = self.add_weight(features, self.gamma_initializer, name="gamma") if self.scale else None
        self.beta = self.add_weight(features, self.beta_initializer, name="beta") if self.center else None
        self.moving_mean = self.add_weight(features, self.moving_mean_initializer, trainable=False, name="moving_mean")
        self.moving_variance = self.add_weight(
            features, self.moving_variance_initializer, trainable=False, name="moving_variance"
        )

    def call(self, inputs: Any, training: bool | None = None) -> Any:
        if training and self.trainable:
            axes = [i for i in range(inputs.shape.rank) if i != inputs.shape.rank + self.axis and i != self.axis]
            mean, variance = moments(inputs, axes)
            self.moving_mean.assign(multiply(self.moving_mean, self.momentum) + mean * (1.0 - self.momentum))
            self.moving_variance.assign(
                multiply(self.moving_variance, self.momentum) + variance * (1.0 - self.momentum)
            )
        else:
            mean, variance = self.moving_mean, self.moving_variance
        inverse = rsqrt(variance + self.epsilon)
        if self.gamma is not None:
            inverse = inverse * self.gamma
        shift = -mean * inverse
        if self.beta is not None:
            shift = shift + self.beta
        return inputs * inverse + shift

    def get_config(self) -> dict[str, Any]:
        return {
            **super().get_config(),
            "axis": self.axis,
            "momentum": self.momentum,
            "epsilon": self.epsilon,
            "center": self.center,
            "scale": self.scale,
        }
