"""`tf.nn.max_pool2d` and `avg_pool2d` over images in NHWC layout.

Each kernel is a loop over the window's taps, one strided view of the padded input per tap (as the convolutions in
conv_ops.py). The gradient ops (AvgPoolGrad, MaxPoolGrad, MaxPoolGradGrad) have gradients of their own, so second
derivatives work as in TensorFlow."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, cast

import numpy as np

from minitf.core import dtypes
from minitf.core.conversion import convert_to_tensor
from minitf.core.errors import (
    InvalidArgumentError,
    allowed_dtypes,
    op_error,
    static_error,
)
from minitf.core.op import GradContext, Op, bind
from minitf.core.tensor import Tensor
from minitf.core.tensor_shape import TensorShape
from minitf.ops.array.creation import zeros_like
from minitf.ops.array.index_arguments import at_graph_build
from minitf.ops.nn.conv_ops import Specs, nhwc_only, padding_attr, pair, static_shape
from minitf.ops.nn.window_geometry import axis_geometry, empty_output, output_geometry, padded, tap, window_fits

# ---------------------------------------------------------------------------------------------------
# Pooling
# ---------------------------------------------------------------------------------------------------

AVG_POOL_TYPES = dtypes.FLOATS
MAX_POOL_TYPES = dtypes.NUMERIC - {dtypes.complex64, dtypes.complex128}


def _pool_attrs(ksize: Any, strides: Any, padding: Any, op_name: str) -> dict:
    """Pooling's attributes; max pooling also takes explicit padding, [[0, 0], [top, bottom], [left, right],
    [0, 0]], as TensorFlow's MaxPool does (its padded places never win a window), average pooling does not."""
    window = pair(ksize, "ksize")
    attrs = {"ksize": window, "strides": pair(strides, "strides"), "dilations": (1, 1)}
    if isinstance(padding, str):
        if padding.upper() == "EXPLICIT":
            raise ValueError(
                "'EXPLICIT' is not a valid value for `padding`. To use explicit padding, `padding` must be a list."
            )
        return attrs | {"padding": padding_attr(padding, op_name)}
    if op_name != "MaxPool":
        raise TypeError(
            f"Expected string for argument 'padding' not {padding!r}.\nHint: average pooling takes "
            "padding 'SAME' or 'VALID'; pad the image with tf.pad first for other padding."
        )
    if len(padding) != 4:
        raise ValueError(
            f"When padding is a list, it must be of size 4. Received: padding={padding} of size "
            f"{len(padding)}\nHint: one [before, after] pair for each of batch, height, width, channels."
        )
    pairs = tuple(tuple(int(v) for v in p) for p in padding)
    if pairs[0] != (0, 0) or pairs[3] != (0, 0):  # (TensorFlow's shape function already refuses these)
        raise static_error(
            "Nonzero explicit padding in the batch or depth dimensions is not supported",
            "MaxPool",
            "pad only height and width: [[0, 0], [top, bottom], [left, right], [0, 0]].",
            kernel=True,
        )
    return attrs | {"padding": (pairs[1], pairs[2]), "explicit_paddings": pairs}


def _check_explicit_paddings(attrs: dict) -> None:
    """TensorFlow's MaxPool kernel checks that explicit padding is smaller than the window when it runs."""
    pairs = attrs.get("explicit_paddings")
    if pairs is None:
        return
    window = attrs["ksize"]
    for side, amount, size in zip(
        ("Top", "Bottom", "Left", "Right"), pairs[1] + pairs[2], (window[0], window[0], window[1], window[1])
    ):
        if amount >= size:
            raise op_error(
                InvalidArgumentError,
                "MaxPool",
                f"{side} padding {amount} needs to be smaller than the window size {size}",
                "a window must cover at least one real entry of the image.",
                kernel=True,
            )


def _check_pool_input(x: Any, op_name: str) -> None:
    if np.ndim(x) != 4:
        raise InvalidArgumentError(
            None,
            None,
            f"tensor_in_shape must have 2 spatial dimensions. {np.ndim(x)} 0 "
            f"[Op:{op_name}] name: \nHint: images are [batch, height, width, channels].",
        )


def _max_pool_kernel(x: np.ndarray, **attrs: Any) -> np.ndarray:
    _check_pool_input(x, "MaxPool")
    _check_explicit_paddings(attrs)
    geometry = output_geometry(np.shape(x), attrs["ksize"], attrs, "MaxPool")
    (oh, _, _), (ow, _, _) = geometry
    if empty_output(geometry):
        return np.zeros((np.shape(x)[0], oh, ow, np.shape(x)[3]), dtype=x.dtype)
    low = np.finfo(x.dtype).min if x.dtype.kind == "f" else np.iinfo(x.dtype).min
    xp = padded(x, geometry, low)
    taps = [xp[tap(xp, i, j, geometry, attrs)] for i in range(attrs["ksize"][0]) for j in range(attrs["ksize"][1])]
    return np.max(np.stack(taps), axis=0)


def _window_counts(shape: Sequence[int], geometry: list[tuple[int, int, int]], attrs: dict) -> np.ndarray:
    """How many real (unpadded) entries each output window of an average pool covers."""
    ones = padded(np.ones((1, shape[1], shape[2], 1)), geometry)
    return sum(
        ones[tap(ones, i, j, geometry, attrs)] for i in range(attrs["ksize"][0]) for j in range(attrs["ksize"][1])
    )


def _avg_pool_kernel(x: np.ndarray, **attrs: Any) -> np.ndarray:
    _check_pool_input(x, "AvgPool")
    geometry = output_geometry(np.shape(x), attrs["ksize"], attrs, "AvgPool")
    (oh, _, _), (ow, _, _) = geometry
    if empty_output(geometry):
        return np.zeros((np.shape(x)[0], oh, ow, np.shape(x)[3]), dtype=x.dtype)
    xp = padded(x, geometry)
    total = sum(xp[tap(xp, i, j, geometry, attrs)] for i in range(attrs["ksize"][0]) for j in range(attrs["ksize"][1]))
    return (total / _window_counts(np.shape(x), geometry, attrs)).astype(x.dtype)


def _avg_pool_grad_kernel(g: np.ndarray, input_shape: tuple, **attrs: Any) -> np.ndarray:
    geometry = output_geometry(input_shape, attrs["ksize"], attrs)
    (_, top, bottom), (_, left, right) = geometry
    n, h, w, c = input_shape
    dxp = np.zeros((n, h + top + bottom, w + left + right, c), dtype=g.dtype)
    if not empty_output(geometry):
        share = (g / _window_counts(input_shape, geometry, attrs)).astype(g.dtype)
        for i in range(attrs["ksize"][0]):
            for j in range(attrs["ksize"][1]):
                dxp[tap(dxp, i, j, geometry, attrs)] += share
    return dxp[:, top : top + h, left : left + w, :]


def _winners(x: np.ndarray, attrs: dict) -> tuple[np.ndarray, list[tuple[int, int, int]]]:
    """For each output entry, the flat position in the padded input of the first maximum of its window."""
    geometry = output_geometry(np.shape(x), attrs["ksize"], attrs)
    low = np.finfo(x.dtype).min if x.dtype.kind == "f" else np.iinfo(x.dtype).min
    xp = padded(x, geometry, low)
    positions = np.arange(xp.size).reshape(xp.shape)
    taps = [
        (xp[tap(xp, i, j, geometry, attrs)], positions[tap(xp, i, j, geometry, attrs)])
        for i in range(attrs["ksize"][0])
        for j in range(attrs["ksize"][1])
    ]
    best, where = taps[0]
    best, where = best.copy(), where.copy()
    for value, position in taps[1:]:
        better = value > best
        best[better], where[better] = value[better], position[better]
    return where, geometry


def _max_pool_grad_kernel(x: np.ndarray, y: np.ndarray, g: np.ndarray, **attrs: Any) -> np.ndarray:
    where, geometry = _winners(x, attrs)
    (_, top, bottom), (_, left, right) = geometry
    n, h, w, c = np.shape(x)
    dxp = np.zeros((n, h + top + bottom, w + left + right, c), dtype=g.dtype)
    np.add.at(dxp.reshape(-1), where.ravel(), g.ravel())
    return dxp[:, top : top + h, left : left + w, :]


def _max_pool_grad_grad_kernel(x: np.ndarray, y: np.ndarray, gg: np.ndarray, **attrs: Any) -> np.ndarray:
    where, geometry = _winners(x, attrs)
    (_, top, bottom), (_, left, right) = geometry
    padded = np.pad(gg, ((0, 0), (top, bottom), (left, right), (0, 0)))
    return padded.reshape(-1)[where]


def _pool_shape(name: str) -> Any:
    def rule(shapes: Sequence[TensorShape], types: Sequence[dtypes.DType], attrs: dict) -> Specs:
        x = shapes[0]
        if x.rank is not None and x.rank != 4:
            at_graph_build(lambda: _check_pool_input(np.zeros([0] * cast(int, x.rank)), name), name)
        if x.rank != 4:
            return [(TensorShape(None), types[0])]
        pads = [attrs["padding"] if attrs["padding"] in ("SAME", "VALID") else attrs["padding"][a] for a in (0, 1)]
        for a in (0, 1):
            window_fits(x[1 + a], attrs["ksize"][a], 1, pads[a])
        if None not in x.as_list()[1:3]:
            at_graph_build(lambda: output_geometry(cast("list[int]", x.as_list()), attrs["ksize"], attrs, name), name)
        sizes = [
            None
            if x[1 + a] is None
            else max(axis_geometry(x[1 + a], attrs["ksize"][a], attrs["strides"][a], 1, pads[a])[0], 0)
            for a in (0, 1)
        ]
        return [(TensorShape([x[0], *sizes, x[3]]), types[0])]

    return rule


def _pool_check(name: str, allowed: frozenset) -> Any:
    def check(inputs: Sequence[Tensor], attrs: dict) -> None:
        if inputs[0].dtype not in allowed:
            allowed_dtypes(name, allowed, inputs[0].dtype)

    return check


def _pool_only(attrs: dict) -> dict:
    return {k: attrs[k] for k in ("ksize", "strides", "padding", "dilations")}


AvgPool = Op(
    "AvgPool",
    _avg_pool_kernel,
    check=_pool_check("AvgPool", AVG_POOL_TYPES),
    shape=_pool_shape("AvgPool"),
    grad=lambda c, g: [bind(AvgPoolGrad, g, input_shape=static_shape(c.x), **_pool_only(c.attrs))],
)
AvgPoolGrad: Op = Op(
    "AvgPoolGrad",
    _avg_pool_grad_kernel,
    shape=lambda s, t, a: [(TensorShape(a["input_shape"]), t[0])],
    grad=lambda c, gg: [bind(AvgPool, gg, **_pool_only(c.attrs))],
)
MaxPool = Op(
    "MaxPool",
    _max_pool_kernel,
    check=_pool_check("MaxPool", MAX_POOL_TYPES),
    shape=_pool_shape("MaxPool"),
    grad=lambda c, g: [bind(MaxPoolGrad, c.x, c.out, g, **c.attrs)],
)


def _zeros_for_pool_inputs(c: GradContext) -> list:
    """TensorFlow's rules for the pooling gradient ops give zeros (not None) for the pooled input and output:
    which entry wins a window is locally constant, so they are connected with a zero gradient."""
    return [zeros_like(c.inputs[0]), zeros_like(c.inputs[1])]


MaxPoolGrad: Op = Op(
    "MaxPoolGrad",
    _max_pool_grad_kernel,
    shape=lambda s, t, a: [(s[0], t[2])],
    grad=lambda c, gg: [*_zeros_for_pool_inputs(c), bind(MaxPoolGradGrad, c.inputs[0], c.inputs[1], gg, **c.attrs)],
)
MaxPoolGradGrad: Op = Op(
    "MaxPoolGradGrad",
    _max_pool_grad_grad_kernel,
    shape=lambda s, t, a: [(s[1], t[2])],
    grad=lambda c, g3: [*_zeros_for_pool_inputs(c), bind(MaxPoolGrad, c.inputs[0], c.inputs[1], g3, **c.attrs)],
)


def max_pool2d(
    input: Any, ksize: Any, strides: Any, padding: Any, data_format: str = "NHWC", name: str | None = None
) -> Tensor:
    """The largest value of each ksize window, moved by `strides` (NHWC images)."""
    nhwc_only(data_format)
    return bind(MaxPool, convert_to_tensor(input), **_pool_attrs(ksize, strides, padding, "MaxPool"))


def avg_pool2d(
    input: Any, ksize: Any, strides: Any, padding: str, data_format: str = "NHWC", name: str | None = None
) -> Tensor:
    """The mean of each ksize window (padding not counted), moved by `strides` (NHWC images)."""
    nhwc_only(data_format)
    return bind(AvgPool, convert_to_tensor(input), **_pool_attrs(ksize, strides, padding, "AvgPool"))
