"""Convolution layers over sequences (1-D: batch, steps, channels) and images (2-D: batch, rows, cols, channels).

Every variant is computed with minitf's one convolution op (tf.nn.conv2d, conv_ops.py; 1-D inputs get a
height of 1), so gradients come from that op's:

* `groups` splits the channels into groups convolved separately: the kernel is widened to all input channels
  with zeros outside each group's block;
* a depthwise convolution is a grouped one with one group per input channel;
* a separable convolution is a depthwise one followed by a 1x1 convolution;
* a transposed convolution (the shape-inverse of a strided one) spreads the input out with zeros between
  its values, pads it and convolves with the kernel flipped.
"""

from __future__ import annotations

from typing import Any

import numpy as np

import minitf.keras.activations as activations
import minitf.keras.regularizers as regularizers
from minitf.keras.layers.input_spec import InputSpec
from minitf.keras.layers.layer import Layer
from minitf.keras.layers.options import WeightOptions, add_weight, channels_last, int_tuple, padding_mode
from minitf.keras.serialization import serialize
from minitf.ops.array import creation, shape_ops, slicing, tile_pad
from minitf.ops.nn.conv_ops import conv2d


def grouped_kernel(kernel: Any, groups: int) -> Any:
    """(..., in/groups, out) -> (..., in, out), zero where an input channel is outside the output's group."""
    *window, per_group, out = kernel.shape.as_list()
    channels = per_group * groups
    mask = (np.arange(channels)[:, None] // per_group == np.arange(out)[None, :] // (out // groups)).astype("float32")
    return tile_pad.tile(kernel, [1] * len(window) + [groups, 1]) * creation.constant(
        mask.astype(kernel.dtype.as_numpy_dtype)
    )


def as_images(x: Any, rank: int) -> Any:
    return shape_ops.expand_dims(x, 1) if rank == 1 else x


def from_images(x: Any, rank: int) -> Any:
    return shape_ops.squeeze(x, [1]) if rank == 1 else x


def spread(x: Any, axis: int, step: int) -> Any:
    """`step - 1` zeros between neighbouring entries along `axis` (which must not be the batch axis)."""
    if step == 1:
        return x
    shape = x.shape.as_list()
    widened = tile_pad.pad(
        shape_ops.expand_dims(x, axis + 1), [[0, 0]] * (axis + 1) + [[0, step - 1]] + [[0, 0]] * (len(shape) - axis - 1)
    )
    merged = shape_ops.reshape(
        widened, [-1 if d is None else d for d in shape[:axis]] + [shape[axis] * step] + shape[axis + 1 :]
    )
    index = [slice(None)] * axis + [slice(0, (shape[axis] - 1) * step + 1)]
    return slicing.getitem(merged, tuple(index))


def convolve(x: Any, kernel: Any, rank: int, strides: tuple, padding: str, dilations: tuple) -> Any:
    """A channels-last convolution of rank 1 or 2 with a (window..., in, out) kernel. A dilated kernel is
    computed as the kernel with zeros between its taps, which the convolution op's gradients handle."""
    images, kernel = as_images(x, rank), (shape_ops.expand_dims(kernel, 0) if rank == 1 else kernel)
    strides, dilations = ((1, *strides) if rank == 1 else strides), ((1, *dilations) if rank == 1 else dilations)
    for axis, step in enumerate(dilations):
        kernel = spread(kernel, axis, step)
    if padding == "causal":  # zeros before each sequence, so no step sees a later one
        before = kernel.shape.as_list()[1] - 1
        images = tile_pad.pad(images, [[0, 0], [0, 0], [before, 0], [0, 0]])
        padding = "valid"
    return from_images(conv2d(images, kernel, strides=[1, *strides, 1], padding=padding.upper()), rank)


class BaseConv(Layer):
    """What every convolution layer shares: arguments, the bias, the activation and the config."""

    rank = 2
    paddings: tuple[str, ...] = ("valid", "same")
    kernel_names: tuple[str, ...] = ("kernel",)

    def __init__(
        self,
        kernel_size: Any,
        strides: Any = 1,
        padding: str = "valid",
        data_format: str | None = None,
        dilation_rate: Any = 1,
        activation: Any = None,
        use_bias: bool = True,
        bias_initializer: Any = "zeros",
        bias_regularizer: Any = None,
        activity_regularizer: Any = None,
        bias_constraint: Any = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.kernel_size = int_tuple(kernel_size, self.rank, "kernel_size")
        self.strides = int_tuple(strides, self.rank, "strides")
        self.padding = padding_mode(padding, self.paddings)
        self.data_format = channels_last(data_format)
        self.dilation_rate = int_tuple(dilation_rate, self.rank, "dilation_rate")
        self.activation = activations.get(activation)
        self.use_bias = use_bias
        self.bias_options = WeightOptions(bias_initializer, bias_regularizer, bias_constraint)
        self.activity_regularizer = regularizers.get(activity_regularizer)
        self.input_spec = InputSpec(min_ndim=self.rank + 2)
        self.kernel_options: dict[str, WeightOptions] = {}

    def _add_bias(self, size: int) -> None:
        self.bias = add_weight(self, "bias", (size,), self.bias_options) if self.use_bias else None
        self.input_spec = InputSpec(min_ndim=self.rank + 2, axes={-1: self._input_channels})

    def _convolve(self, inputs: Any) -> Any:
        raise NotImplementedError

    def call(self, inputs: Any) -> Any:
        out = self._convolve(inputs)
        if self.bias is not None:
            out = out + self.bias
        out = self.activation(out)
        if self.activity_regularizer is not None:
            self.add_loss(self.activity_regularizer(out))
        return out

    def _check_input_channels(self, input_shape: Any) -> int:
        channels = input_shape[-1]
        if channels is None:
            raise ValueError(
                f"The last dimension of the inputs to `{type(self).__name__}` should be defined. Found `None`."
            )
        self._input_channels = int(channels)
        return self._input_channels

    def get_config(self) -> dict[str, Any]:
        weights = [self.kernel_options[name] for name in self.kernel_names] + [self.bias_options]
        prefixes = [*self.kernel_names_in_config(), "bias"]
        entries: dict[str, Any] = {}
        for kind in ("initializer", "regularizer"):
            for prefix, options in zip(prefixes, weights, strict=True):
                entries[f"{prefix}_{kind}"] = options.config(prefix)[f"{prefix}_{kind}"]
        entries["activity_regularizer"] = serialize(self.activity_regularizer, "keras.regularizers")
        for prefix, options in zip(prefixes, weights, strict=True):
            entries[f"{prefix}_constraint"] = options.config(prefix)[f"{prefix}_constraint"]
        return {**super().get_config(), **self._shape_config(), **entries}

    def kernel_names_in_config(self) -> tuple[str, ...]:
        return tuple(name.replace("_kernel", "") for name in self.kernel_names)

    def _shape_config(self) -> dict[str, Any]:
        return {
            "kernel_size": self.kernel_size,
            "strides": self.strides,
            "padding": self.padding,
            "data_format": self.data_format,
            "dilation_rate": self.dilation_rate,
            "activation": activations.serialize(self.activation),
            "use_bias": self.use_bias,
        }


class Conv(BaseConv):
    """`filters` kernels slid over the input: each output channel sums every input channel (of its group)."""

    def __init__(
        self,
        filters: int,
        kernel_size: Any,
        strides: Any = 1,
        padding: str = "valid",
        data_format: str | None = None,
        dilation_rate: Any = 1,
        groups: int = 1,
        activation: Any = None,
        use_bias: bool = True,
        kernel_initializer: Any = "glorot_uniform",
        kernel_regularizer: Any = None,
        kernel_constraint: Any = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(kernel_size, strides, padding, data_format, dilation_rate, activation, use_bias, **kwargs)
        self.filters, self.groups = int(filters), int(groups)
        if self.filters <= 0:
            raise ValueError(
                f"Invalid value for argument `filters`. Expected a strictly positive value. Received filters={filters}."
            )
        if self.filters % self.groups:
            raise ValueError(
                f"The number of filters must be evenly divisible by the number of groups. Received: "
                f"groups={groups}, filters={filters}."
            )
        self.kernel_options = {"kernel": WeightOptions(kernel_initializer, kernel_regularizer, kernel_constraint)}

    def build(self, input_shape: Any) -> None:
        channels = self._check_input_channels(input_shape)
        if channels % self.groups:
            raise ValueError(
                f"The number of input channels must be evenly divisible by the number of groups. Received "
                f"groups={self.groups}, but the input has {channels} channels (full input shape is {input_shape})."
            )
        shape = (*self.kernel_size, channels // self.groups, self.filters)
        self.kernel = add_weight(self, "kernel", shape, self.kernel_options["kernel"])
        self._add_bias(self.filters)

    def _convolve(self, inputs: Any) -> Any:
        kernel = self.kernel if self.groups == 1 else grouped_kernel(self.kernel, self.groups)
        return convolve(inputs, kernel, self.rank, self.strides, self.padding, self.dilation_rate)

    def _shape_config(self) -> dict[str, Any]:
        shape = super()._shape_config()
        activation, use_bias = shape.pop("activation"), shape.pop("use_bias")
        return {"filters": self.filters, **shape, "groups": self.groups, "activation": activation, "use_bias": use_bias}


class Conv1D(Conv):
    """1-D convolution over sequences; `padding="causal"` lets each step see only itself and earlier steps."""

    rank = 1
    paddings = ("valid", "same", "causal")


class Conv2D(Conv):
    """2-D convolution over images, the layer of convolutional networks."""

    rank = 2


class DepthwiseConv(BaseConv):
    """Each input channel convolved with its own `depth_multiplier` kernels, channels never mixed."""

    kernel_names: tuple[str, ...] = ("depthwise_kernel",)

    def __init__(
        self,
        kernel_size: Any,
        strides: Any = 1,
        padding: str = "valid",
        depth_multiplier: int = 1,
        data_format: str | None = None,
        dilation_rate: Any = 1,
        activation: Any = None,
        use_bias: bool = True,
        depthwise_initializer: Any = "glorot_uniform",
        depthwise_regularizer: Any = None,
        depthwise_constraint: Any = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(kernel_size, strides, padding, data_format, dilation_rate, activation, use_bias, **kwargs)
        self.depth_multiplier = int(depth_multiplier)
        self.kernel_options = {
            "depthwise_kernel": WeightOptions(depthwise_initializer, depthwise_regularizer, depthwise_constraint)
        }

    def build(self, input_shape: Any) -> None:
        channels = self._check_input_channels(input_shape)
        shape = (*self.kernel_size, channels, self.depth_multiplier)
        self.kernel = add_weight(self, "kernel", shape, self.kernel_options["depthwise_kernel"])
        self._add_bias(channels * self.depth_multiplier)

    def _convolve(self, inputs: Any) -> Any:
        return depthwise(inputs, self.kernel, self.rank, self.strides, self.padding, self.dilation_rate)

    def kernel_names_in_config(self) -> tuple[str, ...]:
        return ("depthwise",)

    def _shape_config(self) -> dict[str, Any]:
        return {"depth_multiplier": self.depth_multiplier, **super()._shape_config()}


def depthwise(inputs: Any, kernel: Any, rank: int, strides: tuple, padding: str, dilations: tuple) -> Any:
    """A depthwise convolution: the (window..., channels, multiplier) kernel as a grouped one, a group a channel."""
    *window, channels, multiplier = kernel.shape.as_list()
    flat = shape_ops.reshape(kernel, [*window, 1, channels * multiplier])
    return convolve(inputs, grouped_kernel(flat, channels), rank, strides, padding, dilations)


class DepthwiseConv1D(DepthwiseConv):
    rank = 1


class DepthwiseConv2D(DepthwiseConv):
    rank = 2


class SeparableConv(DepthwiseConv):
    """A depthwise convolution followed by a 1x1 convolution to `filters` channels (fewer weights than Conv)."""

    kernel_names = ("depthwise_kernel", "pointwise_kernel")

    def __init__(
        self,
        filters: int,
        kernel_size: Any,
        strides: Any = 1,
        padding: str = "valid",
        data_format: str | None = None,
        dilation_rate: Any = 1,
        depth_multiplier: int = 1,
        activation: Any = None,
        use_bias: bool = True,
        depthwise_initializer: Any = "glorot_uniform",
        pointwise_initializer: Any = "glorot_uniform",
        depthwise_regularizer: Any = None,
        pointwise_regularizer: Any = None,
        depthwise_constraint: Any = None,
        pointwise_constraint: Any = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(
            kernel_size,
            strides,
            padding,
            depth_multiplier,
            data_format,
            dilation_rate,
            activation,
            use_bias,
            depthwise_initializer,
            depthwise_regularizer,
            depthwise_constraint,
            **kwargs,
        )
        self.filters = int(filters)
        self.kernel_options["pointwise_kernel"] = WeightOptions(
            pointwise_initializer, pointwise_regularizer, pointwise_constraint
        )

    def build(self, input_shape: Any) -> None:
        channels = self._check_input_channels(input_shape)
        depthwise_shape = (*self.kernel_size, channels, self.depth_multiplier)
        pointwise_shape = (*(1,) * self.rank, channels * self.depth_multiplier, self.filters)
        self.depthwise_kernel = add_weight(
            self, "depthwise_kernel", depthwise_shape, self.kernel_options["depthwise_kernel"]
        )
        self.pointwise_kernel = add_weight(
            self, "pointwise_kernel", pointwise_shape, self.kernel_options["pointwise_kernel"]
        )
        self._add_bias(self.filters)

    def _convolve(self, inputs: Any) -> Any:
        spread = depthwise(inputs, self.depthwise_kernel, self.rank, self.strides, self.padding, self.dilation_rate)
        ones = (1,) * self.rank
        return convolve(spread, self.pointwise_kernel, self.rank, ones, "valid", ones)

    def kernel_names_in_config(self) -> tuple[str, ...]:
        return ("depthwise", "pointwise")

    def _shape_config(self) -> dict[str, Any]:
        shape = DepthwiseConv._shape_config(self)
        return {"depth_multiplier": shape.pop("depth_multiplier"), "filters": self.filters, **shape}


class SeparableConv1D(SeparableConv):
    rank = 1


class SeparableConv2D(SeparableConv):
    rank = 2


Convolution1D, Convolution2D = Conv1D, Conv2D
SeparableConvolution1D, SeparableConvolution2D = SeparableConv1D, SeparableConv2D
