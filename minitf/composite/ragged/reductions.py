"""`tf.reduce_sum(rt, axis=...)` and the other reductions of a 2-D RaggedTensor.

Over everything, a reduction is the dense one on the flat values. Within each row (axis=1) it is a segment
reduction over the row splits (`RaggedSegmentReduce`); over the rows (axis=0) the same op runs on the values
reordered column by column (`ColumnOrder`, `ColumnSplits`). A mean is a sum divided by a count, as in TensorFlow.
"""

from __future__ import annotations

import typing
from collections.abc import Callable
from typing import Any

import numpy as np

from minitf.composite.ragged.tensor import RaggedTensor
from minitf.core import dtypes, shape_rules
from minitf.core.op import GradContext, Op, bind
from minitf.core.tensor import Tensor
from minitf.core.tensor_shape import TensorShape
from minitf.ops.array.gather_scatter import gather
from minitf.ops.array.shape_ops import reshape, size
from minitf.ops.math.binary_math import truediv
from minitf.ops.math.cast import cast
from minitf.ops.math.reductions import reduce_sum


def _segment_reduce_kernel(values: Any, splits: Any, reducer: str) -> np.ndarray:
    values = np.asarray(values)
    out_shape = (len(splits) - 1,) + values.shape[1:]
    if reducer == "sum":
        out = np.zeros(out_shape, dtype=values.dtype)
    elif reducer == "prod":
        out = np.ones(out_shape, dtype=values.dtype)
    elif reducer in ("max", "min"):
        out = np.full(out_shape, _identity(values.dtype, reducer), dtype=values.dtype)
    else:
        raise ValueError(f"Unknown reducer {reducer!r}")
    reducers: dict[str, Callable[..., Any]] = {"sum": np.sum, "prod": np.prod, "max": np.max, "min": np.min}
    func = reducers[reducer]
    for i in range(len(splits) - 1):
        rows = values[int(splits[i]) : int(splits[i + 1])]
        if len(rows):
            out[i] = func(rows, axis=0).astype(values.dtype)
    return out


def _identity(dtype: np.dtype, reducer: str) -> Any:
    if dtype.kind == "f":  # TensorFlow's segment reductions start from the lowest finite value, not -inf
        floats = np.finfo(dtype)
        return floats.min if reducer == "max" else floats.max
    if dtype.kind == "b":
        return reducer == "min"
    ints = np.iinfo(dtype)
    return ints.min if reducer == "max" else ints.max


def _segment_shape(shapes_: Any, types: Any, attrs: dict) -> list[shape_rules.Spec]:
    splits, values_ = shapes_[1], shapes_[0]
    rows = splits[0] - 1 if splits.rank is not None and splits[0] is not None else None
    if values_.rank is None:
        return [(TensorShape(None), types[0])]
    return [(TensorShape([rows] + list(values_[1:])), types[0])]


def _segment_grad(ctx: GradContext, g: Tensor) -> list[Any]:
    """Sum: every value of row i gets g[i] (max, min and prod have no gradient here)."""
    if ctx.attrs["reducer"] != "sum":
        return [None, None]
    return [gather(g, bind(RowIds, ctx.inputs[1])), None]


RaggedSegmentReduce = Op("RaggedSegmentReduce", _segment_reduce_kernel, shape=_segment_shape, grad=_segment_grad)
RowIds = Op(
    "RaggedRowIds",
    lambda splits: np.repeat(np.arange(len(splits) - 1, dtype=np.int64), np.diff(splits)),
    shape=lambda s, t, a, values=None: [(TensorShape([None]), dtypes.int64)],
)

_REDUCERS = {"reduce_sum": "sum", "reduce_prod": "prod", "reduce_max": "max", "reduce_min": "min"}


def reduce(
    name: str, dense_fn: Callable[..., Any], rt: RaggedTensor, axis: Any = None, keepdims: bool = False, **kwargs: Any
) -> Any:
    """A reduction of a 2-D ragged tensor: over everything, over rows (axis=0) or within each row (axis=1).

    A mean is a sum divided by a count, as in TensorFlow: so the mean of int32 values is float64.
    """
    if isinstance(axis, list | tuple):
        if len(axis) == 1:
            axis = axis[0]
        elif sorted(int(a) % typing.cast(int, rt.shape.rank) for a in axis) == list(
            range(typing.cast(int, rt.shape.rank))
        ):
            axis = None
        else:
            return _unsupported(name, axis)
    if axis is None:
        if name != "reduce_mean":
            return dense_fn(rt.flat_values, **kwargs)
        total = reduce_sum(rt.flat_values)
        return truediv(total, cast(size(rt.flat_values), total.dtype))
    rank = typing.cast(int, rt.shape.rank)  # reductions over an axis need a known rank
    axis = int(axis) + rank if int(axis) < 0 else int(axis)
    if rt.ragged_rank != 1 or axis not in (0, 1) or keepdims:
        return _unsupported(name, axis)
    if axis == 1:
        values, splits = rt.values, rt.row_splits
    else:  # axis 0: column j reduces the j-th item of every row that has one
        values = gather(rt.values, bind(ColumnOrder, rt.row_splits))
        splits = bind(ColumnSplits, rt.row_splits)
    if name != "reduce_mean":
        return bind(RaggedSegmentReduce, values, splits, reducer=_REDUCERS[name])
    total = bind(RaggedSegmentReduce, values, splits, reducer="sum")
    counts = cast(splits[1:] - splits[:-1], total.dtype)
    if values.shape.rank is not None and values.shape.rank > 1:  # a count per row, for every inner position
        counts = reshape(counts, [-1] + [1] * (values.shape.rank - 1))
    return truediv(total, counts)


def _column_splits(splits: Any) -> np.ndarray:
    lengths = np.diff(splits)
    width = int(lengths.max()) if lengths.size else 0
    counts = [(lengths > j).sum() for j in range(width)]
    return np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)


def _column_order(splits: Any) -> np.ndarray:
    lengths = np.diff(splits)
    width = int(lengths.max()) if lengths.size else 0
    return np.array(
        [splits[i] + j for j in range(width) for i in range(len(lengths)) if lengths[i] > j], dtype=np.int64
    )


def _int64_vector(shapes_: Any, types: Any, attrs: dict, values: Any = None) -> list:
    return [(TensorShape([None]), dtypes.int64)]


ColumnSplits = Op("RaggedColumnSplits", _column_splits, shape=_int64_vector, value_dependent=True)
ColumnOrder = Op("RaggedColumnOrder", _column_order, shape=_int64_vector, value_dependent=True)


def _unsupported(name: str, axis: Any) -> Any:
    raise ValueError(
        f"minitf's tf.{name} on a RaggedTensor supports axis=None, 0 or 1 of a 2-D ragged tensor, "
        f"not axis={axis}.\nHint: use rt.to_tensor() first, or reduce rt.flat_values."
    )
