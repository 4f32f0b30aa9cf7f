"""`tf.ragged.stack` (tensors of different lengths as the rows of one RaggedTensor) and `tf.ragged.boolean_mask`
(the entries a mask keeps, row by row, so rows of a matrix become rows of different lengths)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from minitf.composite.ragged.constant import constant
from minitf.composite.ragged.tensor import RaggedTensor
from minitf.core import dtypes
from minitf.core.conversion import convert_to_tensor
from minitf.ops.array.gather_scatter import boolean_mask as dense_boolean_mask
from minitf.ops.array.gather_scatter import gather
from minitf.ops.array.join_split import concat
from minitf.ops.array.shape_ops import shape
from minitf.ops.array.where import where
from minitf.ops.math.cast import cast
from minitf.ops.math.reductions import reduce_sum


def _as_operand(value: Any) -> Any:
    if isinstance(value, RaggedTensor):
        return value
    if isinstance(value, list | tuple):
        return constant(value)
    return convert_to_tensor(value)


def stack(values: Sequence[Any], axis: int = 0, name: str | None = None) -> RaggedTensor:
    """Each of `values` (tensors or RaggedTensors, of any lengths) as one row of the result (axis 0). The row
    splits are int64, as all of minitf's (TensorFlow makes them int32 when every input is a dense tensor)."""
    if axis != 0:
        raise NotImplementedError(
            f"minitf's tf.ragged.stack stacks along axis 0 only, not {axis}.\nHint: stack along axis 0, then "
            "transpose the dense result, or run this on TensorFlow."
        )
    operands = [_as_operand(v) for v in values]
    lengths = [v.nrows() if isinstance(v, RaggedTensor) else cast(shape(v)[0], dtypes.int64) for v in operands]
    joined = concat(operands, axis=0)
    return RaggedTensor.from_row_lengths(joined, concat([convert_to_tensor([n]) for n in lengths], 0))


def boolean_mask(data: Any, mask: Any, name: str | None = None) -> Any:
    """The entries of `data` where `mask` is True: a vector mask keeps whole rows; a mask of the data's rows
    keeps entries within each row, so the rows get different lengths (a RaggedTensor)."""
    data, mask = _as_operand(data), _as_operand(mask)
    if mask.shape.rank == 1 and not isinstance(mask, RaggedTensor):
        return gather(data, where(mask)[:, 0])
    if not isinstance(data, RaggedTensor):
        data = RaggedTensor.from_tensor(data)
    if not isinstance(mask, RaggedTensor):
        mask = RaggedTensor.from_tensor(mask)
    if data.ragged_rank != 1 or mask.ragged_rank != 1:
        raise NotImplementedError(
            "minitf's tf.ragged.boolean_mask takes masks of one ragged dimension.\nHint: run this on TensorFlow."
        )
    kept = reduce_sum(cast(mask, dtypes.int64), axis=1)
    return RaggedTensor.from_row_lengths(dense_boolean_mask(data.values, mask.values), kept)
