"""Convolution and pooling of other ranks, composed as TensorFlow composes them (so gradients and traced graphs
follow): conv1d and the 1-D poolings are the 2-D ops of conv_ops.py and pooling.py on an added axis; max_pool /
avg_pool pick the op for their input's rank."""

from __future__ import annotations

from typing import Any

from minitf.core.conversion import convert_to_tensor
from minitf.core.tensor import Tensor
from minitf.ops.array.shape_ops import expand_dims, squeeze
from minitf.ops.nn import conv_ops, pooling


def _one_dim(data_format: str, op: str) -> None:
    if data_format not in ("NWC", "NHWC", None):
        raise ValueError(
            f"{op}: minitf supports data_format='NWC' only (channels last), as TensorFlow's CPU "
            f"kernels do; got {data_format!r}."
        )


def conv1d(
    input: Any,
    filters: Any,
    stride: Any,
    padding: str,
    data_format: str = "NWC",
    dilations: Any = None,
    name: str | None = None,
) -> Tensor:
    """1-D convolution: input [batch, width, in] with filters [width, in, out], as a conv2d of height 1."""
    _one_dim(data_format, "conv1d")
    x = expand_dims(convert_to_tensor(input), 1)
    f = expand_dims(convert_to_tensor(filters, dtype_hint=x.dtype), 0)
    step = stride[-1] if isinstance(stride, list | tuple) else stride
    dilation = 1 if dilations is None else (dilations[-1] if isinstance(dilations, list | tuple) else dilations)
    out = conv_ops.conv2d(x, f, strides=[1, 1, int(step), 1], padding=padding, dilations=[1, 1, int(dilation), 1])
    return squeeze(out, [1])


def _pool1d(pool: Any, input: Any, ksize: Any, strides: Any, padding: str, data_format: str) -> Tensor:
    _one_dim(data_format, pool.__name__)

    def widened(v: Any) -> list[int]:
        v = list(v) if isinstance(v, list | tuple) else [v]
        return [1, 1, int(v[0]), 1] if len(v) == 1 else [1, 1, int(v[1]), 1]

    x = expand_dims(convert_to_tensor(input), 1)
    return squeeze(pool(x, widened(ksize), widened(strides), padding), [1])


def max_pool1d(
    input: Any, ksize: Any, strides: Any, padding: str, data_format: str = "NWC", name: str | None = None
) -> Tensor:
    """The largest value of each window of `ksize` steps along the width."""
    return _pool1d(pooling.max_pool2d, input, ksize, strides, padding, data_format)


def avg_pool1d(
    input: Any, ksize: Any, strides: Any, padding: str, data_format: str = "NWC", name: str | None = None
) -> Tensor:
    """The mean of each window of `ksize` steps along the width (padding not counted)."""
    return _pool1d(pooling.avg_pool2d, input, ksize, strides, padding, data_format)


def _pool_nd(
    pool1d: Any, pool2d: Any, input: Any, ksize: Any, strides: Any, padding: str, data_format: Any, op: str
) -> Tensor:
    x = convert_to_tensor(input)
    rank = x.shape.rank
    if rank == 3:
        return pool1d(x, ksize, strides, padding, data_format or "NWC")
    if rank == 4:
        return pool2d(x, ksize, strides, padding, data_format or "NHWC")
    raise ValueError(
        f"`input.shape.rank` must be 3 or 4 for minitf's {op} (3-D pooling is not part of this "
        f"engine). Received: input.shape={x.shape} of rank {rank}"
    )


def max_pool(
    input: Any, ksize: Any, strides: Any, padding: str, data_format: Any = None, name: str | None = None
) -> Tensor:
    """max_pool1d or max_pool2d, by the input's rank."""
    return _pool_nd(max_pool1d, pooling.max_pool2d, input, ksize, strides, padding, data_format, "max_pool")


def avg_pool(
    input: Any, ksize: Any, strides: Any, padding: str, data_format: Any = None, name: str | None = None
) -> Tensor:
    """avg_pool1d or avg_pool2d, by the input's rank."""
    return _pool_nd(avg_pool1d, pooling.avg_pool2d, input, ksize, strides, padding, data_format, "avg_pool")
