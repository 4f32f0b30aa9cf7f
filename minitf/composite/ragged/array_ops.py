"""Array ops on RaggedTensors (`tf.concat`, `tf.tile`, `tf.reverse`, `tf.map_fn`) and dense operands that
broadcast against ragged ones (`rt + [[10], [20]]`).

Each is built from taking rows (`gather_rows`, minitf/composite/ragged/ranges.py): joining K ragged tensors along axis 1
is joining them along axis 0 and then taking row 0 of each, row 1 of each, ... and merging every K rows into one.
A dense operand whose dimensions reach the ragged ones is repeated for every value of its row.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from minitf.composite.ragged.ranges import RaggedRange, gather_rows
from minitf.composite.ragged.tensor import RaggedTensor, same_splits
from minitf.core import dtypes
from minitf.core.conversion import convert_to_tensor, static_value
from minitf.core.op import bind
from minitf.ops.array.creation import range as tf_range
from minitf.ops.array.gather_scatter import gather
from minitf.ops.array.join_split import concat as dense_concat
from minitf.ops.array.join_split import stack
from minitf.ops.array.shape_ops import reshape, transpose
from minitf.ops.checks.check_ops import assert_equal


def _ragged(value: Any, ragged_rank: int) -> RaggedTensor:
    if isinstance(value, RaggedTensor):
        return value
    dense = convert_to_tensor(value)
    result = RaggedTensor.from_tensor(dense)
    return RaggedTensor.from_row_splits(result.values, result.row_splits, validate=False) if ragged_rank else result


def _axis(axis: Any, rank: int | None) -> int:
    axis = int(axis)
    if axis < 0:
        if rank is None:
            raise ValueError("axis may only be negative if ndims is statically known.")
        axis += rank
    return axis


def concat(values: Sequence[Any], axis: Any, name: str = "concat") -> Any:
    """Ragged tensors (and dense ones, as ragged) joined along `axis`: 0 adds rows, 1 lengthens every row."""
    first = next(v for v in values if isinstance(v, RaggedTensor))
    parts = [_ragged(v, first.ragged_rank) for v in values]
    axis = _axis(axis, first.shape.rank)
    if axis == 0:
        return _stack_rows(parts)
    if axis != 1:
        return _unsupported(axis)
    nrows = parts[0].nrows()
    for other in parts[1:]:
        assert_equal(
            nrows,
            other.nrows(),
            message="Input tensors at index 0 (=x) and 1 (=y) have incompatible "
            "shapes.\nHint: tf.concat on axis 1 joins row i of each ragged tensor: they need as many rows.",
        )
    joined = _stack_rows(parts)
    count = len(parts)
    order = reshape(transpose(reshape(tf_range(nrows * count, dtype=dtypes.int64), [count, -1])), [-1])
    interleaved = gather_rows(joined, order)
    return RaggedTensor(interleaved.values, interleaved.row_splits[::count], internal=True)


def _stack_rows(parts: list[RaggedTensor]) -> RaggedTensor:
    """The rows of every part, one part after another (nested ragged values joined the same way)."""
    splits = [parts[0].row_splits]
    for part in parts[1:]:
        splits.append(part.row_splits[1:] + splits[-1][-1])
    values = [p.values for p in parts]
    inner = _stack_rows(values) if isinstance(values[0], RaggedTensor) else dense_concat(values, axis=0)
    return RaggedTensor(inner, dense_concat(splits, axis=0), internal=True)


def _unsupported(axis: int) -> Any:
    raise ValueError(
        f"minitf joins RaggedTensors along axis 0 or 1, not axis {axis}.\nHint: use "
        "tf.ragged.map_flat_values, or pad with rt.to_tensor() first."
    )


def tile(input: Any, multiples: Sequence[int], name: str | None = None) -> RaggedTensor:
    """A 2-D ragged tensor's rows repeated multiples[1] times, then the rows multiples[0] times."""
    rt = input
    if len(multiples) != 2 or rt.ragged_rank != 1:
        raise ValueError(
            "minitf tiles 2-D RaggedTensors (multiples of length 2).\nHint: pad with rt.to_tensor() "
            "and tile the dense tensor."
        )
    columns = int(multiples[1])
    wide = concat([rt] * columns, axis=1) if columns else rt[:, :0]
    return _stack_rows([wide] * int(multiples[0])) if int(multiples[0]) else wide[:0]


def reverse(tensor: Any, axis: Sequence[int], name: str | None = None) -> RaggedTensor:
    """Rows in reverse order (axis 0), and/or each row's items in reverse order (axis 1)."""
    rt = tensor
    for a in axis:
        a = _axis(a, rt.shape.rank)
        if a == 0:
            rt = gather_rows(rt, tf_range(rt.nrows() - 1, -1, -1, dtype=dtypes.int64))
        elif a == 1:
            splits = rt.row_splits
            new_splits, order = bind(
                RaggedRange, splits[1:] - 1, splits[:-1] - 1, convert_to_tensor(-1, dtype=dtypes.int64)
            )
            rt = RaggedTensor(gather_rows(rt.values, order), new_splits, internal=True)
        else:
            _unsupported(a)
    return rt


def map_fn(fn: Callable[..., Any], elems: RaggedTensor, fn_output_signature: Any = None, **options: Any) -> Any:
    """`fn` on each row of a ragged tensor: rows of different lengths come back as a RaggedTensor (unless
    `fn_output_signature` names a dense dtype); eagerly, one call per row."""
    nrows = static_value(elems.row_splits)
    if nrows is None:
        raise TypeError(
            "minitf's tf.map_fn over the rows of a RaggedTensor runs eagerly (one call per row), not "
            "inside a tf.function.\nHint: inside a tf.function, apply the op to rt.flat_values "
            "(tf.ragged.map_flat_values) or pad with rt.to_tensor()."
        )
    rows = [fn(elems[i]) for i in range(len(nrows) - 1)]
    dense_result = fn_output_signature is not None and not hasattr(fn_output_signature, "ragged_rank")
    if dense_result:
        return stack([convert_to_tensor(r, dtype=fn_output_signature) for r in rows])
    rows = [convert_to_tensor(r) for r in rows]
    lengths = convert_to_tensor([int(r.shape[0]) for r in rows], dtype=dtypes.int64)
    values = dense_concat(rows, axis=0) if rows else elems.flat_values[:0]
    return RaggedTensor.from_row_lengths(values, lengths)


def dense_per_value(rt: RaggedTensor, dense: Any) -> Any:
    """A dense operand as it broadcasts against `rt`'s flat values: unchanged when it reaches only the uniform
    inner dimensions, else each of its rows repeated for every value of that row (its ragged dimensions must
    be 1)."""
    inner_rank = (rt.flat_values.shape.rank or 1) - 1
    if dense.shape.rank is None or dense.shape.rank <= inner_rank:
        return dense
    rank = rt.ragged_rank + inner_rank + 1
    full = reshape(dense, [1] * (rank - dense.shape.rank) + dense.shape.as_list())
    if any(n != 1 for n in full.shape.as_list()[1 : rt.ragged_rank + 1]):  # as TensorFlow: rows of one length,
        rows_of_dense = RaggedTensor.from_tensor(full)  # which must be rt's row lengths
        same_splits(rows_of_dense, rt)
        return rows_of_dense.flat_values
    per_row = reshape(full, [full.shape[0]] + full.shape.as_list()[rt.ragged_rank + 1 :])
    if full.shape[0] == 1:
        return per_row[0]
    rows = tf_range(rt.nrows(), dtype=dtypes.int64)
    level: Any = rt
    while isinstance(level, RaggedTensor):  # the outer row of each value, level by level
        rows = gather(rows, level.value_rowids())
        level = level.values
    return gather(per_row, rows)
