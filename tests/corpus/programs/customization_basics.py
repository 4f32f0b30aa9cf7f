"""TensorFlow's customization basics: tensors and operations, NumPy interoperability, and tf.data pipelines
(from_tensor_slices, map, shuffle, batch) read in a loop."""

import numpy as np
import tensorflow as tf

print(tf.math.add(1, 2))
print(tf.math.add([1, 2], [3, 4]))
print(tf.math.square(5))
print(tf.math.reduce_sum([1, 2, 3]))
print(tf.math.square(2) + tf.math.square(3))
x = tf.linalg.matmul([[1]], [[2, 3]])
print(x)
print(x.shape, x.dtype)

ndarray = np.ones([3, 3])
tensor = tf.math.multiply(ndarray, 42)
print(tensor)
print(np.add(tensor, 1))
print(tensor.numpy())

ds_tensors = tf.data.Dataset.from_tensor_slices([1, 2, 3, 4, 5, 6])
ds_tensors = ds_tensors.map(tf.math.square).shuffle(2, seed=7).batch(2)
for x in ds_tensors:
    print(x)
print(ds_tensors.element_spec)
