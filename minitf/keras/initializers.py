"""`keras.initializers`: how a new weight is filled (Glorot for kernels, zeros for biases, ...).

The numbers come from minitf's own random ops, so they are not Keras's numbers: tests that compare with Keras
give both the same weights with `set_weights` first.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

import minitf.keras.naming as naming
import minitf.left_out as left_out
import minitf.ops.array.creation as creation
import minitf.ops.random.random_ops as random_ops
from minitf.core.conversion import convert_to_tensor
from minitf.keras.identifiers import Family
from minitf.ops.linalg.factorizations import qr

_STFT = "short-time Fourier transform kernels need SciPy's window functions, which minitf does not depend on"
LEFT_OUT: dict[str, str] = {"STFT": _STFT, "STFTInitializer": _STFT, "stft": _STFT}
__getattr__ = left_out.module_getattr("tf.keras.initializers", LEFT_OUT)


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
        return creation.zeros(shape, dtype or "float32")


class Ones(Initializer):
    def __call__(self, shape: Any, dtype: Any = None) -> Any:
        return creation.ones(shape, dtype or "float32")


class Constant(Initializer):
    """Every entry `value`."""

    def __init__(self, value: Any = 0.0) -> None:
        self.value = value

    def __call__(self, shape: Any, dtype: Any = None) -> Any:
        return creation.fill(shape, convert_to_tensor(self.value, dtype or "float32"))

    def get_config(self) -> dict[str, Any]:
        return {"value": self.value}

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> Constant:
        return cls(config["value"])  # a KeyError without a value, as in Keras (so get("constant") fails there too)


class Identity(Initializer):
    """`gain` times the identity matrix (2-D shapes only)."""

    def __init__(self, gain: float = 1.0) -> None:
        self.gain = gain

    def __call__(self, shape: Any, dtype: Any = None) -> Any:
        shape = tuple(shape)
        if len(shape) != 2:
            raise ValueError(
                "Identity matrix initializer can only be used for 2D matrices. "
                f"Received: shape={shape} of rank {len(shape)}."
            )
        return self.gain * creation.eye(shape[0], shape[1], dtype=dtype or "float32")


class RandomNormal(Initializer):
    def __init__(self, mean: float = 0.0, stddev: float = 0.05, seed: int | None = None) -> None:
        self.mean, self.stddev, self.seed = mean, stddev, seed

    def __call__(self, shape: Any, dtype: Any = None) -> Any:
        return random_ops.normal(shape, self.mean, self.stddev, dtype or "float32", seed=self.seed)

    def get_config(self) -> dict[str, Any]:
        return {"seed": self.seed, "mean": self.mean, "stddev": self.stddev}


class TruncatedNormal(RandomNormal):
    """Normal values redrawn when more than two standard deviations from the mean."""

    def __call__(self, shape: Any, dtype: Any = None) -> Any:
        return random_ops.truncated_normal(shape, self.mean, self.stddev, dtype or "float32", seed=self.seed)


class RandomUniform(Initializer):
    def __init__(self, minval: float = -0.05, maxval: float = 0.05, seed: int | None = None) -> None:
        self.minval, self.maxval, self.seed = minval, maxval, seed

    def __call__(self, shape: Any, dtype: Any = None) -> Any:
        return random_ops.uniform(shape, self.minval, self.maxval, dtype or "float32", seed=self.seed)

    def get_config(self) -> dict[str, Any]:
        return {"seed": self.seed, "minval": self.minval, "maxval": self.maxval}


class Orthogonal(Initializer):
    """A random orthogonal matrix (rows or columns orthonormal), times `gain`: the Q of a normal matrix's QR."""

    def __init__(self, gain: float = 1.0, seed: int | None = None) -> None:
        self.gain, self.seed = gain, seed

    def __call__(self, shape: Any, dtype: Any = None) -> Any:
        shape = tuple(shape)
        if len(shape) < 2:
            raise ValueError(
                "The tensor to initialize must be at least two-dimensional. "
                f"Received: shape={shape} of rank {len(shape)}."
            )
        rows, columns = math.prod(shape[:-1]), shape[-1]
        flat = (max(rows, columns), min(rows, columns))
        q, r = qr(random_ops.normal(flat, dtype="float32", seed=self.seed))
        q = q * np.sign(np.diag(r.numpy()))  # signs fixed so the distribution is uniform over orthogonal matrices
        q = q.numpy().T if rows < columns else q.numpy()
        return convert_to_tensor(self.gain * q.reshape(shape), dtype or "float32")

    def get_config(self) -> dict[str, Any]:
        return {"seed": self.seed, "gain": self.gain}


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
        self,
        scale: float = 1.0,
        mode: str = "fan_in",
        distribution: str = "truncated_normal",
        seed: int | None = None,
        input_axes: Any = None,
        output_axes: Any = None,
    ) -> None:
        if input_axes is not None or output_axes is not None:
            raise ValueError("minitf does not implement `input_axes` and `output_axes`: leave them at None")
        self.scale, self.mode, self.distribution, self.seed = scale, mode, distribution, seed
        self.input_axes, self.output_axes = input_axes, output_axes

    def __call__(self, shape: Any, dtype: Any = None) -> Any:
        fan_in, fan_out = compute_fans(shape)
        fan = {"fan_in": fan_in, "fan_out": fan_out, "fan_avg": (fan_in + fan_out) / 2.0}[self.mode]
        variance = self.scale / max(1.0, fan)
        dtype = dtype or "float32"
        if self.distribution == "uniform":
            limit = math.sqrt(3.0 * variance)
            return random_ops.uniform(shape, -limit, limit, dtype, seed=self.seed)
        if self.distribution == "truncated_normal":
            # 0.8796... is the standard deviation of a unit normal cut at two standard deviations
            stddev = math.sqrt(variance) / 0.87962566103423978
            return random_ops.truncated_normal(shape, 0.0, stddev, dtype, seed=self.seed)
        return random_ops.normal(shape, 0.0, math.sqrt(variance), dtype, seed=self.seed)

    def get_config(self) -> dict[str, Any]:
        return {
            "seed": self.seed,
            "scale": self.scale,
            "mode": self.mode,
            "distribution": self.distribution,
            "input_axes": None,
            "output_axes": None,
        }


class _Preset(VarianceScaling):
    """A named choice of scale, fan and distribution: only the seed is configurable."""

    preset: tuple[float, str, str] = (1.0, "fan_avg", "uniform")

    def __init__(self, seed: int | None = None, input_axes: Any = None, output_axes: Any = None) -> None:
        super().__init__(*self.preset, seed=seed, input_axes=input_axes, output_axes=output_axes)

    def get_config(self) -> dict[str, Any]:
        return {"seed": self.seed, "input_axes": None, "output_axes": None}


class GlorotUniform(_Preset):
    preset = (1.0, "fan_avg", "uniform")


class GlorotNormal(_Preset):
    preset = (1.0, "fan_avg", "truncated_normal")


class HeNormal(_Preset):
    preset = (2.0, "fan_in", "truncated_normal")


class HeUniform(_Preset):
    preset = (2.0, "fan_in", "uniform")


class LecunNormal(_Preset):
    preset = (1.0, "fan_in", "truncated_normal")


class LecunUniform(_Preset):
    preset = (1.0, "fan_in", "uniform")


ALL: list[type[Initializer]] = [
    Constant,
    GlorotNormal,
    GlorotUniform,
    HeNormal,
    HeUniform,
    Identity,
    LecunNormal,
    LecunUniform,
    Ones,
    Orthogonal,
    RandomNormal,
    RandomUniform,
    TruncatedNormal,
    VarianceScaling,
    Zeros,
]
IdentityInitializer, OrthogonalInitializer = Identity, Orthogonal
BY_NAME: dict[str, type[Initializer]] = {
    **{cls.__name__: cls for cls in [*ALL, Initializer]},
    **{naming.snake_case(cls.__name__): cls for cls in [*ALL, Initializer]},
    "IdentityInitializer": Identity,
    "OrthogonalInitializer": Orthogonal,
    "zero": Zeros,
    "one": Ones,
    "normal": RandomNormal,
    "uniform": RandomUniform,
}
# The lower-case names are the classes too: `keras.initializers.glorot_uniform(seed=1)` makes one.
constant, glorot_normal, glorot_uniform, he_normal, he_uniform = (
    Constant,
    GlorotNormal,
    GlorotUniform,
    HeNormal,
    HeUniform,
)
identity, lecun_normal, lecun_uniform, ones, orthogonal = Identity, LecunNormal, LecunUniform, Ones, Orthogonal
random_normal, random_uniform, truncated_normal, variance_scaling = (
    RandomNormal,
    RandomUniform,
    TruncatedNormal,
    VarianceScaling,
)
zeros = Zeros


_FAMILY = Family("initializer", "keras.initializers", BY_NAME, LEFT_OUT)
serialize, deserialize, get = _FAMILY.serialize, _FAMILY.deserialize, _FAMILY.get
