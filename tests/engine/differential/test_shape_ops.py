"""Shape ops (reshape, concat, stack, split, gather, pad, ...) on generated shapes, including their errors."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from harness import examples, named_examples, same, same_error, same_program, with_shapes
from hypothesis import given
from hypothesis import strategies as st
from strategies import ALL, arrays, shapes

any_array = arrays(st.sampled_from(ALL), small=True)


@examples
@given(a=any_array, new_shape=st.lists(st.integers(-1, 6), min_size=0, max_size=4))
def test_reshape_matches_tensorflow(a: np.ndarray, new_shape: list[int]) -> None:
    same(lambda tf: tf.reshape(tf.constant(a), new_shape))


@examples
@given(a=any_array, axis=st.integers(-5, 4))
def test_expand_dims_matches_tensorflow(a: np.ndarray, axis: int) -> None:
    same(lambda tf: tf.expand_dims(tf.constant(a), axis))


@examples
@given(
    a=arrays(st.sampled_from(ALL), shapes(max_side=2), small=True),
    axis=st.one_of(st.none(), st.integers(-4, 3), st.lists(st.integers(-3, 2), max_size=2, unique=True)),
)
def test_squeeze_matches_tensorflow(a: np.ndarray, axis: Any) -> None:
    same(lambda tf: tf.squeeze(tf.constant(a), axis=axis))


@examples
@given(a=any_array, perm=st.one_of(st.none(), st.permutations(range(3)), st.lists(st.integers(-1, 3), max_size=3)))
def test_transpose_matches_tensorflow(a: np.ndarray, perm: Any) -> None:
    same(lambda tf: tf.transpose(tf.constant(a), perm=perm))


@st.composite
def joinable(draw: Any, same_shape: bool) -> tuple[list[np.ndarray], int]:
    """A few arrays that (usually) agree on every axis but one, and an axis (sometimes out of range)."""
    dtype = draw(st.sampled_from(ALL))
    shape = list(draw(shapes(min_dims=0 if same_shape else 1)))
    count = draw(st.integers(1, 3))
    values = []
    for _ in range(count):
        this = list(shape)
        if this and not same_shape and draw(st.booleans()):
            this[draw(st.integers(0, len(this) - 1))] = draw(st.integers(0, 3))
        values.append(draw(arrays(draw(st.sampled_from([dtype, dtype, dtype, "float32"])), tuple(this), small=True)))
    return values, draw(st.integers(-len(shape) - 1, len(shape)))


@examples
@given(data=joinable(same_shape=False))
def test_concat_matches_tensorflow(data: tuple[list[np.ndarray], int]) -> None:
    values, axis = data
    same(lambda tf: tf.concat([tf.constant(v) for v in values], axis))


@examples
@given(data=joinable(same_shape=True))
def test_stack_matches_tensorflow(data: tuple[list[np.ndarray], int]) -> None:
    values, axis = data
    same(lambda tf: tf.stack([tf.constant(v) for v in values], axis))


@examples
@given(a=arrays(st.sampled_from(ALL), shapes(min_dims=0), small=True), axis=st.integers(-3, 2))
def test_unstack_matches_tensorflow(a: np.ndarray, axis: int) -> None:
    same(lambda tf: tf.unstack(tf.constant(a), axis=axis))


@examples
@given(
    a=arrays(st.sampled_from(ALL), shapes(min_dims=1, max_side=6), small=True),
    axis=st.integers(-2, 1),
    splits=st.one_of(st.integers(1, 4), st.lists(st.integers(-1, 4), min_size=1, max_size=3)),
)
def test_split_matches_tensorflow(a: np.ndarray, axis: int, splits: Any) -> None:
    same(lambda tf: tf.split(tf.constant(a), splits, axis=axis))


@examples
@given(a=any_array, multiples=st.lists(st.integers(0, 3), max_size=3))
def test_tile_matches_tensorflow(a: np.ndarray, multiples: list[int]) -> None:
    same(lambda tf: tf.tile(tf.constant(a), multiples))


@examples
@given(
    a=arrays(st.sampled_from(ALL), shapes(min_dims=1), small=True),
    indices=arrays(st.sampled_from(["int32", "int64"]), shapes(max_dims=2, max_side=3), small=True),
    axis=st.integers(-3, 2),
)
def test_gather_matches_tensorflow(a: np.ndarray, indices: np.ndarray, axis: int) -> None:
    same(lambda tf: tf.gather(tf.constant(a), tf.constant(indices % 6 - 1), axis=axis))


@examples
@given(a=arrays(st.sampled_from(ALL), shapes(min_dims=1, max_dims=2), small=True), data=st.data())
def test_boolean_mask_matches_tensorflow(a: np.ndarray, data: st.DataObject) -> None:
    mask_shape = data.draw(st.sampled_from([a.shape[:1], a.shape, (a.shape[0] + 1,)]))
    mask = data.draw(arrays("bool", mask_shape))
    same(lambda tf: tf.boolean_mask(tf.constant(a), tf.constant(mask)))


@examples
@given(
    indices=arrays(st.sampled_from(["int32", "int64", "uint8"]), shapes(max_dims=2), small=True),
    depth=st.integers(0, 4),
    axis=st.sampled_from([None, -1, 0, 1]),
    values=st.sampled_from([(None, None), (5, -1), (2.0, 0.5)]),
)
def test_one_hot_matches_tensorflow(indices: np.ndarray, depth: int, axis: Any, values: tuple) -> None:
    same(lambda tf: tf.one_hot(tf.constant(indices), depth, on_value=values[0], off_value=values[1], axis=axis))


@examples
@given(a=any_array, axis=st.lists(st.integers(-3, 2), min_size=1, max_size=2))
def test_reverse_matches_tensorflow(a: np.ndarray, axis: list[int]) -> None:
    same(lambda tf: tf.reverse(tf.constant(a), axis))


@examples
@given(a=arrays(st.sampled_from(ALL), shapes(max_dims=2, min_side=2), small=True), data=st.data())
def test_pad_matches_tensorflow(a: np.ndarray, data: st.DataObject) -> None:
    rank = data.draw(st.sampled_from([a.ndim, a.ndim, a.ndim + 1]))
    paddings = data.draw(st.lists(st.lists(st.integers(0, 2), min_size=2, max_size=2), min_size=rank, max_size=rank))
    mode = data.draw(st.sampled_from(["CONSTANT", "REFLECT", "SYMMETRIC", "constant"]))
    same(lambda tf: tf.pad(tf.constant(a), paddings, mode=mode))


@pytest.mark.parametrize("name", ["shape", "rank", "size", "zeros_like", "ones_like", "identity"])
@examples
@given(a=arrays(st.sampled_from(ALL), small=True))
def test_shape_queries_match_tensorflow(name: str, a: np.ndarray) -> None:
    same(lambda tf: getattr(tf, name)(tf.constant(a)))


@named_examples(
    ("reshape_minus_one", lambda tf: tf.reshape(tf.range(12), [3, -1])),
    ("reshape_not_multiple", lambda tf: tf.reshape(tf.range(30), [7, -1])),
    ("reshape_two_minus_ones", lambda tf: tf.reshape(tf.range(6), [-1, -1])),
    ("reshape_wrong_size", lambda tf: tf.reshape(tf.range(6), [4, 2])),
    ("reshape_tensor_shape", lambda tf: tf.reshape(tf.range(6), tf.constant([2, 3]))),
    ("reshape_strings", lambda tf: tf.reshape(tf.constant(["a", "b", "c", "d"]), [2, 2])),
    ("concat_mixed_dtypes", lambda tf: tf.concat([tf.constant([1]), tf.constant([1.0])], 0)),
    ("concat_python_lists", lambda tf: tf.concat([[1, 2], [3]], axis=0)),
    ("stack_python_scalars", lambda tf: tf.stack([1, 2, 3])),
    ("stack_mixed_python", lambda tf: tf.stack([tf.constant(1.0), 2])),
    ("unstack_scalar", lambda tf: tf.unstack(tf.constant(1))),
    ("split_uneven", lambda tf: tf.split(tf.range(10), 3)),
    ("split_sizes_with_minus_one", lambda tf: tf.split(tf.range(10), [2, -1, 3])),
    ("squeeze_non_one", lambda tf: tf.squeeze(tf.ones([2, 1]), axis=0)),
    ("gather_out_of_range", lambda tf: tf.gather(tf.constant([1, 2, 3]), 5)),
    ("gather_negative", lambda tf: tf.gather(tf.constant([1, 2, 3]), -1)),
    ("gather_float_indices", lambda tf: tf.gather(tf.constant([1, 2, 3]), tf.constant([0.0]))),
    ("one_hot_default_float32", lambda tf: tf.one_hot([0, 2, -1, 3], 3)),
    ("one_hot_int_dtype", lambda tf: tf.one_hot([0, 1], 2, dtype=tf.int32)),
    ("boolean_mask_shape_mismatch", lambda tf: tf.boolean_mask(tf.constant([1, 2]), tf.constant([True]))),
    ("boolean_mask_python_lists", lambda tf: tf.boolean_mask([[1, 2], [3, 4]], [True, False])),
    ("transpose_default_reverses", lambda tf: tf.transpose(tf.reshape(tf.range(24), [2, 3, 4]))),
    ("tile_wrong_length", lambda tf: tf.tile(tf.constant([1, 2]), [2, 2])),
    ("pad_constant_value", lambda tf: tf.pad(tf.constant([[1, 2]]), [[1, 0], [0, 2]], constant_values=9)),
    ("pad_reflect_too_big", lambda tf: tf.pad(tf.constant([1, 2]), [[2, 0]], mode="REFLECT")),
    ("shape_out_type", lambda tf: tf.shape(tf.ones([2, 3]), out_type=tf.int64)),
    ("size_of_scalar", lambda tf: tf.size(tf.constant(3.0))),
    ("rank_of_matrix", lambda tf: tf.rank(tf.ones([2, 3]))),
    ("expand_dims_newaxis_end", lambda tf: tf.expand_dims(tf.constant([1, 2]), -1)),
    ("reverse_duplicate_axis", lambda tf: tf.reverse(tf.ones([2, 2]), [0, -2])),
)
def test_shape_op_rules_match_tensorflow(case: Any) -> None:
    same(case)


M23 = np.arange(6, dtype=np.float32).reshape(2, 3)
T234 = np.arange(24, dtype=np.int32).reshape(2, 3, 4)
C2 = np.array([[1 + 2j, 3 - 1j]], np.complex64)


@named_examples(
    ("reverses a matrix of unknown rank", with_shapes(lambda tf, x: tf.transpose(x), M23)),
    ("reverses three axes of unknown rank", with_shapes(lambda tf, x: tf.transpose(x), T234)),
    ("a scalar of unknown rank is itself", with_shapes(lambda tf, x: tf.transpose(x), np.float32(2.5))),
    ("a vector of unknown rank is itself", with_shapes(lambda tf, x: tf.transpose(x), np.arange(3.0))),
    ("conjugate with unknown rank", with_shapes(lambda tf, x: tf.transpose(x, conjugate=True), C2)),
    ("reversed twice with unknown rank", with_shapes(lambda tf, x: tf.transpose(tf.transpose(x)) * 2.0, M23)),
    ("perm gives the rank", with_shapes(lambda tf, x: tf.transpose(x, [1, 0, 2]), T234)),
    ("negative perm entries", with_shapes(lambda tf, x: tf.transpose(x, [-1, 0]), M23)),
    ("unknown sizes", with_shapes(lambda tf, x: tf.transpose(x), T234, shape=[None, 3, None])),
    ("perm shorter than the rank found at run time", with_shapes(lambda tf, x: tf.transpose(x, [0]), M23)),
    ("perm listing a dimension twice", with_shapes(lambda tf, x: tf.transpose(x, [0, 0]), M23)),
    ("perm out of range", with_shapes(lambda tf, x: tf.transpose(x, [0, 2]), M23)),
    ("known rank, perm of another length", with_shapes(lambda tf, x: tf.transpose(x, [1, 0, 2]), M23, shape=[2, 3])),
    ("known rank, perm out of range", with_shapes(lambda tf, x: tf.transpose(x, [-3, 0]), M23, shape=[2, 3])),
)
def test_transpose_of_an_input_traced_with_unknown_rank_matches_tensorflow(case: Any) -> None:
    same(case)


@named_examples(
    ("perm of another length", lambda tf: tf.transpose(tf.constant(M23), [1, 0, 2])),
    ("perm listing a dimension twice", lambda tf: tf.transpose(tf.constant(M23), [1, 1])),
    ("perm out of range", lambda tf: tf.transpose(tf.constant(M23), [2, 0])),
    ("negative perm out of range", lambda tf: tf.transpose(tf.constant(M23), [-3, 0])),
)
def test_transpose_rejects_a_bad_perm_with_tensorflows_message(case: Any) -> None:
    same_error(case)


def test_transpose_gradient_of_an_input_of_unknown_rank_matches_tensorflow() -> None:
    def case(tf: Any, seen: list) -> None:
        @tf.function(input_signature=[tf.TensorSpec(None, tf.float32)])
        def grad(x: Any) -> Any:
            with tf.GradientTape() as tape:
                tape.watch(x)
                y = tf.transpose(x) * tf.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
            return tape.gradient(y, x)

        seen.append(grad(tf.constant(M23)))

    same_program(case)
