"""tf.Assert, tf.assert_greater / assert_less / assert_rank (and tf.debugging's comparisons), control
dependencies and the broadcast shape helpers: results and error classes, eagerly, traced and under a tape."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from harness import named_examples, same, same_error, same_program

A = np.array([1.0, 2.0, 3.0], np.float32)
B = np.array([0.0, 2.5, -1.0], np.float32)


def guarded(tf: Any, check: Any) -> Any:
    """x * 2 computed after `check` (an assertion) inside a control_dependencies block."""
    x = tf.constant(A)
    with tf.control_dependencies([check(x)]):
        return tf.identity(x * 2.0)


@named_examples(
    (
        "Assert holds",
        lambda tf: (tf.Assert(tf.reduce_all(tf.constant(A) > 0.0), ["positive", tf.constant(A)]), tf.constant(A) * 2.0)[
            1
        ],
    ),
    (
        "Assert fails",
        lambda tf: (tf.Assert(tf.reduce_all(tf.constant(A) > 2.0), ["x is", tf.constant(A)]), tf.constant(A))[1],
    ),
    ("Assert python condition", lambda tf: (tf.Assert(False, ["never"]), tf.constant(1.0))[1]),
    ("assert_greater holds", lambda tf: (tf.assert_greater(tf.constant(A), tf.constant(B)), tf.constant(A) + 1.0)[1]),
    ("assert_greater fails", lambda tf: (tf.assert_greater(tf.constant(A), 1.5), tf.constant(A))[1]),
    ("assert_less", lambda tf: (tf.assert_less(tf.constant(B), tf.constant(A)), tf.constant(B))[1]),
    (
        "assert_less fails with a message",
        lambda tf: (tf.assert_less(tf.constant(A), 2.0, message="too big"), tf.constant(A))[1],
    ),
    ("assert_less ints", lambda tf: (tf.assert_less(tf.constant([1, 2]), 3), tf.constant(1))[1]),
    ("assert_greater dtype mismatch", lambda tf: tf.assert_greater(tf.constant(A), tf.constant([1, 2, 3]))),
    (
        "debugging comparisons",
        lambda tf: (
            tf.debugging.assert_greater_equal(tf.constant(A), 1.0),
            tf.debugging.assert_less_equal(tf.constant(A), 3.0),
            tf.debugging.assert_greater(tf.constant(A), 0.0),
            tf.debugging.assert_less(tf.constant(A), 4.0),
            tf.constant(A),
        )[-1],
    ),
    (
        "debugging greater_equal fails",
        lambda tf: (tf.debugging.assert_greater_equal(tf.constant(B), 0.0), tf.constant(B))[1],
    ),
    ("assert_rank holds", lambda tf: (tf.assert_rank(tf.constant(A), 1), tf.constant(A))[1]),
    ("assert_rank fails", lambda tf: tf.assert_rank(tf.constant(A), 2)),
    ("debugging assert_rank fails", lambda tf: tf.debugging.assert_rank(tf.constant(A), 0, message="need a scalar")),
    ("control_dependencies", lambda tf: guarded(tf, lambda x: tf.debugging.assert_greater(x, 0.0))),
    ("control_dependencies failing", lambda tf: guarded(tf, lambda x: tf.debugging.assert_greater(x, 2.0))),
    (
        "control_dependencies eagerly",
        lambda tf: (lambda: [tf.control_dependencies(None).__enter__(), tf.constant(A)][1])(),
    ),
    ("broadcast_static_shape", lambda tf: tf.broadcast_static_shape(tf.TensorShape([2, 1, 3]), tf.TensorShape([4, 1]))),
    (
        "broadcast_static_shape unknown",
        lambda tf: tf.broadcast_static_shape(tf.TensorShape([None, 3]), tf.TensorShape([1])),
    ),
    (
        "broadcast_static_shape incompatible",
        lambda tf: tf.broadcast_static_shape(tf.TensorShape([2, 3]), tf.TensorShape([4])),
    ),
    ("broadcast_dynamic_shape", lambda tf: tf.broadcast_dynamic_shape(tf.constant([2, 1, 3]), tf.constant([4, 1]))),
    (
        "broadcast_dynamic_shape of shapes",
        lambda tf: tf.broadcast_dynamic_shape(tf.shape(tf.constant(A)), tf.shape(tf.ones([2, 1]))),
    ),
    (
        "broadcast_dynamic_shape int64",
        lambda tf: tf.broadcast_dynamic_shape(
            tf.constant(np.array([5, 1], np.int64)), tf.constant(np.array([3], np.int64))
        ),
    ),
    (
        "broadcast_dynamic_shape incompatible",
        lambda tf: tf.broadcast_dynamic_shape(tf.constant([2, 3]), tf.constant([4])),
    ),
)
def test_assertions_and_shape_helpers_match_tensorflow(case: Any) -> None:
    same(case)


def branches(tf: Any, x: Any) -> list:
    return [(tf.reduce_sum(x) > 10.0, lambda: x * 2.0), (tf.reduce_min(x) < 0.5, lambda: x - 1.0)]


@named_examples(
    ("case first true", lambda tf: tf.case(branches(tf, tf.constant(A * 5)), default=lambda: tf.constant(A))),
    ("case second true", lambda tf: tf.case(branches(tf, tf.constant(B)), default=lambda: tf.constant(A))),
    ("case default", lambda tf: tf.case(branches(tf, tf.constant(A)), default=lambda: tf.constant(A) * 0.5)),
    ("case without default", lambda tf: tf.case(branches(tf, tf.constant(B)))),
    ("case without default none true", lambda tf: tf.case(branches(tf, tf.constant(A)))),
    (
        "case exclusive two true",
        lambda tf: tf.case(branches(tf, tf.constant(B * 10)), default=lambda: tf.constant(A), exclusive=True),
    ),
    (
        "case exclusive one true",
        lambda tf: tf.case(branches(tf, tf.constant(A * 5)), default=lambda: tf.constant(A), exclusive=True),
    ),
    ("case python predicate", lambda tf: tf.case([(True, lambda: tf.constant(A))])),
    ("switch_case", lambda tf: tf.switch_case(tf.constant(1), [lambda: tf.constant(A), lambda: tf.constant(B)])),
    (
        "switch_case out of range",
        lambda tf: tf.switch_case(tf.constant(5), [lambda: tf.constant(A), lambda: tf.constant(B)]),
    ),
    (
        "switch_case default",
        lambda tf: tf.switch_case(tf.constant(-1), [lambda: tf.constant(A)], default=lambda: tf.constant(B)),
    ),
    (
        "switch_case dict",
        lambda tf: tf.switch_case(tf.constant(2), {0: lambda: tf.constant(A), 2: lambda: tf.constant(B)}),
    ),
)
def test_case_and_switch_case_match_tensorflow(case: Any) -> None:
    same(case)


def three_way_case(tf: Any, *flags: Any) -> Any:
    """tf.case over three predicates, exclusive and without a default (the last pair is the default then)."""
    a, b, c = flags
    return tf.case(
        [(a, lambda: tf.constant(1)), (b, lambda: tf.constant(2)), (c, lambda: tf.constant(3))], exclusive=True
    )


def traced_three_way_case(tf: Any) -> Any:
    return tf.function(
        lambda a, b, c: three_way_case(tf, a, b, c),
        input_signature=[tf.TensorSpec(None, tf.bool, name=n) for n in "abc"],
    )


@named_examples(
    ("none true", (False, False, False)),
    ("two true", (True, True, False)),
    ("all true", (True, True, True)),
)
def test_exclusive_case_without_default_fails_eagerly_with_tensorflows_message(case: Any) -> None:
    same_error(lambda tf: three_way_case(tf, *[tf.constant(f) for f in case]), hint=False)


# (False, True, True): the last pair is the default, and the exclusive check counts only the others.
@pytest.mark.parametrize(
    "flags", [(True, False, False), (False, True, False), (False, False, True), (False, True, True)]
)
def test_exclusive_case_without_default_picks_the_first_true_predicate_as_tensorflow(flags: tuple) -> None:
    same(lambda tf: three_way_case(tf, *[tf.constant(f) for f in flags]))
    same_program(lambda tf, seen: seen.append(traced_three_way_case(tf)(*[tf.constant(f) for f in flags])))


@named_examples(
    ("none true", ((False, False, False), "[Input error: None of conditions evaluated as True:] [0 0 0]")),
    (
        "two true",
        (
            (True, True, False),
            "[Input error: exclusive=True: more than 1 conditions (a:0, b:0) evaluated as True:] [1 1]",
        ),
    ),
)
def test_exclusive_case_without_default_traced_with_unknown_rank_fails_as_tensorflow(case: Any) -> None:
    flags, fragment = case
    same_program(lambda tf, seen: traced_three_way_case(tf)(*[tf.constant(f) for f in flags]), fragment)
