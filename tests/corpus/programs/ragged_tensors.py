"""TensorFlow's ragged tensor guide: building ragged tensors (constant, from_row_splits/lengths/value_rowids),
their shapes and row partitions, ops that dispatch to them (math, reductions, concat, gather, map_fn), indexing,
conversion to and from dense and sparse tensors, and ragged tensors in a dataset and a tf.function."""

import tensorflow as tf

digits = tf.ragged.constant([[3, 1, 4, 1], [], [5, 9, 2], [6], []])
words = tf.ragged.constant([["So", "long"], ["thanks", "for", "all", "the", "fish"]])
print(digits)
print(words)
print(tf.add(digits, 3))
print(digits * 2)
print(tf.reduce_mean(tf.cast(digits, tf.float32), axis=1))
print(tf.reduce_sum(digits, axis=0))
print(tf.concat([digits, [[5, 3]]], axis=0))
print(tf.tile(digits, [1, 2]))
print(tf.strings.substr(words, 0, 2))
print(tf.map_fn(tf.math.square, digits))

print(digits[0])
print(digits[:, :2])
print(digits[:, -2:])
print(digits.shape, digits.ragged_rank, digits.dtype)
print(digits.row_lengths(), digits.row_splits, digits.flat_values)
print(digits.value_rowids(), digits.nrows())
print(digits.bounding_shape())

print(tf.RaggedTensor.from_value_rowids(values=[3, 1, 4, 1, 5, 9, 2], value_rowids=[0, 0, 0, 0, 2, 2, 3]))
print(tf.RaggedTensor.from_row_lengths(values=[3, 1, 4, 1, 5, 9, 2], row_lengths=[4, 0, 2, 1]))
print(tf.RaggedTensor.from_row_splits(values=[3, 1, 4, 1, 5, 9, 2], row_splits=[0, 4, 4, 6, 7]))
nested = tf.RaggedTensor.from_row_lengths(tf.RaggedTensor.from_row_lengths([1, 2, 3, 4, 5, 6, 7], [2, 1, 3, 1]), [3, 1])
print(nested, nested.ragged_rank, nested.shape)
print(tf.ragged.constant([[[1, 2], [3, 4]], [[5, 6]]], ragged_rank=1).shape)

dense = tf.constant([[1, 0, 0], [2, 3, 0], [0, 0, 0]])
ragged = tf.RaggedTensor.from_tensor(dense, padding=0)
print(ragged)
print(ragged.to_tensor(default_value=-1))
print(ragged.to_tensor(shape=[3, 4]))
print(tf.RaggedTensor.from_tensor(dense, lengths=[1, 2, 0]))
sparse = digits.to_sparse()
print(sparse.indices[:3].numpy().tolist(), sparse.dense_shape.numpy().tolist())
print(tf.RaggedTensor.from_sparse(sparse))
print(digits.to_list())
print(digits.numpy()[2])

print(tf.ragged.range([3, 0, 5]))
print(tf.ragged.stack([digits[0], digits[2]]))
print(tf.gather(digits, [2, 0]))
print(tf.ragged.map_flat_values(tf.one_hot, digits, 10).shape)
print(tf.strings.split(tf.constant(["a b c", "d e", ""])))
print(tf.ragged.boolean_mask(digits, digits > 2))

ds = tf.data.Dataset.from_tensor_slices(digits)
for row in ds.take(3):
    print(row)
print(ds.element_spec)
batched = tf.data.Dataset.from_tensor_slices(tf.constant([[1, 2], [3, 4], [5, 6]])).ragged_batch(2)
print(list(batched))


@tf.function
def row_sums(rt):
    return tf.reduce_sum(rt, axis=1) + tf.cast(rt.nrows(), tf.int32)


print(row_sums(digits))
print(row_sums(tf.ragged.constant([[1], [2, 3]])))
try:
    tf.ragged.constant([[1, 2], [[3]]])
except ValueError as e:
    print("ValueError", e)
