"""Bugs found by running TensorFlow's own API examples on minitf: each case runs on both engines."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from harness import named_examples, same

VECTORS = ([0.0, 1.0], [10.0, 20.0])
MATRICES = ([[0.0, 1.0, 2.0], [3, 4, 5]], [[10.0, 20, 30], [1, 2, 3]])


@pytest.mark.parametrize(
    ("ends", "axis"),
    [
        (VECTORS, 0),
        (VECTORS, 1),
        (VECTORS, -1),
        (VECTORS, -2),
        (VECTORS, 2),
        (MATRICES, 1),
        (MATRICES, -1),
        (MATRICES, 2),
        (MATRICES, -3),
        (MATRICES, 3),
        ((0.0, 1.0), -1),
        ((0.0, 1.0), 1),
    ],
)
def test_linspace_puts_the_new_axis_where_asked(ends: tuple, axis: int) -> None:
    start, stop = ends
    same(lambda tf: tf.linspace(start, stop, 5, axis=axis))


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_sigmoid_of_large_negative_numbers_is_tiny_not_zero(dtype: str) -> None:
    values = [-800.0, -745.0, -200.0, -100.0, -88.0, -80.0, -40.0, -17.0, -10.0, 0.0, 10.0, 40.0, 800.0]

    def case(tf: Any) -> Any:
        y = tf.math.sigmoid(tf.constant(values, dtype=getattr(tf, dtype))).numpy()
        return [bool(v > 0) for v in y.tolist()], np.isclose(
            y, 1 / (1 + np.exp(-np.array(values))), rtol=1e-2, atol=0
        ).tolist()

    same(case)


@named_examples(
    ("strings", lambda tf: tf.gather(tf.constant(["a", "b", "c"]), [2, 0])),
    ("strings_matrix_axis_1", lambda tf: tf.gather(tf.constant([["a", "b"], ["c", "d"]]), [1, 1, 0], axis=1)),
    ("strings_traced", lambda tf: tf.function(lambda x: tf.gather(x, [1]))(tf.constant(["x", "y"]))),
)
def test_gather_works_on_strings(case: Any) -> None:
    same(case)


@pytest.mark.parametrize("number", [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 17, 18, 19, 22, 23, 0, 1000])
def test_as_dtype_accepts_tensorflows_enum_numbers(number: int) -> None:
    same(lambda tf: (tf.as_dtype(number), tf.as_dtype(number).as_datatype_enum))


@named_examples(
    ("float_bounds_for_ints", lambda tf: tf.clip_by_value(tf.constant([1, 2]), 0.5, 1.5)),
    ("float_min_for_ints", lambda tf: tf.clip_by_value(tf.constant([1, 2]), 0.5, 1)),
    ("bounds_broadcast_beyond", lambda tf: tf.clip_by_value(tf.constant([1.0, 2.0]), [[0.0], [1.0]], 1.5)),
    ("max_broadcast_beyond", lambda tf: tf.clip_by_value(tf.constant([1.0, 2.0]), 0.0, [[1.5], [1.0]])),
    ("mismatched_lengths", lambda tf: tf.clip_by_value(tf.constant([1.0, 2.0]), [0.0, 1.0, 2.0], 1.5)),
    ("docstring_example", lambda tf: tf.clip_by_value(tf.constant([[-10.0, -1.0, 0.0], [0.0, 2.0, 10.0]]), -1, 1)),
    ("int_bounds", lambda tf: tf.clip_by_value(tf.constant([-5, 0, 5]), -1, 1)),
)
def test_clip_by_value_raises_and_returns_as_tensorflow(case: Any) -> None:
    result = same(case)
    if isinstance(result, TypeError | ValueError):  # Python errors: the message is TensorFlow's too
        assert "Cannot convert" in str(result) or "incompatible" in str(result)


def clip_message(tf: Any) -> str:
    try:
        tf.clip_by_value(tf.constant([1, 2]), 0.5, 1.5)
    except TypeError as exc:
        return str(exc)
    return "no error"


def test_clip_by_value_converts_the_upper_bound_first_as_tensorflow() -> None:
    same(clip_message)


def unhashable_message(tf: Any) -> str:
    try:
        {tf.Variable(1.0): 1}
    except TypeError as exc:
        return str(exc)
    return "hashable"


def test_a_variable_as_dict_key_says_which_variable() -> None:
    same(unhashable_message)


def test_variables_are_resource_variables() -> None:
    same(
        lambda tf: (
            type(tf.Variable(1.0)).__name__,
            isinstance(tf.Variable([1, 2]), tf.Variable),
            type(tf.Variable(1.0, trainable=False)).__name__,
        )
    )


def unknown_rank_probes(tf: Any) -> dict:
    probes = {
        "get_shape": lambda x: x.get_shape(),
        "get_shape_item": lambda x: x.get_shape()[0],
        "as_list": lambda x: x.get_shape().as_list(),
        "len": lambda x: len(x.get_shape()),
        "iterate": lambda x: list(x.get_shape()),
        "rank": lambda x: x.get_shape().rank,
        "num_elements": lambda x: x.get_shape().num_elements(),
    }
    seen: dict = {}

    @tf.function(input_signature=[tf.TensorSpec(None, tf.float32)], autograph=False)
    def f(x: Any) -> Any:
        for name, probe in probes.items():
            try:
                seen[name] = repr(probe(x))
            except (ValueError, TypeError) as exc:
                seen[name] = f"{type(exc).__name__}: {exc}"
        return x

    f(tf.constant(1.0))
    return seen


def test_shape_of_an_unknown_rank_graph_tensor_behaves_as_tensorflows() -> None:
    same(unknown_rank_probes)


SHAPE_CHECKS = {
    "assert_is_fully_defined": lambda s: s.assert_is_fully_defined(),
    "assert_has_rank_2": lambda s: s.assert_has_rank(2),
    "assert_same_rank": lambda s: s.assert_same_rank([1, 2]),
    "with_rank_2": lambda s: s.with_rank(2),
    "with_rank_at_least_1": lambda s: s.with_rank_at_least(1),
    "with_rank_at_least_3": lambda s: s.with_rank_at_least(3),
    "with_rank_at_most_1": lambda s: s.with_rank_at_most(1),
}


@pytest.mark.parametrize("dims", [None, [2, 3], [None, 3], [4], []])
@pytest.mark.parametrize("check", list(SHAPE_CHECKS))
def test_shape_assertions_raise_where_tensorflows_do(dims: Any, check: str) -> None:
    def case(tf: Any) -> Any:
        result = SHAPE_CHECKS[check](tf.TensorShape(dims))
        return None if result is None else repr(result)

    result = same(case)
    if isinstance(result, ValueError):
        same(lambda tf: _message(lambda: SHAPE_CHECKS[check](tf.TensorShape(dims))))


def _message(call: Any) -> str:
    try:
        call()
    except ValueError as exc:
        return str(exc)
    return "no error"


def test_get_shape_of_an_unknown_rank_tensor_fails_the_assertions_tensorflow_makes() -> None:
    def case(tf: Any) -> list:
        seen: list = []

        @tf.function(input_signature=[tf.TensorSpec(None, tf.float32)])
        def f(x: Any) -> Any:
            seen.append(_message(lambda: x.get_shape().assert_is_fully_defined()))
            seen.append(repr(x.get_shape().with_rank(2)))
            return x

        f(tf.constant([1.0]))
        return seen

    same(case)
