"""Layers that rescale their inputs: `Normalization` (statistics of the data, from `adapt`) and
`BatchNormalization` (statistics of each training batch, kept as moving averages for inference)."""

from __future__ import annotations

from typing import Any

import numpy as np

import minitf.keras.backend as backend
from minitf.keras.layers.layer import Layer
from minitf.keras.layers.options import WeightOptions, add_weight
from minitf.ops.array.shape_ops import reshape
from minitf.ops.math.binary_math import maximum, multiply
from minitf.ops.math.unary_math import rsqrt, sqrt
from minitf.ops.nn.normalization import moments


class Normalization(Layer):
    """`(x - mean) / sqrt(variance)` with the mean and variance of the data given to `adapt`, per feature."""

    takes_plain_values = True  # as Keras's preprocessing layers: called on lists and strings too

    def __init__(
        self, axis: int = -1, mean: Any = None, variance: Any = None, invert: bool = False, **kwargs: Any
    ) -> None:
        super().__init__(**kwargs)
        self.axis, self.invert = axis, invert
        self.input_mean, self.input_variance = mean, variance

    @property
    def mean(self) -> Any:
        """The adapted (or given) mean, shaped to broadcast against an input, as Keras shows it; None unbuilt."""
        return reshape(self.adapt_mean, self._statistics_shape) if self.built else None

    @property
    def variance(self) -> Any:
        return reshape(self.adapt_variance, self._statistics_shape) if self.built else None

    def build(self, input_shape: Any) -> None:
        features = (input_shape[self.axis],)
        self._statistics_shape = [1] * len(input_shape)
        self._statistics_shape[self.axis] = input_shape[self.axis]
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
        beta_regularizer: Any = None,
        gamma_regularizer: Any = None,
        beta_constraint: Any = None,
        gamma_constraint: Any = None,
        synchronized: bool = False,
        **kwargs: Any,
    ) -> None:
        for unsupported in ("renorm", "renorm_clipping"):
            if kwargs.pop(unsupported, None):
                raise ValueError(f"minitf's BatchNormalization leaves out batch renormalization (`{unsupported}`).")
        kwargs.pop("renorm_momentum", None)
        super().__init__(**kwargs)
        self.axis, self.momentum, self.epsilon, self.center, self.scale = axis, momentum, epsilon, center, scale
        self.synchronized = synchronized
        self.beta_options = WeightOptions(beta_initializer, beta_regularizer, beta_constraint)
        self.gamma_options = WeightOptions(gamma_initializer, gamma_regularizer, gamma_constraint)
        self.moving_mean_options = WeightOptions(moving_mean_initializer)
        self.moving_variance_options = WeightOptions(moving_variance_initializer)

    def build(self, input_shape: Any) -> None:
        features = (input_shape[self.axis],)
        self.gamma = add_weight(self, "gamma", features, self.gamma_options) if self.scale else None
        self.beta = add_weight(self, "beta", features, self.beta_options) if self.center else None
        self.moving_mean = add_weight(self, "moving_mean", features, self.moving_mean_options, trainable=False)
        self.moving_variance = add_weight(
            self, "moving_variance", features, self.moving_variance_options, trainable=False
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
        return _normalized(inputs, mean, variance, self.gamma, self.beta, self.epsilon, self._broadcast(inputs))

    def _broadcast(self, inputs: Any) -> list[int]:
        """The shape that lines per-feature statistics up with the feature axis of `inputs`."""
        rank = inputs.shape.rank
        axis = self.axis % rank
        return [inputs.shape.as_list()[i] if i == axis else 1 for i in range(rank)]

    def get_config(self) -> dict[str, Any]:
        return {
            **super().get_config(),
            "axis": self.axis,
            "momentum": self.momentum,
            "epsilon": self.epsilon,
            "center": self.center,
            "scale": self.scale,
            "beta_initializer": self.beta_options.config("beta")["beta_initializer"],
            "gamma_initializer": self.gamma_options.config("gamma")["gamma_initializer"],
            "moving_mean_initializer": self.moving_mean_options.config("m")["m_initializer"],
            "moving_variance_initializer": self.moving_variance_options.config("m")["m_initializer"],
            "beta_regularizer": self.beta_options.config("beta")["beta_regularizer"],
            "gamma_regularizer": self.gamma_options.config("gamma")["gamma_regularizer"],
            "beta_constraint": self.beta_options.config("beta")["beta_constraint"],
            "gamma_constraint": self.gamma_options.config("gamma")["gamma_constraint"],
            "synchronized": self.synchronized,
            "renorm": False,
            "renorm_clipping": None,
            "renorm_momentum": 0.99,
        }


def _normalized(inputs: Any, mean: Any, variance: Any, gamma: Any, beta: Any, epsilon: float, shape: list[int]) -> Any:
    """`(inputs - mean) / sqrt(variance + epsilon) * gamma + beta`, statistics reshaped to `shape` to line up."""
    inverse = rsqrt(variance + epsilon)
    if gamma is not None:
        inverse = inverse * gamma
    shift = -mean * inverse
    if beta is not None:
        shift = shift + beta
    return inputs * reshape(inverse, shape) + reshape(shift, shape)
