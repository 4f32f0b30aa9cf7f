"""Wrong inputs to the everyday tf ops, run eagerly on both engines: the same error class, TensorFlow's whole
message inside minitf's (its `{{function_node __wrapped__<Op>_device_...}}` prefix when the kernel found the
mistake, none when the runtime's dtype check did, and the `[Op:<Op>] name: <name>` tail), and a hint saying what
to fix.

Each op gets the mistakes a learner makes with it: a wrong shape, a wrong dtype, an axis or index out of range,
a negative size. Inside a tf.function TensorFlow finds most of them while it builds the graph, with other
messages; those are compared (by class) by the shape-op tests that run each case three ways (`harness.same`)."""

from __future__ import annotations

from typing import Any

from harness import named_examples, same, same_error


def ones(tf: Any, *shape: int, dtype: str = "float32") -> Any:
    return tf.ones(shape, getattr(tf, dtype))


CASES = [
    # matmul
    ("matmul_inner_sizes", lambda tf: tf.matmul(ones(tf, 2, 3), ones(tf, 2, 3))),
    ("matmul_vectors", lambda tf: tf.matmul(ones(tf, 3), ones(tf, 3))),
    ("matmul_matrix_and_vector", lambda tf: tf.matmul(ones(tf, 2, 3), ones(tf, 3))),
    ("matmul_batch_and_vector", lambda tf: tf.matmul(ones(tf, 2, 2, 3), ones(tf, 3))),
    ("matmul_batch_inner_sizes", lambda tf: tf.matmul(ones(tf, 2, 2, 3), ones(tf, 2, 2, 3))),
    ("matmul_batch_dims", lambda tf: tf.matmul(ones(tf, 2, 2, 3), ones(tf, 3, 3, 2))),
    ("matmul_dtypes", lambda tf: tf.matmul(ones(tf, 2, 2), ones(tf, 2, 2, dtype="int32"))),
    ("matmul_operator", lambda tf: ones(tf, 2, 3) @ ones(tf, 2, 3)),
    # concat and stack
    ("concat_sizes", lambda tf: tf.concat([ones(tf, 2, 3), ones(tf, 2, 2)], 0)),
    ("concat_ranks", lambda tf: tf.concat([ones(tf, 2, 3), ones(tf, 2)], 0)),
    ("concat_axis", lambda tf: tf.concat([ones(tf, 2, 3), ones(tf, 2, 3)], 2)),
    ("concat_negative_axis", lambda tf: tf.concat([ones(tf, 2, 3), ones(tf, 2, 3)], -3)),
    ("concat_three_inputs", lambda tf: tf.concat([ones(tf, 2), ones(tf, 2), ones(tf, 2, 1)], 0)),
    ("concat_dtypes", lambda tf: tf.concat([ones(tf, 2, 3), ones(tf, 2, 3, dtype="int32")], 0)),
    ("stack_shapes", lambda tf: tf.stack([ones(tf, 2), ones(tf, 3)])),
    ("stack_three_shapes", lambda tf: tf.stack([ones(tf, 2), ones(tf, 2), ones(tf, 3)])),
    ("stack_axis", lambda tf: tf.stack([ones(tf, 2), ones(tf, 2)], axis=3)),
    ("stack_dtypes", lambda tf: tf.stack([ones(tf, 2), ones(tf, 2, dtype="int32")])),
    ("unstack_axis", lambda tf: tf.unstack(ones(tf, 2, 3), axis=3)),
    # split
    ("split_uneven", lambda tf: tf.split(ones(tf, 5), 2)),
    ("split_zero_pieces", lambda tf: tf.split(ones(tf, 4), 0)),
    ("split_sizes", lambda tf: tf.split(ones(tf, 5), [2, 2])),
    ("split_three_sizes", lambda tf: tf.split(ones(tf, 5), [2, 2, 2])),
    ("split_one_size", lambda tf: tf.split(ones(tf, 5), [3])),
    ("split_two_unknown_sizes", lambda tf: tf.split(ones(tf, 5), [-1, -1])),
    ("split_axis", lambda tf: tf.split(ones(tf, 4), 2, axis=1)),
    ("split_sizes_axis", lambda tf: tf.split(ones(tf, 2, 2), [1, 1], axis=3)),
    # squeeze, expand_dims, reshape, transpose
    ("squeeze_size_two", lambda tf: tf.squeeze(ones(tf, 2, 3), 0)),
    ("squeeze_axis", lambda tf: tf.squeeze(ones(tf, 2, 3), 3)),
    ("squeeze_negative_axis", lambda tf: tf.squeeze(ones(tf, 2, 3), -3)),
    ("expand_dims_axis", lambda tf: tf.expand_dims(ones(tf, 2, 3), 4)),
    ("reshape_sizes", lambda tf: tf.reshape(ones(tf, 6), [4, 2])),
    ("reshape_unknown_size", lambda tf: tf.reshape(ones(tf, 6), [4, -1])),
    ("reshape_two_unknown_sizes", lambda tf: tf.reshape(ones(tf, 6), [-1, -1])),
    # tile, pad, reverse, roll, broadcast_to
    ("tile_multiples_length", lambda tf: tf.tile(ones(tf, 2, 3), [2])),
    ("tile_negative_multiple", lambda tf: tf.tile(ones(tf, 2, 3), [2, -1])),
    ("pad_paddings_length", lambda tf: tf.pad(ones(tf, 2, 3), [[1, 1]])),
    ("pad_negative", lambda tf: tf.pad(ones(tf, 2, 3), [[1, 1], [-5, 0]])),
    ("pad_reflect_negative", lambda tf: tf.pad(ones(tf, 2, 3), [[1, 1], [-5, 0]], "REFLECT")),
    ("pad_constant_values", lambda tf: tf.pad(ones(tf, 2, 3), [[1, 1], [0, 0]], constant_values=[1.0, 2.0])),
    ("reverse_axis", lambda tf: tf.reverse(ones(tf, 2, 3), [2])),
    ("reverse_second_axis", lambda tf: tf.reverse(ones(tf, 2, 3), [0, -3])),
    ("roll_axis", lambda tf: tf.roll(ones(tf, 2, 3), 1, 2)),
    ("broadcast_to_sizes", lambda tf: tf.broadcast_to(ones(tf, 3), [2, 4])),
    ("broadcast_to_rank", lambda tf: tf.broadcast_to(ones(tf, 2, 3), [3])),
    ("broadcast_to_negative", lambda tf: tf.broadcast_to(ones(tf, 3), [-1])),
    # argmax, reductions, cumsum, sort, top_k
    ("argmax_axis", lambda tf: tf.argmax(ones(tf, 2, 3), 2)),
    ("argmax_negative_axis", lambda tf: tf.argmax(ones(tf, 2, 3), -3)),
    ("argmax_empty", lambda tf: tf.argmax(ones(tf, 0), 0)),
    ("argmin_axis", lambda tf: tf.argmin(ones(tf, 2, 3), 2)),
    ("reduce_sum_axis", lambda tf: tf.reduce_sum(ones(tf, 2, 3), 2)),
    ("reduce_mean_negative_axis", lambda tf: tf.reduce_mean(ones(tf, 2, 3), -3)),
    ("cumsum_axis", lambda tf: tf.cumsum(ones(tf, 3), 1)),
    ("top_k_too_many", lambda tf: tf.math.top_k(ones(tf, 3), 5)),
    ("top_k_negative", lambda tf: tf.math.top_k(ones(tf, 3), -1)),
    ("unique_matrix", lambda tf: tf.unique(ones(tf, 2, 2))),
    ("check_numerics_nan", lambda tf: tf.debugging.check_numerics(tf.constant([float("nan")]), "oops")),
    ("categorical_vector", lambda tf: tf.random.categorical(ones(tf, 3), 2)),
    ("conv2d_zero_stride", lambda tf: tf.nn.conv2d(ones(tf, 1, 4, 4, 1), ones(tf, 3, 3, 1, 1), 0, "VALID")),
    # slicing and indexing
    ("slice_size", lambda tf: tf.slice(ones(tf, 2, 3), [0, 0], [3, 3])),
    ("slice_begin_length", lambda tf: tf.slice(ones(tf, 2, 3), [0], [1])),
    ("strided_slice_zero_stride", lambda tf: tf.strided_slice(ones(tf, 3), [0], [2], [0])),
    ("index_out_of_range", lambda tf: ones(tf, 3)[5]),
    ("index_zero_step", lambda tf: ones(tf, 3)[::0]),
    ("index_second_zero_step", lambda tf: ones(tf, 3, 3)[:, ::0]),
    ("gather_index", lambda tf: tf.gather(ones(tf, 3), [5])),
    ("gather_negative_index", lambda tf: tf.gather(ones(tf, 3), [-1])),
    ("gather_axis", lambda tf: tf.gather(ones(tf, 3), [0], axis=2)),
    ("gather_negative_axis", lambda tf: tf.gather(ones(tf, 2, 2), [0], axis=-3)),
    ("gather_nd_index", lambda tf: tf.gather_nd(ones(tf, 2, 2), [[5, 0]])),
    ("scatter_nd_index", lambda tf: tf.scatter_nd([[5]], [1.0], [3])),
    ("tensor_scatter_update_index", lambda tf: tf.tensor_scatter_nd_update(ones(tf, 3), [[5]], [1.0])),
    ("unsorted_segment_sum_id", lambda tf: tf.math.unsorted_segment_sum(ones(tf, 3), [0, 5, 1], 2)),
    ("segment_sum_ids_length", lambda tf: tf.math.segment_sum(ones(tf, 3), [0, 0])),
    # creation
    ("range_zero_delta", lambda tf: tf.range(0, 5, 0)),
    ("range_float_zero_delta", lambda tf: tf.range(0.0, 1.0, 0.0)),
    ("range_backwards", lambda tf: tf.range(5, 0, 1)),
    ("range_forwards_negative_delta", lambda tf: tf.range(0, 5, -1)),
    ("fill_negative", lambda tf: tf.fill([-1, 2], 1.0)),
    ("fill_dims_matrix", lambda tf: tf.fill([[2]], 1.0)),
    ("fill_value_vector", lambda tf: tf.fill([2], [1.0, 2.0])),
    ("zeros_negative", lambda tf: tf.zeros([-1])),
    ("ones_negative", lambda tf: tf.ones([2, -3])),
    ("zeros_shape_matrix", lambda tf: tf.zeros([[2]])),
    ("eye_negative", lambda tf: tf.eye(-1)),
    ("eye_negative_columns", lambda tf: tf.eye(2, -1)),
    ("one_hot_negative_depth", lambda tf: tf.one_hot([1], -1)),
    ("one_hot_axis", lambda tf: tf.one_hot([[1]], 3, axis=4)),
    ("one_hot_negative_axis", lambda tf: tf.one_hot([[1]], 3, axis=-2)),
    ("random_uniform_negative", lambda tf: tf.random.uniform([-1])),
    ("random_normal_negative", lambda tf: tf.random.normal([2, -1])),
    # elementwise, where, cast
    ("add_shapes", lambda tf: tf.add(ones(tf, 3), ones(tf, 4))),
    ("multiply_operator_shapes", lambda tf: ones(tf, 3) * ones(tf, 4)),
    ("add_dtypes", lambda tf: ones(tf, 3) + ones(tf, 3, dtype="int32")),
    ("equal_shapes", lambda tf: tf.equal(ones(tf, 3), ones(tf, 4))),
    ("maximum_dtypes", lambda tf: tf.maximum(ones(tf, 3), ones(tf, 3, dtype="int32"))),
    ("where_shapes", lambda tf: tf.where(tf.constant([True, False]), ones(tf, 3), ones(tf, 3))),
    ("where_branch_shapes", lambda tf: tf.where(tf.constant([True, False]), ones(tf, 2), ones(tf, 3))),
    ("cast_string_to_float", lambda tf: tf.cast(tf.constant("a"), tf.float32)),
    ("cast_string_to_int", lambda tf: tf.cast(tf.constant("a"), tf.int32)),
    ("integer_division_by_zero", lambda tf: tf.constant(1) // tf.constant(0)),
    # losses and nn
    (
        "sparse_softmax_cross_entropy_label",
        lambda tf: tf.nn.sparse_softmax_cross_entropy_with_logits(labels=tf.constant([0, 5]), logits=ones(tf, 2, 3)),
    ),
    (
        "sparse_softmax_cross_entropy_negative_label",
        lambda tf: tf.nn.sparse_softmax_cross_entropy_with_logits(labels=tf.constant([0, -1]), logits=ones(tf, 2, 3)),
    ),
    (
        "sparse_categorical_crossentropy_label",
        lambda tf: tf.keras.losses.sparse_categorical_crossentropy(tf.constant([0, 5]), ones(tf, 2, 3) / 3),
    ),
    (
        "softmax_cross_entropy_shapes",
        lambda tf: tf.nn.softmax_cross_entropy_with_logits(labels=ones(tf, 2, 3), logits=ones(tf, 2, 4)),
    ),
    ("conv2d_channels", lambda tf: tf.nn.conv2d(ones(tf, 1, 4, 4, 2), ones(tf, 3, 3, 3, 1), 1, "VALID")),
    ("max_pool2d_rank", lambda tf: tf.nn.max_pool2d(ones(tf, 1, 4, 4), 2, 2, "VALID")),
    # linalg
    ("inv_not_square", lambda tf: tf.linalg.inv(ones(tf, 2, 3))),
    ("inv_vector", lambda tf: tf.linalg.inv(ones(tf, 2))),
    ("det_not_square", lambda tf: tf.linalg.det(ones(tf, 2, 3))),
    ("diag_part_vector", lambda tf: tf.linalg.diag_part(ones(tf, 3))),
    ("einsum_sizes", lambda tf: tf.einsum("ij,jk->ik", ones(tf, 2, 3), ones(tf, 2, 3))),
    ("tensordot_sizes", lambda tf: tf.tensordot(ones(tf, 2, 3), ones(tf, 2, 3), 1)),
    ("add_n_shapes", lambda tf: tf.add_n([ones(tf, 2), ones(tf, 3)])),
    ("bincount_negative", lambda tf: tf.math.bincount([-1])),
]


@named_examples(*CASES)
def test_a_wrong_input_raises_tensorflows_error_class_and_message_with_a_hint(case: Any) -> None:
    same_error(case)


# Inside a function TensorFlow reads a -1 in broadcast_to's shape as a size it does not know yet.
DIFFERENT_WHEN_TRACED = {"broadcast_to_negative"}


@named_examples(*[(n, c) for n, c in CASES if n not in DIFFERENT_WHEN_TRACED])
def test_a_wrong_input_raises_tensorflows_error_class_eagerly_traced_and_under_a_tape(case: Any) -> None:
    same(case)
