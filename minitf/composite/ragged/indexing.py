"""`rt[...]` on a RaggedTensor: rows, slices of rows, and slices within every row, as TensorFlow indexes.

The first index picks rows (`rt[1]` is one row, `rt[1:]` some rows). Every later index applies within each row:
a slice `rt[:, a:b]` keeps items a..b-1 of every row (negative bounds count from each row's own end), which is a
range of value positions per row (`RaggedRange`, minitf/composite/ragged/ranges.py); an integer into a ragged dimension
is refused, as TensorFlow refuses it, because rows of different lengths may not have that item. Indices into
uniform inner dimensions apply to the flat values.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from minitf.composite.ragged.ranges import gather_rows, positions
from minitf.composite.ragged.tensor import RAGGED, RaggedTensor, slice_rows
from minitf.core import dtypes
from minitf.core.conversion import convert_to_tensor, static_value
from minitf.core.tensor import EagerTensor, Tensor
from minitf.ops.array.creation import range as tf_range
from minitf.ops.array.where import where
from minitf.ops.math.binary_math import maximum, minimum
from minitf.ops.math.comparisons import less

Index = int | slice | Tensor | np.integer


def getitem(rt: RaggedTensor, key: Any) -> Any:
    """`rt[key]`: see the module's docstring."""
    keys = list(key) if isinstance(key, tuple) else [key]
    if not keys:
        return rt
    if any(k is Ellipsis or k is None for k in keys):
        raise TypeError(
            f"minitf's RaggedTensor indexing takes integers and slices, not {key!r}.\nHint: "
            "rt.to_tensor() gives a dense tensor that accepts every index."
        )
    first, rest = keys[0], keys[1:]
    if isinstance(first, slice):
        rows = _rows(rt, first)
        return _within_rows(rows, rest) if rest else rows
    if isinstance(first, int | np.integer | Tensor):
        row = _row(rt, first)
        return row[tuple(rest)] if rest else row
    raise TypeError(
        f"minitf's RaggedTensor supports integer and slice indices, not {first!r}.\nHint: "
        "rt.to_tensor() gives a dense tensor that accepts every index."
    )


def _row(rt: RaggedTensor, key: Any) -> Any:
    """Row `key` (a tensor, or a RaggedTensor when ragged_rank > 1)."""
    splits = rt.row_splits
    nrows = rt.shape[0]
    if isinstance(key, Tensor):
        return slice_rows(rt.values, splits[key], splits[key + 1])
    eager = isinstance(splits, EagerTensor)
    if nrows is not None and not -nrows <= key < nrows:
        if not eager:  # TensorFlow slices row_splits: while tracing, its shape function finds the bad index
            raise ValueError(
                f"slice index {key} of dimension 0 out of bounds.\nHint: this RaggedTensor has {nrows} rows."
            )
        raise IndexError(f"Row key {key} out of bounds\nHint: this RaggedTensor has {nrows} rows.")
    index = int(key) + nrows if key < 0 and nrows is not None else int(key)
    known = static_value(splits)
    if known is not None:  # splits known before running (eager, or a traced constant): so are the row's sizes
        return slice_rows(rt.values, int(known[index]), int(known[index + 1]))
    return slice_rows(rt.values, splits[index], splits[index + 1])


def _rows(rt: RaggedTensor, key: slice) -> RaggedTensor:
    """rt[a:b]: rows a..b-1, their splits shifted to start at 0."""
    if key.step not in (None, 1):
        return gather_rows(rt, tf_range(rt.nrows())[key])
    nrows = rt.shape[0]
    if nrows is None:  # rows a..b-1 read splits a..b: the same slice, with negative ends one further back
        start = key.start if key.start is None or key.start >= 0 else key.start - 1
        stop = None if key.stop is None else key.stop + 1 if key.stop >= 0 else key.stop
        splits = rt.row_splits[start:stop]
    else:
        first_row, stop_row, _ = key.indices(nrows)
        splits = rt.row_splits[first_row : max(first_row, stop_row) + 1]
    first = splits[0]
    return RaggedTensor(slice_rows(rt.values, first, splits[-1]), splits - first, internal=True)


def _within_rows(rt: RaggedTensor, keys: list[Any]) -> Any:
    """rt[:, k1, k2, ...]: k1 applies to every row's items, the rest further in."""
    key, rest = keys[0], keys[1:]
    values = rt.values
    if not isinstance(key, slice):
        if rt.shape[1] is None:
            raise ValueError(
                "Cannot index into an inner ragged dimension.\nHint: rows have different lengths, "
                "so some rows may not have that item; slice instead (rt[:, i:i+1]), or pad with "
                "rt.to_tensor() first."
            )
        return _uniform_index(rt, keys)
    if key.step is not None and int(key.step) <= 0:
        raise ValueError(
            f"minitf slices within the rows of a RaggedTensor with a positive step, not {key.step}."
            "\nHint: reverse the rows with tf.reverse first."
        )
    splits = rt.row_splits
    lengths = splits[1:] - splits[:-1]
    step = 1 if key.step is None else int(key.step)
    begin = splits[:-1] + _bound(key.start, lengths, 0)
    end = splits[:-1] + _bound(key.stop, lengths, None)
    new_splits, kept = positions(begin, maximum(end, begin), step)
    values = gather_rows(values, kept)
    if rest:
        values = values[(slice(None), *rest)]
    return RaggedTensor(values, new_splits, internal=True)


def _uniform_index(rt: RaggedTensor, keys: list[Any]) -> Any:
    """An integer into a uniform dimension (from_uniform_row_length): the dense reshaped view takes it."""
    dense = rt.to_tensor()
    return dense[(slice(None), *keys)]


def _bound(bound: Any, lengths: Tensor, default: Any) -> Tensor:
    """A slice bound within each row: negative counts from the row's end; clamped to [0, length]."""
    if bound is None:
        return lengths if default is None else lengths * 0 + default
    b = convert_to_tensor(int(bound), dtype=dtypes.int64)
    counted = where(less(b, 0), lengths + b, b + lengths * 0)
    return minimum(maximum(counted, 0 * lengths), lengths)


RAGGED.provide(getitem=getitem)
