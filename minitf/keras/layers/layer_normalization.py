"""Normalizations within each example (no batch statistics, so training and inference compute the same):
LayerNormalization (over the features), GroupNormalization (over groups of channels), UnitNormalization
(to unit length) and RMSNormalization (by the root mean square)."""

from __future__ import annotations

from typing import Any

from minitf.keras.layers.layer import Layer
from minitf.keras.layers.options import WeightOptions, add_weight
from minitf.ops.array import shape_ops
from minitf.ops.linalg.norms import l2_normalize
from minitf.ops.math import reductions, unary_math
from minitf.ops.nn.normalization import moments


def _axes(axis: Any, rank: int) -> list[int]:
    return sorted(x % rank for x in (axis if isinstance(axis, list | tuple) else [axis]))


class _ScaleShift(Layer):
    """A normalization followed by a learned per-feature scale `gamma` and shift `beta`."""

    def __init__(
        self,
        epsilon: float = 0.001,
        center: bool = True,
        scale: bool = True,
        beta_initializer: Any = "zeros",
        gamma_initializer: Any = "ones",
        beta_regularizer: Any = None,
        gamma_regularizer: Any = None,
        beta_constraint: Any = None,
        gamma_constraint: Any = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.epsilon, self.center, self.scale = epsilon, center, scale
        self.beta_options = WeightOptions(beta_initializer, beta_regularizer, beta_constraint)
        self.gamma_options = WeightOptions(gamma_initializer, gamma_regularizer, gamma_constraint)

    def _add_scale_shift(self, shape: tuple, shift: bool = True) -> None:
        self.gamma = add_weight(self, "gamma", shape, self.gamma_options) if self.scale else None
        self.beta = add_weight(self, "beta", shape, self.beta_options) if self.center and shift else None

    def _scale_shift(self, x: Any, broadcast: list[int]) -> Any:
        if self.gamma is not None:
            x = x * shape_ops.reshape(self.gamma, broadcast)
        if self.beta is not None:
            x = x + shape_ops.reshape(self.beta, broadcast)
        return x

    def _options_config(self) -> dict[str, Any]:
        beta, gamma = self.beta_options.config("beta"), self.gamma_options.config("gamma")
        return {
            "beta_initializer": beta["beta_initializer"],
            "gamma_initializer": gamma["gamma_initializer"],
            "beta_regularizer": beta["beta_regularizer"],
            "gamma_regularizer": gamma["gamma_regularizer"],
            "beta_constraint": beta["beta_constraint"],
            "gamma_constraint": gamma["gamma_constraint"],
        }


class LayerNormalization(_ScaleShift):
    """Each example normalized to mean 0 and variance 1 over `axis` (the features), then scaled and shifted."""

    def __init__(self, axis: Any = -1, epsilon: float = 0.001, rms_scaling: bool = False, **kwargs: Any) -> None:
        super().__init__(epsilon, **kwargs)
        self.axis = list(axis) if isinstance(axis, list | tuple) else axis
        self.rms_scaling = rms_scaling

    def build(self, input_shape: Any) -> None:
        axes = _axes(self.axis, len(input_shape))
        self._add_scale_shift(tuple(input_shape[i] for i in axes), shift=not self.rms_scaling)

    def call(self, inputs: Any) -> Any:
        rank = inputs.shape.rank
        axes = _axes(self.axis, rank)
        broadcast = [inputs.shape.as_list()[i] if i in axes else 1 for i in range(rank)]
        mean, variance = moments(inputs, axes, keepdims=True)
        if self.rms_scaling:  # Keras's (deprecated) form: the input, not centred, divided by the deviation
            x = inputs * unary_math.rsqrt(variance + self.epsilon)
            return x * shape_ops.reshape(self.gamma, broadcast) if self.gamma is not None else x
        return self._scale_shift((inputs - mean) * unary_math.rsqrt(variance + self.epsilon), broadcast)

    def get_config(self) -> dict[str, Any]:
        axis = self.axis if isinstance(self.axis, list) else [self.axis]
        return {
            **super().get_config(),
            "axis": axis,
            "epsilon": self.epsilon,
            "center": self.center,
            "scale": self.scale,
            "rms_scaling": self.rms_scaling,
            **self._options_config(),
        }


class GroupNormalization(_ScaleShift):
    """The channels split into `groups`; each example normalized within each group (over its positions too)."""

    def __init__(self, groups: int = 32, axis: int = -1, epsilon: float = 0.001, **kwargs: Any) -> None:
        super().__init__(epsilon, **kwargs)
        self.groups, self.axis = int(groups), axis

    def build(self, input_shape: Any) -> None:
        channels = input_shape[self.axis]
        if channels is None:
            raise ValueError(
                f"Axis {self.axis} of input tensor should have a defined dimension but the layer received an input "
                f"with shape {input_shape}."
            )
        if channels < self.groups:
            raise ValueError(
                f"Number of groups ({self.groups}) cannot be more than the number of channels ({channels})."
            )
        if channels % self.groups:
            raise ValueError(
                f"Number of groups ({self.groups}) must be a multiple of the number of channels ({channels})."
            )
        self._add_scale_shift((channels,))

    def call(self, inputs: Any) -> Any:
        shape = inputs.shape.as_list()
        rank, axis = len(shape), self.axis % len(shape)
        grouped_shape = [-1, *shape[1:axis], self.groups, shape[axis] // self.groups, *shape[axis + 1 :]]
        grouped = shape_ops.reshape(inputs, grouped_shape)
        axes = [i for i in range(1, rank + 1) if i != axis]
        mean, variance = moments(grouped, axes, keepdims=True)
        normalized = shape_ops.reshape((grouped - mean) * unary_math.rsqrt(variance + self.epsilon), [-1, *shape[1:]])
        return self._scale_shift(normalized, [shape[i] if i == axis else 1 for i in range(rank)])

    def get_config(self) -> dict[str, Any]:
        return {
            **super().get_config(),
            "groups": self.groups,
            "axis": self.axis,
            "epsilon": self.epsilon,
            "center": self.center,
            "scale": self.scale,
            **self._options_config(),
        }


class UnitNormalization(Layer):
    """Each example scaled to Euclidean length 1 along `axis`."""

    def __init__(self, axis: Any = -1, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.axis = list(axis) if isinstance(axis, list | tuple) else axis
        self.built = True

    def call(self, inputs: Any) -> Any:
        return l2_normalize(inputs, axis=self.axis, epsilon=1e-12)

    def get_config(self) -> dict[str, Any]:
        return {**super().get_config(), "axis": self.axis}


class RMSNormalization(Layer):
    """Each example divided by its root mean square over `axis`, then scaled by a learned `scale`."""

    def __init__(self, axis: Any = -1, epsilon: float = 1e-6, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.axis, self.epsilon = axis, epsilon

    def build(self, input_shape: Any) -> None:
        axes = _axes(self.axis, len(input_shape))
        self.scale = self.add_weight(tuple(input_shape[i] for i in axes), "ones", name="scale")

    def call(self, inputs: Any) -> Any:
        rank = inputs.shape.rank
        axes = _axes(self.axis, rank)
        broadcast = [inputs.shape.as_list()[i] if i in axes else 1 for i in range(rank)]
        x = inputs * unary_math.rsqrt(
            reductions.reduce_mean(unary_math.square(inputs), axis=axes, keepdims=True) + self.epsilon
        )
        return x * shape_ops.reshape(self.scale, broadcast)

    def get_config(self) -> dict[str, Any]:
        axis = list(self.axis) if isinstance(self.axis, list | tuple) else [self.axis]
        return {**super().get_config(), "axis": axis, "epsilon": self.epsilon}
