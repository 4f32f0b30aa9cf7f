"""Array ops and operators on RaggedTensors against TensorFlow: tf.concat, tf.tile, tf.reverse, tf.map_fn,
dense operands that broadcast against ragged ones, and RaggedTensorSpec in a tf.function's input_signature.
"""

from __future__ import annotations

from typing import Any

from harness import EAGER, TAPE, named_examples, only, same, same_error, same_program

ON_VALUES = ((EAGER, TAPE), "the case builds its own tf.function with an input_signature")


def parts(value: Any) -> Any:
    """A RaggedTensor as its components, which both engines can return from a traced function too."""
    if type(value).__name__ == "RaggedTensor":
        return value.flat_values, list(value.nested_row_splits)
    return value


def digits(tf: Any) -> Any:
    return tf.ragged.constant([[3.0, 1.0, 4.0, 1.0], [], [5.0, 9.0, 2.0], [6.0], []])


def cubes(tf: Any) -> Any:
    return tf.ragged.constant([[[1, 2], [3]], [[4, 5, 6]], []])


ARRAY_OPS = [
    ("concat_rows", lambda tf: parts(tf.concat([digits(tf), [[5.0, 3.0]]], axis=0))),
    ("concat_within_rows", lambda tf: parts(tf.concat([digits(tf), digits(tf) * 2.0], axis=1))),
    ("concat_negative_axis", lambda tf: parts(tf.concat([digits(tf), digits(tf)], axis=-1))),
    ("concat_3d_rows", lambda tf: parts(tf.concat([cubes(tf), cubes(tf)], axis=0))),
    ("concat_3d_within_rows", lambda tf: parts(tf.concat([cubes(tf), cubes(tf)], axis=1))),
    (
        "concat_words",
        lambda tf: parts(
            tf.concat(
                [
                    tf.ragged.constant([["John"], ["a", "big", "dog"]]),
                    tf.ragged.constant([["fell", "asleep"], ["barked"]]),
                ],
                axis=1,
            )
        ),
    ),
    ("concat_rows_mismatch", lambda tf: parts(tf.concat([digits(tf), digits(tf)[:2]], axis=1))),
    ("tile", lambda tf: parts(tf.tile(digits(tf), [1, 2]))),
    ("tile_rows_and_columns", lambda tf: parts(tf.tile(digits(tf), [2, 3]))),
    ("reverse_within_rows", lambda tf: parts(tf.reverse(digits(tf), [1]))),
    ("reverse_rows", lambda tf: parts(tf.reverse(digits(tf), [0]))),
    ("reverse_both", lambda tf: parts(tf.reverse(cubes(tf), [0, 1]))),
    ("map_fn_square", only(*ON_VALUES)(lambda tf: parts(tf.map_fn(tf.math.square, digits(tf))))),
    (
        "map_fn_row_sums",
        only(*ON_VALUES)(lambda tf: tf.map_fn(tf.reduce_sum, digits(tf), fn_output_signature=tf.float32)),
    ),
]

BROADCASTING = [
    ("scalar", lambda tf: parts(digits(tf) + 3.0)),
    (
        "column_per_row",
        lambda tf: parts(tf.ragged.constant([[10, 87, 12], [19, 53], [12, 32]]) + [[1000], [2000], [3000]]),
    ),
    (
        "one_by_one",
        lambda tf: parts(tf.ragged.constant([[[1, 2], [3, 4], [5, 6]], [[7, 8]]], ragged_rank=1) + tf.constant([[10]])),
    ),
    (
        "uniform_inner",
        lambda tf: parts(tf.ragged.constant([[[1, 2], [3, 4]], [[5, 6]]], ragged_rank=1) + tf.constant([10, 20])),
    ),
    (
        "two_ragged_levels",
        lambda tf: parts(
            tf.ragged.constant([[[[1], [2]], [], [[3]], [[4]]], [[[5], [6]], [[7]]]], ragged_rank=2)
            + tf.constant([10, 20, 30])
        ),
    ),
    ("tf_multiply", lambda tf: parts(tf.multiply(digits(tf), [[1.0], [2.0], [3.0], [4.0], [5.0]]))),
    ("compare", lambda tf: parts(digits(tf) > [[1.0], [2.0], [3.0], [4.0], [5.0]])),
]


@named_examples(*ARRAY_OPS)
def test_ragged_array_ops_match_tensorflow(case: Any) -> None:
    same(case)


@named_examples(*BROADCASTING)
def test_dense_operands_broadcast_against_ragged_ones_like_tensorflow(case: Any) -> None:
    same(case)


def test_ragged_tensor_spec_in_input_signature_matches_tensorflow() -> None:
    def program(tf: Any, seen: list) -> None:
        @tf.function(input_signature=[tf.RaggedTensorSpec(shape=[None, None], dtype=tf.int32)])
        def max_and_min(rt: Any) -> Any:
            return tf.math.reduce_max(rt, axis=-1), tf.math.reduce_min(rt, axis=-1)

        seen.append(max_and_min(tf.ragged.constant([[1, 2], [3], [4, 5, 6]])))
        seen.append(max_and_min(tf.ragged.constant([[7], [3, 9]])))
        seen.append(str(max_and_min.get_concrete_function().structured_input_signature))
        for bad in (tf.ragged.constant([[1.0]]), tf.constant([[1, 2]])):
            try:
                max_and_min(bad)
            except TypeError as error:
                seen.append(type(error).__name__)

        @tf.function
        def palindrome(x: Any, axis: Any) -> Any:
            return tf.concat([x, tf.reverse(x, [axis])], axis)

        seen.append(palindrome(tf.ragged.constant([[1, 2], [3], [4, 5, 6]]), axis=1).to_list())

    same_program(program)


def test_gradients_through_ragged_broadcasting_and_concat_match_tensorflow() -> None:
    def case(tf: Any) -> Any:
        values = tf.constant([3.0, 1.0, 4.0, 1.0, 5.0])
        column = tf.constant([[2.0], [3.0], [4.0]])
        with tf.GradientTape(persistent=True) as tape:
            tape.watch([values, column])
            rt = tf.RaggedTensor.from_row_lengths(values, [2, 0, 3])
            product = tf.reduce_sum((rt * column).flat_values)
            joined = tf.reduce_sum(tf.concat([rt, rt * 2.0], axis=1).flat_values ** 2)
        return [
            tf.convert_to_tensor(g) for g in tape.gradient(product, [values, column]) + [tape.gradient(joined, values)]
        ]

    same(only(*ON_VALUES)(case))


LOOKUPS = [
    (
        "embedding_lookup_ragged_ids",
        lambda tf: parts(
            tf.nn.embedding_lookup(
                tf.reshape(tf.range(12.0), [6, 2]), tf.ragged.constant([[0, 5], [], [3, 3, 1]], dtype=tf.int64)
            )
        ),
    ),
    (
        "gather_ragged_indices",
        lambda tf: parts(tf.gather(tf.constant([10, 20, 30]), tf.ragged.constant([[2, 0], [1]]))),
    ),
    (
        "strings_join_ragged",
        lambda tf: parts(
            tf.strings.join(
                [tf.ragged.constant([["a", "b"], ["c"]]), tf.ragged.constant([["x", "y"], ["z"]])], separator="+"
            )
        ),
    ),
    (
        "mean_of_rows_with_inner_values",
        lambda tf: tf.reduce_mean(
            tf.RaggedTensor.from_row_lengths(tf.reshape(tf.range(10.0), [5, 2]), [2, 0, 3]), axis=1
        ),
    ),
]

MISMATCHES = [
    (
        "ragged_rows_differ",
        lambda tf: tf.ragged.constant([[1, 2, 3], [4], [5, 6]]) + tf.ragged.constant([[10, 20], [30, 40], [50]]),
    ),
    (
        "dense_rows_longer",
        lambda tf: (
            tf.ragged.constant([[1, 2], [3, 4, 5, 6], [7]]) + tf.constant([[1, 2, 3, 4], [5, 6, 7, 8], [9, 10, 11, 12]])
        ),
    ),
    (
        "inner_sizes_differ",
        lambda tf: (
            tf.ragged.constant([[[1, 2], [3, 4]], [[7, 8]]]) + tf.ragged.constant([[[1, 2, 0], [3, 4, 0]], [[7, 8, 0]]])
        ),
    ),
    (
        "assert_equal_lists_three",
        lambda tf: tf.debugging.assert_equal(tf.constant([0, 3, 4, 6, 7, 9]), tf.constant([0, 2, 4, 5, 7, 8])),
    ),
    (
        "assert_equal_summarize",
        lambda tf: tf.debugging.assert_equal(
            tf.constant([0, 3, 4, 6, 7, 9]), tf.constant([0, 2, 4, 5, 7, 8]), summarize=10
        ),
    ),
]


@named_examples(*LOOKUPS)
def test_lookups_and_joins_of_ragged_values_match_tensorflow(case: Any) -> None:
    same(case)


@named_examples(*MISMATCHES)
def test_mismatched_ragged_operands_fail_with_tensorflows_message(case: Any) -> None:
    same_error(case, hint=False)


def test_ragged_ops_traced_with_unknown_row_counts_match_tensorflow() -> None:
    def program(tf: Any, seen: list) -> None:
        @tf.function(input_signature=[tf.RaggedTensorSpec(shape=[None, None], dtype=tf.float32)])
        def several(rt: Any) -> Any:
            first_two, later_rows = rt[:, :2], rt[1:]
            joined = tf.concat([rt, rt * 2.0], axis=1)
            padded = rt.to_tensor(shape=[None, 3])
            return (
                first_two.flat_values,
                first_two.row_splits,
                later_rows.row_splits,
                joined.flat_values,
                padded,
                tf.reverse(rt, [1]).flat_values,
                tf.constant(str(first_two.shape)),
                tf.constant(str(padded.shape)),
            )

        seen.append(several(tf.ragged.constant([[1.0, 2.0, 3.0], [4.0], [], [5.0, 6.0]])))
        seen.append(several(tf.ragged.constant([[7.0]])))

    same_program(program)


STACK_AND_MASK = [
    # (dense inputs only: TensorFlow's row splits are int32 then, minitf's int64 as always; the rows agree)
    ("stack_vectors", lambda tf: tf.ragged.stack([tf.constant([3, 1, 4]), tf.constant([5, 9])]).to_list()),
    ("stack_rows_of_ragged", lambda tf: tf.ragged.stack([digits(tf)[0], digits(tf)[2], digits(tf)[1]]).to_list()),
    ("stack_matrices", lambda tf: tf.ragged.stack([tf.ones([2, 3]), tf.zeros([1, 3])]).to_list()),
    ("stack_ragged", lambda tf: parts(tf.ragged.stack([digits(tf), digits(tf)[:2]]))),
    ("mask_ragged", lambda tf: parts(tf.ragged.boolean_mask(digits(tf), digits(tf) > 2.0))),
    (
        "mask_matrix",
        lambda tf: parts(
            tf.ragged.boolean_mask(tf.reshape(tf.range(6), [2, 3]), [[True, False, True], [False, False, True]])
        ),
    ),
    ("mask_rows", lambda tf: parts(tf.ragged.boolean_mask(digits(tf), [True, False, True, False, True]))),
    ("gather_rows", lambda tf: parts(tf.gather(digits(tf), [2, 0, 2]))),
    ("gather_rows_3d", lambda tf: parts(tf.gather(cubes(tf), tf.constant([1, 0])))),
]


@named_examples(*STACK_AND_MASK)
def test_ragged_stack_boolean_mask_and_row_gather_match_tensorflow(case: Any) -> None:
    same(case, modes=(EAGER, TAPE))
