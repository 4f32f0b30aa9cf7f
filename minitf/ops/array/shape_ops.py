"""Looking at and changing a tensor's shape: shape, rank, size, reshape, expand_dims, squeeze, transpose, and
identity / stop_gradient (same values, different gradient); depth_to_space / space_to_depth (blocks of an NHWC image
moved between space and channels). Broadcasting to a shape: broadcasting.py.
"""

from __future__ import annotations

import builtins
import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from minitf.core import dtypes
from minitf.core.conversion import convert_to_tensor, static_value
from minitf.core.dispatch import api_handler
from minitf.core.errors import (
    InvalidArgumentError,
    OpError,
    kernel_prefix,
    op_error,
    static_error,
)
from minitf.core.op import GradContext, Op, bind
from minitf.core.shape_rules import Spec, shape_text
from minitf.core.tensor import Tensor
from minitf.core.tensor_shape import TensorShape
from minitf.ops.math.elementwise import ReshapeLike
from minitf.ops.math.unary_math import conj


def static_ints(value: Any, what: str) -> list[int]:
    """A shape or list of sizes given as a list, tuple, TensorShape or (eager) tensor, as Python ints."""
    if isinstance(value, Tensor):
        known = static_value(value)
        if known is None:
            raise TypeError(
                f"{what} must be known when tracing in this engine; got a tensor computed inside the "
                f"function.\nHint: pass {what} as a Python list, or as a constant."
            )
        value = np.asarray(known).tolist()
    if isinstance(value, TensorShape):
        value = value.as_list()
    if np.ndim(value) == 0:
        return [int(value)]
    return [int(np.asarray(static_value(v) if isinstance(v, Tensor) else v)) for v in value]


Identity = Op("Identity", lambda x: x, shape=lambda s, t, a: [(s[0], t[0])], grad=lambda c, g: [g])
StopGradient = Op("StopGradient", lambda x: x, shape=lambda s, t, a: [(s[0], t[0])])


def identity(input: Any, name: str | None = None) -> Tensor:
    if not isinstance(input, Tensor) and (handler := api_handler(identity, input)) is not None:
        return handler(input)
    return bind(Identity, convert_to_tensor(input))


def stop_gradient(input: Any, name: str | None = None) -> Tensor:
    """The same value, but tapes treat it as a constant: no gradient flows through."""
    if not isinstance(input, Tensor) and (handler := api_handler(stop_gradient, input)) is not None:
        return handler(input)
    return bind(StopGradient, convert_to_tensor(input))


def shape_rule(shapes: Sequence[TensorShape], types: Sequence[dtypes.DType], attrs: dict) -> list[Spec]:
    return [(TensorShape([shapes[0].rank]), attrs["out_type"])]


Shape = Op("Shape", lambda x, out_type: np.array(np.shape(x), dtype=out_type._np), shape=shape_rule)


def rank_rule(shapes: Sequence[TensorShape], types: Sequence[dtypes.DType], attrs: dict) -> list[Spec]:
    return [(TensorShape([]), dtypes.int32)]


Rank = Op("Rank", lambda x: np.int32(np.ndim(x)), shape=rank_rule)


def size_rule(shapes: Sequence[TensorShape], types: Sequence[dtypes.DType], attrs: dict) -> list[Spec]:
    return [(TensorShape([]), attrs["out_type"])]


Size = Op("Size", lambda x, out_type: out_type._np.type(np.size(x)), shape=size_rule)


def shape(input: Any, out_type: Any = dtypes.int32, name: str | None = None) -> Tensor:
    """The shape as an int32 tensor (unlike `x.shape`, which is a TensorShape known without running)."""
    if not isinstance(input, Tensor) and (handler := api_handler(shape, input)) is not None:
        return handler(input, out_type)
    return bind(Shape, convert_to_tensor(input), out_type=dtypes.as_dtype(out_type))


def rank(input: Any, name: str | None = None) -> Tensor:
    return bind(Rank, convert_to_tensor(input))


def size(input: Any, out_type: Any = dtypes.int32, name: str | None = None) -> Tensor:
    return bind(Size, convert_to_tensor(input), out_type=dtypes.as_dtype(out_type))


def _reshape_kernel(x: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    n = np.size(x)
    unknown = [i for i, d in enumerate(shape) if d == -1]
    if len(unknown) > 1:
        raise _reshape_error(
            f"Only one input size may be -1, not both {unknown[0]} and {unknown[1]}",
            "-1 stands for the one size worked out from the others; give the other sizes.",
        )
    known = int(np.prod([d for d in shape if d != -1]))
    if unknown and n == 0:
        # TensorFlow's rule for empty input: when the new shape has a 0 too, the zeros are left out on both
        # sides, so [0] -> [0, -1] gives [0, 1]; otherwise -1 becomes 0.
        if 0 in shape:
            nonzero_sizes = int(np.prod([d for d in shape if d not in (0, -1)]))
            missing = int(np.prod([d for d in np.shape(x) if d])) // nonzero_sizes
        else:
            missing = 0
        return np.reshape(x, tuple(missing if d == -1 else d for d in shape))
    if unknown:
        if known == 0 or n % known:
            raise _reshape_error(
                f"Input to reshape is a tensor with {n} values, but the requested shape requires a multiple of {known}",
                "the product of the sizes you give must divide the number of values.",
            )
    elif known != n:
        raise _reshape_error(
            f"Input to reshape is a tensor with {n} values, but the requested shape has {known}",
            f"reshape keeps every value; the new sizes must multiply to {n}.",
        )
    return np.reshape(x, shape)


def _reshape_error(message: str, hint: str) -> OpError:
    """TensorFlow's eager message (its kernel's prefix first, no `name:` tail) and minitf's hint."""
    hint = f"\nHint: {hint}" if hint else ""
    return InvalidArgumentError(None, None, f"{kernel_prefix('Reshape')}{message} [Op:Reshape]{hint}")


def reshape_rule(shapes: Sequence[TensorShape], types: Sequence[dtypes.DType], attrs: dict) -> list[Spec]:
    """The requested shape; -1 is worked out when the input's size is known, and sizes must fit."""
    dims = list(attrs["shape"])
    wanted = [d for d in dims if d != -1]
    product = math.prod(wanted)
    source = shapes[0]
    known_in = [d for d in source] if source.rank is not None else []
    if source.is_fully_defined():
        n = source.num_elements()
        if -1 in dims:
            if product == 0 or n % product:
                if product:
                    raise ValueError(f"Dimension size must be evenly divisible by {product} but is {n}")
            else:
                dims[dims.index(-1)] = n // product
        elif product != n:
            raise ValueError(
                f"Cannot reshape a tensor with {n} elements to shape {shape_text(TensorShape(dims))} "
                f"({product} elements)"
            )
    elif -1 not in dims and known_in and 0 not in known_in:
        known_product = math.prod(d for d in known_in if d is not None)
        if product % known_product:
            raise ValueError(f"Dimension size must be evenly divisible by {known_product} but is {product}")
    return [(TensorShape([None if d == -1 else d for d in dims]), types[0])]


Reshape = Op("Reshape", _reshape_kernel, shape=reshape_rule, grad=lambda c, g: [bind(ReshapeLike, g, c.x)])


def reshape(tensor: Any, shape: Any, name: str | None = None) -> Tensor:
    """Same values in row-major order, new shape; one dimension may be -1 (inferred)."""
    return bind(Reshape, convert_to_tensor(tensor), shape=tuple(static_ints(shape, "shape")))


def _expand_kernel(x: np.ndarray, axis: int) -> np.ndarray:
    return np.expand_dims(x, axis)


def expand_dims_rule(shapes: Sequence[TensorShape], types: Sequence[dtypes.DType], attrs: dict) -> list[Spec]:
    source = shapes[0]
    if source.rank is None:
        return [(TensorShape(None), types[0])]
    dims = list(source)
    axis = attrs["axis"]
    if not -len(dims) - 1 <= axis <= len(dims):
        raise ValueError(f"dim {axis} not in the interval [{-len(dims) - 1}, {len(dims)}].")
    dims.insert(axis % (len(dims) + 1), 1)
    return [(TensorShape(dims), types[0])]


ExpandDims = Op("ExpandDims", _expand_kernel, shape=expand_dims_rule, grad=lambda c, g: [bind(ReshapeLike, g, c.x)])


def expand_dims(input: Any, axis: int, name: str | None = None) -> Tensor:
    """Insert a dimension of size 1 at `axis`."""
    x = convert_to_tensor(input)
    r = x.shape.rank
    axis = int(getattr(axis, "_value", axis))
    if r is not None and not -r - 1 <= axis <= r:
        raise static_error(
            f"Tried to expand dim index {axis} for tensor with {r} dimensions.",
            "ExpandDims",
            hint=f"axis must be in [{-r - 1}, {r}].",
        )
    return bind(ExpandDims, x, axis=axis % (r + 1) if r is not None else axis)


def _squeeze_kernel(x: np.ndarray, axis: tuple[int, ...] | None) -> np.ndarray:
    if axis:
        for a in axis:
            if np.shape(x)[a] != 1:
                raise op_error(
                    InvalidArgumentError,
                    "Squeeze",
                    f"Can not squeeze dim[{a}], expected a dimension of 1, got {np.shape(x)[a]}",
                    "squeeze removes only dimensions of size 1; leave out the axis, or reshape.",
                )
    return np.squeeze(x, axis=axis if axis else None)


def squeeze_rule(shapes: Sequence[TensorShape], types: Sequence[dtypes.DType], attrs: dict) -> list[Spec]:
    """Without axes every size-1 dimension goes, so one unknown dimension makes even the rank unknown."""
    source, axes = shapes[0], attrs["axis"]
    if source.rank is None:
        return [(TensorShape(None), types[0])]
    dims = list(source)
    if not axes:
        if None in dims:
            return [(TensorShape(None), types[0])]
        return [(TensorShape([d for d in dims if d != 1]), types[0])]
    for axis in axes:
        if dims[axis] not in (None, 1):
            raise ValueError(f"Can not squeeze dim[{axis}], expected a dimension of 1, got {dims[axis]}")
    return [(TensorShape([d for i, d in enumerate(dims) if i not in axes]), types[0])]


Squeeze = Op("Squeeze", _squeeze_kernel, shape=squeeze_rule, grad=lambda c, g: [bind(ReshapeLike, g, c.x)])


def squeeze(input: Any, axis: Any = None, name: str | None = None) -> Tensor:
    """Remove dimensions of size 1 (all of them, or those listed in `axis`)."""
    x = convert_to_tensor(input)
    if axis is not None:
        r = x.shape.rank or 0
        axes = [int(a) for a in np.ravel(axis)]
        for a in axes:
            if not -r <= a < r:
                raise static_error(
                    f"Tried to squeeze dim index {a} for tensor with {r} dimensions.",
                    "Squeeze",
                    f"axis must be in [{-r}, {r}) for a rank-{r} tensor.",
                )
        axis = tuple(sorted({a % r for a in axes}))  # TensorFlow tolerates an axis listed twice
    return bind(Squeeze, x, axis=axis)


def _transpose_grad(c: GradContext, g: Tensor) -> list:
    perm = c.attrs["perm"]
    if perm is None:  # reversing twice undoes it
        return [bind(Transpose, g, perm=None)]
    for p in perm:  # TensorFlow inverts perm with InvertPermutation, which takes no negative entries
        if not 0 <= p < len(perm):
            raise op_error(
                InvalidArgumentError,
                "InvertPermutation",
                f"{p} is not between 0 and {len(perm)}",
                "write perm with entries from 0 up to take gradients through tf.transpose.",
                kernel=True,
            )
    return [bind(Transpose, g, perm=tuple(int(i) for i in np.argsort(perm)))]


def _checked_perm(perm: Sequence[int], rank: int) -> tuple[int, ...]:
    """`perm` as TensorFlow's Transpose kernel reads it: one entry per dimension, negative ones counted from
    the end, every dimension once."""

    def bad(message: str, hint: str) -> Exception:
        return op_error(InvalidArgumentError, "Transpose", message, hint, kernel=True)

    if len(perm) != rank:
        raise bad(
            f"transpose expects a vector of size {rank}. But input(1) is a vector of size {len(perm)}",
            "perm lists every dimension once.",
        )
    order = tuple(p + rank if p < 0 else p for p in perm)
    for p in order:
        if not 0 <= p < rank:
            raise bad(f"{p} is out of range [0 .. {rank})", f"a tensor of rank {rank} has dimensions 0 to {rank - 1}.")
    missing = [d for d in builtins.range(rank) if d not in order]
    if missing:
        raise bad(f"{missing[0]} is missing from {{{','.join(map(str, order))}}}.", "perm lists every dimension once.")
    return order


def _transpose_kernel(x: np.ndarray, perm: tuple[int, ...] | None) -> np.ndarray:
    return np.transpose(x, None if perm is None else _checked_perm(perm, np.ndim(x)))


def transpose_rule(shapes: Sequence[TensorShape], types: Sequence[dtypes.DType], attrs: dict) -> list[Spec]:
    perm, source = attrs["perm"], shapes[0]
    if perm is None:  # reverse all axes, however many the input turns out to have
        return [(TensorShape(None if source.rank is None else list(source)[::-1]), types[0])]
    rank = len(perm) if source.rank is None else source.rank  # unknown rank: perm tells it
    if len(perm) != rank:
        raise ValueError(f"Dimension must be {rank} but is {len(perm)}")
    for p in perm:
        if not -rank <= p < rank:
            raise ValueError(f"perm dim {p} is out of range of input rank {rank}")
    return [(TensorShape([None if source.rank is None else source[p] for p in perm]), types[0])]


# perm=None reverses the axes; it stands for TensorFlow's `range(rank - 1, -1, -1)` computed when the graph
# runs, which a traced input of unknown rank needs. A perm listing a dimension twice fails when the op runs.
Transpose = Op("Transpose", _transpose_kernel, shape=transpose_rule, grad=_transpose_grad)


def transpose(a: Any, perm: Any = None, conjugate: bool = False, name: str = "transpose") -> Tensor:
    """Permute the axes; by default reverse them all (a matrix's transpose)."""
    x = convert_to_tensor(a)
    rank = x.shape.rank
    if perm is None:
        order = None if rank is None else tuple(builtins.range(rank - 1, -1, -1))
    else:
        order = tuple(static_ints(perm, "perm"))  # (negative entries count from the end when the op runs)
    out = bind(Transpose, x, perm=order)
    if conjugate and x.dtype.is_complex:
        out = conj(out)
    return out


def normalise_axis(
    axis: Any,
    rank: int,
    op_name: str,
    message: Callable[[int, int], str] | None = None,
    name: str | None = "",
    kernel: bool | str = True,
) -> int:
    """`axis` in [0, rank); one outside [-rank, rank) raises TensorFlow's error for `op_name`: its
    `message(axis, rank)` (a generic one if not given), `name` and kernel prefix (see `errors.op_error`)."""
    axis = int(np.asarray(getattr(axis, "_value", axis)))
    if not -rank <= axis < rank:
        generic = f"{op_name}: axis {axis} is out of range for a rank-{rank} input; expected an axis in "
        text = message(axis, rank) if message is not None else f"{generic}[{-rank}, {rank})"
        raise static_error(text, op_name, f"axis must be in [{-rank}, {rank}) here.", name, kernel)
    return axis % rank


def _blocks(x: Tensor, block_size: int) -> tuple[int | None, int, int, int]:
    if int(block_size) < 2:
        raise ValueError(f"Value for attr 'block_size' of {int(block_size)} must be at least minimum 2")
    dims: list[Any] = x.shape.as_list()  # the batch may be unknown; the other sizes must be known
    batch, height, width, depth = dims
    return batch, height, width, depth


def depth_to_space(input: Any, block_size: int, data_format: str = "NHWC", name: str | None = None) -> Tensor:
    """Move blocks of channels into block_size x block_size spatial blocks (channels / block_size^2 remain)."""
    x = convert_to_tensor(input)
    b, h, w, c = _blocks(x, block_size)
    bs = int(block_size)
    if c % (bs * bs):
        raise static_error(f"Input depth dimension {c} should be divisible by: {bs * bs}", "DepthToSpace")
    blocks = reshape(x, [-1 if b is None else b, h, w, bs, bs, c // (bs * bs)])
    return reshape(transpose(blocks, [0, 1, 3, 2, 4, 5]), [-1 if b is None else b, h * bs, w * bs, c // (bs * bs)])


def space_to_depth(input: Any, block_size: int, data_format: str = "NHWC", name: str | None = None) -> Tensor:
    """Move block_size x block_size spatial blocks into the channels (the inverse of depth_to_space)."""
    x = convert_to_tensor(input)
    b, h, w, c = _blocks(x, block_size)
    bs = int(block_size)
    if h % bs or w % bs:
        raise static_error(f"Image width {w} and height {h} should be divisible by block_size: {bs}", "SpaceToDepth")
    blocks = reshape(x, [-1 if b is None else b, h // bs, bs, w // bs, bs, c])
    return reshape(transpose(blocks, [0, 1, 3, 2, 4, 5]), [-1 if b is None else b, h // bs, w // bs, bs * bs * c])
