"""RaggedTensor indexing, factories and conversions against TensorFlow: eagerly, traced and under a tape.

Multi-axis indexing (`rt[:, :2]`, `rt[1, 2]`, negative bounds), every row partition TensorFlow's factories take,
`tf.ragged.range`, to_sparse / from_sparse, to_tensor with a shape and a default, bounding_shape.
"""

from __future__ import annotations

from typing import Any

from harness import EAGER, TAPE, named_examples, only, same, same_program

ON_VALUES = ((EAGER, TAPE), "RaggedTensor.to_list() runs only eagerly in TensorFlow")


def seen(value: Any) -> Any:
    """A RaggedTensor or SparseTensor as tensors (its components, its static shape as text), so that the traced
    way compares them too; printing is compared eagerly below."""
    kind = type(value).__name__
    tf = __import__("minitf" if type(value).__module__.startswith("minitf") else "tensorflow")
    if kind == "RaggedTensor":
        return (
            value.flat_values,
            list(value.nested_row_splits),
            tf.constant(str(value.shape)),
            tf.constant(value.ragged_rank),
        )
    if kind == "SparseTensor":
        return value.indices, value.values, value.dense_shape, tf.constant(str(value.shape))
    return value


def digits(tf: Any) -> Any:
    return tf.ragged.constant([[3.0, 1.0, 4.0, 1.0], [], [5.0, 9.0, 2.0], [6.0], []])


def words(tf: Any) -> Any:
    return tf.ragged.constant([["Who", "is", "George"], ["What", "is", "the", "weather", "now"], ["Goodnight"]])


def cubes(tf: Any) -> Any:
    return tf.ragged.constant([[[1, 2, 3], [4]], [[5], [], [6]], [[7]], [[8, 9], [10]]])


def pairs(tf: Any) -> Any:
    return tf.RaggedTensor.from_row_splits(
        [[1.0, 3.0], [0.0, 0.0], [1.0, 3.0], [5.0, 3.0], [3.0, 3.0], [1.0, 2.0]], [0, 3, 4, 6]
    )


INDEXING = [
    ("first_two_of_each_row", lambda tf: seen(digits(tf)[:, :2])),
    ("last_two_of_each_row", lambda tf: seen(digits(tf)[:, -2:])),
    ("middle_of_each_row", lambda tf: seen(digits(tf)[:, 1:-1])),
    ("every_other_item", lambda tf: seen(digits(tf)[:, ::2])),
    ("rows_and_items", lambda tf: seen(digits(tf)[1:4, :1])),
    ("one_word", lambda tf: words(tf)[1, 2]),
    ("one_word_from_the_end", lambda tf: words(tf)[-2, -1]),
    ("one_row", lambda tf: words(tf)[1]),
    ("rows_from_one", lambda tf: seen(words(tf)[1:])),
    ("first_three_words", lambda tf: seen(words(tf)[:, :3])),
    ("3d_second_row", lambda tf: seen(cubes(tf)[1])),
    ("3d_first_of_fourth_row", lambda tf: cubes(tf)[3, 0]),
    ("3d_one_number", lambda tf: cubes(tf)[1, 2, 0]),
    ("3d_items_one_to_three", lambda tf: seen(cubes(tf)[:, 1:3])),
    ("3d_last_item", lambda tf: seen(cubes(tf)[:, -1:])),
    ("3d_inner_slices", lambda tf: seen(cubes(tf)[:, :, :1])),
    ("3d_last_two_in_rows", lambda tf: seen(cubes(tf)[1:3, :, -2:])),
    ("uniform_inner_index", lambda tf: seen(pairs(tf)[:, :, 0])),
    ("uniform_inner_slice_and_index", lambda tf: seen(pairs(tf)[:, 1:, 1])),
    ("index_into_a_ragged_dimension", lambda tf: digits(tf)[:, 1]),
    ("3d_index_into_a_ragged_dimension", lambda tf: cubes(tf)[:, 0]),
    ("row_out_of_bounds", lambda tf: digits(tf)[7]),
]

FACTORIES = [
    (
        "from_value_rowids",
        lambda tf: seen(
            tf.RaggedTensor.from_value_rowids(values=[3, 1, 4, 1, 5, 9, 2], value_rowids=[0, 0, 0, 0, 2, 2, 3])
        ),
    ),
    (
        "from_value_rowids_nrows",
        lambda tf: seen(tf.RaggedTensor.from_value_rowids([1.0, 2.0, 3.0], [0, 0, 2], nrows=5)),
    ),
    ("from_row_starts", lambda tf: seen(tf.RaggedTensor.from_row_starts([3, 1, 4, 1, 5], [0, 2, 2]))),
    ("from_row_limits", lambda tf: seen(tf.RaggedTensor.from_row_limits([3, 1, 4, 1, 5], [2, 2, 5]))),
    ("from_row_limits_short", lambda tf: seen(tf.RaggedTensor.from_row_limits([3, 1, 4, 1, 5], [2, 2, 4]))),
    (
        "from_nested_row_splits",
        lambda tf: seen(
            tf.RaggedTensor.from_nested_row_splits(
                flat_values=[10, 11, 12, 13, 14, 15, 16, 17, 18, 19],
                nested_row_splits=([0, 1, 1, 5], [0, 3, 3, 5, 9, 10]),
            )
        ),
    ),
    (
        "from_nested_row_lengths",
        lambda tf: seen(tf.RaggedTensor.from_nested_row_lengths([1.0, 2.0, 3.0, 4.0], [[2, 0, 1], [1, 2, 1]])),
    ),
    (
        "from_nested_value_rowids",
        lambda tf: seen(
            tf.RaggedTensor.from_nested_value_rowids([1, 2, 3, 4], [[0, 0, 2], [0, 1, 1, 2]], nested_nrows=[3, 3])
        ),
    ),
    (
        "from_uniform_row_length",
        lambda tf: seen(
            tf.RaggedTensor.from_uniform_row_length(
                tf.RaggedTensor.from_row_splits([10, 11, 12, 13, 14, 15, 16, 17, 18, 19], [0, 3, 5, 9, 10]), 2
            )
        ),
    ),
    ("ragged_range", lambda tf: seen(tf.ragged.range([3, 0, 5]))),
    ("ragged_range_steps", lambda tf: seen(tf.ragged.range([1, 2, 3], [4, 8, 1], [2, 3, -1]))),
    ("ragged_range_floats", lambda tf: seen(tf.ragged.range(1.0, [2.0, 3.5], 0.5))),
]

CONVERSIONS = [
    ("to_sparse", lambda tf: seen(words(tf).to_sparse())),
    ("to_sparse_3d", lambda tf: seen(cubes(tf).to_sparse())),
    ("to_sparse_uniform_inner", lambda tf: seen(pairs(tf).to_sparse())),
    (
        "from_sparse",
        lambda tf: seen(
            tf.RaggedTensor.from_sparse(
                tf.SparseTensor(indices=[[0, 0], [2, 0], [2, 1]], values=["a", "b", "c"], dense_shape=[3, 3])
            )
        ),
    ),
    ("from_sparse_not_right_ragged", lambda tf: tf.RaggedTensor.from_sparse(tf.SparseTensor([[0, 1]], [1], [2, 2]))),
    ("to_tensor_shape_and_default", lambda tf: words(tf).to_tensor(default_value="", shape=[None, 10])),
    ("to_tensor_cut", lambda tf: digits(tf).to_tensor(shape=[3, 2])),
    ("to_tensor_padded_rows", lambda tf: digits(tf).to_tensor(default_value=-1.0, shape=[6, 5])),
    ("to_tensor_3d_shape", lambda tf: cubes(tf).to_tensor(shape=[4, 1, 4])),
    ("bounding_shape", lambda tf: words(tf).bounding_shape()),
    ("bounding_shape_3d", lambda tf: cubes(tf).bounding_shape()),
    ("bounding_shape_axis", lambda tf: cubes(tf).bounding_shape(axis=2)),
]


@named_examples(*INDEXING)
def test_ragged_indexing_matches_tensorflow(case: Any) -> None:
    same(case)


@named_examples(*FACTORIES)
def test_ragged_factories_match_tensorflow(case: Any) -> None:
    same(case)


@named_examples(*CONVERSIONS)
def test_ragged_conversions_match_tensorflow(case: Any) -> None:
    same(case)


def test_gradients_flow_through_ragged_indexing_and_to_sparse_like_tensorflows() -> None:
    def case(tf: Any) -> Any:
        values = tf.constant([3.0, 1.0, 4.0, 1.0, 5.0, 9.0, 2.0])
        with tf.GradientTape(persistent=True) as tape:
            tape.watch(values)
            rt = tf.RaggedTensor.from_value_rowids(values, [0, 0, 0, 0, 2, 2, 3])
            sliced = tf.reduce_sum(rt[:, -2:].flat_values ** 2)
            sparse = tf.reduce_sum(rt.to_sparse().values * tf.range(7, dtype=tf.float32))
            dense = tf.reduce_sum(rt.to_tensor(default_value=0.5, shape=[5, 3]))
        return [tf.convert_to_tensor(tape.gradient(target, values)) for target in (sliced, sparse, dense)]

    same(only(*ON_VALUES)(case))


def test_ragged_values_print_through_indexing_like_tensorflow() -> None:
    def program(tf: Any, seen_: list) -> None:
        queries = words(tf)
        print(queries[1])
        print(queries[1, 2])
        print(queries[:, -2:])
        print(cubes(tf)[:, -1:])
        seen_.append(queries[1, 2].numpy())

    same_program(program)
