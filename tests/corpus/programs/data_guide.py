"""TensorFlow's tf.data guide, the basics: datasets from tensors and tensor slices, element_spec, iterating,
map, filter, batch with and without the remainder, shuffle with a seed, repeat, take and skip,
zip, window, interleave, range, reduce, and prefetch."""

import numpy as np
import tensorflow as tf

dataset = tf.data.Dataset.from_tensor_slices([8, 3, 0, 8, 2, 1])
print(dataset)
for elem in dataset:
    print(elem.numpy())
it = iter(dataset)
print(next(it).numpy())
print(dataset.reduce(0, lambda state, value: state + value).numpy())

dataset1 = tf.data.Dataset.from_tensor_slices(tf.random.uniform([4, 10]))
print(dataset1.element_spec)
dataset2 = tf.data.Dataset.from_tensor_slices(
    (tf.random.uniform([4]), tf.random.uniform([4, 100], maxval=100, dtype=tf.int32))
)
print(dataset2.element_spec)
dataset3 = tf.data.Dataset.zip((dataset1, dataset2))
print(dataset3.element_spec)
dataset4 = tf.data.Dataset.from_tensors(tf.constant([[1, 2], [3, 4]]))
print(dataset4.element_spec, dataset4.cardinality().numpy())
for a, (b, c) in dataset3.take(1):
    print(f"shapes: {a.shape}, {b.shape}, {c.shape}")

features = np.arange(12, dtype="float32").reshape(6, 2)
labels = np.array([0, 1, 0, 1, 1, 0])
ds = tf.data.Dataset.from_tensor_slices((features, labels))
print(ds)
print(ds.cardinality(), len(ds))
ds_dict = tf.data.Dataset.from_tensor_slices({"a": features, "b": labels})
print(ds_dict.element_spec)
for element in ds_dict.take(2):
    print({k: v.numpy() for k, v in element.items()})


def count(stop):
    i = 0
    while i < stop:
        yield i
        i += 1


ds_counter = tf.data.Dataset.from_generator(count, args=[5], output_types=tf.int32, output_shapes=())
for count_batch in ds_counter.repeat().batch(3).take(3):
    print(count_batch.numpy())
print(ds_counter.element_spec)

inc_dataset = tf.data.Dataset.range(100)
dec_dataset = tf.data.Dataset.range(0, -100, -1)
dataset = tf.data.Dataset.zip((inc_dataset, dec_dataset))
batched_dataset = dataset.batch(4)
for batch in batched_dataset.take(4):
    print([arr.numpy() for arr in batch])
print(batched_dataset)
print(dataset.batch(7, drop_remainder=True))
dataset = tf.data.Dataset.range(10)
print(list(dataset.repeat(2).batch(7).as_numpy_iterator()))
print(list(dataset.filter(lambda x: x % 2 == 0).as_numpy_iterator()))
print(list(dataset.map(lambda x: x * 2).skip(3).take(4).as_numpy_iterator()))
print(list(dataset.shuffle(10, seed=42, reshuffle_each_iteration=False).batch(5).take(0).as_numpy_iterator()))
print(list(dataset.window(3, shift=2, drop_remainder=True).flat_map(lambda w: w.batch(3)).as_numpy_iterator()))
print(list(dataset.batch(3).unbatch().take(4).as_numpy_iterator()))
print(list(dataset.enumerate(start=5).take(2).as_numpy_iterator()))
print(list(dataset.prefetch(tf.data.AUTOTUNE).take(3).as_numpy_iterator()))
print(dataset.prefetch(buffer_size=tf.data.AUTOTUNE))
print(dataset.map(lambda x: x + 1, num_parallel_calls=tf.data.AUTOTUNE))
print(dataset.cache())
print(dataset.shuffle(4))

files = tf.data.Dataset.from_tensor_slices([[1, 2, 3], [10, 20, 30]])
print(list(files.interleave(lambda x: tf.data.Dataset.from_tensor_slices(x), cycle_length=2).as_numpy_iterator()))
print(list(tf.data.Dataset.range(3).concatenate(tf.data.Dataset.range(5, 7)).as_numpy_iterator()))


def scale(x, y):
    return tf.cast(x, tf.float32) / 10.0, y


for x, y in ds.map(scale).batch(4).take(1):
    print(x.numpy(), y.numpy())
print(ds.map(scale).element_spec)
print(tf.data.experimental.cardinality(ds.filter(lambda x, y: y > 0)).numpy() == tf.data.UNKNOWN_CARDINALITY)
print(tf.data.Dataset.range(5).map(lambda x: tf.py_function(lambda v: v * 2, [x], tf.int64)).element_spec)
