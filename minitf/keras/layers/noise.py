"""Layers that perturb their input while training only (inference passes it through): dropout of whole
channels (SpatialDropout1D/2D), additive and multiplicative Gaussian noise, and AlphaDropout, which keeps the
mean and variance that SELU networks rely on."""

from __future__ import annotations

import math
from typing import Any

from minitf.keras.layers.core import Dropout
from minitf.keras.layers.input_spec import InputSpec
from minitf.keras.layers.layer import Layer
from minitf.keras.layers.options import channels_last
from minitf.ops.array import join_split, shape_ops
from minitf.ops.math import comparisons
from minitf.ops.math.cast import cast
from minitf.ops.random.random_ops import normal, uniform


class SpatialDropout1D(Dropout):
    """Dropout of whole channels: a dropped feature is zero at every step of the sequence (every pixel)."""

    rank = 1

    def __init__(self, rate: float, seed: int | None = None, name: str | None = None, dtype: Any = None) -> None:
        super().__init__(rate, seed=seed, name=name, dtype=dtype)
        self.input_spec = InputSpec(ndim=self.rank + 2)

    def _noise_shape(self, inputs: Any) -> Any:
        shape = shape_ops.shape(inputs)
        return join_split.stack([shape[0], *[1] * self.rank, shape[-1]])

    def get_config(self) -> dict[str, Any]:
        """Keras writes this layer's config in its own short form (no `trainable`, the dtype as a name)."""
        return {"rate": self.rate, "seed": self.seed, "name": self.name, "dtype": self.dtype}


class SpatialDropout2D(SpatialDropout1D):
    rank = 2

    def __init__(
        self,
        rate: float,
        data_format: str | None = None,
        seed: int | None = None,
        name: str | None = None,
        dtype: Any = None,
    ) -> None:
        super().__init__(rate, seed=seed, name=name, dtype=dtype)
        self.data_format = channels_last(data_format)

    def get_config(self) -> dict[str, Any]:
        return {**super().get_config(), "data_format": self.data_format}


class _Noise(Layer):
    """A training-only perturbation with a rate (or standard deviation) and a seed."""

    amount_name = "rate"

    def __init__(self, amount: float, seed: int | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        if not 0 <= amount <= (math.inf if self.amount_name == "stddev" else 1):
            raise ValueError(
                f"Invalid value received for argument `{self.amount_name}`. Expected a float value between 0 and 1. "
                f"Received: {self.amount_name}={amount}"
            )
        self.amount, self.seed = amount, seed
        self.built = True

    def _perturb(self, inputs: Any) -> Any:
        raise NotImplementedError

    def call(self, inputs: Any, training: bool | None = None) -> Any:
        if training and self.amount > 0:
            return self._perturb(inputs)
        return inputs

    def get_config(self) -> dict[str, Any]:
        return {**super().get_config(), self.amount_name: self.amount, "seed": self.seed}


class GaussianNoise(_Noise):
    """Adds zero-mean Gaussian noise of standard deviation `stddev` (a regularizer, and data augmentation)."""

    amount_name = "stddev"

    def __init__(self, stddev: float, seed: int | None = None, **kwargs: Any) -> None:
        super().__init__(stddev, seed, **kwargs)

    def _perturb(self, inputs: Any) -> Any:
        return inputs + normal(shape_ops.shape(inputs), stddev=self.amount, dtype=inputs.dtype, seed=self.seed)


class GaussianDropout(_Noise):
    """Multiplies by Gaussian noise of mean 1 and standard deviation sqrt(rate / (1 - rate))."""

    def __init__(self, rate: float, seed: int | None = None, **kwargs: Any) -> None:
        super().__init__(rate, seed, **kwargs)

    def _perturb(self, inputs: Any) -> Any:
        stddev = math.sqrt(self.amount / (1.0 - self.amount))
        return inputs * normal(shape_ops.shape(inputs), mean=1.0, stddev=stddev, dtype=inputs.dtype, seed=self.seed)


class AlphaDropout(_Noise):
    """Dropout for SELU networks: dropped values are set to SELU's negative saturation, then an affine map
    restores the input's mean and variance."""

    _keras_module = "keras._legacy.layers"

    def __init__(self, rate: float, noise_shape: Any = None, seed: int | None = None, **kwargs: Any) -> None:
        super().__init__(rate, seed, **kwargs)
        self.noise_shape = noise_shape

    def _perturb(self, inputs: Any) -> Any:
        alpha_p = -1.6732632423543772848170429916717 * 1.0507009873554804934193349852946
        shape = shape_ops.shape(inputs) if self.noise_shape is None else self.noise_shape
        kept = cast(comparisons.greater_equal(uniform(shape, seed=self.seed), self.amount), inputs.dtype)
        scale = ((1 - self.amount) * (1 + self.amount * alpha_p**2)) ** -0.5
        shift = -scale * alpha_p * self.amount
        return scale * (inputs * kept + alpha_p * (1 - kept)) + shift
