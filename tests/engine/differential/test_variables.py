"""tf.Variable: dtype and shape rules of assign, arithmetic giving tensors, printing, TensorFlow's errors."""

from __future__ import annotations

from typing import Any

import numpy as np
from harness import EAGER, TAPE, examples, named_examples, same
from hypothesis import given
from hypothesis import strategies as st
from strategies import ALL, NUMERIC, arrays, shapes

# These checks create tf.Variables inside the checked code. TensorFlow treats that differently inside a
# function (variables may be created on the first trace only, are lifted out of the graph, and the function
# is traced again without creating any), so they run eagerly and under a tape only; the tf.function rules for
# variables are checked in tests/engine/test_function_tf.py.
OUTSIDE_FUNCTIONS = (EAGER, TAPE)


@examples
@given(a=arrays(st.sampled_from(ALL), shapes(max_dims=2), small=True))
def test_variable_prints_and_reads_like_tensorflow(a: np.ndarray) -> None:
    def case(tf: Any) -> Any:
        v = tf.Variable(a)
        return (
            str(v),
            repr(v),
            v.dtype,
            v.shape,
            v.numpy(),
            v.read_value(),
            v.value(),
            tf.convert_to_tensor(v),
            v.trainable,
            tf.identity(v),
        )

    same(case, modes=OUTSIDE_FUNCTIONS)


@examples
@given(
    a=arrays(st.sampled_from(NUMERIC), shapes(max_dims=2), small=True),
    b=arrays(st.sampled_from(NUMERIC), shapes(max_dims=2), small=True),
    method=st.sampled_from(["assign", "assign_add", "assign_sub"]),
)
def test_assign_checks_dtype_and_shape_like_tensorflow(a: np.ndarray, b: np.ndarray, method: str) -> None:
    def case(tf: Any) -> Any:
        v = tf.Variable(a)
        returned = getattr(v, method)(tf.constant(b))
        return returned is v, v

    same(case, modes=OUTSIDE_FUNCTIONS)


@examples
@given(
    a=arrays(st.sampled_from(NUMERIC), shapes(max_dims=2), small=True),
    b=arrays(st.sampled_from(NUMERIC), shapes(max_dims=2), small=True),
)
def test_variable_arithmetic_gives_tensors_like_tensorflow(a: np.ndarray, b: np.ndarray) -> None:
    same(lambda tf: tf.Variable(a) + tf.constant(b), modes=OUTSIDE_FUNCTIONS)
    same(lambda tf: tf.constant(a) * tf.Variable(b), modes=OUTSIDE_FUNCTIONS)
    same(lambda tf: tf.Variable(a) - 1, modes=OUTSIDE_FUNCTIONS)


@named_examples(
    ("dtype_from_initial_value", lambda tf: tf.Variable([1, 2]).dtype),
    ("float_variable", lambda tf: tf.Variable(3.0)),
    ("explicit_dtype", lambda tf: tf.Variable([1, 2], dtype=tf.float64)),
    ("name", lambda tf: (tf.Variable(1.0, name="w").name, tf.Variable(1.0).name)),
    ("not_trainable", lambda tf: tf.Variable(1.0, trainable=False).trainable),
    ("assign_list_keeps_dtype", lambda tf: tf.Variable([1.0, 2.0]).assign([3, 4])),
    ("assign_int_tensor_to_float", lambda tf: tf.Variable([1.0, 2.0]).assign(tf.constant([3, 4]))),
    ("assign_wrong_shape", lambda tf: tf.Variable([1.0, 2.0]).assign([1.0, 2.0, 3.0])),
    ("assign_python_float_to_int", lambda tf: tf.Variable([1, 2]).assign([1.5, 2.5])),
    ("assign_add_returns_variable", lambda tf: tf.Variable(1.0).assign_add(2.0)),
    ("assign_sub_value", lambda tf: tf.Variable(5).assign_sub(2).numpy()),
    ("assign_read_value_false", lambda tf: tf.Variable(1.0).assign(2.0, read_value=False)),
    ("iadd_raises", lambda tf: _iadd(tf.Variable(1.0))),
    ("isub_raises", lambda tf: _isub(tf.Variable(1.0))),
    ("plus_gives_tensor", lambda tf: tf.Variable(1.0) + 1),
    ("reflected_ops", lambda tf: (2.0 * tf.Variable(3.0), 1.0 - tf.Variable(3.0), 6.0 / tf.Variable(3.0))),
    ("matmul", lambda tf: tf.Variable([[1.0, 2.0]]) @ tf.Variable([[3.0], [4.0]])),
    ("comparison", lambda tf: tf.Variable([1, 2]) > 1),
    ("eq_none", lambda tf: tf.Variable(1) == None),  # noqa: E711
    ("hash_raises", lambda tf: hash(tf.Variable(1.0))),
    ("item_assignment_raises", lambda tf: tf.Variable([1, 2]).__setitem__(0, 5)),
    ("slice_read", lambda tf: tf.Variable([1.0, 2.0])[0]),
    ("slice_assign", lambda tf: _slice_assign(tf)),
    ("len", lambda tf: len(tf.Variable([1, 2, 3]))),
    ("iterate", lambda tf: list(tf.Variable([1, 2]))),
    ("bool_scalar", lambda tf: bool(tf.Variable(0.0))),
    ("float_of_variable", lambda tf: float(tf.Variable(2.5))),
    ("no_initial_value", lambda tf: tf.Variable()),
    ("copy_from_variable", lambda tf: tf.Variable(tf.Variable([1, 2]))),
    ("variable_of_tensor_copies", lambda tf: _copies(tf)),
    (
        "ops_on_variable",
        lambda tf: (
            tf.reduce_sum(tf.Variable([1.0, 2.0])),
            tf.square(tf.Variable(3.0)),
            tf.reshape(tf.Variable([1, 2, 3, 4]), [2, 2]),
        ),
    ),
    ("callable_initial_value", lambda tf: tf.Variable(lambda: tf.ones([2]))),
    ("string_variable", lambda tf: tf.Variable("a")),
    ("np_array_of_variable", lambda tf: np.array(tf.Variable([1.0, 2.0]))),
    ("isinstance_tensor", lambda tf: isinstance(tf.Variable(1.0), tf.Tensor)),
    ("shape_argument", lambda tf: tf.Variable([1.0, 2.0], shape=tf.TensorShape(None)).shape),
)
def test_variable_rules_match_tensorflow(case: Any) -> None:
    same(case, modes=OUTSIDE_FUNCTIONS)


def _iadd(v: Any) -> Any:
    v += 1
    return v


def _isub(v: Any) -> Any:
    v -= 1
    return v


def _copies(tf: Any) -> Any:
    source = tf.Variable([1.0, 2.0])
    copy = tf.Variable(source)
    source.assign([5.0, 6.0])
    return copy


def _slice_assign(tf: Any) -> Any:
    v = tf.Variable([1.0, 2.0, 3.0])
    v[0].assign(9.0)
    v[1:].assign([7.0, 8.0])
    return v


def rows_read_with_their_gradient(tf: Any) -> Any:
    v = tf.Variable([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    with tf.GradientTape() as tape:
        rows = v.sparse_read([2, 0])
        picked = v.gather_nd([[1, 1], [0, 0]])
        total = tf.reduce_sum(rows * 2.0) + tf.reduce_sum(picked)
    return rows, picked, tf.convert_to_tensor(tape.gradient(total, v))


def test_sparse_read_and_gather_nd_read_parts_of_a_variable_like_tensorflow() -> None:
    same(rows_read_with_their_gradient, modes=OUTSIDE_FUNCTIONS)
