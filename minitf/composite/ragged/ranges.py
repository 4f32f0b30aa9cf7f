"""`RaggedRange`: one range of numbers per row, the op behind `tf.ragged.range` and behind taking rows.

Row i holds start[i], start[i] + delta[i], ... up to limit[i] (excluded); the op returns the row splits and
the numbers one after another. Taking some rows of a ragged tensor (a slice of every row, a gather of rows) is
a range of value positions per row, so indexing (minitf/composite/ragged/indexing.py) builds on it too.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from minitf.core import dtypes
from minitf.core.conversion import convert_to_tensor
from minitf.core.errors import InvalidArgumentError, op_error
from minitf.core.op import Op, bind
from minitf.core.tensor import Tensor
from minitf.core.tensor_shape import TensorShape
from minitf.ops.array.gather_scatter import gather

RANGE_TYPES = frozenset({dtypes.float32, dtypes.float64, dtypes.int32, dtypes.int64})


def _range_kernel(starts: Any, limits: Any, deltas: Any) -> tuple[np.ndarray, np.ndarray]:
    starts, limits, deltas = np.broadcast_arrays(np.asarray(starts), np.asarray(limits), np.asarray(deltas))
    if starts.ndim > 1:
        raise op_error(
            InvalidArgumentError,
            "RaggedRange",
            "starts must be a scalar or vector",
            "tf.ragged.range makes one row per start; give a vector of starts.",
            kernel=True,
        )
    if np.any(deltas == 0):
        raise op_error(
            InvalidArgumentError, "RaggedRange", "Requires delta != 0", "each row's step must not be 0.", kernel=True
        )
    starts, limits, deltas = (np.atleast_1d(a) for a in (starts, limits, deltas))
    sizes = [
        max(0, int(np.ceil((float(lim) - float(s)) / float(d))))
        if starts.dtype.kind == "f"
        else max(0, -(-(int(lim) - int(s)) // int(d)))
        for s, lim, d in zip(starts, limits, deltas)
    ]
    splits = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    values = [s + d * np.arange(n, dtype=starts.dtype) for s, d, n in zip(starts, deltas, sizes)]
    flat = np.concatenate(values).astype(starts.dtype) if values else np.zeros([0], starts.dtype)
    return splits, flat


def _range_shape(shapes: Any, types: Any, attrs: dict) -> list:
    ranks = [s.rank for s in shapes]
    rows = None
    for s in shapes:
        if s.rank == 1:
            rows = s[0] if rows is None else rows
    if all(r == 0 for r in ranks):
        rows = 1
    return [(TensorShape([None if rows is None else rows + 1]), dtypes.int64), (TensorShape([None]), types[0])]


RaggedRange = Op("RaggedRange", _range_kernel, shape=_range_shape, num_outputs=2)


def positions(starts: Tensor, limits: Tensor, step: int = 1) -> tuple[Tensor, Tensor]:
    """The row splits and the value positions of rows that run from starts[i] to limits[i] (int64)."""
    return bind(RaggedRange, starts, limits, convert_to_tensor(step, dtype=dtypes.int64))


def gather_rows(values: Any, indices: Tensor) -> Any:
    """values[indices] along the first axis: a gather, or for ragged values the rows' ranges of their values."""
    if not hasattr(values, "row_splits"):
        return gather(values, indices)
    splits = values.row_splits
    new_splits, inner = positions(gather(splits, indices), gather(splits, indices + 1))
    return type(values)(gather_rows(values.values, inner), new_splits, internal=True)
