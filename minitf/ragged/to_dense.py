"""`RaggedTensorToTensor`: the op behind `rt.to_tensor()`, which pads every row to the longest.

Its inputs are the flat values, the padding value and the row splits of each ragged level. Its gradient is the
padded gradient read back at each flat value's place (`RaggedTensorToTensorGrad`); the padding's gradient is
everything else, summed.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from minitf.core import Op, bind
from minitf.ops import shapes
from minitf.ops.reductions import reduce_sum
from minitf.tensor import Tensor
from minitf.tensor_shape import TensorShape


def _to_tensor_kernel(flat: Any, default: Any, *splits: Any) -> np.ndarray:
    """Pad nested rows to the longest at every ragged level, filling gaps with `default`."""
    flat = np.asarray(flat)
    sizes = [len(splits[0]) - 1]
    for level_splits in splits:
        lengths = np.diff(level_splits)
        sizes.append(int(lengths.max()) if lengths.size else 0)
    out = np.full(sizes + list(flat.shape[1:]), default, dtype=flat.dtype)

    def fill(level: int, row: int, index: tuple) -> None:
        s = splits[level]
        for j, k in enumerate(range(int(s[row]), int(s[row + 1]))):
            if level + 1 == len(splits):
                out[index + (j,)] = flat[k]
            else:
                fill(level + 1, k, index + (j,))

    for row in range(len(splits[0]) - 1):
        fill(0, row, (row,))
    return out


def _to_tensor_shape(shapes_: Any, types: Any, attrs: dict) -> list[shapes.Spec]:
    flat, splits = shapes_[0], shapes_[2:]
    rows = splits[0][0] - 1 if splits[0].rank is not None and splits[0][0] is not None else None
    if flat.rank is None:
        return [(TensorShape(None), types[0])]
    return [(TensorShape([rows] + [None] * len(splits) + list(flat[1:])), types[0])]


def _positions(splits: Any) -> list[tuple]:
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
    g = np.asarray(g)
    positions = _positions(splits)
    if not positions:
        return np.zeros((0,) + g.shape[len(splits) + 1:], dtype=g.dtype)
    return np.stack([g[p] for p in positions])


def _to_tensor_grad(ctx: Any, g: Tensor) -> list[Any]:
    """Each flat value's gradient is the gradient at its place; padding's gradient goes to default_value."""
    flat_grad = bind(RaggedToTensorGrad, g, *ctx.inputs[2:])
    default_grad = reduce_sum(g) - reduce_sum(flat_grad) if ctx.inputs[1].dtype.is_floating else None
    return [flat_grad, default_grad] + [None] * (len(ctx.inputs) - 2)


RaggedToTensorGrad = Op("RaggedTensorToTensorGrad", _to_tensor_grad_kernel,
                        shape=lambda s, t, a: [(TensorShape(None if s[0].rank is None else
                                                             [None] + list(s[0][len(s):])), t[0])])
RaggedToTensor = Op("RaggedTensorToTensor", _to_tensor_kernel, shape=_to_tensor_shape, grad=_to_tensor_grad)
