"""Top-level helpers over lists of tensors (identity_n, shape_n, tuple, unique_with_counts) and the graph helpers
no_op, group and inside_function: results eagerly, traced and under a tape, on both engines."""

from __future__ import annotations

from typing import Any

import numpy as np
from harness import named_examples, same, same_program

X = np.array([[1.0, -2.0, 3.0], [0.5, 0.0, -1.5]], np.float32)


@named_examples(
    ("identity_n", lambda tf: tf.identity_n([tf.constant(X), tf.constant([2, 3])])),
    ("shape_n", lambda tf: tf.shape_n([tf.constant(X), tf.ones([4])])),
    ("shape_n int64", lambda tf: tf.shape_n([tf.constant(X)], out_type=tf.int64)),
    ("tuple", lambda tf: tf.tuple([tf.constant(X) * 2.0, tf.constant(2)])),
    ("unique_with_counts", lambda tf: tf.unique_with_counts(tf.constant([1, 1, 2, 4, 4, 4, 7, 8, 8]))),
    ("unique_with_counts int64", lambda tf: tf.unique_with_counts(tf.constant([3.0, 1.0, 3.0]), out_idx=tf.int64)),
    ("no_op and group", lambda tf: (tf.no_op(), tf.group(tf.constant(1)), tf.constant(X))[2]),
    ("inside_function", lambda tf: tf.constant(tf.inside_function())),
)
def test_grouping_helpers_match_tensorflow(case: Any) -> None:
    same(case)


def test_no_op_group_and_assert_are_none_eagerly() -> None:
    def case(tf: Any, seen: list) -> None:
        seen.extend([tf.no_op() is None, tf.group(tf.constant(1)) is None, tf.Assert(True, ["x"]) is None])

    same_program(case)


def test_no_op_group_and_assert_return_operations_inside_a_function() -> None:
    """Traced, each returns the operation TensorFlow returns: printed, named, typed, usable as a control input."""

    def case(tf: Any, seen: list) -> None:
        @tf.function
        def f(x: Any) -> Any:
            check = tf.Assert(x > 0, ["x must be positive", x])
            done = tf.no_op()
            grouped = tf.group(x + 1, check)
            named = tf.no_op(name="hello")
            for op in (check, done, grouped, tf.group(), named, tf.group([x * 2], name="pair")):
                seen.extend([repr(op), op.name, op.type, [c.name for c in op.control_inputs], len(op.outputs)])
            for op in (done, grouped, named):
                seen.append(str(op))
            with tf.control_dependencies([check, grouped]):
                y = tf.identity(x)
            seen.append([c.name for c in y.op.control_inputs])
            with tf.control_dependencies(None):
                seen.append([c.name for c in tf.identity(x).op.control_inputs])
            return y

        seen.append(f(tf.constant(2.0)))
        seen.append([op.name for op in f.get_concrete_function(tf.constant(2.0)).graph.get_operations()])

    same_program(case)


def test_a_traced_assert_still_fails_when_its_condition_is_false() -> None:
    def case(tf: Any, seen: list) -> None:
        @tf.function
        def f(x: Any) -> Any:
            with tf.control_dependencies([tf.Assert(x > 0, ["x must be positive"])]):
                return tf.identity(x)

        seen.append(f(tf.constant(1.0)))
        f(tf.constant(-1.0))

    same_program(case, "x must be positive")


def test_group_refuses_what_is_not_a_tensor_or_operation() -> None:
    def case(tf: Any, seen: list) -> None:
        tf.function(lambda: tf.group(1))()

    same_program(case, "should be zero or more (nested) Tensors")
