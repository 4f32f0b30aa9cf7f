"""`tf.ragged`: RaggedTensors from nested lists, ranges and row partitions (minitf/composite/ragged/)."""

import minitf.left_out as left_out
from minitf.composite.ragged import factories as _factories  # also gives RaggedTensor its from_* factories
from minitf.composite.ragged import indexing as _indexing  # also gives RaggedTensor rt[...]
from minitf.composite.ragged.constant import constant
from minitf.composite.ragged.dispatch import map_flat_values
from minitf.composite.ragged.factories import ragged_range as range
from minitf.composite.ragged.stacking import boolean_mask, stack
from minitf.ops.math.segment_ops import row_splits_to_segment_ids, segment_ids_to_row_splits

LEFT_OUT: dict[str, str] = {
    "cross": "feature crosses are not implemented; join the features with tf.strings.join instead",
    "cross_hashed": "hashed feature crosses are not implemented; tf.strings.join then tf.strings.to_hash_bucket_fast",
    "stack_dynamic_partitions": "not implemented; tf.ragged.stack of tf.dynamic_partition's parts builds the same",
}
__getattr__ = left_out.module_getattr("tf.ragged", LEFT_OUT)
