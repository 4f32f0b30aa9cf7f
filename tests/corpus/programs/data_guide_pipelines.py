"""TensorFlow's tf.data guide, the further sections: Python generators with output signatures, padded batches,
bucketing sequences by length, time-series windows (batch and shift, window and flat_map), resampling with
sample_from_datasets, stateful steps (scan, take_while, unique, shard), group_by_window, and py_function in a map."""

import numpy as np
import tensorflow as tf


def count(stop):
    i = 0
    while i < stop:
        yield i
        i += 1


ds_counter = tf.data.Dataset.from_generator(count, args=[25], output_types=tf.int32, output_shapes=())
print(ds_counter.element_spec)
for batch in ds_counter.repeat().batch(10).take(4):
    print(batch.numpy())


def gen_series():
    lengths = [3, 1, 4, 1, 5, 9, 2, 6]
    for i, n in enumerate(lengths):
        yield i, np.linspace(0.0, 1.0, n, dtype=np.float32)


series = tf.data.Dataset.from_generator(
    gen_series,
    output_signature=(tf.TensorSpec(shape=(), dtype=tf.int32), tf.TensorSpec(shape=(None,), dtype=tf.float32)),
)
print(series.element_spec)
for ids, seqs in series.padded_batch(3, padded_shapes=((), (None,))).take(2):
    print(ids.numpy(), np.round(seqs.numpy(), 2))

lengths = tf.data.Dataset.range(1, 12).map(lambda n: tf.fill([n], n))
buckets = lengths.bucket_by_sequence_length(
    element_length_func=lambda elem: tf.shape(elem)[0], bucket_boundaries=[4, 8], bucket_batch_sizes=[2, 2, 2]
)
print(buckets.element_spec)
for batch in buckets:
    print(batch.shape, batch[:, 0].numpy())

range_ds = tf.data.Dataset.range(20)
batches = range_ds.batch(5, drop_remainder=True)
for batch in batches.take(2):
    print(batch.numpy())


def dense_1_step(batch):
    return batch[:-1], batch[1:]


for features, label in batches.map(dense_1_step).take(2):
    print(features.numpy(), " => ", label.numpy())

windows = range_ds.window(5, shift=3)
print(windows.element_spec)
for sub in windows.take(3):
    print([int(x) for x in sub])


def make_window_dataset(ds, window_size=5, shift=1, stride=1):
    windows = ds.window(window_size, shift=shift, stride=stride)

    def sub_to_batch(sub):
        return sub.batch(window_size, drop_remainder=True)

    return windows.flat_map(sub_to_batch)


for example in make_window_dataset(range_ds, window_size=4, shift=5, stride=2).take(3):
    print(example.numpy())

negatives = tf.data.Dataset.range(0, 6).map(lambda x: (x, tf.constant(0, tf.int64)))
positives = tf.data.Dataset.range(100, 103).map(lambda x: (x, tf.constant(1, tf.int64)))
balanced = tf.data.Dataset.sample_from_datasets([negatives, positives], weights=[0.5, 0.5], seed=1)
print(balanced.element_spec)
print(sorted(int(x) for x, _ in balanced))
chosen = tf.data.Dataset.choose_from_datasets([negatives, positives], tf.data.Dataset.range(4).map(lambda i: i % 2))
print([(int(x), int(y)) for x, y in chosen])

running = range_ds.scan(tf.constant(0, tf.int64), lambda state, x: (state + x, state + x))
print(list(running.take_while(lambda total: total < 50).as_numpy_iterator()))
print(list(tf.data.Dataset.from_tensor_slices([3, 1, 3, 2, 1, 5]).unique().as_numpy_iterator()))
print(list(range_ds.shard(num_shards=4, index=1).as_numpy_iterator()), range_ds.shard(4, 1).cardinality().numpy())

grouped = range_ds.group_by_window(
    key_func=lambda x: x % 3, reduce_func=lambda key, window: window.batch(4), window_size=4
)
for batch in grouped:
    print(batch.numpy())

print(tf.data.Dataset.from_tensors(tf.constant([1, 2])).get_single_element())


def numpy_scale(x):
    return (x * 10).astype(np.int64)


scaled = range_ds.take(4).map(lambda x: tf.numpy_function(numpy_scale, [x], tf.int64))
print(list(scaled.as_numpy_iterator()))
shaped = range_ds.take(3).map(lambda x: tf.py_function(lambda v: v + 1, [x], tf.int64))
print(shaped.element_spec, list(shaped.as_numpy_iterator()))
