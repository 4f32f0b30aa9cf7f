"""Segment maxima, minima and products (tf.math.segment_max/min/prod, unsorted_segment_max/min/prod): values,
TensorFlow's fill for empty segments, dtypes, errors for unsorted, negative and out-of-range ids, static
shapes, and gradients (ties share a maximum's gradient; zeros in a product), eagerly, traced and under a
tape."""

from __future__ import annotations

from typing import Any

import numpy as np
from harness import EAGER, assert_same_error, examples, minitf, named_examples, only, real_tf, run, same, same_program
from hypothesis import given
from hypothesis import strategies as st

D = np.array([[1.0, 2.0], [3.0, 0.5], [5.0, 6.0], [2.0, 2.0]], np.float32)
TIES = np.array([3.0, 3.0, 1.0, 0.0, 0.0, 2.0], np.float32)
SORTED = ["segment_max", "segment_min", "segment_prod"]
UNSORTED = ["unsorted_segment_max", "unsorted_segment_min", "unsorted_segment_prod"]


def sorted_case(fn: str, data: Any, ids: Any) -> Any:
    return lambda tf: getattr(tf.math, fn)(tf.constant(data), ids)


def unsorted_case(fn: str, data: Any, ids: Any, n: Any) -> Any:
    return lambda tf: getattr(tf.math, fn)(tf.constant(data), ids, n)


@named_examples(
    *[
        (f"{fn} {label}", sorted_case(fn, data, ids))
        for fn in SORTED
        for label, data, ids in [
            ("rows with an empty segment", D, [0, 0, 2, 2]),
            ("ties", TIES, [0, 0, 0, 1, 1, 1]),
            ("zeros", TIES, [0, 0, 1, 1, 1, 2]),
            ("ints", np.array([1, 2, 3], np.int32), [0, 2, 2]),
            ("float64", D.astype(np.float64), np.array([0, 1, 1, 1], np.int64)),
            ("uint8", np.array([7, 2, 9], np.uint8), [1, 1, 1]),
            ("no rows", np.zeros((0, 2), np.float32), np.zeros(0, np.int32)),
            ("unsorted ids", D, [1, 0, 2, 2]),
            ("negative id", D, [-1, 0, 1, 1]),
            ("too few ids", D, [0, 0, 1]),
            ("float ids", D, [0.0, 0.0, 1.0, 1.0]),
            ("bool data", np.array([True, False]), [0, 0]),
        ]
    ]
)
def test_sorted_segment_reductions_match_tensorflow(case: Any) -> None:
    same(case)


@named_examples(
    *[
        (f"{fn} {label}", unsorted_case(fn, data, ids, n))
        for fn in UNSORTED
        for label, data, ids, n in [
            ("with dropped and empty segments", D, [0, 3, 0, -1], 5),
            ("ties", TIES, [0, 0, -1, 1, 1, 1], 3),
            ("zeros", TIES, [0, 0, 1, 1, -1, 2], 3),
            ("ints fill with the extremes", np.array([1, 2, 3], np.int32), [0, 2, 2], 4),
            ("uint8", np.array([1, 2, 3], np.uint8), [0, 2, 2], 4),
            ("float16", D.astype(np.float16), [2, 2, 0, 1], 4),
            ("2-d ids", D, [[0, 1], [1, 1], [2, 0], [0, 0]], 3),
            ("int64 segments", D, np.array([1, 0, 1, 0], np.int64), np.int64(2)),
            ("id out of range", D, [0, 5, 1, 1], 3),
            ("ids of the wrong shape", D, [0, 1, 1], 3),
            ("bool data", np.array([True]), [0], 3),
        ]
    ]
)
def test_unsorted_segment_reductions_match_tensorflow(case: Any) -> None:
    same(case)


@named_examples(
    ("complex product", lambda tf: tf.math.segment_prod(tf.constant([1 + 2j, 1j]), [0, 0])),
    (
        "complex unsorted product",
        lambda tf: tf.math.unsorted_segment_prod(tf.constant([1 + 2j, 1j, 2.0]), [1, 1, 0], 3),
    ),
    ("complex maximum", lambda tf: tf.math.segment_max(tf.constant([1 + 2j]), [0])),
)
def test_complex_data_is_multiplied_but_not_ordered(case: Any) -> None:
    same(case)


def test_messages_for_bad_ids_are_tensorflows() -> None:
    for case in [
        lambda tf: tf.math.segment_max(tf.constant(D), [1, 0, 2, 2]),
        lambda tf: tf.math.segment_prod(tf.constant(D), [-1, 0, 1, 1]),
        lambda tf: tf.math.segment_sum(tf.constant(D), [-1, 0, 1, 1]),
        lambda tf: tf.math.segment_min(tf.constant(D), [0, 0, 1]),
        lambda tf: tf.math.unsorted_segment_min(tf.constant(D), [0, 5, 1, 1], 3),
        lambda tf: tf.math.unsorted_segment_prod(tf.constant(D), [0, 1, 1], 3),
        lambda tf: tf.math.unsorted_segment_sum(tf.constant(D), [0, 1, 1], 3),
    ]:
        mine, theirs = run(minitf, case), run(real_tf, case)
        assert mine.error is not None and theirs.error is not None
        tail = str(theirs.error).split("}} ")[-1]  # after TensorFlow's {{function_node ...}} prefix
        assert_same_error(mine.error, theirs.error, fragment=tail, hint=True)


@only((EAGER,), "the static shapes are read from concrete functions")
def test_static_shapes_while_tracing() -> None:
    def case(tf: Any, seen: list) -> None:
        def f(x: Any, i: Any) -> Any:
            return tf.math.segment_max(x, i), tf.math.unsorted_segment_prod(x, i, 3), tf.math.segment_min(x, i)

        traced = tf.function(f).get_concrete_function(tf.TensorSpec([None, 2]), tf.TensorSpec([None], tf.int32))
        seen.append([str(t.shape) for t in traced.outputs])
        unknown = tf.function(f).get_concrete_function(tf.TensorSpec(None), tf.TensorSpec(None, tf.int32))
        seen.append([str(t.shape) for t in unknown.outputs])

    same_program(case)


def test_gradients_under_unknown_shapes_inside_a_function() -> None:
    def case(tf: Any, seen: list) -> None:
        @tf.function(input_signature=[tf.TensorSpec(None), tf.TensorSpec(None, tf.int32)])
        def grads(x: Any, i: Any) -> Any:
            with tf.GradientTape() as tape:
                tape.watch(x)
                y = tf.reduce_sum(tf.math.unsorted_segment_max(x, i, 3) * [1.0, 2.0, 3.0][:1]) + tf.reduce_sum(
                    tf.math.unsorted_segment_prod(x, i, 3)
                )
            return tape.gradient(y, x)

        seen.append(grads(tf.constant(TIES), tf.constant([0, 0, -1, 1, 1, 1])))
        seen.append(grads(tf.constant(D), tf.constant([[0, 1], [1, 1], [2, 0], [-1, 0]])))

    same_program(case)


@examples
@given(
    ids=st.lists(st.integers(-1, 4), min_size=0, max_size=8),
    segments=st.integers(0, 5),
    which=st.sampled_from(UNSORTED),
    small=st.booleans(),
)
def test_unsorted_reductions_on_generated_ids_match_tensorflow(
    ids: list[int], segments: int, which: str, small: bool
) -> None:
    data = (np.arange(len(ids), dtype=np.float32) % 3 if small else np.arange(len(ids), dtype=np.float32)) - 1.0
    same(lambda tf: getattr(tf.math, which)(tf.constant(data), tf.constant(np.array(ids, np.int32)), segments))


@examples
@given(ids=st.lists(st.integers(0, 4), min_size=0, max_size=8), which=st.sampled_from(SORTED))
def test_sorted_reductions_on_generated_ids_match_tensorflow(ids: list[int], which: str) -> None:
    data = np.arange(len(ids), dtype=np.float32) % 3 - 1.0
    same(lambda tf: getattr(tf.math, which)(tf.constant(data), tf.constant(np.array(sorted(ids), np.int32))))
