"""More of `tf.nn`, composed of existing ops exactly as TensorFlow composes them (so values, gradients and
traced graphs follow): gelu, conv1d and the 1-D poolings (a 2-D op on an added axis), embedding_lookup (a
gather), batch_normalization, the moment helpers, crelu, weighted and Poisson losses, zero_fraction and the
loss scaling helpers of distributed training."""

from __future__ import annotations

from typing import Any

import numpy as np

from minitf.core import dtypes
from minitf.core.conversion import convert_to_tensor
from minitf.core.errors import static_error
from minitf.core.tensor import Tensor
from minitf.ops.array.gather_scatter import gather
from minitf.ops.array.join_split import concat
from minitf.ops.array.shape_ops import expand_dims, identity, reshape, shape, size, squeeze, stop_gradient, transpose
from minitf.ops.array.where import where
from minitf.ops.linalg.norms import clip_by_norm
from minitf.ops.math import binary_math, unary_math
from minitf.ops.math.binary_math import add, divide, divide_no_nan, multiply, squared_difference, subtract
from minitf.ops.math.cast import cast
from minitf.ops.math.comparisons import equal, greater_equal, less_equal, logical_and
from minitf.ops.math.elementwise import ones_like_, zeros_like_
from minitf.ops.math.reductions import count_nonzero, reduce_sum
from minitf.ops.math.special import erf
from minitf.ops.math.unary_math import exp, log, log1p, negative, reciprocal, relu, rsqrt, square, tanh
from minitf.ops.nn import conv_ops


def gelu(features: Any, approximate: bool = False, name: str | None = None) -> Tensor:
    """x * P(X <= x) for a standard normal X: with erf, or (approximate=True) the tanh formula."""
    x = convert_to_tensor(features)
    if not x.dtype.is_floating:
        raise ValueError(f"`features.dtype` must be a floating point tensor.Received:features.dtype={x.dtype}")
    if approximate:
        coeff = cast(0.044715, x.dtype)
        return 0.5 * x * (1.0 + tanh(0.7978845608028654 * (x + coeff * binary_math.pow(x, 3))))
    return 0.5 * x * (1.0 + erf(x / cast(1.4142135623730951, x.dtype)))


def _one_dim(data_format: str, op: str) -> None:
    if data_format not in ("NWC", "NHWC", None):
        raise ValueError(f"{op}: minitf supports data_format='NWC' only (channels last), as TensorFlow's CPU "
                         f"kernels do; got {data_format!r}.")


def conv1d(input: Any, filters: Any, stride: Any, padding: str, data_format: str = "NWC",  # noqa: A002
           dilations: Any = None, name: str | None = None) -> Tensor:
    """1-D convolution: input [batch, width, in] with filters [width, in, out], as a conv2d of height 1."""
    _one_dim(data_format, "conv1d")
    x = expand_dims(convert_to_tensor(input), 1)
    f = expand_dims(convert_to_tensor(filters, dtype_hint=x.dtype), 0)
    step = stride[-1] if isinstance(stride, list | tuple) else stride
    dilation = 1 if dilations is None else (dilations[-1] if isinstance(dilations, list | tuple) else dilations)
    out = conv_ops.conv2d(x, f, strides=[1, 1, int(step), 1], padding=padding, dilations=[1, 1, int(dilation), 1])
    return squeeze(out, [1])


def _pool1d(pool: Any, input: Any, ksize: Any, strides: Any, padding: str, data_format: str) -> Tensor:  # noqa: A002
    _one_dim(data_format, pool.__name__)

    def widened(v: Any) -> list[int]:
        v = list(v) if isinstance(v, list | tuple) else [v]
        return [1, 1, int(v[0]), 1] if len(v) == 1 else [1, 1, int(v[1]), 1]

    x = expand_dims(convert_to_tensor(input), 1)
    return squeeze(pool(x, widened(ksize), widened(strides), padding), [1])


def max_pool1d(input: Any, ksize: Any, strides: Any, padding: str, data_format: str = "NWC",  # noqa: A002
               name: str | None = None) -> Tensor:
    """The largest value of each window of `ksize` steps along the width."""
    return _pool1d(conv_ops.max_pool2d, input, ksize, strides, padding, data_format)


def avg_pool1d(input: Any, ksize: Any, strides: Any, padding: str, data_format: str = "NWC",  # noqa: A002
               name: str | None = None) -> Tensor:
    """The mean of each window of `ksize` steps along the width (padding not counted)."""
    return _pool1d(conv_ops.avg_pool2d, input, ksize, strides, padding, data_format)


def embedding_lookup(params: Any, ids: Any, max_norm: Any = None, name: str | None = None) -> Tensor:
    """Rows of the embedding matrix `params` (or of a list of shards of it, split by rows) at `ids`."""
    shards = list(params) if isinstance(params, list | tuple) else [params]
    if not shards:
        raise ValueError("Length of params is currently 0. Need at least one param.")
    table = convert_to_tensor(shards[0]) if len(shards) == 1 else concat([convert_to_tensor(s) for s in shards], 0)
    rows = gather(table, ids)
    if max_norm is None:
        return identity(rows)
    ids_rank = convert_to_tensor(ids).shape.rank or 0
    axes = list(range(ids_rank, rows.shape.rank or ids_rank + 1))
    return clip_by_norm(rows, max_norm, axes=axes)


def batch_normalization(x: Any, mean: Any, variance: Any, offset: Any, scale: Any, variance_epsilon: float,
                        name: str | None = None) -> Tensor:
    """(x - mean) / sqrt(variance + epsilon) * scale + offset, as TensorFlow arranges it: x * inv +
    (offset - mean * inv) with inv = rsqrt(variance + epsilon) * scale."""
    x = convert_to_tensor(x)
    inv = rsqrt(convert_to_tensor(variance) + variance_epsilon)
    if scale is not None:
        inv = inv * scale
    shift = (offset - mean * inv) if offset is not None else (negative(mean) * inv)
    return x * cast(inv, x.dtype) + cast(shift, x.dtype)


def sufficient_statistics(x: Any, axes: Any, shift: Any = None, keepdims: bool = False,
                          name: str | None = None) -> tuple:
    """(count, sum, sum of squares, shift) of x over `axes`: what mean and variance are computed from."""
    t = convert_to_tensor(x)
    dims = t.shape.as_list()
    count = 1
    for axis in axes:
        count *= dims[axis]
    counts = cast(count, t.dtype)
    if shift is not None:
        shift = convert_to_tensor(shift, dtype=t.dtype)
        centred = subtract(t, shift)
        return (counts, reduce_sum(centred, axes, keepdims=keepdims),
                reduce_sum(square(centred), axes, keepdims=keepdims), shift)
    return (counts, reduce_sum(t, axes, keepdims=keepdims), reduce_sum(square(t), axes, keepdims=keepdims),
            None)


def normalize_moments(counts: Any, mean_ss: Any, variance_ss: Any, shift: Any, name: str | None = None) -> tuple:
    """Mean and variance from sufficient statistics."""
    divisor = reciprocal(counts)
    if shift is not None:
        shifted_mean = multiply(mean_ss, divisor)
        mean = add(shifted_mean, shift)
    else:
        shifted_mean = multiply(mean_ss, divisor)
        mean = shifted_mean
    variance = subtract(multiply(variance_ss, divisor), square(shifted_mean))
    return mean, variance


def weighted_moments(x: Any, axes: Any, frequency_weights: Any, keepdims: bool = False,
                     name: str | None = None) -> tuple:
    """Mean and variance of x over `axes`, each value counted `frequency_weights` times."""
    t = convert_to_tensor(x)
    w = convert_to_tensor(frequency_weights, dtype=t.dtype)
    weighted_sum = reduce_sum(w * t, axes, keepdims=True)
    weights = reduce_sum(w + zeros_like_(t), axes, keepdims=True)
    divisor = reciprocal(weights)
    mean = multiply(weighted_sum, divisor)
    variance = reduce_sum(w * squared_difference(t, stop_gradient(mean)), axes, keepdims=True) * divisor
    if not keepdims:
        mean, variance = squeeze(mean, axes), squeeze(variance, axes)
    return mean, variance


def crelu(features: Any, axis: int = -1, name: str | None = None) -> Tensor:
    """relu(x) and relu(-x) side by side along `axis` (twice the channels)."""
    x = convert_to_tensor(features)
    return relu(concat([x, negative(x)], axis))


def weighted_cross_entropy_with_logits(labels: Any, logits: Any, pos_weight: Any,
                                       name: str | None = None) -> Tensor:
    """Sigmoid cross-entropy with the positive term weighted by `pos_weight`, computed stably."""
    x = convert_to_tensor(logits)
    z = convert_to_tensor(labels, dtype=x.dtype)
    log_weight = 1 + (pos_weight - 1) * z
    return add((1 - z) * x, log_weight * (log1p(exp(negative(unary_math.abs(x)))) + relu(negative(x))))


def log_poisson_loss(targets: Any, log_input: Any, compute_full_loss: bool = False,
                     name: str | None = None) -> Tensor:
    """exp(log_input) - log_input * targets (plus Stirling's term for targets > 1 with compute_full_loss)."""
    c = convert_to_tensor(log_input)
    z = convert_to_tensor(targets, dtype=c.dtype)
    result = exp(c) - c * z
    if compute_full_loss:
        point_five = cast(0.5, z.dtype)
        two_pi = cast(2 * np.pi, z.dtype)
        stirling = z * log(z) - z + point_five * log(two_pi * z)
        zeros, ones = zeros_like_(z), ones_like_(z)
        cond = logical_and(greater_equal(z, zeros), less_equal(z, ones))
        result += where(cond, zeros, stirling)
    return result


def zero_fraction(value: Any, name: str | None = None) -> Tensor:
    """The fraction of entries that are 0, as a float32 scalar."""
    t = convert_to_tensor(value)
    total = cast(size(t), dtypes.float32)
    zeros = cast(count_nonzero(equal(t, zeros_like_(t))), dtypes.float32)
    return divide(zeros, total)


def compute_average_loss(per_example_loss: Any, sample_weight: Any = None, global_batch_size: Any = None,
                         name: str | None = None) -> Tensor:
    """The sum of the (weighted) per-example losses over the global batch size (one replica: the batch)."""
    loss = convert_to_tensor(per_example_loss)
    if sample_weight is not None:
        loss = loss * convert_to_tensor(sample_weight, dtype=loss.dtype)
    if global_batch_size is None:
        global_batch_size = cast(shape(loss, out_type=dtypes.int64)[0], loss.dtype)
    return divide_no_nan(reduce_sum(loss), cast(global_batch_size, loss.dtype))


def scale_regularization_loss(regularization_loss: Any, name: str | None = None) -> Tensor:
    """The regularisation loss divided by the number of replicas (one here: unchanged)."""
    return reduce_sum(convert_to_tensor(regularization_loss)) / 1


def _pool_nd(pool1d: Any, pool2d: Any, input: Any, ksize: Any, strides: Any, padding: str,  # noqa: A002
             data_format: Any, op: str) -> Tensor:
    x = convert_to_tensor(input)
    rank = x.shape.rank
    if rank == 3:
        return pool1d(x, ksize, strides, padding, data_format or "NWC")
    if rank == 4:
        return pool2d(x, ksize, strides, padding, data_format or "NHWC")
    raise ValueError(f"`input.shape.rank` must be 3 or 4 for minitf's {op} (3-D pooling is not part of this "
                     f"engine). Received: input.shape={x.shape} of rank {rank}")


def max_pool(input: Any, ksize: Any, strides: Any, padding: str, data_format: Any = None,  # noqa: A002
             name: str | None = None) -> Tensor:
    """max_pool1d or max_pool2d, by the input's rank."""
    return _pool_nd(max_pool1d, conv_ops.max_pool2d, input, ksize, strides, padding, data_format, "max_pool")


def avg_pool(input: Any, ksize: Any, strides: Any, padding: str, data_format: Any = None,  # noqa: A002
             name: str | None = None) -> Tensor:
    """avg_pool1d or avg_pool2d, by the input's rank."""
    return _pool_nd(avg_pool1d, conv_ops.avg_pool2d, input, ksize, strides, padding, data_format, "avg_pool")


def _blocks(x: Tensor, block_size: int) -> tuple[int | None, int, int, int]:
    if int(block_size) < 2:
        raise ValueError(f"Value for attr 'block_size' of {int(block_size)} must be at least minimum 2")
    dims: list[Any] = x.shape.as_list()  # the batch may be unknown; the other sizes must be known
    batch, height, width, depth = dims
    return batch, height, width, depth


def depth_to_space(input: Any, block_size: int, data_format: str = "NHWC", name: str | None = None) -> Tensor:  # noqa: A002
    """Move blocks of channels into block_size x block_size spatial blocks (channels / block_size^2 remain)."""
    x = convert_to_tensor(input)
    b, h, w, c = _blocks(x, block_size)
    bs = int(block_size)
    if c % (bs * bs):
        raise static_error(f"Input depth dimension {c} should be divisible by: {bs * bs}", "DepthToSpace")
    blocks = reshape(x, [-1 if b is None else b, h, w, bs, bs, c // (bs * bs)])
    return reshape(transpose(blocks, [0, 1, 3, 2, 4, 5]), [-1 if b is None else b, h * bs, w * bs, c // (bs * bs)])


def space_to_depth(input: Any, block_size: int, data_format: str = "NHWC", name: str | None = None) -> Tensor:  # noqa: A002
    """Move block_size x block_size spatial blocks into the channels (the inverse of depth_to_space)."""
    x = convert_to_tensor(input)
    b, h, w, c = _blocks(x, block_size)
    bs = int(block_size)
    if h % bs or w % bs:
        raise static_error(f"Image width {w} and height {h} should be divisible by block_size: {bs}", "SpaceToDepth")
    blocks = reshape(x, [-1 if b is None else b, h // bs, bs, w // bs, bs, c])
    return reshape(transpose(blocks, [0, 1, 3, 2, 4, 5]), [-1 if b is None else b, h // bs, w // bs, bs * bs * c])
