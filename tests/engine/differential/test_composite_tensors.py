"""SparseTensor, RaggedTensor and tf.strings against TensorFlow: values, dtypes, shapes, printing, errors.

Composite results are compared through what a student sees of them: their printed form, their components
(plain tensors, compared as usual) and their static shape.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from harness import EAGER, TAPE, examples, named_examples, only, same, same_error, same_program, with_shapes
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import elements

# TensorFlow's ragged and string ops cost tens of milliseconds a call: a quarter of the usual examples.
few_examples = settings(examples, max_examples=max(5, examples.max_examples // 4))


def seen(value: Any) -> Any:
    """A RaggedTensor or SparseTensor as (repr, components, shape); anything else unchanged."""
    kind = type(value).__name__
    if kind == "RaggedTensor":
        return (
            repr(value),
            str(value),
            value.to_list(),
            value.shape,
            value.dtype,
            value.ragged_rank,
            value.flat_values,
            list(value.nested_row_splits),
        )
    if kind == "SparseTensor":
        return repr(value), value.indices, value.values, value.dense_shape, value.shape, value.dtype
    if isinstance(value, tuple):
        return tuple(seen(v) for v in value)
    return value


# Cases restricted to some ways, by name: TensorFlow's `RaggedTensor.to_list()` (inside `seen`) is eager-only,
# and the "minitf:" reasons are known differences of minitf's traced way.
TO_LIST = ((EAGER, TAPE), "RaggedTensor.to_list() runs only eagerly in TensorFlow")


def restricted(pairs: list, modes: dict) -> list:
    """`pairs` with the cases named in `modes` restricted to those ways (`only`), the reason next to them."""
    return [(name, only(*modes[name])(case)) if name in modes else (name, case) for name, case in pairs]


def sp(tf: Any) -> Any:
    return tf.SparseTensor(indices=[[0, 0], [1, 2]], values=[1.0, 2.0], dense_shape=[3, 4])


SPARSE = [
    ("construct_and_print", lambda tf: seen(sp(tf))),
    ("construct_int_values", lambda tf: seen(tf.SparseTensor([[0], [3]], [7, 8], [5]))),
    ("construct_mismatched_lengths", lambda tf: tf.SparseTensor([[0, 0], [1, 1]], [1, 2, 3], [2, 2])),
    ("to_dense", lambda tf: tf.sparse.to_dense(sp(tf))),
    ("to_dense_default_value", lambda tf: tf.sparse.to_dense(sp(tf), default_value=-1.0)),
    ("to_dense_out_of_order", lambda tf: tf.sparse.to_dense(tf.SparseTensor([[1, 1], [0, 0]], [1, 2], [2, 2]))),
    ("to_dense_out_of_bounds", lambda tf: tf.sparse.to_dense(tf.SparseTensor([[3, 1]], [1], [2, 2]))),
    ("to_dense_strings", lambda tf: tf.sparse.to_dense(tf.SparseTensor([[1]], ["x"], [3]))),
    ("from_dense", lambda tf: seen(tf.sparse.from_dense([[1.0, 0.0], [0.0, 2.0]]))),
    ("from_dense_ints_3d", lambda tf: seen(tf.sparse.from_dense(tf.reshape(tf.range(-2, 6), [2, 2, 2])))),
    ("reorder", lambda tf: seen(tf.sparse.reorder(tf.SparseTensor([[1, 1], [0, 2], [0, 0]], [1, 2, 3], [2, 3])))),
    (
        "add_sparse_sparse",
        lambda tf: seen(tf.sparse.add(sp(tf), tf.SparseTensor([[0, 1], [1, 2]], [5.0, -2.0], [3, 4]))),
    ),
    (
        "add_with_threshold",
        lambda tf: seen(tf.sparse.add(sp(tf), tf.SparseTensor([[0, 1], [1, 2]], [5.0, -2.0], [3, 4]), threshold=0.5)),
    ),
    ("add_sparse_dense", lambda tf: tf.sparse.add(sp(tf), tf.ones([3, 4]))),
    ("add_dense_sparse", lambda tf: tf.sparse.add(tf.ones([3, 4]), sp(tf))),
    ("add_shape_mismatch", lambda tf: tf.sparse.add(sp(tf), tf.SparseTensor([[0, 0]], [1.0], [3, 3]))),
    ("matmul", lambda tf: tf.sparse.sparse_dense_matmul(sp(tf), tf.reshape(tf.range(8.0), [4, 2]))),
    ("matmul_adjoint_a", lambda tf: tf.sparse.sparse_dense_matmul(sp(tf), tf.ones([3, 2]), adjoint_a=True)),
    ("matmul_adjoint_b", lambda tf: tf.sparse.sparse_dense_matmul(sp(tf), tf.ones([2, 4]), adjoint_b=True)),
    ("matmul_inner_mismatch", lambda tf: tf.sparse.sparse_dense_matmul(sp(tf), tf.ones([3, 3]))),
    ("matmul_dtype_mismatch", lambda tf: tf.sparse.sparse_dense_matmul(sp(tf), tf.ones([4, 3], tf.int32))),
    ("scaled", lambda tf: seen(sp(tf) * 2.0)),
    (
        "dense_times_sparse",
        lambda tf: tf.sparse.sparse_dense_matmul(
            tf.reshape(tf.range(6.0), [2, 3]), tf.SparseTensor([[0, 0], [1, 2], [2, 3]], [1.0, 2.0, 3.0], [3, 4])
        ),
    ),
    ("to_dense_of_a_list", lambda tf: tf.sparse.to_dense([[1, 0]])),
    ("indices_of_wrong_rank", lambda tf: tf.SparseTensor([0], [1.0], [2])),
    ("float_indices", lambda tf: tf.SparseTensor([[0.5]], [1.0], [2])),
    ("add_two_dense", lambda tf: tf.sparse.add(tf.ones([2]), tf.ones([2]))),
    (
        "add_dtype_mismatch",
        lambda tf: tf.sparse.add(tf.SparseTensor([[0]], [1.0], [2]), tf.SparseTensor([[0]], [1], [2])),
    ),
]


@named_examples(*SPARSE)
def test_sparse_tensor_matches_tensorflow(case: Any) -> None:
    same(case)


def test_sparse_dense_matmul_gradients_match_tensorflow() -> None:
    def case(tf: Any) -> Any:
        values = tf.Variable([1.0, 2.0])
        b = tf.Variable(tf.reshape(tf.range(8.0), [4, 2]))
        with tf.GradientTape() as tape:
            a = tf.SparseTensor([[0, 0], [1, 2]], values, [3, 4])
            y = tf.reduce_sum(tf.sparse.sparse_dense_matmul(a, b) ** 2)
        return tape.gradient(y, [values, b])

    same(case)


def test_sparse_to_dense_inside_tf_function_matches_tensorflow() -> None:
    def case(tf: Any) -> Any:
        @tf.function
        def densify(values: Any) -> Any:
            return tf.sparse.to_dense(tf.SparseTensor([[0, 1], [2, 0]], values, [3, 2])) * 2.0

        @tf.function
        def from_dense_and_back(x: Any) -> Any:
            return tf.sparse.to_dense(tf.sparse.from_dense(x))

        return (
            densify(tf.constant([1.0, 5.0])),
            densify.get_concrete_function(tf.constant([1.0, 2.0])).outputs[0].shape,
            from_dense_and_back.get_concrete_function(tf.TensorSpec([3, None], tf.float32)).outputs[0].shape,
        )

    same(case)


def rt(tf: Any) -> Any:
    return tf.ragged.constant([[1, 2], [3], [], [4, 5, 6]])


RAGGED = [
    ("constant_ints", lambda tf: seen(rt(tf))),
    ("constant_floats", lambda tf: seen(tf.ragged.constant([[0.1, 2.0], [3.5]]))),
    ("constant_float64", lambda tf: seen(tf.ragged.constant([[0.1, 2.0], [3.5]], dtype=tf.float64))),
    ("constant_strings", lambda tf: seen(tf.ragged.constant([["a", "b"], ["c"]]))),
    ("constant_uniform_rows_print_on_lines", lambda tf: seen(tf.ragged.constant([[1, 2], [3, 4]]))),
    ("constant_nested", lambda tf: seen(tf.ragged.constant([[[1, 2], [3]], [[4]]]))),
    ("constant_empty_row", lambda tf: seen(tf.ragged.constant([[]]))),
    ("constant_flat_list_is_dense", lambda tf: tf.ragged.constant([1, 2])),
    (
        "constant_ragged_rank_1_with_uniform_inner",
        lambda tf: seen(tf.ragged.constant([[[1, 2]], [[3, 4], [5, 6]]], ragged_rank=1)),
    ),
    ("constant_inner_shape", lambda tf: seen(tf.ragged.constant([[[1], [2]], [[3]]], inner_shape=(1,)))),
    ("constant_ragged_rank_too_deep", lambda tf: tf.ragged.constant([[1, 2], [3]], ragged_rank=2)),
    ("constant_int32_row_splits", lambda tf: seen(tf.ragged.constant([[1, 2], [3]], row_splits_dtype=tf.int32))),
    (
        "constant_float16_and_empty_strings",
        lambda tf: (
            seen(tf.ragged.constant([[1, 2], [3]], dtype=tf.float16)),
            seen(tf.ragged.constant([["a", "b"], []], dtype=tf.string)),
        ),
    ),
    ("constructor_is_private", lambda tf: tf.RaggedTensor([1], [0, 1])),
    ("splits_decreasing", lambda tf: tf.RaggedTensor.from_row_splits([1, 2], [0, 2, 1])),
    ("negative_row_length", lambda tf: tf.RaggedTensor.from_row_lengths([1, 2], [3, -1])),
    ("splits_of_rank_two", lambda tf: tf.RaggedTensor.from_row_splits([1, 2], [[0, 2]])),
    ("float_row_lengths", lambda tf: tf.RaggedTensor.from_row_lengths([1, 2], [1.0, 1.0])),
    ("mixed_types", lambda tf: tf.ragged.constant([["a"], [1]])),
    ("to_tensor_default_of_other_dtype", lambda tf: tf.ragged.constant([[1, 2], [3]]).to_tensor(default_value=1.5)),
    ("reduce_axis_out_of_range", lambda tf: tf.reduce_sum(tf.ragged.constant([[1, 2], [3]]), axis=2)),
    ("plus_other_dtype", lambda tf: tf.ragged.constant([[1, 2], [3]]) + tf.ragged.constant([[1.0, 2], [3]])),
    ("constant_mixed_depths", lambda tf: tf.ragged.constant([[1, [2]], [3]])),
    ("from_row_lengths", lambda tf: seen(tf.RaggedTensor.from_row_lengths([1, 2, 3], [1, 0, 2]))),
    ("from_row_lengths_wrong_total", lambda tf: tf.RaggedTensor.from_row_lengths([1, 2, 3], [1, 1])),
    ("from_row_splits", lambda tf: seen(tf.RaggedTensor.from_row_splits([1.0, 2.0, 3.0], [0, 1, 3]))),
    ("from_row_splits_not_from_zero", lambda tf: tf.RaggedTensor.from_row_splits([1, 2, 3], [1, 1, 3])),
    ("row_lengths", lambda tf: rt(tf).row_lengths()),
    ("row_lengths_nested", lambda tf: tf.ragged.constant([[[1, 2], [3]], [[4]]]).row_lengths()),
    ("nrows", lambda tf: rt(tf).nrows()),
    ("values_and_splits", lambda tf: (rt(tf).values, rt(tf).row_splits)),
    ("to_tensor", lambda tf: rt(tf).to_tensor()),
    ("to_tensor_default", lambda tf: rt(tf).to_tensor(default_value=-1)),
    ("to_tensor_nested", lambda tf: tf.ragged.constant([[[1, 2], [3]], [[4]]]).to_tensor()),
    ("to_tensor_strings", lambda tf: tf.ragged.constant([["a", "b"], ["c"]]).to_tensor()),
    ("bounding_shape", lambda tf: rt(tf).bounding_shape()),
    ("row_index", lambda tf: (rt(tf)[0], rt(tf)[2], rt(tf)[-1])),
    ("row_slice", lambda tf: seen(rt(tf)[1:3])),
    (
        "row_slices_negative_and_past_the_end",
        lambda tf: [
            seen(rt(tf)[k]) for k in (slice(-2, None), slice(None, -1), slice(-3, -1), slice(1, 100), slice(0, 0))
        ],
    ),
    ("row_index_out_of_bounds", lambda tf: rt(tf)[4]),
    ("len_is_not_defined", lambda tf: len(rt(tf))),
    ("iterate_rows", lambda tf: list(rt(tf))),
    (
        "nest_flatten_expands_composites",
        lambda tf: (
            tf.nest.flatten(
                {"r": tf.ragged.constant([[[1], [2, 3]], [[4]]]), "s": tf.sparse.from_dense([[0, 5]])},
                expand_composites=True,
            ),
            [seen(x) for x in tf.nest.flatten([rt(tf)])],
        ),
    ),
    ("map_flat_values", lambda tf: seen(tf.ragged.map_flat_values(lambda x: x * 2 + 1, rt(tf)))),
    (
        "from_tensor",
        lambda tf: (
            seen(tf.RaggedTensor.from_tensor([[1, 2], [3, 4]])),
            seen(tf.RaggedTensor.from_tensor([[1, 0], [3, 4]], lengths=[1, 2])),
            seen(tf.RaggedTensor.from_tensor([[1, 0, 0], [0, 0, 0], [0, 4, 0]], padding=0)),
            seen(tf.RaggedTensor.from_tensor(tf.zeros([2, 0]))),
        ),
    ),
    ("times_scalar", lambda tf: seen(rt(tf) * 2)),
    ("plus_ragged", lambda tf: seen(rt(tf) + rt(tf))),
    ("plus_other_lengths", lambda tf: rt(tf) + tf.ragged.constant([[1], [2, 3], [], [4, 5, 6]])),
    ("compare", lambda tf: seen(rt(tf) > 2)),
    ("tf_add", lambda tf: seen(tf.add(rt(tf), 10))),
    ("tf_abs", lambda tf: seen(tf.abs(-rt(tf)))),
    ("tf_math_sqrt", lambda tf: seen(tf.math.sqrt(tf.cast(rt(tf), tf.float32)))),
    ("reduce_sum_all", lambda tf: tf.reduce_sum(rt(tf))),
    ("reduce_sum_rows", lambda tf: tf.reduce_sum(rt(tf), axis=1)),
    ("reduce_sum_columns", lambda tf: tf.reduce_sum(rt(tf), axis=0)),
    ("reduce_max_rows_empty_row", lambda tf: tf.reduce_max(rt(tf), axis=1)),
    ("reduce_max_rows_empty_row_float", lambda tf: tf.reduce_max(tf.cast(rt(tf), tf.float32), axis=1)),
    ("reduce_mean_int_is_float64", lambda tf: (tf.reduce_mean(rt(tf)), tf.reduce_mean(rt(tf), axis=1))),
    ("reduce_min_rows", lambda tf: tf.reduce_min(rt(tf), axis=-1)),
    ("reduce_mean_rows", lambda tf: tf.reduce_mean(tf.cast(rt(tf), tf.float32), axis=1)),
    ("reduce_mean_columns", lambda tf: tf.reduce_mean(tf.cast(rt(tf), tf.float32), axis=0)),
    ("reduce_prod_rows", lambda tf: tf.math.reduce_prod(rt(tf), axis=1)),
]


RAGGED_MODES = {
    "constant_ints": TO_LIST,
    "constant_floats": TO_LIST,
    "constant_float64": TO_LIST,
    "constant_strings": TO_LIST,
    "constant_uniform_rows_print_on_lines": TO_LIST,
    "constant_nested": TO_LIST,
    "constant_empty_row": TO_LIST,
    "constant_ragged_rank_1_with_uniform_inner": TO_LIST,
    "constant_inner_shape": TO_LIST,
    "constant_int32_row_splits": TO_LIST,
    "constant_float16_and_empty_strings": TO_LIST,
    "from_row_lengths": TO_LIST,
    "from_row_splits": TO_LIST,
    "row_slice": TO_LIST,
    "row_slices_negative_and_past_the_end": TO_LIST,
    "nest_flatten_expands_composites": TO_LIST,
    "map_flat_values": TO_LIST,
    "from_tensor": TO_LIST,
    "times_scalar": TO_LIST,
    "plus_ragged": TO_LIST,
    "compare": TO_LIST,
    "tf_add": TO_LIST,
    "tf_abs": TO_LIST,
    "tf_math_sqrt": TO_LIST,
}


@named_examples(*restricted(RAGGED, RAGGED_MODES))
def test_ragged_tensor_matches_tensorflow(case: Any) -> None:
    same(case)


def test_ragged_row_sums_gradient_matches_tensorflow() -> None:
    def case(tf: Any) -> Any:
        values = tf.Variable([1.0, 2.0, 3.0, 4.0])
        with tf.GradientTape() as tape:
            r = tf.RaggedTensor.from_row_lengths(values, [2, 0, 2])
            y = tf.reduce_sum(tf.reduce_mean(r * r, axis=1) * tf.constant([1.0, 2.0, 3.0]))
        return tape.gradient(y, values)

    same(case)


def test_ragged_inside_tf_function_matches_tensorflow() -> None:
    def case(tf: Any) -> Any:
        @tf.function
        def row_sums(values: Any, lengths: Any) -> Any:
            r = tf.RaggedTensor.from_row_lengths(values, lengths)
            return tf.reduce_sum(r, axis=1), r.to_tensor(), r.row_lengths()

        return row_sums(tf.constant([1, 2, 3]), tf.constant([1, 2], tf.int64))

    same(case)


STRINGS = [
    ("print_scalar_and_vector", lambda tf: (tf.constant("héllo"), tf.constant([["a", "b"], ["c", "d"]]))),
    ("split_vector", lambda tf: seen(tf.strings.split(["hello world", "a  b c", ""]))),
    ("split_scalar", lambda tf: tf.strings.split("a b c")),
    ("split_sep", lambda tf: seen(tf.strings.split(["a,,b", ",c"], sep=","))),
    ("split_maxsplit", lambda tf: seen(tf.strings.split(["a b c d"], maxsplit=1))),
    ("split_matrix", lambda tf: seen(tf.strings.split([["a b"], ["c"]]))),
    ("to_number", lambda tf: tf.strings.to_number(["1.5", "-2", " 3", "1e3"])),
    ("to_number_int64", lambda tf: tf.strings.to_number(["1", "-7"], out_type=tf.int64)),
    ("to_number_bad", lambda tf: tf.strings.to_number(["1", "x"])),
    ("to_number_int_of_float", lambda tf: tf.strings.to_number(["1.5"], out_type=tf.int32)),
    (
        "length_bytes_and_chars",
        lambda tf: (tf.strings.length(["héllo", ""]), tf.strings.length("héllo", unit="UTF8_CHAR")),
    ),
    ("bytes_split_scalar", lambda tf: tf.strings.bytes_split("abc")),
    ("bytes_split_vector", lambda tf: seen(tf.strings.bytes_split(["ab", "c"]))),
    ("join", lambda tf: tf.strings.join(["a", "b"], separator="-")),
    ("join_broadcast", lambda tf: tf.strings.join([["a", "b"], "x"])),
    ("join_shape_mismatch", lambda tf: tf.strings.join([["a", "b"], ["x", "y", "z"]])),
    ("lower_upper", lambda tf: (tf.strings.lower(["HeLLo", "ÀB"]), tf.strings.upper("abc"))),
    ("upper_utf8", lambda tf: tf.strings.upper("àb", encoding="utf-8")),
    ("unicode_decode_scalar", lambda tf: tf.strings.unicode_decode("héllo", "UTF-8")),
    ("unicode_decode_vector", lambda tf: seen(tf.strings.unicode_decode(["hé", "x", ""], "UTF-8"))),
    ("unicode_encode_vector", lambda tf: tf.strings.unicode_encode([104, 233, 8364], "UTF-8")),
    ("unicode_encode_ragged", lambda tf: tf.strings.unicode_encode(tf.ragged.constant([[104, 233], [120]]), "UTF-8")),
    ("unicode_encode_matrix", lambda tf: tf.strings.unicode_encode([[104, 105], [120, 121]], "UTF-8")),
    ("reduce_join_all", lambda tf: tf.strings.reduce_join([["a", "b"], ["c", "d"]])),
    ("reduce_join_axis", lambda tf: tf.strings.reduce_join([["a", "b"], ["c", "d"]], axis=1, separator=",")),
    ("reduce_join_axis0_keepdims", lambda tf: tf.strings.reduce_join([["a", "b"], ["c", "d"]], axis=0, keepdims=True)),
    ("reduce_join_bad_axis", lambda tf: tf.strings.reduce_join(["a", "b"], axis=2)),
    ("length_of_a_python_number", lambda tf: tf.strings.length(1)),
    ("length_of_an_int_tensor", lambda tf: tf.strings.length(tf.constant([1]))),
    ("split_of_an_int_tensor", lambda tf: tf.strings.split(tf.constant([1]))),
    ("reduce_join_of_an_int_tensor", lambda tf: tf.strings.reduce_join(tf.constant([1]))),
    ("unicode_encode_of_floats", lambda tf: tf.strings.unicode_encode([1.5], "UTF-8")),
    ("unicode_encode_of_int64", lambda tf: tf.strings.unicode_encode(tf.constant([104], tf.int64), "UTF-8")),
    ("unicode_decode_unknown_encoding", lambda tf: tf.strings.unicode_decode("a", "LATIN")),
    ("to_number_int8", lambda tf: tf.strings.to_number("1", out_type=tf.int8)),
    ("length_unknown_unit", lambda tf: tf.strings.length("a", unit="CHAR")),
    ("string_gather_from_split", lambda tf: tf.strings.split(["a b", "c"])[0]),
]


STRINGS_MODES = {
    "split_vector": TO_LIST,
    "split_sep": TO_LIST,
    "split_maxsplit": TO_LIST,
    "split_matrix": TO_LIST,
    "bytes_split_vector": TO_LIST,
    "unicode_decode_vector": TO_LIST,
}


@named_examples(*restricted(STRINGS, STRINGS_MODES))
def test_strings_match_tensorflow(case: Any) -> None:
    same(case)


def test_string_ops_inside_tf_function_match_tensorflow() -> None:
    def case(tf: Any) -> Any:
        @tf.function
        def words(line: Any) -> Any:
            pieces = tf.strings.split(line)
            return tf.strings.reduce_join(tf.strings.upper(pieces), separator="_"), tf.strings.length(line)

        return words(tf.constant("the quick fox"))

    same(case)


WORDS = np.array([[b"a", b"b", b"c"], [b"d", b"e", b"f"]])


def join(axis: Any, keepdims: bool = False) -> Any:
    return lambda tf, x: tf.strings.reduce_join(x, axis=axis, keepdims=keepdims, separator="-")


@named_examples(
    ("every axis", with_shapes(join(None), WORDS)),
    ("every axis kept", with_shapes(join(None, keepdims=True), WORDS)),
    ("first axis", with_shapes(join(0), WORDS)),
    ("last axis kept", with_shapes(join(-1, keepdims=True), WORDS)),
    ("both axes listed", with_shapes(join([1, 0]), WORDS)),
    ("axis past the rank found at run time", with_shapes(join(2), WORDS)),
    ("negative axis past the rank", with_shapes(join(-3, keepdims=True), WORDS)),
    ("axis listed twice", with_shapes(join([0, -2]), WORDS)),
    ("a scalar's axis", with_shapes(join(0), np.array(b"x"))),
    ("known rank", with_shapes(join(1), WORDS, shape=[2, 3])),
    ("known rank, axis listed twice", with_shapes(join([1, 1]), WORDS, shape=[2, 3])),
    ("known rank, axis out of range", with_shapes(join(2), WORDS, shape=[2, 3])),
)
def test_reduce_join_of_an_input_traced_with_unknown_rank_matches_tensorflow(case: Any) -> None:
    same(case)


def test_reduce_join_with_an_axis_past_the_rank_fails_when_the_graph_runs_as_in_tensorflow() -> None:
    def case(tf: Any, seen: list) -> None:
        join_rows = tf.function(
            lambda x: tf.strings.reduce_join(x, axis=2), input_signature=[tf.TensorSpec(None, tf.string)]
        )
        join_rows(tf.constant(WORDS))

    same_program(case, "Invalid reduction dimension 2 for input with 2 dimension(s)")


@named_examples(
    ("axis past the rank", lambda tf: tf.strings.reduce_join(tf.constant(WORDS), axis=2)),
    ("negative axis past the rank", lambda tf: tf.strings.reduce_join(tf.constant(WORDS), axis=-3)),
    ("axis listed twice", lambda tf: tf.strings.reduce_join(tf.constant(WORDS), axis=[0, 0])),
)
def test_reduce_join_rejects_a_bad_axis_with_tensorflows_message(case: Any) -> None:
    same_error(case)


@st.composite
def ragged_lists(draw: Any) -> tuple[list, str]:
    """Nested Python lists of one depth (2 or 3) with rows of different lengths, and their dtype."""
    dtype = draw(st.sampled_from(["int32", "int64", "float32", "float64"]))
    values = elements(dtype, finite=True)
    depth = draw(st.integers(2, 3))

    def level(d: int) -> Any:
        if d == 1:
            return st.lists(values, max_size=4)
        return st.lists(level(d - 1), max_size=3)

    rows = draw(st.lists(level(depth - 1), min_size=1, max_size=4))
    return rows, dtype


@few_examples
@given(data=ragged_lists())
def test_ragged_constant_prints_and_pads_like_tensorflow(data: tuple[list, str]) -> None:
    rows, dtype = data
    same(lambda tf: seen(tf.ragged.constant(rows, dtype=getattr(tf, dtype))))
    same(lambda tf: tf.ragged.constant(rows, dtype=getattr(tf, dtype)).to_tensor())
    same(lambda tf: tf.ragged.constant(rows, dtype=getattr(tf, dtype)).row_lengths())


@few_examples
@given(
    dtype=st.sampled_from(["int32", "float32", "float64"]),
    data=st.data(),
    reducer=st.sampled_from(["reduce_sum", "reduce_max", "reduce_min", "reduce_mean", "reduce_prod"]),
    axis=st.sampled_from([None, 0, 1, -1]),
)
def test_ragged_reductions_match_tensorflow(dtype: str, data: Any, reducer: str, axis: Any) -> None:
    rows = data.draw(st.lists(st.lists(elements(dtype, finite=True, small=True), max_size=4), min_size=1, max_size=4))
    same(lambda tf: getattr(tf, reducer)(tf.ragged.constant(rows, dtype=getattr(tf, dtype)), axis=axis))


@few_examples
@given(
    text=st.lists(st.text(alphabet="ab é,\t", max_size=8), min_size=1, max_size=4),
    sep=st.sampled_from([None, ",", "a", " "]),
)
def test_strings_split_and_friends_match_tensorflow(text: list[str], sep: Any) -> None:
    same(only(*TO_LIST)(lambda tf: seen(tf.strings.split(text, sep=sep))))
    same(
        lambda tf: (
            tf.strings.length(text),
            tf.strings.length(text, unit="UTF8_CHAR"),
            tf.strings.upper(text),
            tf.strings.reduce_join(text, separator="|"),
        )
    )
    same(only(*TO_LIST)(lambda tf: seen(tf.strings.unicode_decode(text, "UTF-8"))))


def test_tf_function_returns_composite_tensors_like_tensorflow() -> None:
    def case(tf: Any) -> Any:
        @tf.function
        def parts(lines: Any) -> Any:
            return tf.strings.split(lines), {"sparse": tf.sparse.from_dense(tf.constant([[0, 3], [4, 0]]))}

        words, rest = parts(tf.constant(["a b", "c"]))
        return seen(words), seen(rest["sparse"]), parts.experimental_get_tracing_count()

    same(only(*TO_LIST)(case))


NAMES = {
    "": ["SparseTensor", "RaggedTensor", "SparseTensorSpec", "RaggedTensorSpec"],
    "sparse": ["SparseTensor", "to_dense", "from_dense", "add", "reorder", "sparse_dense_matmul"],
    "ragged": ["constant", "map_flat_values"],
    "strings": [
        "split",
        "to_number",
        "length",
        "bytes_split",
        "join",
        "lower",
        "upper",
        "unicode_decode",
        "unicode_encode",
        "reduce_join",
    ],
    "data": ["Dataset", "AUTOTUNE", "INFINITE_CARDINALITY", "UNKNOWN_CARDINALITY"],
    "data.experimental": ["cardinality", "AUTOTUNE", "INFINITE_CARDINALITY", "UNKNOWN_CARDINALITY"],
    "saved_model": ["save", "load"],
    "train": ["Checkpoint", "CheckpointManager", "latest_checkpoint"],
}


def test_sparse_ragged_strings_data_and_saving_names_exist_where_tensorflow_has_them() -> None:
    from harness import minitf, real_tf, resolve

    for namespace, names in NAMES.items():
        for name in names:
            path = f"{namespace}.{name}" if namespace else name
            assert resolve(real_tf, path) is not None
            assert hasattr(resolve(minitf, namespace) if namespace else minitf, name), f"minitf lacks tf.{path}"


def test_tf_function_traces_composite_arguments_by_spec_like_tensorflow() -> None:
    def case(tf: Any) -> Any:
        traced = []

        @tf.function
        def f(r: Any, s: Any) -> Any:
            traced.append((str(r), s.shape))
            return tf.reduce_sum(r, axis=1), tf.sparse.to_dense(s)

        s = tf.SparseTensor([[0, 0]], [1.0], [2, 2])
        results = [f(tf.ragged.constant(rows), s) for rows in ([[1, 2], [3]], [[1], [3], [4, 5]], [[1], [], [6]])]
        signature = f.get_concrete_function(tf.ragged.constant([[1, 2], [3]]), s).structured_input_signature
        return results, traced, f.experimental_get_tracing_count(), repr(signature)

    same(case)


def test_gradients_through_to_tensor_and_from_dense_match_tensorflow() -> None:
    def case(tf: Any) -> Any:
        values = tf.Variable([1.0, 2.0, 3.0])
        dense = tf.Variable([[0.0, 2.0], [3.0, 0.0]])
        with tf.GradientTape() as tape:
            padded = tf.RaggedTensor.from_row_lengths(values, [2, 0, 1]).to_tensor()
            y = tf.reduce_sum(padded * tf.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]))
            z = tf.reduce_sum(tf.sparse.from_dense(dense).values ** 2)
        # TensorFlow hands back the ragged values' gradient as IndexedSlices: compare it as a dense tensor.
        return [tf.convert_to_tensor(g) for g in tape.gradient([y, z], [values, dense])]

    same(case)


@few_examples
@given(dtype=st.sampled_from(["int32", "float32", "float64"]), data=st.data())
def test_sparse_round_trips_add_and_matmul_match_tensorflow(dtype: str, data: Any) -> None:
    from strategies import arrays

    a = data.draw(arrays(dtype, st.tuples(st.integers(1, 4), st.integers(1, 4)), finite=True, small=True))
    b = data.draw(arrays(dtype, st.just(a.shape), finite=True, small=True))
    dense = data.draw(arrays(dtype, st.tuples(st.just(a.shape[1]), st.integers(1, 3)), finite=True, small=True))
    same(lambda tf: seen(tf.sparse.from_dense(a)))
    same(lambda tf: tf.sparse.to_dense(tf.sparse.from_dense(a)))
    same(lambda tf: seen(tf.sparse.add(tf.sparse.from_dense(a), tf.sparse.from_dense(b))))
    same(lambda tf: tf.sparse.add(tf.sparse.from_dense(a), tf.constant(b)))
    same(lambda tf: tf.sparse.sparse_dense_matmul(tf.sparse.from_dense(a), tf.constant(dense)))
