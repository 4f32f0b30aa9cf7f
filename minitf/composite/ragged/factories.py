"""More ways to build a RaggedTensor, and its conversions to and from SparseTensor and padded dense tensors.

Every row partition TensorFlow accepts becomes row splits, the one encoding minitf keeps: value_rowids (the row of
each value), row_starts, row_limits, nested lists of any of them, a uniform row length. `to_sparse` lists each
flat value's position (`RaggedTensorToSparse`, with the values' gradient); `from_sparse` reads the rows of a
right-ragged 2-D SparseTensor. RaggedTensor's methods of these names call them; `tf.ragged.range` is the
namespace's.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from minitf.composite.ragged.ranges import RaggedRange
from minitf.composite.ragged.splits import check_splits, to_int64
from minitf.composite.ragged.tensor import RAGGED, RaggedTensor
from minitf.composite.ragged.to_dense import positions_of_values
from minitf.composite.sparse import SparseTensor
from minitf.core import dtypes
from minitf.core.conversion import convert_to_tensor, static_value
from minitf.core.errors import InvalidArgumentError
from minitf.core.op import Op, bind
from minitf.core.tensor import EagerTensor, Tensor
from minitf.core.tensor_shape import TensorShape
from minitf.ops.array.creation import range as tf_range
from minitf.ops.array.gather_scatter import gather
from minitf.ops.array.join_split import concat
from minitf.ops.array.shape_ops import reshape, shape
from minitf.ops.checks.check_ops import assert_equal
from minitf.ops.math.cast import cast
from minitf.ops.math.segment_ops import segment_ids_to_row_splits


def _values(values: Any) -> Any:
    return values if isinstance(values, RaggedTensor) else convert_to_tensor(values)


def _nvalues(values: Any) -> Any:
    return values.nrows() if isinstance(values, RaggedTensor) else values.shape[0]


def _int64_vector(value: Any) -> Tensor:
    return to_int64(convert_to_tensor(value, dtype_hint=dtypes.int64))


def from_value_rowids(
    cls: type, values: Any, value_rowids: Any, nrows: Any = None, name: str | None = None, validate: bool = True
) -> RaggedTensor:
    """Rows from the row of each value (sorted): [0, 0, 2] with 4 rows gives [[a, b], [], [c], []]."""
    values = _values(values)
    ids = _int64_vector(value_rowids)
    known = static_value(ids)
    if nrows is None and known is not None:  # known ids: the number of rows is known too, as TensorFlow infers it
        nrows = int(np.max(known)) + 1 if np.size(known) else 0
    splits = segment_ids_to_row_splits(ids, num_segments=nrows, out_type=dtypes.int64)
    _rows_known(splits, nrows)
    if validate:
        check_splits(splits, _nvalues(values), "from_value_rowids")
    return RaggedTensor(values, splits, internal=True)


def _rows_known(splits: Tensor, nrows: Any) -> None:
    """A number of rows known before running fixes the length of the splits while tracing (as in TensorFlow)."""
    if isinstance(nrows, int) and not isinstance(splits, EagerTensor):
        splits.set_shape([nrows + 1])  # type: ignore[attr-defined]


def from_row_starts(
    cls: type, values: Any, row_starts: Any, name: str | None = None, validate: bool = True
) -> RaggedTensor:
    """Rows from where each starts; the last row ends with the values."""
    values = _values(values)
    starts = _int64_vector(row_starts)
    end = (
        cast(shape(values, out_type=dtypes.int64)[:1], dtypes.int64)
        if isinstance(values, Tensor)
        else reshape(values.nrows(), [1])
    )
    splits = concat([starts, end], axis=0)
    if validate:
        check_splits(splits, _nvalues(values), "from_row_starts")
    return RaggedTensor(values, splits, internal=True)


def from_row_limits(
    cls: type, values: Any, row_limits: Any, name: str | None = None, validate: bool = True
) -> RaggedTensor:
    """Rows from where each ends; the first row starts at 0."""
    values = _values(values)
    splits = concat([convert_to_tensor([0], dtype=dtypes.int64), _int64_vector(row_limits)], axis=0)
    if validate:
        check_splits(splits, _nvalues(values), "from_row_limits")
    return RaggedTensor(values, splits, internal=True)


def _nested(factory: str, flat_values: Any, partitions: Sequence[Any], validate: bool) -> RaggedTensor:
    if isinstance(partitions, Tensor | np.ndarray):
        raise TypeError(
            "nested_row_splits must be a list of Tensors\nHint: one partition per ragged level, outermost first."
        )
    result = _values(flat_values)
    for partition in reversed(list(partitions)):
        result = getattr(RaggedTensor, factory)(result, partition, validate=validate)
    return result


def from_nested_row_splits(
    cls: type, flat_values: Any, nested_row_splits: Sequence[Any], name: str | None = None, validate: bool = True
) -> RaggedTensor:
    """A RaggedTensor with one ragged level per row_splits vector, outermost first."""
    return _nested("from_row_splits", flat_values, nested_row_splits, validate)


def from_nested_row_lengths(
    cls: type, flat_values: Any, nested_row_lengths: Sequence[Any], name: str | None = None, validate: bool = True
) -> RaggedTensor:
    return _nested("from_row_lengths", flat_values, nested_row_lengths, validate)


def from_nested_value_rowids(
    cls: type,
    flat_values: Any,
    nested_value_rowids: Sequence[Any],
    nested_nrows: Sequence[Any] | None = None,
    name: str | None = None,
    validate: bool = True,
) -> RaggedTensor:
    result = _values(flat_values)
    nrows = list(nested_nrows) if nested_nrows is not None else [None] * len(nested_value_rowids)
    for ids, n in reversed(list(zip(nested_value_rowids, nrows))):
        result = from_value_rowids(cls, result, ids, n, validate=validate)
    return result


def from_uniform_row_length(
    cls: type, values: Any, uniform_row_length: int, nrows: Any = None, validate: bool = True, name: str | None = None
) -> RaggedTensor:
    """Rows of one length: a dense dimension kept as ragged structure (the shape shows the length)."""
    values = _values(values)
    total: Any = values.nrows() if isinstance(values, RaggedTensor) else shape(values, out_type=dtypes.int64)[0]
    if values.shape[0] is not None:
        total = values.shape[0]
    length = int(uniform_row_length)
    count = total // length if length else (0 if nrows is None else nrows)
    splits = tf_range(count + 1, dtype=dtypes.int64) * length
    return RaggedTensor(values, splits, internal=True, uniform_row_length=length)


# --- SparseTensor ---


def _to_sparse_kernel(flat: Any, *splits: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    flat = np.asarray(flat)
    outer = np.array(positions_of_values(splits), dtype=np.int64).reshape(len(flat), len(splits) + 1)
    inner = np.array(list(np.ndindex(*flat.shape[1:])), dtype=np.int64).reshape(
        int(np.prod(flat.shape[1:], dtype=np.int64)), flat.ndim - 1
    )
    indices = np.concatenate([np.repeat(outer, len(inner), axis=0), np.tile(inner, (len(outer), 1))], axis=1)
    widths = [len(splits[0]) - 1] + [int(np.diff(s).max()) if len(s) > 1 else 0 for s in splits]
    return indices, flat.reshape(-1), np.array(widths + list(flat.shape[1:]), dtype=np.int64)


def _to_sparse_shape(shapes_: Any, types: Any, attrs: dict) -> list:
    rank = None if shapes_[0].rank is None else shapes_[0].rank + len(shapes_) - 1
    return [
        (TensorShape([None, rank]), dtypes.int64),
        (TensorShape([None]), types[0]),
        (TensorShape([rank]), dtypes.int64),
    ]


RaggedTensorToSparse = Op(
    "RaggedTensorToSparse",
    _to_sparse_kernel,
    shape=_to_sparse_shape,
    num_outputs=3,
    grad=lambda c, g: [None if g[1] is None else reshape(g[1], shape(c.inputs[0]))] + [None] * (len(c.inputs) - 1),
)


def to_sparse(self: RaggedTensor, name: str | None = None) -> SparseTensor:
    """A SparseTensor with one entry per value, at its (row, column, ...) position."""
    indices, values, dense_shape = bind(RaggedTensorToSparse, self.flat_values, *self.nested_row_splits)
    return SparseTensor(indices, values, dense_shape)


def from_sparse(
    cls: type, st_input: SparseTensor, name: str | None = None, row_splits_dtype: Any = dtypes.int64
) -> RaggedTensor:
    """The rows of a 2-D SparseTensor whose entries fill each row from column 0 (right-ragged)."""
    if not isinstance(st_input, SparseTensor):
        raise TypeError(f"st_input must be a SparseTensor; got {st_input!r}")
    if st_input.shape.rank not in (None, 2):
        raise ValueError(
            f"rank(st_input) must be 2.\nHint: from_sparse reads rows and columns; got rank {st_input.shape.rank}."
        )
    indices = st_input.indices
    known = static_value(st_input.dense_shape)
    rows = int(known[0]) if known is not None else st_input.dense_shape[0]
    splits = segment_ids_to_row_splits(indices[:, 0], num_segments=rows, out_type=dtypes.int64)
    _rows_known(splits, rows)
    if isinstance(indices, EagerTensor):
        _check_right_ragged(np.asarray(indices._value))
    else:  # traced: the check runs with the function, as TensorFlow's assertion does
        columns = tf_range(shape(indices, out_type=dtypes.int64)[0], dtype=dtypes.int64) - gather(splits, indices[:, 0])
        assert_equal(indices[:, 1], columns, message="SparseTensor is not right-ragged")
    return RaggedTensor(st_input.values, splits, internal=True)


def _check_right_ragged(indices: np.ndarray) -> None:
    rows = indices[:, 0]
    starts = np.searchsorted(rows, rows, side="left")
    if np.any(np.diff(rows) < 0) or np.any(indices[:, 1] != np.arange(len(rows)) - starts):
        listed = "\n".join(", ".join(str(v) for v in row) for row in indices)
        raise InvalidArgumentError(
            None,
            None,
            "Expected 'tf.Tensor(False, shape=(), dtype=bool)' to be true. "
            "Summarized data: b'SparseTensor is not right-ragged'\nb'SparseTensor.indices ='"
            f"\n{listed}\nHint: each row's entries must sit in columns 0, 1, 2, ... in "
            "order; use tf.sparse.reorder, or tf.sparse.to_dense then from_tensor.",
        )


def ragged_range(
    starts: Any,
    limits: Any = None,
    deltas: Any = 1,
    dtype: Any = None,
    name: str | None = None,
    row_splits_dtype: Any = dtypes.int64,
) -> RaggedTensor:
    """`tf.ragged.range`: row i counts from starts[i] to limits[i] (excluded) in steps of deltas[i]; with one
    argument, from 0 to it."""
    if limits is None:
        starts, limits = 0, starts
    tensors = [convert_to_tensor(v, dtype=dtype) for v in (starts, limits, deltas)]
    kinds = {t.dtype for t in tensors}
    if len(kinds) > 1:
        wide = next(d for d in (dtypes.float64, dtypes.float32, dtypes.int64, dtypes.int32) if d in kinds)
        tensors = [cast(t, wide) for t in tensors]
    splits, values = bind(RaggedRange, *tensors)
    return RaggedTensor(values, splits, internal=True)


RAGGED.provide(
    from_value_rowids=from_value_rowids,
    from_row_starts=from_row_starts,
    from_row_limits=from_row_limits,
    from_nested_row_splits=from_nested_row_splits,
    from_nested_row_lengths=from_nested_row_lengths,
    from_nested_value_rowids=from_nested_value_rowids,
    from_uniform_row_length=from_uniform_row_length,
    from_sparse=from_sparse,
    to_sparse=to_sparse,
)
