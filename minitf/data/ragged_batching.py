"""`Dataset.ragged_batch`: elements of different shapes batched into RaggedTensors.

A component whose shape is fully known is batched as `batch` stacks it; one with an unknown dimension (a
`map(tf.range)` of different lengths) becomes a RaggedTensor of the batch's rows, ragged in its first
dimension, as TensorFlow's `ragged_batch` (and `tf.data.experimental.dense_to_ragged_batch`) makes it.
The method is attached to `Dataset` here (with `apply`, which `dense_to_ragged_batch` is written for); the
batching loop is `batch`'s own.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from minitf.composite.specs import RaggedTensorSpec
from minitf.core import dtypes, nest
from minitf.core.tensor_shape import TensorShape
from minitf.data.dataset import DATASETS, DatasetV2, _BatchDataset
from minitf.data.structure import batched_spec, leaves_of, python_int


class _RaggedBatchDataset(_BatchDataset):
    def __init__(self, source: DatasetV2, batch_size: int, drop_remainder: bool) -> None:
        super().__init__(source, batch_size, drop_remainder)
        leaves = leaves_of(source.element_spec)
        self._ragged = [isinstance(s, RaggedTensorSpec) or not s.shape.is_fully_defined() for s in leaves]
        for spec, ragged in zip(leaves, self._ragged):
            if (
                ragged
                and not isinstance(spec, RaggedTensorSpec)
                and (spec.shape.rank is None or any(n is None for n in spec.shape.as_list()[1:]))
            ):
                raise ValueError(
                    f"minitf's ragged_batch makes rows ragged in their first dimension only; this "
                    f"component has shape {spec.shape}.\nHint: give the inner dimensions a known "
                    "size (tf.ensure_shape), or pad them."
                )
        outer = batch_size if drop_remainder else None
        specs = [
            RaggedTensorSpec(TensorShape([outer]).concatenate(s.shape), s.dtype, 1)
            if ragged and not isinstance(s, RaggedTensorSpec)
            else batched_spec(s, outer)
            for s, ragged in zip(leaves, self._ragged)
        ]
        self._element_spec = nest.pack_sequence_as(source.element_spec, specs)


def ragged_batch(
    self: DatasetV2,
    batch_size: Any,
    drop_remainder: bool = False,
    row_splits_dtype: Any = dtypes.int64,
    name: str | None = None,
) -> DatasetV2:
    """Batches of `batch_size` elements; components of different shapes become RaggedTensors."""
    return _RaggedBatchDataset(self, python_int(batch_size, "batch_size"), drop_remainder)


def dense_to_ragged_batch(
    batch_size: Any, drop_remainder: bool = False, row_splits_dtype: Any = dtypes.int64
) -> Callable[[DatasetV2], DatasetV2]:
    """`tf.data.experimental.dense_to_ragged_batch`: ragged_batch as a function for `dataset.apply`."""
    return lambda dataset: ragged_batch(dataset, batch_size, drop_remainder, row_splits_dtype)


DATASETS.provide(ragged_batch=ragged_batch)
