"""Segment maxima, minima and products: tf.math.segment_max / segment_min / segment_prod (sorted ids, one row
per id up to the largest) and unsorted_segment_max / min / prod (ids in any order, a given number of segments,
negative ids dropped).

An empty segment is filled as TensorFlow's kernels fill it: sorted, with 0 (max, min) or 1 (prod); unsorted,
with the reduction's identity: the dtype's lowest value for max (not -inf), its highest for min, 1 for prod.
Gradients are TensorFlow's: a maximum's gradient is shared equally by the entries that tie for it; a product's
is the product of the other entries (so a segment with two zeros passes no gradient).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from minitf.core import dtypes
from minitf.core.conversion import convert_to_tensor
from minitf.core.errors import InvalidArgumentError, allowed_dtypes
from minitf.core.op import GradContext, Op, bind
from minitf.core.tensor import Tensor
from minitf.ops.array.creation import ones_like, zeros_like
from minitf.ops.array.gather_scatter import gather
from minitf.ops.array.index_arguments import INDEX_TYPES, known_ints
from minitf.ops.array.join_split import concat
from minitf.ops.array.shape_ops import reshape, shape
from minitf.ops.array.where import where
from minitf.ops.math.binary_math import maximum
from minitf.ops.math.cast import cast
from minitf.ops.math.comparisons import equal, greater, greater_equal, logical_and
from minitf.ops.math.segment_ops import (
    _segment_sum_shape,
    _unsorted_shape,
    check_sorted_ids,
    reduce_unsorted,
    segment_sum,
    unsorted_segment_sum,
)

REDUCERS: dict[str, np.ufunc] = {"Max": np.maximum, "Min": np.minimum, "Prod": np.multiply}
ORDERED = dtypes.REAL  # max and min: no complex, no bool
MULTIPLIABLE = dtypes.NUMERIC


def _check(name: str, allowed: frozenset[dtypes.DType]) -> Callable[[Sequence[Tensor], dict], None]:
    def check(inputs: Sequence[Tensor], attrs: dict) -> None:
        allowed_dtypes(name, allowed, inputs[0].dtype)
        if inputs[1].dtype not in INDEX_TYPES:
            allowed_dtypes(name, INDEX_TYPES, inputs[1].dtype)

    return check


def _fill(kind: str, dtype: np.dtype, sorted_ids: bool) -> Any:
    """What an empty segment holds."""
    if kind == "Prod":
        return 1
    if sorted_ids:
        return 0
    info = np.finfo(dtype) if dtype.kind == "f" else np.iinfo(dtype)
    return info.min if kind == "Max" else info.max


# ---------------------------------------------------------------------------------------------------
# Sorted ids
# ---------------------------------------------------------------------------------------------------


def _sorted_kernel(kind: str) -> Callable[..., np.ndarray]:
    op = f"Segment{kind}"

    def kernel(data: np.ndarray, segment_ids: np.ndarray) -> np.ndarray:
        ids = np.asarray(segment_ids)
        if ids.ndim != 1 or np.ndim(data) < 1 or len(ids) != np.shape(data)[0]:
            raise InvalidArgumentError(
                None,
                None,
                "segment_ids should be the same size as dimension 0 of input. "
                f"[Op:{op}]\nHint: give one segment id per row of data.",
            )
        rows = int(ids[-1]) + 1 if len(ids) else 0
        check_sorted_ids(ids, rows, op)
        out = np.full((rows,) + np.shape(data)[1:], _fill(kind, data.dtype, False), dtype=data.dtype)
        REDUCERS[kind].at(out, ids, data)
        present = np.zeros(rows, bool)
        present[ids] = True
        out[~present] = _fill(kind, data.dtype, True)
        return out

    return kernel


def _min_or_max_grad(c: GradContext, g: Tensor) -> list:
    """Each entry equal to its segment's result gets the segment's gradient divided by the number of ties."""
    data, ids = c.inputs[0], c.inputs[1]
    chosen = equal(data, gather(c.outputs[0], ids))
    ties = segment_sum(cast(chosen, g.dtype), ids)
    return [where(chosen, gather(g / ties, ids), zeros_like(data)), None]


def _prod_parts(data: Tensor, product: Tensor, nonzero_product: Tensor, index: Tensor) -> Tensor:
    """d(product)/d(entry): the product divided by the entry, or, for a zero entry, the product of the others."""
    is_zero = equal(data, zeros_like(data))
    safe = where(is_zero, ones_like(data), data)
    return where(is_zero, gather(nonzero_product, index), gather(product, index) / safe)


def _prod_grad(c: GradContext, g: Tensor) -> list:
    data, ids = c.inputs[0], c.inputs[1]
    is_zero = equal(data, zeros_like(data))
    zeros = segment_sum(cast(is_zero, dtypes.int32), ids)
    g = where(greater(zeros, 1), zeros_like(g), g)  # two zeros: every partial derivative is 0
    nonzero_product = bind(SegmentProd, where(is_zero, ones_like(data), data), ids)
    return [gather(g, ids) * _prod_parts(data, c.outputs[0], nonzero_product, ids), None]


def _sorted_op(kind: str, allowed: frozenset[dtypes.DType], grad: Callable[..., list]) -> Op:
    return Op(
        f"Segment{kind}",
        _sorted_kernel(kind),
        check=_check(f"Segment{kind}", allowed),
        shape=_segment_sum_shape,
        grad=grad,
        value_dependent=True,
    )


SegmentMax = _sorted_op("Max", ORDERED, _min_or_max_grad)
SegmentMin = _sorted_op("Min", ORDERED, _min_or_max_grad)
SegmentProd = _sorted_op("Prod", MULTIPLIABLE, _prod_grad)


def _sorted_ids(segment_ids: Any) -> Tensor:
    return convert_to_tensor(segment_ids, dtype_hint=dtypes.int32)


def segment_max(data: Any, segment_ids: Any, name: str | None = None) -> Tensor:
    """Row i is the maximum of the rows of `data` whose (sorted) segment id is i (0 for an empty segment)."""
    return bind(SegmentMax, convert_to_tensor(data), _sorted_ids(segment_ids))


def segment_min(data: Any, segment_ids: Any, name: str | None = None) -> Tensor:
    """Row i is the minimum of the rows of `data` whose (sorted) segment id is i (0 for an empty segment)."""
    return bind(SegmentMin, convert_to_tensor(data), _sorted_ids(segment_ids))


def segment_prod(data: Any, segment_ids: Any, name: str | None = None) -> Tensor:
    """Row i is the product of the rows of `data` whose (sorted) segment id is i (1 for an empty segment)."""
    return bind(SegmentProd, convert_to_tensor(data), _sorted_ids(segment_ids))


# ---------------------------------------------------------------------------------------------------
# Unsorted ids
# ---------------------------------------------------------------------------------------------------


def _unsorted_kernel(kind: str) -> Callable[..., np.ndarray]:
    op = f"UnsortedSegment{kind}"

    def kernel(
        data: np.ndarray, segment_ids: np.ndarray, num_segments: Any, known_segments: int | None = None
    ) -> np.ndarray:
        return reduce_unsorted(op, data, segment_ids, num_segments, _fill(kind, data.dtype, False), REDUCERS[kind])

    return kernel


def _gather_kept(params: Tensor, ids: Tensor, extra: int) -> tuple[Tensor, Tensor]:
    """params gathered at the ids (0 where an id is negative), and where the ids are kept, shaped to broadcast
    over the `extra` trailing axes of the data."""
    gathered = gather(params, maximum(ids, zeros_like(ids)))
    kept = greater_equal(ids, zeros_like(ids))
    if extra:
        kept = (
            reshape(kept, ids.shape.as_list() + [1] * extra)
            if ids.shape.is_fully_defined()
            else reshape(kept, cast(_extended_shape(ids, extra), dtypes.int32))
        )
    return where(kept, gathered, zeros_like(gathered)), kept


def _extended_shape(ids: Tensor, extra: int) -> Tensor:
    return concat([shape(ids), convert_to_tensor([1] * extra)], axis=0)


def _extra_axes(data: Tensor, ids: Tensor) -> int:
    return (data.shape.rank or 0) - (ids.shape.rank or 0)


def _unsorted_min_or_max_grad(c: GradContext, g: Tensor) -> list:
    data, ids, count = c.inputs[0], c.inputs[1], c.inputs[2]
    extra = _extra_axes(data, ids)
    gathered, kept = _gather_kept(c.outputs[0], ids, extra)
    chosen = logical_and(equal(data, gathered), kept)
    ties = unsorted_segment_sum(cast(chosen, g.dtype), ids, count)
    share, _ = _gather_kept(g / ties, ids, extra)
    return [where(chosen, share, zeros_like(data)), None, None]


def _unsorted_prod_grad(c: GradContext, g: Tensor) -> list:
    data, ids, count = c.inputs[0], c.inputs[1], c.inputs[2]
    is_zero = equal(data, zeros_like(data))
    zeros = unsorted_segment_sum(cast(is_zero, dtypes.int32), ids, count)
    g = where(greater(zeros, 1), zeros_like(g), g)
    nonzero_product = bind(UnsortedSegmentProd, where(is_zero, ones_like(data), data), ids, count, **c.attrs)
    clipped = maximum(ids, zeros_like(ids))
    grad, _ = _gather_kept(g, ids, _extra_axes(data, ids))
    return [grad * _prod_parts(data, c.outputs[0], nonzero_product, clipped), None, None]


def _unsorted_op(kind: str, allowed: frozenset[dtypes.DType], grad: Callable[..., list]) -> Op:
    return Op(
        f"UnsortedSegment{kind}",
        _unsorted_kernel(kind),
        check=_check(f"UnsortedSegment{kind}", allowed),
        shape=_unsorted_shape,
        grad=grad,
    )


UnsortedSegmentMax = _unsorted_op("Max", ORDERED, _unsorted_min_or_max_grad)
UnsortedSegmentMin = _unsorted_op("Min", ORDERED, _unsorted_min_or_max_grad)
UnsortedSegmentProd = _unsorted_op("Prod", MULTIPLIABLE, _unsorted_prod_grad)


def _unsorted(op: Op, data: Any, segment_ids: Any, num_segments: Any) -> Tensor:
    ids = convert_to_tensor(segment_ids, dtype_hint=dtypes.int32)
    count = convert_to_tensor(num_segments, dtype_hint=dtypes.int32)
    known = known_ints(count)
    return bind(op, convert_to_tensor(data), ids, count, known_segments=None if known is None else known[0])


def unsorted_segment_max(data: Any, segment_ids: Any, num_segments: Any, name: str | None = None) -> Tensor:
    """Row i is the maximum of the entries with segment id i (the dtype's lowest value if there are none)."""
    return _unsorted(UnsortedSegmentMax, data, segment_ids, num_segments)


def unsorted_segment_min(data: Any, segment_ids: Any, num_segments: Any, name: str | None = None) -> Tensor:
    """Row i is the minimum of the entries with segment id i (the dtype's highest value if there are none)."""
    return _unsorted(UnsortedSegmentMin, data, segment_ids, num_segments)


def unsorted_segment_prod(data: Any, segment_ids: Any, num_segments: Any, name: str | None = None) -> Tensor:
    """Row i is the product of the entries with segment id i (1 if there are none)."""
    return _unsorted(UnsortedSegmentProd, data, segment_ids, num_segments)
