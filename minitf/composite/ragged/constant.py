"""`tf.ragged.constant`: a RaggedTensor from nested Python lists whose rows have different lengths.

The lists are walked once per ragged level, collecting each level's row splits; what is left at the bottom is
converted as `tf.constant` would convert it (with TensorFlow's dtype inference), and the levels are wrapped
around it from the innermost out.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from minitf.composite.ragged.tensor import RaggedTensor
from minitf.core import dtypes
from minitf.core.context import state
from minitf.core.conversion import convert_to_tensor, to_numpy
from minitf.core.tensor import Tensor, make
from minitf.ops.array.creation import constant as dense_constant


def constant(
    pylist: Any,
    dtype: Any = None,
    ragged_rank: int | None = None,
    inner_shape: Any = None,
    name: str | None = None,
    row_splits_dtype: Any = dtypes.int64,
) -> Any:
    """A RaggedTensor from nested Python lists of different lengths (a plain tensor for a flat list)."""
    depth = _depth(pylist)
    if depth == 0:
        return convert_to_tensor(pylist, dtype=dtype)
    rank = depth - 1 if ragged_rank is None else ragged_rank
    if inner_shape is not None:
        rank = depth - 1 - len(inner_shape)
    if rank >= depth:
        raise ValueError(
            f"pylist has scalar values depth {depth}, but ragged_rank={rank} requires scalar value "
            f"depth greater than {rank}"
        )
    splits_dtype = dtypes.as_dtype(row_splits_dtype)
    if rank == 0:
        return dense_constant(pylist, dtype=dtype)
    levels: list[list[int]] = []
    items: list[Any] = list(pylist)
    for _ in range(rank):
        splits = [0]
        nxt: list[Any] = []
        for item in items:
            nxt.extend(item)
            splits.append(len(nxt))
        levels.append(splits)
        items = nxt
    if not items:  # no values at all: float32 unless a dtype is given, as in TensorFlow
        dt = dtypes.float32 if dtype is None else dtypes.as_dtype(dtype)
        array = np.zeros((0,) + tuple(inner_shape or ()), dtype=dt._np)
    else:
        array, dt = to_numpy(items, None if dtype is None else dtypes.as_dtype(dtype))
    values: Any = _constant_tensor(array, dt)
    for splits in reversed(levels):
        values = RaggedTensor(
            values, _constant_tensor(np.array(splits, dtype=splits_dtype._np), splits_dtype), internal=True
        )
    return values


def _constant_tensor(array: Any, dt: dtypes.DType) -> Tensor:
    if state.graph is not None:
        return state.graph.constant(array, dt)
    return make(array, dt)


def _depth(value: Any) -> int:
    """How deep the lists nest, with TensorFlow's error when scalars sit at different depths."""
    if not isinstance(value, list | tuple):
        return 0
    found = {d for d in (_scalar_depth(v) for v in value) if d is not None}
    if len(found) > 1:
        raise ValueError("all scalar values must have the same nesting depth")
    if found:
        return 1 + found.pop()
    return 1 + max((_depth(v) for v in value), default=0)


def _scalar_depth(value: Any) -> int | None:
    """How deep the scalars inside `value` sit (None: no scalar, only empty lists)."""
    if not isinstance(value, list | tuple):
        return 0
    found = {d for d in (_scalar_depth(v) for v in value) if d is not None}
    if len(found) > 1:
        raise ValueError("all scalar values must have the same nesting depth")
    return 1 + found.pop() if found else None
