"""Behaviours TensorFlow's API examples show that minitf got wrong, each against TensorFlow.

py_function and numpy_function as decorators; max pooling with explicit padding; log_sigmoid's -0.0 where
exp underflows (TensorFlow's kernels flush denormals); the `[Op:...] name:` tails of ensure_shape's and
clip_by_value's errors; assert_shapes naming tensors by shape; a Generator's `StateVar`; the `while/` scope of
the nodes a loop makes inside tf.function.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from harness import alike, named_examples, same, same_error, same_program

IMAGE = np.arange(32, dtype=np.float32).reshape(1, 4, 4, 2)


def py_function_decorated(tf: Any) -> Any:
    @tf.py_function(Tout=tf.float32)
    def doubled(x: Any) -> Any:
        return x * 2.0

    return doubled(tf.constant([1.5, -2.0]))


def numpy_function_decorated(tf: Any) -> Any:
    @tf.numpy_function(Tout=tf.float32)
    def doubled(x: Any) -> Any:
        return (x * 2).astype(np.float32)

    return doubled(tf.constant([1.5, -2.0]))


def numpy_function_decorated_with_two_outputs(tf: Any) -> Any:
    @tf.numpy_function(Tout=[tf.float32, tf.int64], stateful=False)
    def split(x: Any) -> Any:
        return x.astype(np.float32), np.int64(x.size)

    return split(tf.constant([3.0, 4.0]))


def max_pool(padding: Any, ksize: Any = 2, strides: Any = 2) -> Any:
    return lambda tf: tf.nn.max_pool2d(tf.constant(IMAGE), ksize, strides, padding=padding)


DECORATORS = [
    ("py_function", py_function_decorated),
    ("numpy_function", numpy_function_decorated),
    ("numpy_function_two_outputs", numpy_function_decorated_with_two_outputs),
    ("py_function_without_tout", lambda tf: tf.py_function(lambda x: x, [1.0])),
    ("py_function_without_inp", lambda tf: tf.py_function(lambda x: x, Tout=tf.float32)),
    ("numpy_function_decorator_with_inp", lambda tf: tf.numpy_function(inp=[1.0], Tout=tf.float32)),
]

POOLING = [
    ("explicit_padding", max_pool([[0, 0], [1, 1], [1, 1], [0, 0]])),
    ("explicit_padding_uneven", max_pool([[0, 0], [2, 0], [0, 1], [0, 0]], ksize=3, strides=1)),
    (
        "explicit_padding_max_pool",
        lambda tf: tf.nn.max_pool(tf.constant(IMAGE), 3, 1, [[0, 0], [1, 0], [0, 2], [0, 0]]),
    ),
    ("explicit_padding_wrong_length", max_pool([[1, 1], [1, 1]])),
    ("explicit_padding_on_channels", max_pool([[0, 0], [1, 1], [1, 1], [0, 1]])),
    ("explicit_padding_as_large_as_the_window", max_pool([[0, 0], [2, 2], [1, 1], [0, 0]])),
    ("explicit_by_name", max_pool("EXPLICIT")),
    (
        "average_pooling_refuses_lists",
        lambda tf: tf.nn.avg_pool2d(tf.constant(IMAGE), 2, 2, [[0, 0], [1, 1], [1, 1], [0, 0]]),
    ),
]

LOG_SIGMOID = [
    ("float32", lambda tf: tf.math.log_sigmoid(tf.constant([100.0, 88.0, 87.0, 20.0, 15.0, 0.0, -1.0, -100.0]))),
    ("float64", lambda tf: tf.math.log_sigmoid(tf.constant([800.0, 100.0, 40.0, 0.5, -3.0], tf.float64))),
    ("float16", lambda tf: tf.math.log_sigmoid(tf.constant([100.0, 20.0, 17.0, 15.0, 0.0, -1.0], tf.float16))),
    ("softplus_underflow", lambda tf: tf.nn.softplus(tf.constant([-100.0, -88.0, -87.0, -20.0, 3.0, 100.0]))),
]

MESSAGES = [
    ("ensure_shape", lambda tf: tf.ensure_shape(tf.constant([1, 2]), [3])),
    ("ensure_shape_named", lambda tf: tf.ensure_shape(tf.constant([1, 2]), [3], name="check")),
    ("clip_by_value_lower_bound", lambda tf: tf.clip_by_value(tf.constant([1, 2]), [1, 2, 3], 4)),
    ("clip_by_value_upper_bound", lambda tf: tf.clip_by_value(tf.constant([1, 2]), 0, [1, 2, 3], name="clip")),
    ("maximum", lambda tf: tf.maximum(tf.constant([1.0, 2.0]), [1.0, 2.0, 3.0])),
    ("assert_shapes_rank", lambda tf: tf.debugging.assert_shapes([(tf.constant([1, 2, 3]), ("N", 2))])),
    ("assert_shapes_rank_one", lambda tf: tf.debugging.assert_shapes([(tf.constant([[1, 2, 3]]), ("N",))])),
    (
        "assert_shapes_named_size",
        lambda tf: tf.debugging.assert_shapes([(tf.constant([1, 2]), ("N",)), (tf.constant([1, 2, 3]), ("N",))]),
    ),
    (
        "assert_shapes_explicit_size",
        lambda tf: tf.debugging.assert_shapes([(tf.constant([[1.0, 2.0]]), (1, 3))], message="weights"),
    ),
    (
        "assert_shapes_dict",
        lambda tf: tf.debugging.assert_shapes({tf.constant([[1, 2]]): ("N", "D"), tf.constant([1, 2, 3]): ("D",)}),
    ),
]

SHAPES_PASS = [
    (
        "assert_shapes_scalar_as_one",
        lambda tf: tf.debugging.assert_shapes([(tf.constant(1.0), ("N",)), (tf.constant([2.0]), ("N",))]),
    ),
    ("assert_shapes_any_size", lambda tf: tf.debugging.assert_shapes([(tf.constant([[1, 2]]), (".", None))])),
]


@named_examples(*DECORATORS)
def test_py_function_and_numpy_function_work_as_decorators_like_tensorflow(case: Any) -> None:
    same(case)


@named_examples(*POOLING)
def test_max_pool_takes_explicit_padding_like_tensorflow(case: Any) -> None:
    same(case)


@named_examples(*LOG_SIGMOID)
def test_log_sigmoid_gives_minus_zero_where_tensorflow_does(case: Any) -> None:
    same(case)


@named_examples(*MESSAGES)
def test_error_messages_hold_tensorflows_tails_and_names(case: Any) -> None:
    same_error(case, hint=False)


@named_examples(*SHAPES_PASS)
def test_assert_shapes_accepts_what_tensorflow_accepts(case: Any) -> None:
    same(case)


def test_ensure_shape_and_clip_by_value_messages_end_like_tensorflows_then_hint() -> None:
    for case in (MESSAGES[1][1], MESSAGES[2][1]):
        mine, theirs = same_error(case, hint=False)
        assert str(mine).startswith(str(theirs))
        assert "\nHint: " in str(mine)


def test_generator_state_is_a_variable_named_statevar_like_tensorflows() -> None:
    alike(
        lambda tf: (
            tf.random.Generator.from_seed(7).state.name,
            tf.random.Generator.from_non_deterministic_state().state.name,
            tf.random.Generator.from_seed(7).state,
        )
    )


def test_a_loop_in_tf_function_names_its_nodes_in_the_while_scope_like_tensorflow() -> None:
    def program(tf: Any, seen: list) -> None:
        @tf.function
        def step(x: Any) -> Any:
            return x * 2.0 + 1.0

        @tf.function
        def loops(x: Any) -> Any:
            i = tf.constant(0)
            while i < 3:
                x = step(x)
                i += 1
            while i < 5:
                i += 2
            return x

        graph = loops.get_concrete_function(tf.constant(1.0)).graph
        seen.append(sorted(op.name for op in graph.get_operations()))
        seen.append(loops(tf.constant(1.0)))

    same_program(program)
