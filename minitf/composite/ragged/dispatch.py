"""Dense ops on RaggedTensors: `tf.add(rt, 1)`, `tf.reduce_sum(rt, axis=1)`, `tf.ragged.map_flat_values`.

An elementwise op applied to ragged arguments runs on their flat values and keeps their row structure (all
ragged arguments must have the same row splits). The public ops look a RaggedTensor argument up in the tables of
minitf/core/dispatch.py, filled below, as TensorFlow's `dispatch_for_api` does; a call on tensors never comes
here.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from minitf.composite.ragged import array_ops
from minitf.composite.ragged.array_ops import dense_per_value
from minitf.composite.ragged.dynamic_shape import DynamicRaggedShape
from minitf.composite.ragged.ranges import gather_rows
from minitf.composite.ragged.reductions import reduce
from minitf.composite.ragged.tensor import RAGGED, RaggedTensor, same_splits
from minitf.core import dtypes
from minitf.core.conversion import convert_to_tensor
from minitf.core.dispatch import APIS, ELEMENTWISE, dispatch_for_api
from minitf.core.tensor import Tensor
from minitf.ops.array.creation import ones, zeros
from minitf.ops.array.gather_scatter import gather
from minitf.ops.array.join_split import concat
from minitf.ops.array.shape_ops import shape
from minitf.ops.array.tile_pad import reverse, tile
from minitf.ops.control.map_ops import map_fn
from minitf.ops.math.reductions import reduce_max, reduce_mean, reduce_min, reduce_prod, reduce_sum
from minitf.ops.nn.embedding import embedding_lookup
from minitf.ops.strings.joining import join


def map_flat_values(op: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """`op` applied to the flat values of the ragged arguments; the result has their row structure."""
    ragged = [a for a in list(args) + list(kwargs.values()) if isinstance(a, RaggedTensor)]
    if not ragged:
        return op(*args, **kwargs)
    for other in ragged[1:]:
        same_splits(ragged[0], other)

    def flat(a: Any) -> Any:
        return a.flat_values if isinstance(a, RaggedTensor) else a

    return ragged[0].with_flat_values(op(*[flat(a) for a in args], **{k: flat(v) for k, v in kwargs.items()}))


def _operand(rt: RaggedTensor, other: Any) -> Any:
    """What an elementwise op combines with `rt`'s flat values: another ragged tensor's flat values (same
    rows), a dense operand repeated for the values of its rows (minitf/composite/ragged/array_ops.py), or a Python
    number as it is."""
    if isinstance(other, RaggedTensor):
        same_splits(rt, other)
        return other.flat_values
    if isinstance(other, Tensor | list | tuple | np.ndarray):
        dense = other if isinstance(other, Tensor) else convert_to_tensor(other, dtype_hint=rt.dtype)
        return dense_per_value(rt, dense)
    return other


def elementwise(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """Apply a dense elementwise function to the flat values of ragged arguments (dense ones broadcast)."""
    first = next(a for a in args if isinstance(a, RaggedTensor))
    return first.with_flat_values(fn(*[_operand(first, a) for a in args], **kwargs))


# --- what RaggedTensor takes over (minitf/core/dispatch.py) ---
ELEMENTWISE[RaggedTensor] = elementwise  # abs, add, cast, equal, exp, ... and the one-string-in string ops


def _reduction(api: Callable[..., Any]) -> Callable[..., Any]:
    return lambda rt, axis=None, keepdims=False: reduce(api.__name__, api, rt, axis, keepdims)


for _api in (reduce_sum, reduce_mean, reduce_max, reduce_min, reduce_prod):
    APIS[(_api, RaggedTensor)] = _reduction(_api)


@dispatch_for_api(concat, RaggedTensor)
def _concat(values: Any, axis: Any) -> Any:
    return array_ops.concat(values, axis)


@dispatch_for_api(tile, RaggedTensor)
def _tile(input: Any, multiples: Any) -> Any:
    return array_ops.tile(input, multiples)


@dispatch_for_api(reverse, RaggedTensor)
def _reverse(tensor: Any, axis: Any) -> Any:
    return array_ops.reverse(tensor, axis)


@dispatch_for_api(shape, RaggedTensor)
def _shape(input: RaggedTensor, out_type: Any = None) -> Any:
    return DynamicRaggedShape.from_tensor(input)


@dispatch_for_api(zeros, DynamicRaggedShape)
def _zeros(shape: DynamicRaggedShape, dtype: Any = dtypes.float32) -> Any:
    return shape.filled(0, dtype)


@dispatch_for_api(ones, DynamicRaggedShape)
def _ones(shape: DynamicRaggedShape, dtype: Any = dtypes.float32) -> Any:
    return shape.filled(1, dtype)


@dispatch_for_api(gather, RaggedTensor)
def _gather(params: Any, ids: RaggedTensor, validate_indices: Any = None, axis: Any = None, batch_dims: int = 0) -> Any:
    """`tf.gather(params, ragged_ids)`: one lookup per flat id, in the ids' rows; `tf.gather(ragged_params, ids)`:
    the rows at `ids`."""
    if isinstance(params, RaggedTensor) and not isinstance(ids, RaggedTensor) and axis in (None, 0) and not batch_dims:
        return gather_rows(params, convert_to_tensor(ids, dtype_hint=dtypes.int64))
    if isinstance(params, RaggedTensor):
        raise TypeError("minitf gathers whole rows of a RaggedTensor only (axis 0, dense ids, no batch_dims).")
    return ids.with_flat_values(gather(params, ids.flat_values, validate_indices, axis, batch_dims))


@dispatch_for_api(embedding_lookup, RaggedTensor)
def _embedding_lookup(params: Any, ids: RaggedTensor, max_norm: Any = None) -> Any:
    return ids.with_flat_values(embedding_lookup(params, ids.flat_values, max_norm))


@dispatch_for_api(join, RaggedTensor)
def _join(inputs: Any, separator: str = "") -> Any:
    """`tf.strings.join([rt, rt], separator)`: elementwise over the list."""
    first = next(v for v in inputs if isinstance(v, RaggedTensor))
    return first.with_flat_values(join([_operand(first, v) for v in inputs], separator))


@dispatch_for_api(map_fn, RaggedTensor)
def _map_fn(fn: Callable[..., Any], elems: RaggedTensor, **kwargs: Any) -> Any:
    return array_ops.map_fn(fn, elems, **kwargs)


RAGGED.provide(operand=_operand)
