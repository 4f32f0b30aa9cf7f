"""`RaggedTensorToTensor`: the op behind `rt.to_tensor()`, which pads every row to the longest.

Its inputs are the flat values, the padding value and the row splits of each ragged level. Its gradient is the
padded gradient read back at each flat value's place (`RaggedTensorToTensorGrad`); the padding's gradient is
everything else, summed.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from minitf.core import shape_rules
from minitf.core.op import GradContext, Op, bind
from minitf.core.tensor import Tensor
from minitf.core.tensor_shape import TensorShape
from minitf.ops.math.reductions import reduce_sum


def _to_tensor_kernel(flat: Any, default: Any, *splits: Any, shape: tuple | None = None) -> np.ndarray:
    """Pad nested rows to the longest at every ragged level (or to `shape`, cutting longer rows), filling gaps
    with `default`."""
    flat = np.asarray(flat)
    sizes = _sizes(flat, splits, shape)
    out = np.full(sizes, default, dtype=flat.dtype)
    if flat.dtype == object:  # (np.full keeps a NumPy bytes scalar; a string tensor holds Python bytes)
        out[...] = bytes(np.asarray(default)[()]) if not isinstance(default, bytes) else default
    for k, place in enumerate(positions_of_values(splits)):
        if all(i < n for i, n in zip(place, sizes)):
            out[place] = flat[k] if flat.ndim == 1 else flat[k][tuple(slice(0, n) for n in sizes[len(place) :])]
    return out


def _sizes(flat: np.ndarray, splits: Any, shape: tuple | None) -> list[int]:
    """The padded tensor's shape: the number of rows, the longest row at each level, the values' own shape;
    any size `shape` gives instead."""
    sizes = [len(splits[0]) - 1]
    for level_splits in splits:
        lengths = np.diff(level_splits)
        sizes.append(int(lengths.max()) if lengths.size else 0)
    sizes += list(flat.shape[1:])
    if shape is not None:
        sizes = [n if want is None else int(want) for n, want in zip(sizes, shape)]
    return sizes


def _to_tensor_shape(shapes_: Any, types: Any, attrs: dict) -> list[shape_rules.Spec]:
    flat, splits = shapes_[0], shapes_[2:]
    rows = splits[0][0] - 1 if splits[0].rank is not None and splits[0][0] is not None else None
    if flat.rank is None:
        return [(TensorShape(None), types[0])]
    dims = [rows] + [None] * len(splits) + list(flat[1:])
    wanted = attrs.get("shape")
    if wanted is not None:
        dims = [n if want is None else want for n, want in zip(dims, wanted)]
    return [(TensorShape(dims), types[0])]


def positions_of_values(splits: Any) -> list[tuple]:
    """Where each flat value lands in the padded tensor, in flat-value order."""
    out: list[tuple] = []

    def walk(level: int, row: int, index: tuple) -> None:
        s = splits[level]
        for j, k in enumerate(range(int(s[row]), int(s[row + 1]))):
            if level + 1 == len(splits):
                out.append(index + (j,))
            else:
                walk(level + 1, k, index + (j,))

    for row in range(len(splits[0]) - 1):
        walk(0, row, (row,))
    return out


def _to_tensor_grad_kernel(g: Any, *splits: Any) -> np.ndarray:
    """Each flat value's gradient: the padded gradient at its place (zero where `shape` cut the value off)."""
    g = np.asarray(g)
    inner = g.shape[len(splits) + 1 :]
    out = np.zeros((int(splits[-1][-1]),) + inner, dtype=g.dtype)
    for k, place in enumerate(positions_of_values(splits)):
        if all(i < n for i, n in zip(place, g.shape)):
            out[k] = g[place]
    return out


def _to_tensor_grad(ctx: GradContext, g: Tensor) -> list[Any]:
    """Each flat value's gradient is the gradient at its place; padding's gradient goes to default_value."""
    flat_grad = bind(RaggedToTensorGrad, g, *ctx.inputs[2:])
    default_grad = reduce_sum(g) - reduce_sum(flat_grad) if ctx.inputs[1].dtype.is_floating else None
    return [flat_grad, default_grad] + [None] * (len(ctx.inputs) - 2)


RaggedToTensorGrad = Op(
    "RaggedTensorToTensorGrad",
    _to_tensor_grad_kernel,
    shape=lambda s, t, a: [(TensorShape(None if s[0].rank is None else [None] + list(s[0][len(s) :])), t[0])],
)
RaggedToTensor = Op("RaggedTensorToTensor", _to_tensor_kernel, shape=_to_tensor_shape, grad=_to_tensor_grad)
