"""`tf.tile`, `tf.reverse` and `tf.pad`: a tensor repeated, flipped or padded along its axes, with their gradients
(TileGrad sums the copies back; PadGrad cuts the padding off, and for mirror padding adds the reflected parts)."""

from __future__ import annotations

import builtins
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from minitf.core import dtypes, shape_rules
from minitf.core.context import state
from minitf.core.conversion import convert_to_tensor
from minitf.core.dispatch import api_handler
from minitf.core.errors import InvalidArgumentError, dims_text, op_error, static_error
from minitf.core.op import GradContext, Op, bind
from minitf.core.shape_rules import Spec, add_sizes, need_rank
from minitf.core.tensor import Tensor
from minitf.core.tensor_shape import TensorShape
from minitf.ops.array.shape_ops import identity, normalise_axis, static_ints


def _tile_grad(c: GradContext, g: Tensor) -> list:
    return [bind(TileGrad, g, c.x, multiples=c.attrs["multiples"])]


def _tile_grad_kernel(g: np.ndarray, x: np.ndarray, multiples: tuple[int, ...]) -> np.ndarray:
    split_shape = [v for pair in zip(multiples, np.shape(x)) for v in pair]
    return np.sum(np.reshape(g, split_shape), axis=tuple(builtins.range(0, 2 * len(multiples), 2)))


TileGrad = Op(
    "TileGrad",
    _tile_grad_kernel,
    shape=shape_rules.same_as_second_with_first_dtype,
    grad=lambda c, g: [bind(Tile, g, multiples=c.attrs["multiples"]), None],
)


def _tile_kernel(x: np.ndarray, multiples: tuple[int, ...]) -> np.ndarray:
    if len(multiples) != np.ndim(x):
        raise op_error(
            InvalidArgumentError,
            "Tile",
            f"Expected multiples argument to be a vector of length {np.ndim(x)} but got length {len(multiples)}",
            f"give one multiple per dimension of the input (it has {np.ndim(x)}).",
        )
    for i, m in enumerate(multiples):
        if m < 0:
            raise op_error(
                InvalidArgumentError,
                "Tile",
                f"Expected multiples[{i}] >= 0, but got {m}",
                "a multiple says how many copies to make, so it cannot be negative.",
                name=None,
            )
    return np.tile(x, multiples)


def _times(size: int | None, factor: int) -> int | None:
    """An unknown size times 0 is known: 0 (TensorFlow's rule)."""
    if factor == 0:
        return 0
    return None if size is None else size * factor


def tile_rule(shapes: Sequence[TensorShape], types: Sequence[dtypes.DType], attrs: dict) -> list[Spec]:
    multiples, source = attrs["multiples"], shapes[0]
    need_rank(source, len(multiples))
    dims = list(source) if source.rank is not None else [None] * len(multiples)
    return [(TensorShape([_times(d, m) for d, m in zip(dims, multiples)]), types[0])]


Tile: Op = Op("Tile", _tile_kernel, shape=tile_rule, grad=_tile_grad)


def tile(input: Any, multiples: Any, name: str | None = None) -> Tensor:
    """Repeat the whole tensor `multiples[i]` times along each axis i."""
    if not isinstance(input, Tensor) and (handler := api_handler(tile, input)) is not None:
        return handler(input, multiples)
    return bind(Tile, convert_to_tensor(input), multiples=tuple(static_ints(multiples, "multiples")))


def _reverse_kernel(x: np.ndarray, axis: tuple[int, ...]) -> np.ndarray:
    return np.flip(x, axis) if axis else x


ReverseV2: Op = Op(
    "ReverseV2",
    _reverse_kernel,
    shape=shape_rules.same_as_first,
    grad=lambda c, g: [bind(ReverseV2, g, axis=c.attrs["axis"])],
)


def _reverse_axis_message(i: int) -> Callable[[int, int], str]:
    # (TensorFlow's text leaves the range's bracket open)
    return lambda axis, rank: f"'axis'[{i}] = {axis} is out of valid range [0, {rank - 1}"


def reverse(tensor: Any, axis: Any, name: str | None = None) -> Tensor:
    if not isinstance(tensor, Tensor) and (handler := api_handler(reverse, tensor)) is not None:
        return handler(tensor, axis)
    x = convert_to_tensor(tensor)
    if state.graph is None and (x.shape.rank == 0 or x.shape.num_elements() == 0):
        return identity(x)  # TensorFlow's kernel returns a scalar or an empty tensor unchanged, whatever the axis
    r = x.shape.rank or 0  # while tracing, TensorFlow checks the axes against the rank first
    axes = tuple(
        normalise_axis(a, r, "ReverseV2", _reverse_axis_message(i), name=None)
        for i, a in enumerate(static_ints(axis, "axis"))
    )
    if len(set(axes)) < len(axes):
        raise static_error(f"axis {axes[0]} specified more than once. [Op:ReverseV2]")
    return bind(ReverseV2, x, axis=axes)


def _pad_op_name(mode: str, constant_values: Any) -> str:
    """The op TensorFlow's tf.pad runs: Pad for zeros, PadV2 for another constant, MirrorPad for the mirror modes."""
    return "MirrorPad" if mode != "CONSTANT" else "PadV2" if np.any(constant_values) else "Pad"


def _pad_kernel(x: np.ndarray, paddings: tuple[tuple[int, int], ...], mode: str, constant_values: Any) -> np.ndarray:
    op_name = _pad_op_name(mode, constant_values)
    if np.ndim(constant_values):
        found = dims_text(np.shape(constant_values))
        hint = "constant_values is the one value padded everywhere."
        raise op_error(InvalidArgumentError, op_name, f"constant_values must be a scalar. Found: {found}", hint, None)
    if len(paddings) != np.ndim(x):
        raise op_error(
            InvalidArgumentError,
            op_name,
            f"The first dimension of paddings must be the rank of inputs[{len(paddings)},2] {dims_text(np.shape(x))}",
            f"give one [before, after] pair per dimension of the input (it has {np.ndim(x)}).",
            name=None,
        )
    negative = next((pair for pair in paddings if min(pair) < 0), None)
    if negative is not None:
        raise op_error(
            InvalidArgumentError,
            op_name,
            f"{'p' if mode != 'CONSTANT' else 'P'}addings must be non-negative: {negative[0]} {negative[1]}",
            "a padding counts the values added before and after, so it cannot be negative; tf.slice cuts.",
            name=None,
        )
    if mode == "CONSTANT":
        return np.pad(x, paddings, mode="constant", constant_values=constant_values)
    limit = 0 if mode == "REFLECT" else 1  # REFLECT needs padding < size, SYMMETRIC padding <= size
    for (before, after), size in zip(paddings, np.shape(x)):
        if before > size - 1 + limit or after > size - 1 + limit:
            relation = "less than" if mode == "REFLECT" else "no greater than"
            raise op_error(
                InvalidArgumentError,
                "MirrorPad",
                f"paddings must be {relation} the dimension size: {before}, {after} not {relation} {size}",
            )
    return np.pad(x, paddings, mode="reflect" if mode == "REFLECT" else "symmetric")


def _pad_grad(c: GradContext, g: Tensor) -> list:
    return [bind(PadGrad, g, c.x, paddings=c.attrs["paddings"], mode=c.attrs["mode"])]


def _pad_grad_kernel(g: np.ndarray, x: np.ndarray, paddings: tuple, mode: str) -> np.ndarray:
    index = tuple(slice(lo, lo + n) for (lo, _), n in zip(paddings, np.shape(x)))
    if mode == "CONSTANT":
        return g[index]
    # Mirror modes: every output position contributes to the input position it copied.
    source = np.pad(
        np.arange(np.size(x)).reshape(np.shape(x)), paddings, mode="reflect" if mode == "REFLECT" else "symmetric"
    )
    out = np.zeros(np.size(x), dtype=g.dtype)
    np.add.at(out, source.ravel(), g.ravel())
    return out.reshape(np.shape(x))


def _pad_grad_grad(c: GradContext, g: Tensor) -> list:
    """PadGrad is linear in its first input; its adjoint is padding again (with zeros, or mirrored)."""
    mode = c.attrs["mode"]
    op = PadV2 if mode == "CONSTANT" else MirrorPad
    zero = np.zeros((), dtype=g.dtype._np)
    return [bind(op, g, paddings=c.attrs["paddings"], mode=mode, constant_values=zero), None]


PadGrad = Op("PadGrad", _pad_grad_kernel, shape=shape_rules.same_as_second_with_first_dtype, grad=_pad_grad_grad)


def pad_rule(shapes: Sequence[TensorShape], types: Sequence[dtypes.DType], attrs: dict) -> list[Spec]:
    paddings, source = attrs["paddings"], shapes[0]
    need_rank(source, len(paddings))
    if any(min(pair) < 0 for pair in paddings):
        raise ValueError("Paddings must be non-negative")
    dims = list(source) if source.rank is not None else [None] * len(paddings)
    return [
        (
            TensorShape([add_sizes(d, before + after) for d, (before, after) in zip(dims, paddings)]),
            types[0],
        )
    ]


PadV2 = Op(
    "PadV2",
    _pad_kernel,
    shape=pad_rule,
    grad=_pad_grad,
    node=lambda n, attrs: _pad_op_name(attrs["mode"], attrs["constant_values"]),
)
MirrorPad = Op("MirrorPad", _pad_kernel, shape=pad_rule, grad=_pad_grad)


def pad(
    tensor: Any, paddings: Any, mode: str = "CONSTANT", constant_values: Any = 0, name: str | None = None
) -> Tensor:
    """Add values around each axis: `paddings[i] = [before, after]`. Modes CONSTANT, REFLECT, SYMMETRIC."""
    x = convert_to_tensor(tensor)
    pairs = np.asarray(getattr(paddings, "_value", paddings), dtype=np.int64)
    if pairs.ndim != 2 or pairs.shape[1] != 2:
        raise static_error(f"paddings must be a matrix with 2 columns: {list(pairs.shape)}", "Pad")
    mode = mode.upper()
    if mode not in ("CONSTANT", "REFLECT", "SYMMETRIC"):
        raise ValueError(
            f'Value of argument `mode` expected to be one of "CONSTANT", "REFLECT", or "SYMMETRIC". '
            f"Received `mode` = {mode}"
        )
    op = PadV2 if mode == "CONSTANT" else MirrorPad
    value = np.asarray(getattr(constant_values, "_value", constant_values)).astype(x.dtype._np)
    return bind(op, x, paddings=tuple(tuple(int(v) for v in p) for p in pairs), mode=mode, constant_values=value)
