"""TensorFlow's tensor slicing guide: tf.slice, strided slices, tf.gather and tf.gather_nd (with batch dims),
tf.scatter_nd and tensor_scatter_nd updates, boolean masks and the errors of out-of-range indices."""

import numpy as np
import tensorflow as tf

letters = tf.constant(list("abcdefghij"))
numbers = tf.range(20, 30)
print(tf.slice(numbers, begin=[2], size=[4]))
print(numbers[3:7], numbers[::3], numbers[-2:], numbers[::-2])
print(tf.gather(letters, indices=[1, 4, 7]))
print(tf.strings.reduce_join(tf.gather(letters, [9, 0, 2])))

grid = tf.reshape(tf.range(1, 25), [4, 6])
print(tf.slice(grid, begin=[1, 2], size=[2, 3]))
print(grid[1:3, ::2])
print(tf.gather(grid, indices=[3, 0], axis=0))
print(tf.gather(grid, indices=[5, 1], axis=1))
print(tf.gather_nd(grid, indices=[[2, 3], [0, 5]]))
print(tf.gather_nd(grid, indices=[[1], [3]]))

cube = tf.reshape(tf.range(2 * 3 * 4), [2, 3, 4])
print(tf.gather_nd(cube, indices=[[0, 1, 2], [1, 2, 3]]))
print(tf.gather_nd(cube, indices=[[[0, 0]], [[1, 2]]]))
print(tf.gather(cube, indices=[[2, 0], [1, 3]], axis=2, batch_dims=0).shape)
print(tf.gather(cube, indices=[[2, 0, 1], [3, 3, 0]], axis=2, batch_dims=1))
print(tf.gather_nd(cube, indices=[[1], [0]], batch_dims=1))

sparse = tf.scatter_nd(indices=[[1], [4], [6]], updates=[10, 20, 30], shape=[8])
print(sparse)
board = tf.zeros([3, 4], dtype=tf.int32)
print(tf.tensor_scatter_nd_update(board, indices=[[0, 1], [2, 3]], updates=[7, 8]))
print(tf.tensor_scatter_nd_add(board + 1, indices=[[1, 1], [1, 1]], updates=[5, 5]))
print(tf.tensor_scatter_nd_max(board, indices=[[0, 0]], updates=[-1]))
print(tf.tensor_scatter_nd_min(board, indices=[[0, 0]], updates=[-1]))
print(tf.tensor_scatter_nd_sub(board, indices=[[2, 0]], updates=[4]))
rows = tf.tensor_scatter_nd_update(board, indices=[[1]], updates=[[9, 9, 9, 9]])
print(rows)

values = tf.constant([3.0, -1.0, 4.0, -1.5, 9.0])
mask = values > 0
print(tf.boolean_mask(values, mask), values[mask])
print(tf.where(mask, values, tf.zeros_like(values)))
print(tf.where(mask))
table = tf.reshape(tf.range(12), [3, 4])
print(tf.boolean_mask(table, [True, False, True]))
print(tf.boolean_mask(table, [True, False, True, False], axis=1))

v = tf.Variable(tf.zeros([5]))
v[1:3].assign([4.0, 5.0])
v.scatter_nd_update(indices=[[0], [4]], updates=[1.0, 2.0])
print(v.numpy())
print(v.sparse_read([4, 1]).numpy())

for wrong in (
    lambda: tf.gather(numbers, [10]),
    lambda: tf.gather_nd(grid, [[4, 0]]),
    lambda: tf.slice(grid, [0, 0], [5, 1]),
    lambda: numbers[12],
    lambda: tf.scatter_nd([[9]], [1], [8]),
):
    try:
        wrong()
    except tf.errors.InvalidArgumentError as e:
        print(type(e).__name__, str(e).split("\n")[0])

print(np.array(numbers[np.int32(2)]), numbers[tf.constant(4)].numpy())
