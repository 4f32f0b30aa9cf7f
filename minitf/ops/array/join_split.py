"""Joining and splitting tensors: concat, stack, unstack, split (tile, reverse and pad: tile_pad.py)."""

from __future__ import annotations

import builtins
from collections.abc import Sequence
from typing import Any, cast

import numpy as np

from minitf.core import dtypes
from minitf.core.context import state
from minitf.core.conversion import convert_to_tensor
from minitf.core.dispatch import api_handler
from minitf.core.errors import InvalidArgumentError, before_kernel, dims_text, op_error, same_dtype, static_error
from minitf.core.op import GradContext, Op, bind
from minitf.core.shape_rules import Spec, add_sizes, merge_dims, shape_text
from minitf.core.tensor import EagerTensor, Tensor
from minitf.core.tensor_shape import TensorShape
from minitf.ops.array.shape_ops import identity, normalise_axis, static_ints
from minitf.ops.math.elementwise import ZerosLike


def _concat_kernel(*xs: np.ndarray, axis: int) -> np.ndarray:
    first = np.shape(xs[0])
    for i, x in enumerate(xs[1:], start=1):
        other = np.shape(x)
        if len(other) != len(first):
            raise op_error(
                InvalidArgumentError,
                "ConcatV2",
                f"ConcatOp : Ranks of all input tensors should match: "
                f"shape[0] = {dims_text(first)} vs. shape[{i}] = {dims_text(other)}",
                "tf.concat joins tensors of one rank; tf.expand_dims or tf.reshape the others first.",
                name="concat",
            )
        for d, (a, b) in enumerate(zip(first, other)):
            if d != axis and a != b:
                raise op_error(
                    InvalidArgumentError,
                    "ConcatV2",
                    f"ConcatOp : Dimension {d} in both shapes must be "
                    f"equal: shape[0] = {dims_text(first)} vs. shape[{i}] = {dims_text(other)}",
                    hint=f"all sizes except along axis {axis} must agree.",
                    name="concat",
                )
    return np.concatenate(xs, axis=axis)


def _concat_grad(c: GradContext, g: Tensor) -> list:
    sizes = [
        int(np.shape(cast(EagerTensor, x)._value)[c.attrs["axis"]]) if state.graph is None else x.shape[c.attrs["axis"]]
        for x in c.inputs
    ]
    if None in sizes:  # traced with unknown sizes: split where the inputs turn out to end
        return list(bind(SplitLike, g, *c.inputs, axis=c.attrs["axis"]))
    return list(bind(SplitV, g, sizes=tuple(sizes), axis=c.attrs["axis"])) if len(sizes) > 1 else [g]


def _split_like_kernel(g: np.ndarray, *like: np.ndarray, axis: int) -> tuple[np.ndarray, ...]:
    bounds = np.cumsum([np.shape(x)[axis] for x in like])[:-1]
    return tuple(np.split(g, bounds, axis=axis))


def _split_like_grad(c: GradContext, grads: list) -> list:
    parts = [g if g is not None else bind(ZerosLike, o) for g, o in zip(grads, c.outputs)]
    return [concat(parts, c.attrs["axis"])] + [None] * (len(c.inputs) - 1)


def split_like_rule(shapes: Sequence[TensorShape], types: Sequence[dtypes.DType], attrs: dict) -> list[Spec]:
    return [(s, types[0]) for s in shapes[1:]]


SplitLike = Op("SplitLike", _split_like_kernel, num_outputs=-1, grad=_split_like_grad, shape=split_like_rule)


def _concat_check(inputs: Sequence[Tensor], attrs: dict) -> None:
    same_dtype("ConcatV2", inputs, listed=True, name="concat")


def concat(values: Sequence[Any], axis: int, name: str = "concat") -> Tensor:
    """Join tensors along an existing axis; all other sizes must agree."""
    if (handler := api_handler(concat, *values)) is not None:  # a composite value (minitf/core/dispatch.py)
        return handler(values, axis)
    tensors = [convert_to_tensor(v) for v in values]
    if len(tensors) == 1:
        return identity(tensors[0])
    same_dtype("ConcatV2", tensors, listed=True, name=name)  # TensorFlow reports mixed dtypes before a bad axis
    rank = builtins.max(tensors[0].shape.rank or 0, 1)
    node = f"ConcatV2_N_{len(tensors)}"
    return bind(ConcatV2, *tensors, axis=normalise_axis(axis, rank, "ConcatV2", _concat_axis, name, node))


def _concat_axis(axis: int, rank: int) -> str:
    return f"ConcatOp : Expected concatenating dimensions in the range [{-rank}, {rank}), but got {axis}"


def _pack_kernel(*xs: np.ndarray, axis: int) -> np.ndarray:
    first = np.shape(xs[0])
    for i, x in enumerate(xs[1:], start=1):
        if np.shape(x) != first:
            raise InvalidArgumentError(
                None,
                None,
                f"Shapes of all inputs must match: values[0].shape = "
                f"{dims_text(first)} != values[{i}].shape = {dims_text(np.shape(x))} [Op:Pack] "
                "name: stack\nHint: tf.stack needs tensors of one shape (tf.concat joins along an existing axis).",
            )
    return np.stack(xs, axis=axis)


def _merge_all(shapes: Sequence[TensorShape]) -> TensorShape:
    merged = TensorShape(None)
    for i, s in enumerate(shapes):
        if not merged.is_compatible_with(s):
            detail = (
                next(
                    (
                        (k, a, b)
                        for k, (a, b) in enumerate(zip(merged, s))
                        if a is not None and b is not None and a != b
                    ),
                    None,
                )
                if merged.rank == s.rank
                else None
            )
            if detail is None:
                raise ValueError(
                    f"Shapes must be equal rank, but are {merged.rank} and {s.rank}\n\tFrom merging "
                    f"shape {i - 1 if i else 0} with other shapes."
                )
            k, a, b = detail
            raise ValueError(
                f"Dimension {k} in both shapes must be equal, but are {a} and {b}. Shapes are "
                f"{shape_text(merged)} and {shape_text(s)}.\n\tFrom merging shape 0 with other shapes."
            )
        merged = merged.merge_with(s)
    return merged


def pack_rule(shapes: Sequence[TensorShape], types: Sequence[dtypes.DType], attrs: dict) -> list[Spec]:
    merged = _merge_all(shapes)
    if merged.rank is None:
        return [(TensorShape(None), types[0])]
    dims = list(merged)
    dims.insert(attrs["axis"], len(shapes))
    return [(TensorShape(dims), types[0])]


Pack = Op(
    "Pack",
    _pack_kernel,
    check=lambda inputs, attrs: same_dtype("Pack", inputs, listed=True, name="stack"),
    shape=pack_rule,
    node=lambda n, attrs: f"Pack_N_{n}",
    grad=lambda c, g: list(bind(Unpack, g, axis=c.attrs["axis"], num=len(c.inputs))),
)


def stack(values: Sequence[Any], axis: int = 0, name: str = "stack") -> Tensor:
    """Join same-shaped tensors along a new axis."""
    if isinstance(values, list | tuple) and not values and axis == 0:  # TensorFlow converts an empty list as
        return convert_to_tensor([])  # a constant: float32, shape (0,)
    tensors = [convert_to_tensor(v) for v in values]
    if tensors:
        first = tensors[0].dtype
        tensors = [
            t if t.dtype is first or isinstance(v, Tensor) else convert_to_tensor(v, dtype=first)
            for t, v in zip(tensors, values)
        ]
    rank = (tensors[0].shape.rank or 0) + 1
    if not -rank <= int(axis) < rank:  # checked in Python by TensorFlow, traced or not
        raise ValueError(
            f"Argument `axis` = {axis} not in range [{-rank}, {rank})\nHint: the stacked result has {rank} axes."
        )
    return bind(Pack, *tensors, axis=normalise_axis(axis, rank, "Pack"))


def _unpack_kernel(x: np.ndarray, axis: int, num: int) -> tuple[np.ndarray, ...]:
    return tuple(np.take(x, i, axis=axis) for i in builtins.range(num))


def _fill_none(grads: Sequence[Any], like: Sequence[Tensor]) -> list[Tensor]:
    return [bind(ZerosLike, t) if g is None else g for g, t in zip(grads, like)]


def unpack_rule(shapes: Sequence[TensorShape], types: Sequence[dtypes.DType], attrs: dict) -> list[Spec]:
    source, axis, num = shapes[0], attrs["axis"], attrs["num"]
    if source.rank is None:
        return [(TensorShape(None), types[0])] * num
    dims = list(source)
    merge_dims(dims[axis], num, "")
    return [(TensorShape(dims[:axis] + dims[axis + 1 :]), types[0])] * num


Unpack: Op = Op(
    "Unpack",
    _unpack_kernel,
    num_outputs=-1,
    shape=unpack_rule,
    node=lambda n, attrs: f"Unpack_num_{attrs['num']}",
    grad=lambda c, g: [bind(Pack, *_fill_none(g, c.outputs), axis=c.attrs["axis"])],
)


def unstack(value: Any, num: int | None = None, axis: int = 0, name: str = "unstack") -> list[Tensor]:
    """Split along `axis` into a list of tensors with that axis removed."""
    x = convert_to_tensor(value)
    r = x.shape.rank
    if not r:
        raise ValueError("Cannot unstack a scalar tensor (rank 0).")
    if not -r <= int(axis) < r:
        raise ValueError(f"Argument `axis` = {axis} not in range [{-r}, {r})\nHint: the input has {r} axes.")
    axis = normalise_axis(axis, r, "Unpack")
    n = x.shape[axis] if num is None else num
    if n is None:
        raise ValueError(f"Cannot infer argument `num` from shape {x.shape}")
    return list(bind(Unpack, x, axis=axis, num=int(n)))


def _splitv_kernel(x: np.ndarray, sizes: tuple[int, ...], axis: int) -> tuple[np.ndarray, ...]:
    bounds = np.cumsum(sizes)[:-1]
    return tuple(np.split(x, bounds, axis=axis))


def split_rule(shapes: Sequence[TensorShape], types: Sequence[dtypes.DType], attrs: dict) -> list[Spec]:
    source, axis = shapes[0], attrs["axis"]
    if source.rank is None:
        return [(TensorShape(None), types[0])] * len(attrs["sizes"])
    dims = list(source)
    return [
        (TensorShape(dims[:axis] + [None if size in (None, -1) else size] + dims[axis + 1 :]), types[0])
        for size in attrs["sizes"]
    ]


SplitV = Op(
    "SplitV",
    _splitv_kernel,
    num_outputs=-1,
    shape=split_rule,
    grad=lambda c, g: [bind(ConcatV2, *_fill_none(g, c.outputs), axis=c.attrs["axis"])],
    node=lambda n, attrs: f"SplitV_num_split_{len(attrs['sizes'])}",
)
Split = Op(
    "Split",
    _splitv_kernel,
    num_outputs=-1,
    shape=split_rule,
    grad=lambda c, g: [bind(ConcatV2, *_fill_none(g, c.outputs), axis=c.attrs["axis"])],
    node=lambda n, attrs: f"Split_num_split_{len(attrs['sizes'])}",
)


def split(
    value: Any, num_or_size_splits: Any, axis: int = 0, num: int | None = None, name: str = "split"
) -> list[Tensor]:
    """Cut into pieces along `axis`: `n` equal pieces, or pieces of the listed sizes (one may be -1)."""
    x = convert_to_tensor(value)
    rank = builtins.max(x.shape.rank or 0, 1)
    if np.ndim(getattr(num_or_size_splits, "_value", num_or_size_splits)) == 0:
        n = int(getattr(num_or_size_splits, "_value", num_or_size_splits))
        if n < 1 and state.graph is not None:
            raise ValueError(f"Attr 'num_split' of 'Split' Op passed {n} less than minimum 1.")
        if n < 1:
            raise before_kernel(
                op_error(
                    InvalidArgumentError,
                    "Split",
                    f"Value for attr 'num_split' of {n} must be at least minimum 1\n\t; NodeDef: {{{{node Split}}}}; "
                    "Op<name=Split; signature=split_dim:int32, value:T -> output:num_split*T; "
                    "attr=num_split:int,min=1; attr=T:type>",
                    "give the number of pieces (at least 1), or a list of their sizes.",
                    name,
                )
            )
        node = f"Split_num_split_{n}"
        axis = normalise_axis(axis, rank, "Split", _split_axis, name, node)
        length = x.shape[axis]
        if length is not None and length % n:
            raise static_error(
                f"Number of ways to split should evenly divide the split dimension, but got "
                f"split_dim {axis} (size = {length}) and num_split {n}",
                "Split",
                f"{length} does not divide into {n} equal pieces; give a list of sizes instead.",
                name,
                node,
            )
        return list(bind(Split, x, sizes=(length // n,) * n, axis=axis))
    sizes = static_ints(num_or_size_splits, "num_or_size_splits")
    node = f"SplitV_num_split_{len(sizes)}"
    axis = normalise_axis(axis, rank, "SplitV", _split_axis, name, node)
    length = x.shape[axis]
    if len(sizes) == 1 and length is not None and sizes[0] != length:
        raise static_error(
            f"If there is only one output, it must have the same size as the input. Input size: "
            f"{length} output size: {sizes[0]}",
            "SplitV",
            f"one piece is the whole input: its size is {length}.",
            name,
            node,
        )
    if sizes.count(-1) > 1:
        raise static_error(
            "There can only be one -1 in the input.", "SplitV", "only one size can be left to work out.", name, node
        )
    if sizes.count(-1) == 1 and length is not None:
        sizes[sizes.index(-1)] = length - (sum(sizes) + 1)
    if length is not None and (sum(sizes) != length or builtins.min(sizes) < 0):
        raise static_error(
            f"Determined shape must either match input shape along split_dim exactly if fully "
            f"specified, or be less than the size of the input along split_dim if not fully "
            f"specified.  Got: {sum(sizes)}",
            "SplitV",
            f"the sizes must add up to the input's size along axis {axis}, {length}.",
            name,
            node,
        )
    return list(bind(SplitV, x, sizes=tuple(sizes), axis=axis))


def _split_axis(axis: int, rank: int) -> str:
    return f"-input rank(-{rank}) <= split_dim < input rank ({rank}), but got {axis}"


def concat_rule(shapes: Sequence[TensorShape], types: Sequence[dtypes.DType], attrs: dict) -> list[Spec]:
    """Every size but the axis's must agree; the axis's sizes add up (unknown if one of them is)."""
    axis = attrs["axis"]
    known = [s for s in shapes if s.rank is not None]
    if not known:
        return [(TensorShape(None), types[0])]
    rank = cast(int, known[0].rank)  # `known` holds the shapes of known rank
    for s in known[1:]:
        if s.rank != rank:
            raise ValueError(f"Shape must be rank {rank} but is rank {s.rank}")
    others: list[int | None] = [None] * (rank - 1)
    first_others = None
    for s in known:
        rest = [d for i, d in enumerate(s) if i != axis]
        for i, d in enumerate(rest):
            if others[i] is not None and d is not None and others[i] != d:
                first, this = shape_text(TensorShape(first_others)), shape_text(TensorShape(rest))
                raise ValueError(
                    f"Dimension {i} in both shapes must be equal, but are {others[i]} and {d}. "
                    f"Shapes are {first} and {this}."
                )
            others[i] = others[i] if others[i] is not None else d
        first_others = first_others if first_others is not None else rest
    along: int | None = 0
    for s in shapes:
        along = add_sizes(along, s[axis] if s.rank is not None else None)
    dims = others[:axis] + [along] + others[axis:]
    return [(TensorShape(dims), types[0])]


ConcatV2: Op = Op(
    "ConcatV2",
    _concat_kernel,
    check=_concat_check,
    shape=concat_rule,
    grad=_concat_grad,
    node=lambda n, attrs: f"ConcatV2_N_{n}",
)
