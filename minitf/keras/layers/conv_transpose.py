"""Transposed convolutions (Conv1DTranspose, Conv2DTranspose): the shape-inverse of a strided convolution,
computed as one: the input spread out with zeros between its values, padded, and convolved with the kernel
flipped (see convolutional.py for the convolution itself)."""

from __future__ import annotations

from typing import Any

from minitf.keras.layers.convolutional import BaseConv, as_images, from_images, spread
from minitf.keras.layers.options import WeightOptions, add_weight, int_tuple
from minitf.ops.array import shape_ops, slicing, tile_pad
from minitf.ops.nn.conv_ops import conv2d


def transposed_length(length: int, kernel: int, stride: int, padding: str, output_padding: int | None) -> int:
    """The output length of a transposed convolution, as Keras computes it (kernel already dilated)."""
    if output_padding is None:
        return length * stride + (max(kernel - stride, 0) if padding == "valid" else 0)
    pad = 0 if padding == "valid" else kernel // 2
    return (length - 1) * stride + kernel - 2 * pad + output_padding


class ConvTranspose(BaseConv):
    """The shape-inverse of a strided convolution: each input value spreads a kernel-sized patch over a
    `strides` times larger output (learned up-sampling, as in decoders and generators)."""

    def __init__(
        self,
        filters: int,
        kernel_size: Any,
        strides: Any = 1,
        padding: str = "valid",
        output_padding: Any = None,
        data_format: str | None = None,
        dilation_rate: Any = 1,
        activation: Any = None,
        use_bias: bool = True,
        kernel_initializer: Any = "glorot_uniform",
        kernel_regularizer: Any = None,
        kernel_constraint: Any = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(kernel_size, strides, padding, data_format, dilation_rate, activation, use_bias, **kwargs)
        self.filters = int(filters)
        self.output_padding = None if output_padding is None else int_tuple(output_padding, self.rank, "output_padding")
        self.kernel_options = {"kernel": WeightOptions(kernel_initializer, kernel_regularizer, kernel_constraint)}

    def build(self, input_shape: Any) -> None:
        channels = self._check_input_channels(input_shape)
        self.kernel = add_weight(
            self, "kernel", (*self.kernel_size, self.filters, channels), self.kernel_options["kernel"]
        )
        self._add_bias(self.filters)

    def _convolve(self, inputs: Any) -> Any:
        images = as_images(inputs, self.rank)
        kernel = shape_ops.expand_dims(self.kernel, 0) if self.rank == 1 else self.kernel
        one = (1,) if self.rank == 1 else ()
        strides, dilations = (*one, *self.strides), (*one, *self.dilation_rate)
        extra = None if self.output_padding is None else (*(0,) * len(one), *self.output_padding)
        pads = []
        for axis in range(2):
            kernel = spread(kernel, axis, dilations[axis])
            size, length, step = kernel.shape.as_list()[axis], images.shape.as_list()[axis + 1], strides[axis]
            out = transposed_length(length, size, step, self.padding, None if extra is None else extra[axis])
            total = max((length - 1) * step + size - out, 0) if self.padding == "same" else 0
            before = size - 1 - total // 2
            pads.append((before, out + size - 1 - ((length - 1) * step + 1) - before))
            images = spread(images, axis + 1, step)
        flipped = shape_ops.transpose(tile_pad.reverse(kernel, [0, 1]), [0, 1, 3, 2])
        images = tile_pad.pad(
            images, [[0, 0], [pads[0][0], max(pads[0][1], 0)], [pads[1][0], max(pads[1][1], 0)], [0, 0]]
        )
        crop = tuple([slice(None)] + [slice(0, after if after < 0 else None) for _, after in pads])
        result = conv2d(slicing.getitem(images, crop), flipped, strides=[1, 1, 1, 1], padding="VALID")
        return from_images(result, self.rank)

    def _shape_config(self) -> dict[str, Any]:
        shape = super()._shape_config()
        return {
            "filters": self.filters,
            "kernel_size": shape.pop("kernel_size"),
            "strides": shape.pop("strides"),
            "padding": shape.pop("padding"),
            "output_padding": self.output_padding,
            **shape,
        }


class Conv1DTranspose(ConvTranspose):
    rank = 1


class Conv2DTranspose(ConvTranspose):
    rank = 2


Convolution1DTranspose, Convolution2DTranspose = Conv1DTranspose, Conv2DTranspose
