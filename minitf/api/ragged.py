"""`tf.ragged`: RaggedTensors from nested lists, ranges and row partitions (minitf/composite/ragged/)."""

from minitf.composite.ragged import factories as _factories  # also gives RaggedTensor its from_* factories
from minitf.composite.ragged import indexing as _indexing  # also gives RaggedTensor rt[...]
from minitf.composite.ragged.constant import constant
from minitf.composite.ragged.dispatch import map_flat_values
from minitf.composite.ragged.factories import ragged_range as range
from minitf.ops.math.segment_ops import row_splits_to_segment_ids, segment_ids_to_row_splits
