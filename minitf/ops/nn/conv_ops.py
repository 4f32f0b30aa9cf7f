"""Convolution over images in NHWC layout: tf.nn.conv2d (pooling: pooling.py).

Each kernel is a loop over the filter's taps: tap (i, j) reads the padded input with the strides, so one strided
view per tap and no copy of every window. The gradient ops (Conv2DBackpropInput, Conv2DBackpropFilter) have
gradients of their own, so second derivatives work as in TensorFlow.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, cast

import numpy as np

from minitf.core import dtypes
from minitf.core.context import state
from minitf.core.conversion import convert_to_tensor
from minitf.core.errors import (
    InvalidArgumentError,
    allowed_dtypes,
    bad_string_attr,
    dims_text,
    same_dtype,
    static_error,
)
from minitf.core.op import GradContext, Op, bind
from minitf.core.tensor import Tensor
from minitf.core.tensor_shape import TensorShape
from minitf.core.threads import one_blas_thread
from minitf.ops.array.index_arguments import at_graph_build
from minitf.ops.nn.window_geometry import axis_geometry, empty_output, output_geometry, padded, tap, window_fits

Specs = list[tuple[TensorShape, dtypes.DType]]
CONV_TYPES = frozenset({dtypes.float16, dtypes.float32, dtypes.float64, dtypes.int32})


# ---------------------------------------------------------------------------------------------------
# conv2d
# ---------------------------------------------------------------------------------------------------


def _check_conv_shapes(x_shape: Sequence[Any], f_shape: Sequence[Any]) -> None:
    if len(x_shape) != 4:
        raise InvalidArgumentError(
            None,
            None,
            f"convolution input must be 4-dimensional: {dims_text(x_shape)} "
            "[Op:Conv2D]\nHint: images are [batch, height, width, channels]; add a batch "
            "axis with tf.expand_dims(x, 0).",
        )
    if len(f_shape) != 4:
        raise InvalidArgumentError(
            None,
            None,
            f"filter must be 4-dimensional: {dims_text(f_shape)} [Op:Conv2D]\nHint: "
            "filters are [height, width, in_channels, out_channels].",
        )
    if x_shape[3] is not None and f_shape[2] is not None and x_shape[3] != f_shape[2]:
        raise InvalidArgumentError(
            None,
            None,
            f"input depth must be evenly divisible by filter depth: {x_shape[3]} "
            f"vs {f_shape[2]} [Op:Conv2D] name: \nHint: the filter's third dimension must equal the "
            "input's channels.",
        )


def _patches(xp: np.ndarray, geometry: Any, attrs: dict, kernel_size: Sequence[int]) -> np.ndarray:
    """im2col: for every output position, the input values under the filter, as one row of a matrix
    (n * out_h * out_w rows, kh * kw * channels columns, in the filter's (i, j, channel) order), so that a
    convolution is one matrix product with the filter reshaped to (kh * kw * channels, out_channels).

    The matrix is written tap by tap into one array: kh * kw strided copies, no list of copies to stack."""
    kh, kw = kernel_size
    (oh, _, _), (ow, _, _) = geometry
    patches = np.empty((xp.shape[0], oh, ow, kh * kw, xp.shape[3]), dtype=xp.dtype)
    for i in range(kh):
        for j in range(kw):
            patches[:, :, :, i * kw + j] = xp[tap(xp, i, j, geometry, attrs)]
    return patches.reshape(-1, kh * kw * xp.shape[3])


THIN_PATCH = 64  # a patch (kh * kw * channels values) at most this long makes a thin product
BLAS_SPLITS_FROM = 2**20  # multiply-adds from which a BLAS splits a product over its threads (about)


def _product(a: np.ndarray, b: np.ndarray, patch: int) -> np.ndarray:
    """a @ b, where one side is the patch length: on one BLAS thread when the patch is short
    (threads.one_blas_thread says why), which is the common case of a first layer (3x3 on 1 or 3 channels)."""
    if patch > THIN_PATCH or a.shape[0] * a.shape[1] * b.shape[1] < BLAS_SPLITS_FROM:
        return np.matmul(a, b)
    with one_blas_thread():
        return np.matmul(a, b)


def _conv_kernel(x: np.ndarray, f: np.ndarray, **attrs: Any) -> np.ndarray:
    _check_conv_shapes(np.shape(x), np.shape(f))
    geometry = output_geometry(np.shape(x), np.shape(f)[:2], attrs)
    (oh, _, _), (ow, _, _) = geometry
    out_shape = (np.shape(x)[0], oh, ow, np.shape(f)[3])
    if empty_output(geometry):
        return np.zeros(out_shape, dtype=x.dtype)
    patches = _patches(padded(x, geometry), geometry, attrs, np.shape(f)[:2])
    # x and f have one dtype (checked), so the product has it too: no copy to convert it.
    return _product(patches, f.reshape(-1, np.shape(f)[3]), patches.shape[1]).reshape(out_shape)


def _no_dilated_gradient(attrs: dict, op_name: str) -> None:
    """TensorFlow's CPU kernels have no gradient for dilated convolutions; say so as it does."""
    if max(attrs["dilations"]) > 1:
        raise InvalidArgumentError(
            None,
            None,
            f"Current CPU implementations do not yet support dilation rates "
            f"larger than 1. [Op:{op_name}]\nHint: to train with a dilated convolution on "
            "a CPU, write it as a convolution with a filter that has zeros between its taps.",
        )


def _backprop_input_kernel(f: np.ndarray, g: np.ndarray, input_shape: tuple, **attrs: Any) -> np.ndarray:
    _no_dilated_gradient(attrs, "Conv2DBackpropInput")
    geometry = output_geometry(input_shape, np.shape(f)[:2], attrs)
    (_, top, bottom), (_, left, right) = geometry
    n, h, w, c = input_shape
    kh, kw, _, out_channels = np.shape(f)
    dxp = np.zeros((n, h + top + bottom, w + left + right, c), dtype=g.dtype)
    if not empty_output(geometry):
        # Each output's gradient, spread back over the patch it was computed from (the transpose of im2col).
        patch = kh * kw * c
        dpatches = _product(g.reshape(-1, out_channels), f.reshape(patch, out_channels).T, patch)
        dpatches = dpatches.astype(g.dtype, copy=False).reshape(*np.shape(g)[:3], kh * kw, c)
        for i in range(kh):
            for j in range(kw):
                dxp[tap(dxp, i, j, geometry, attrs)] += dpatches[:, :, :, i * kw + j, :]
    return dxp[:, top : top + h, left : left + w, :]


def _backprop_filter_kernel(x: np.ndarray, g: np.ndarray, filter_shape: tuple, **attrs: Any) -> np.ndarray:
    _no_dilated_gradient(attrs, "Conv2DBackpropFilter")
    geometry = output_geometry(np.shape(x), filter_shape[:2], attrs)
    if empty_output(geometry):
        return np.zeros(filter_shape, dtype=g.dtype)
    patches = _patches(padded(x, geometry), geometry, attrs, filter_shape[:2])
    dfilter = _product(patches.T, g.reshape(-1, filter_shape[3]), patches.shape[1])
    return dfilter.astype(g.dtype, copy=False).reshape(filter_shape)


def _conv_attrs(attrs: dict) -> dict:
    return {k: attrs[k] for k in ("strides", "dilations", "padding")}


def _conv_grad(c: GradContext, g: Tensor) -> list:
    x, f = c.inputs
    attrs = _conv_attrs(c.attrs)
    return [
        bind(Conv2DBackpropInput, f, g, input_shape=static_shape(x), **attrs),
        bind(Conv2DBackpropFilter, x, g, filter_shape=static_shape(f), **attrs),
    ]


def _backprop_input_grad(c: GradContext, gg: Tensor) -> list:
    """dx = A_f^T g is linear in f and in g: its adjoints are a convolution and a filter gradient."""
    f, g = c.inputs
    attrs = _conv_attrs(c.attrs)
    return [bind(Conv2DBackpropFilter, gg, g, filter_shape=static_shape(f), **attrs), bind(Conv2D, gg, f, **attrs)]


def _backprop_filter_grad(c: GradContext, gg: Tensor) -> list:
    x, g = c.inputs
    attrs = _conv_attrs(c.attrs)
    return [bind(Conv2DBackpropInput, gg, g, input_shape=static_shape(x), **attrs), bind(Conv2D, x, gg, **attrs)]


def static_shape(t: Tensor) -> tuple:
    shape = t.shape.as_list()
    if None in shape:
        raise ValueError("The gradient of a convolution needs static shapes in this engine.")
    return tuple(shape)


def _conv_shape(shapes: Sequence[TensorShape], types: Sequence[dtypes.DType], attrs: dict) -> Specs:
    x, f = shapes
    if x.rank is None or f.rank is None:
        return [(TensorShape(None), types[0])]
    at_graph_build(lambda: _check_conv_shapes(x.as_list(), f.as_list()), "Conv2D")
    for a in (0, 1):
        if f[a] is not None:
            window_fits(
                x[1 + a],
                f[a],
                attrs["dilations"][a],
                attrs["padding"] if attrs["padding"] in ("SAME", "VALID") else attrs["padding"][a],
            )
    if None not in x.as_list()[1:3] + f.as_list()[:2]:
        at_graph_build(
            lambda: output_geometry(cast("list[int]", x.as_list()), cast("list[int]", f.as_list()[:2]), attrs), "Conv2D"
        )
    named = attrs["padding"] in ("SAME", "VALID")
    sizes = [
        None
        if x[1 + a] is None or f[a] is None
        else max(
            axis_geometry(
                x[1 + a],
                f[a],
                attrs["strides"][a],
                attrs["dilations"][a],
                attrs["padding"] if named else attrs["padding"][a],
            )[0],
            0,
        )
        for a in (0, 1)
    ]
    return [(TensorShape([x[0], *sizes, f[3]]), types[0])]


def _conv_check(inputs: Sequence[Tensor], attrs: dict) -> None:
    same_dtype("Conv2D", inputs)
    if inputs[0].dtype not in CONV_TYPES:
        allowed_dtypes("Conv2D", CONV_TYPES, inputs[0].dtype)


Conv2D = Op("Conv2D", _conv_kernel, check=_conv_check, shape=_conv_shape, grad=_conv_grad)
Conv2DBackpropInput = Op(
    "Conv2DBackpropInput",
    _backprop_input_kernel,
    grad=_backprop_input_grad,
    shape=lambda s, t, a: [(TensorShape(a["input_shape"]), t[1])],
)
Conv2DBackpropFilter = Op(
    "Conv2DBackpropFilter",
    _backprop_filter_kernel,
    grad=_backprop_filter_grad,
    shape=lambda s, t, a: [(TensorShape(a["filter_shape"]), t[1])],
)


def pair(value: Any, name: str) -> tuple[int, int]:
    """TensorFlow's spatial argument: an int, or 1, 2 or 4 numbers (the batch and channel entries must be 1)."""
    values = [int(v) for v in np.ravel(getattr(value, "_value", value))]
    if len(values) == 1:
        return values[0], values[0]
    if len(values) == 2:
        return values[0], values[1]
    if len(values) == 4:
        if values[0] != 1 or values[3] != 1:
            raise InvalidArgumentError(
                None,
                None,
                f"Current implementation does not yet support {name} in the batch "
                "and depth dimensions.\nHint: give only the height and width entries.",
            )
        return values[1], values[2]
    raise ValueError(f"{name} should be of length 1, 2 or 4. Received: {name}={value} of length {len(values)}")


def padding_attr(padding: Any, op_name: str = "Conv2D") -> Any:
    if isinstance(padding, str):
        if padding.upper() not in ("SAME", "VALID"):
            raise bad_string_attr(
                op_name,
                "padding",
                padding,
                ("SAME", "VALID", "EXPLICIT"),
                'use "SAME" (keep the size) or "VALID" (no padding).',
            )
        return padding.upper()
    pairs = [tuple(int(v) for v in p) for p in padding]
    if len(pairs) != 4 or pairs[0] != (0, 0) or pairs[3] != (0, 0):
        raise ValueError(
            f"When padding is a list, it must be of length 4 with zeros for the batch and channel "
            f"dimensions ([[0, 0], [top, bottom], [left, right], [0, 0]]). Received: padding={padding}"
        )
    return (pairs[1], pairs[2])


def nhwc_only(data_format: str) -> None:
    if data_format not in ("NHWC", None):
        raise ValueError(
            f"Only data_format='NHWC' is supported in this engine (TensorFlow's CPU kernels want it "
            f"too). Received: data_format={data_format}"
        )


def conv2d(
    input: Any,
    filters: Any,
    strides: Any,
    padding: Any,
    data_format: str = "NHWC",
    dilations: Any = None,
    name: str | None = None,
) -> Tensor:
    """2-D convolution: images [batch, height, width, in] with filters [height, width, in, out]."""
    nhwc_only(data_format)
    # As TensorFlow's op wrappers do: a tensor argument fixes the dtype the other argument is converted to.
    # While a graph is built, TensorFlow converts the arguments in order instead (the input decides).
    if isinstance(filters, Tensor) and not isinstance(input, Tensor) and state.graph is None:
        f = convert_to_tensor(filters)
        x = convert_to_tensor(input, dtype_hint=f.dtype)
    else:
        x = convert_to_tensor(input)
        f = convert_to_tensor(filters, dtype_hint=x.dtype)
    steps = pair(strides, "strides")
    if min(steps) < 1:
        hint = "a stride is how far the filter moves each step: 1 or more."
        raise static_error("Row and column strides should be larger than 0.", "Conv2D", hint)
    return bind(
        Conv2D,
        x,
        f,
        strides=steps,
        padding=padding_attr(padding),
        dilations=pair(1 if dilations is None else dilations, "dilations"),
    )
