"""`keras.initializers`: how a new weight is filled (Glorot for kernels, zeros for biases, ...).

The numbers come from minitf's own random ops, so they are not Keras's numbers: tests that compare with Keras
give both the same weights with `set_weights` first.
"""

from __future__ import annotations

import math
from typing import Any

from minitf.ops.array.creation import ones, zeros
from minitf.ops.random.random_ops import normal, truncated_normal, uniform


class Initializer:
    """Called as `initializer(shape, dtype)`; returns a tensor of that shape."""

    def __call__(self, shape: Any, dtype: Any = None) -> Any:
        raise NotImplementedError

    def get_config(self) -> dict[str, Any]:
        return {}

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> Initializer:
        return cls(**config)


class Zeros(Initializer):
    def __call__(self, shape: Any, dtype: Any = None) -> Any:
        return zeros(shape, dtype or "float32")


class Ones(Initializer):
    def __call__(self, shape: Any, dtype: Any = None) -> Any:
        return ones(shape, dtype or "float32")


class RandomNormal(Initializer):
    def __init__(self, mean: float = 0.0, stddev: float = 0.05, seed: int | None = None) -> None:
        self.mean, self.stddev, self.seed = mean, stddev, seed

    def __call__(self, shape: Any, dtype: Any = None) -> Any:
        return normal(shape, self.mean, self.stddev, dtype or "float32", seed=self.seed)

    def get_config(self) -> dict[str, Any]:
        return {"mean": self.mean, "stddev": self.stddev, "seed": self.seed}


class RandomUniform(Initializer):
    def __init__(self, minval: float = -0.05, maxval: float = 0.05, seed: int | None = None) -> None:
        self.minval, self.maxval, self.seed = minval, maxval, seed

    def __call__(self, shape: Any, dtype: Any = None) -> Any:
        return uniform(shape, self.minval, self.maxval, dtype or "float32", seed=self.seed)

    def get_config(self) -> dict[str, Any]:
        return {"minval": self.minval, "maxval": self.maxval, "seed": self.seed}


def compute_fans(shape: Any) -> tuple[int, int]:
    """(fan_in, fan_out): inputs and outputs one unit sees; a conv kernel's window counts for both."""
    shape = tuple(shape)
    if len(shape) == 0:
        return 1, 1
    if len(shape) == 1:
        return shape[0], shape[0]
    receptive_field = math.prod(shape[:-2])
    return shape[-2] * receptive_field, shape[-1] * receptive_field


class VarianceScaling(Initializer):
    """Random values whose variance is `scale / fan` (the rule behind Glorot and He)."""

    def __init__(
        self, scale: float = 1.0, mode: str = "fan_in", distribution: str = "truncated_normal", seed: int | None = None
    ) -> None:
        self.scale, self.mode, self.distribution, self.seed = scale, mode, distribution, seed

    def __call__(self, shape: Any, dtype: Any = None) -> Any:
        fan_in, fan_out = compute_fans(shape)
        fan = {"fan_in": fan_in, "fan_out": fan_out, "fan_avg": (fan_in + fan_out) / 2.0}[self.mode]
        variance = self.scale / max(1.0, fan)
        dtype = dtype or "float32"
        if self.distribution == "uniform":
            limit = math.sqrt(3.0 * variance)
            return uniform(shape, -limit, limit, dtype, seed=self.seed)
        if self.distribution == "truncated_normal":
            # 0.8796... is the standard deviation of a unit normal cut at two standard deviations
            stddev = math.sqrt(variance) / 0.87962566103423978
            return truncated_normal(shape, 0.0, stddev, dtype, seed=self.seed)
        return normal(shape, 0.0, math.sqrt(variance), dtype, seed=self.seed)

    def get_config(self) -> dict[str, Any]:
        return {"scale": self.scale, "mode": self.mode, "distribution": self.distribution, "seed": self.seed}


class _Preset(VarianceScaling):
    """A named choice of scale, fan and distribution: only the seed is configurable."""

    preset: tuple[float, str, str] = (1.0, "fan_avg", "uniform")

    def __init__(self, seed: int | None = None) -> None:
        super().__init__(*self.preset, seed=seed)

    def get_config(self) -> dict[str, Any]:
        return {"seed": self.seed}


class GlorotUniform(_Preset):
    preset = (1.0, "fan_avg", "uniform")


class GlorotNormal(_Preset):
    preset = (1.0, "fan_avg", "truncated_normal")


class HeNormal(_Preset):
    preset = (2.0, "fan_in", "truncated_normal")


class HeUniform(_Preset):
    preset = (2.0, "fan_in", "uniform")


_BY_NAME: dict[str, type[Initializer]] = {
    "zeros": Zeros,
    "ones": Ones,
    "random_normal": RandomNormal,
    "random_uniform": RandomUniform,
    "uniform": RandomUniform,
    "normal": RandomNormal,
    "glorot_uniform": GlorotUniform,
    "glorot_normal": GlorotNormal,
    "he_normal": HeNormal,
    "he_uniform": HeUniform,
}
ALL = [Zeros, Ones, RandomNormal, RandomUniform, VarianceScaling, GlorotUniform, GlorotNormal, HeNormal, HeUniform]


def get(identifier: Any) -> Initializer:
    """An initializer from a name (`"glorot_uniform"`), an instance or a callable, as layers accept them."""
    if isinstance(identifier, str):
        key = identifier.lower()
        if key not in _BY_NAME:
            raise ValueError(f"Could not interpret initializer identifier: {identifier}")
        return _BY_NAME[key]()
    if callable(identifier):
        return identifier
    raise ValueError(f"Could not interpret initializer identifier: {identifier}")
