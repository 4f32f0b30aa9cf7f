"""`tf.RaggedTensor` and `tf.ragged`: rows of different lengths, stored as TensorFlow stores them.

A RaggedTensor is not a new kind of tensor but a Python object over two ordinary ones: `values` (every
row's items, one after another) and `row_splits` (int64; row i is `values[row_splits[i]:row_splits[i+1]]`).
`values` may itself be ragged (ragged_rank > 1). Because the parts are plain tensors, ragged tensors work
eagerly, inside `tf.function` and under a tape with the ops that already exist; only padding to a dense
tensor and the per-row reductions need ops of their own. One idea per file, read in this order:

* tensor.py: the `RaggedTensor` class: its first factories, its parts, padding to dense, printing;
* splits.py: TensorFlow's checks on row splits, and the row lengths of a padded dense tensor;
* constant.py: `tf.ragged.constant`, from nested Python lists;
* to_dense.py: `RaggedTensorToTensor`, the op behind `rt.to_tensor()`, with its gradient;
* ranges.py: `RaggedRange`, one range per row: `tf.ragged.range`, and the positions of the values of taken rows;
* indexing.py: `rt[...]`: rows, slices of rows, slices within every row;
* factories.py: the other row partitions (value_rowids, row_starts, ...), to_sparse / from_sparse;
* reductions.py: `tf.reduce_sum(rt, axis=...)` and the other reductions, per row or per column;
* array_ops.py: ragged `tf.concat`, `tf.tile`, `tf.reverse`, `tf.map_fn`, dense operands broadcast to rows;
* dynamic_shape.py: `tf.experimental.DynamicRaggedShape`, what `tf.shape(rt)` returns;
* dispatch.py: `tf.add(rt, 1)`, `rt + 1`, `tf.ragged.map_flat_values`: dense ops applied to the flat values.

The public names (`tf.RaggedTensor`, `tf.ragged.*`) are listed in minitf/api/ragged.py and minitf/__init__.py.
"""
