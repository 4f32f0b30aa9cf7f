"""tf.math.confusion_matrix, which the digits chapter draws: counts, weights, dtypes, squeezed axes, the
range checks, and the shape it has while traced."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from harness import named_examples, same
from hypothesis import given
from hypothesis import strategies as st
from test_indexing import fewer_examples, traced

LABELS = np.array([1, 2, 4, 0, 2], np.int32)
PREDICTED = np.array([2, 2, 4, 0, 1], np.int64)


@named_examples(
    ("counts", lambda tf: tf.math.confusion_matrix(LABELS, PREDICTED)),
    ("given classes", lambda tf: tf.math.confusion_matrix(LABELS, PREDICTED, num_classes=7)),
    ("tensor classes", lambda tf: tf.math.confusion_matrix(LABELS, PREDICTED, num_classes=tf.constant(5))),
    (
        "weights",
        lambda tf: tf.math.confusion_matrix(LABELS, PREDICTED, weights=[0.5, 1.0, 2.0, 1.0, 3.0], dtype=tf.float32),
    ),
    ("int weights as float64", lambda tf: tf.math.confusion_matrix([0, 1], [1, 1], weights=[2, 3], dtype=tf.float64)),
    ("int64 counts", lambda tf: tf.math.confusion_matrix([0, 1], [1, 1], dtype=tf.int64)),
    ("float ids", lambda tf: tf.math.confusion_matrix(tf.constant([0.0, 1.0]), tf.constant([1.0, 1.0]))),
    ("labels with a trailing axis", lambda tf: tf.math.confusion_matrix([[1], [2]], [2, 2])),
    ("predictions with a trailing axis", lambda tf: tf.math.confusion_matrix([1, 2], [[2], [0]])),
    (
        "argmax of logits",
        lambda tf: tf.math.confusion_matrix(
            [0, 1, 2],
            tf.argmax(tf.constant([[2.0, 1.0, 0.0], [0.0, 3.0, 1.0], [5.0, 0.0, 1.0]]), axis=1),
            num_classes=3,
        ),
    ),
    ("negative label", lambda tf: tf.math.confusion_matrix([1, -2], [0, 1])),
    ("negative prediction", lambda tf: tf.math.confusion_matrix([1, 2], [0, -1], num_classes=3)),
    ("label out of bound", lambda tf: tf.math.confusion_matrix([1, 3], [0, 1], num_classes=3)),
    ("prediction out of bound", lambda tf: tf.math.confusion_matrix([1, 2], [0, 5], num_classes=3)),
    ("lengths differ", lambda tf: tf.math.confusion_matrix([1, 2], [0, 1, 1])),
    ("weights of the wrong shape", lambda tf: tf.math.confusion_matrix([1, 2], [0, 1], weights=[1.0, 2.0, 3.0])),
)
def test_confusion_matrix_matches_tensorflow(case: Any) -> None:
    same(case)


@pytest.mark.sample("unknown classes give an unknown shape", "out of bound when the function runs")
@named_examples(
    (
        "known classes give a known shape",
        traced(lambda tf, y, p: tf.math.confusion_matrix(y, p, num_classes=5), LABELS, PREDICTED),
    ),
    (
        "unknown classes give an unknown shape",
        traced(lambda tf, y, p: tf.math.confusion_matrix(y, p), LABELS, PREDICTED),
    ),
    (
        "weights",
        traced(
            lambda tf, y, p, w: tf.math.confusion_matrix(y, p, num_classes=5, weights=w, dtype=tf.float32),
            LABELS,
            PREDICTED,
            np.linspace(0.5, 2.5, 5).astype(np.float32),
        ),
    ),
    (
        "out of bound when the function runs",
        traced(lambda tf, y, p: tf.math.confusion_matrix(y, p, num_classes=3), LABELS, PREDICTED),
    ),
)
def test_confusion_matrix_inside_tf_function_matches_tensorflow(case: Any) -> None:
    same(case)


@fewer_examples
@given(
    pairs=st.lists(st.tuples(st.integers(0, 5), st.integers(0, 5)), min_size=1, max_size=12), extra=st.integers(0, 2)
)
def test_confusion_matrix_on_generated_classes_matches_tensorflow(pairs: list[tuple[int, int]], extra: int) -> None:
    labels = np.array([p[0] for p in pairs], np.int32)
    predicted = np.array([p[1] for p in pairs], np.int32)
    classes = int(max(labels.max(), predicted.max())) + 1 + extra
    same(lambda tf: tf.math.confusion_matrix(tf.constant(labels), tf.constant(predicted), num_classes=classes))
    same(lambda tf: tf.math.confusion_matrix(tf.constant(labels), tf.constant(predicted)))
