"""ensure_shape, bitcast, bincount, polyval, segment sums, sigmoid cross-entropy, dropout, the tf.debugging
checks and the initializers: values, dtypes, printing and errors, eagerly and inside a tf.function."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from harness import EAGER, TAPE, named_examples, only, same
from hypothesis import given
from hypothesis import strategies as st
from test_indexing import fewer_examples, traced

X = np.array([[1.0, -2.0, 3.0], [0.5, 0.0, -1.5]], np.float32)

# Inside a function TensorFlow's assert_equal returns an Operation, which a tf.function may not return.
ASSERT_OP = only((EAGER, TAPE), "TensorFlow: assert_equal returns an Operation inside a function, not a valid result")


def dropout_facts(rate: float, seed: int | None = None) -> Any:
    """What both engines share for a random dropout: shape, dtype, and every entry either 0 or x / (1 - rate)."""

    def case(tf: Any) -> Any:
        x = tf.constant(np.arange(1.0, 13.0, dtype=np.float32).reshape(3, 4))
        y = tf.nn.dropout(x, rate=rate, seed=seed)
        scaled = tf.equal(y, x / (1 - rate))
        return y.shape, y.dtype, tf.reduce_all(tf.logical_or(tf.equal(y, 0.0), scaled))

    return case


@named_examples(
    ("ensure_shape", lambda tf: tf.ensure_shape(tf.constant(X), [2, None])),
    ("ensure_shape mismatch", lambda tf: tf.ensure_shape(tf.constant(X), [3, None])),
    ("ensure_shape rank", lambda tf: tf.ensure_shape(tf.constant(X), [2])),
    ("bitcast float to int", lambda tf: tf.bitcast(tf.constant(1.0), tf.int32)),
    ("bitcast to narrower", lambda tf: tf.bitcast(tf.constant([1, 2], tf.int32), tf.int8)),
    ("bitcast to wider", lambda tf: tf.bitcast(tf.constant([[1, 2, 3, 4]], tf.int8), tf.int32)),
    ("bitcast float64 to uint32", lambda tf: tf.bitcast(tf.constant([1.5], tf.float64), tf.uint32)),
    ("bitcast wrong size", lambda tf: tf.bitcast(tf.constant([1, 2, 3], tf.int8), tf.int32)),
    ("bincount", lambda tf: tf.math.bincount([1, 1, 3])),
    ("bincount minlength", lambda tf: tf.math.bincount([1, 1, 3], minlength=6)),
    ("bincount maxlength", lambda tf: tf.math.bincount([1, 1, 3], maxlength=2)),
    ("bincount weights", lambda tf: tf.math.bincount([1, 1, 3], weights=[0.5, 1.0, 2.0])),
    ("bincount rows", lambda tf: tf.math.bincount([[1, 1], [0, 3]], axis=-1)),
    ("bincount matrix flattened", lambda tf: tf.math.bincount([[1, 1], [0, 3]])),
    ("bincount int64 counts", lambda tf: tf.math.bincount([1, 1, 3], dtype=tf.int64)),
    ("bincount binary", lambda tf: tf.math.bincount([1, 1, 3], binary_output=True)),
    ("bincount empty", lambda tf: tf.math.bincount(tf.zeros([0], tf.int32))),
    ("bincount negative", lambda tf: tf.math.bincount([1, -1, 3])),
    ("bincount weights and binary", lambda tf: tf.math.bincount([1], weights=[1.0], binary_output=True)),
    ("bincount bad axis", lambda tf: tf.math.bincount([1], axis=1)),
    ("polyval", lambda tf: tf.math.polyval([1.0, 2.0, 3.0], 2.0)),
    ("polyval tensors", lambda tf: tf.math.polyval([tf.constant([1.0, 2.0]), 3.0], tf.constant([2.0, 3.0]))),
    ("polyval empty", lambda tf: tf.math.polyval([], 2.0)),
    ("polyval ints", lambda tf: tf.math.polyval([1, 2], 2)),
    ("polyval mixed", lambda tf: tf.math.polyval([1, 2.0], 2.0)),
    ("segment_sum", lambda tf: tf.math.segment_sum([1, 2, 3, 4], [0, 0, 1, 1])),
    ("segment_sum gaps", lambda tf: tf.math.segment_sum(tf.constant(X), [0, 2])),
    ("segment_sum unsorted", lambda tf: tf.math.segment_sum([1, 2, 3, 4], [0, 1, 0, 1])),
    ("segment_sum wrong length", lambda tf: tf.math.segment_sum([1, 2, 3, 4], [0, 0, 1])),
    ("unsorted_segment_sum", lambda tf: tf.math.unsorted_segment_sum([1, 2, 3, 4], [0, 1, 0, 1], 3)),
    ("unsorted_segment_sum drops -1", lambda tf: tf.math.unsorted_segment_sum([1, 2, 3, 4], [0, -1, 0, 1], 3)),
    ("unsorted_segment_sum 2-d ids", lambda tf: tf.math.unsorted_segment_sum([[1, 2], [3, 4]], [[0, 1], [1, 1]], 2)),
    ("unsorted_segment_sum rows", lambda tf: tf.math.unsorted_segment_sum(tf.constant(X), [1, 1], 2)),
    ("unsorted_segment_sum out of range", lambda tf: tf.math.unsorted_segment_sum([1, 2, 3, 4], [0, 5, 0, 1], 3)),
    (
        "sigmoid_cross_entropy",
        lambda tf: tf.nn.sigmoid_cross_entropy_with_logits(labels=[1.0, 0.0], logits=[0.5, -2.0]),
    ),
    (
        "sigmoid_cross_entropy large logits",
        lambda tf: tf.nn.sigmoid_cross_entropy_with_logits(labels=[1.0, 0.0, 0.5], logits=[100.0, -100.0, 30.0]),
    ),
    ("sigmoid_cross_entropy positional", lambda tf: tf.nn.sigmoid_cross_entropy_with_logits([1.0, 0.0], [0.5, 1.0])),
    (
        "sigmoid_cross_entropy shapes differ",
        lambda tf: tf.nn.sigmoid_cross_entropy_with_logits(labels=[1.0, 0.0], logits=[0.5]),
    ),
    (
        "sigmoid_cross_entropy int labels",
        lambda tf: tf.nn.sigmoid_cross_entropy_with_logits(labels=[1, 0], logits=[0.5, 1.0]),
    ),
    ("sigmoid_cross_entropy missing", lambda tf: tf.nn.sigmoid_cross_entropy_with_logits(labels=[1.0])),
    ("dropout rate 0", lambda tf: tf.nn.dropout(tf.constant(X), rate=0.0)),
    ("dropout rate 1", lambda tf: tf.nn.dropout(tf.constant(X), rate=1.0)),
    ("dropout negative rate", lambda tf: tf.nn.dropout(tf.constant(X), rate=-0.1)),
    ("dropout ints", lambda tf: tf.nn.dropout(tf.ones([2, 2], tf.int32), rate=0.5)),
    ("dropout keeps or scales", dropout_facts(0.5)),
    ("dropout seeded keeps or scales", dropout_facts(0.25, seed=3)),
    ("dropout tensor rate", lambda tf: tf.nn.dropout(tf.constant(X), rate=tf.constant(0.0)) * 1.0),
    ("assert_equal holds", ASSERT_OP(lambda tf: tf.debugging.assert_equal(tf.constant([1, 2]), [1, 2]))),
    ("assert_equal fails", lambda tf: tf.debugging.assert_equal(tf.constant([1, 2]), [1, 3], message="custom")),
    ("assert_equal broadcasts", ASSERT_OP(lambda tf: tf.assert_equal(tf.constant([[1, 1]]), 1))),
    ("assert_equal dtypes differ", lambda tf: tf.debugging.assert_equal(tf.constant([1.0, 2]), [1, 3])),
    ("assert_equal shapes differ", lambda tf: tf.assert_equal(tf.constant([1, 2]), [1, 2, 3])),
    (
        "assert_shapes holds",
        lambda tf: tf.debugging.assert_shapes([(tf.ones([2, 3]), ("N", "D")), (tf.ones([2]), ("N",))]),
    ),
    (
        "assert_shapes symbol differs",
        lambda tf: tf.debugging.assert_shapes([(tf.ones([2, 3]), ("N", "D")), (tf.ones([3]), ("N",))]),
    ),
    ("assert_shapes size", lambda tf: tf.debugging.assert_shapes([(tf.ones([2, 3]), (2, "D"))])),
    ("assert_shapes size differs", lambda tf: tf.debugging.assert_shapes([(tf.ones([2, 3]), (3, "D"))])),
    ("assert_shapes rank", lambda tf: tf.debugging.assert_shapes([(tf.ones([2, 3]), ("N",))])),
    ("check_numerics", lambda tf: tf.debugging.check_numerics(tf.constant([1.0, 2.0]), "msg")),
    ("check_numerics nan", lambda tf: tf.debugging.check_numerics(tf.constant([1.0, np.nan]), "msg")),
    ("check_numerics inf", lambda tf: tf.debugging.check_numerics(tf.constant([1.0, np.inf]), "msg")),
    ("check_numerics ints", lambda tf: tf.debugging.check_numerics(tf.constant([1, 2]), "msg")),
    ("constant_initializer", lambda tf: tf.constant_initializer([1.0, 2.0])(shape=[2])),
    ("constant_initializer scalar", lambda tf: tf.constant_initializer(3)(shape=[2, 2], dtype=tf.int32)),
    ("constant_initializer inferred dtype", lambda tf: tf.constant_initializer(3)([2])),
    ("constant_initializer too few", lambda tf: tf.constant_initializer([1.0, 2.0])(shape=[3])),
    (
        "constant_initializer config",
        lambda tf: (tf.constant_initializer(3).get_config(), type(tf.constant_initializer(3)).__name__),
    ),
    ("zeros_initializer", lambda tf: tf.zeros_initializer()(shape=[2, 2])),
    ("zeros_initializer int", lambda tf: tf.zeros_initializer()([2], tf.int32)),
    ("zeros_initializer string", lambda tf: tf.zeros_initializer()([2], tf.string)),
    ("zeros_initializer variable", lambda tf: tf.Variable(tf.zeros_initializer()(shape=[2]))),
    (
        "random_normal_initializer config",
        lambda tf: (tf.random_normal_initializer().get_config(), type(tf.random_normal_initializer()).__name__),
    ),
    ("random_normal_initializer shape", lambda tf: tf.random_normal_initializer(mean=1.0)([2, 3], tf.float64).shape),
    ("random_normal_initializer int", lambda tf: tf.random_normal_initializer(seed=1)([2], tf.int32)),
    (
        "random_normal_initializer seeded repeats",
        lambda tf: (lambda init: tf.reduce_all(tf.equal(init([4]), init([4]))))(tf.random_normal_initializer(seed=7)),
    ),
)
def test_everyday_functions_match_tensorflow(case: Any) -> None:
    same(case)


def assert_in_function(value: int) -> Any:
    def case(tf: Any) -> Any:
        @tf.function
        def f(x: Any) -> Any:
            tf.debugging.assert_equal(x, 1)
            return x + 1

        return f(tf.constant(value))

    return case


@pytest.mark.sample(4)
@named_examples(
    ("ensure_shape tells the tracer", traced(lambda tf, x: tf.ensure_shape(tf.reshape(x, [-1, 3]), [2, 3]), X)),
    ("bitcast", traced(lambda tf, x: tf.bitcast(x, tf.uint8), X)),
    ("bincount", traced(lambda tf, x: tf.math.bincount(x), np.array([0, 3, 3], np.int32))),
    ("segment_sum", traced(lambda tf, x: tf.math.segment_sum(x, [0, 0]), X)),
    ("unsorted_segment_sum", traced(lambda tf, x: tf.math.unsorted_segment_sum(x, [1, 0], 3), X)),
    ("polyval", traced(lambda tf, x: tf.math.polyval([2.0, x, 1.0], x), X)),
    (
        "sigmoid_cross_entropy",
        traced(lambda tf, x: tf.nn.sigmoid_cross_entropy_with_logits(labels=x * 0.0 + 1.0, logits=x), X),
    ),
    (
        "dropout keeps or scales",
        traced(
            lambda tf, x: (lambda y: tf.reduce_all(tf.logical_or(tf.equal(y, 0.0), tf.equal(y, (x + 10.0) * 2.0))))(
                tf.nn.dropout(x + 10.0, 0.5)
            ),
            X,
        ),
    ),
    ("dropout shape", traced(lambda tf, x: tf.nn.dropout(x, 0.3, seed=1) * 0.0, X)),
    ("check_numerics", traced(lambda tf, x: tf.debugging.check_numerics(x, "msg"), X)),
    ("check_numerics nan", traced(lambda tf, x: tf.debugging.check_numerics(x / 0.0, "msg"), X)),
    ("assert_equal holds", assert_in_function(1)),
    ("assert_equal fails when the function runs", assert_in_function(2)),
)
def test_everyday_functions_inside_tf_function_match_tensorflow(case: Any) -> None:
    same(case)


@fewer_examples
@given(ids=st.lists(st.integers(-1, 4), min_size=0, max_size=8), segments=st.integers(0, 5))
def test_unsorted_segment_sum_and_bincount_on_generated_ids_match_tensorflow(ids: list[int], segments: int) -> None:
    data = np.arange(len(ids), dtype=np.float32) * 1.5 - 2.0
    same(lambda tf: tf.math.unsorted_segment_sum(data, tf.constant(np.array(ids, np.int32)), segments))
    same(lambda tf: tf.math.bincount(tf.constant(np.array(ids, np.int32)), minlength=segments))
    same(lambda tf: tf.math.segment_sum(data, tf.constant(np.array(sorted(ids), np.int32))))
