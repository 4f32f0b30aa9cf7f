"""More of tf.math (realdiv, in_top_k, invert_permutation, is_non_decreasing, is_strictly_increasing,
segment_mean, unsorted_segment_mean, unsorted_segment_sqrt_n, cumulative_logsumexp): values, dtypes, errors,
traced and under a tape, on both engines."""

from __future__ import annotations

from typing import Any

import numpy as np
from harness import named_examples, same

P = np.array([[0.1, 0.8, 0.1, 0.0], [0.3, 0.3, 0.2, 0.2], [0.5, 0.1, 0.2, 0.2]], np.float32)
DATA = np.array([[1.0, 2.0], [3.0, -1.0], [0.5, 4.0], [2.0, 2.0]], np.float32)
X = np.array([[1.0, -2.0, 3.0], [0.5, 0.0, -1.5]], np.float32)


@named_examples(
    ("realdiv", lambda tf: tf.realdiv(tf.constant(X), tf.constant([2.0, -4.0, 0.5]))),
    ("realdiv ints", lambda tf: tf.realdiv(tf.constant([1, 2]), tf.constant([3, 4]))),
    (
        "realdiv uint8",
        lambda tf: tf.realdiv(tf.constant(np.array([1, 2], np.uint8)), tf.constant(np.array([3, 4], np.uint8))),
    ),
    ("in_top_k", lambda tf: tf.math.in_top_k(tf.constant([1, 0, 3]), tf.constant(P), 1)),
    (
        "in_top_k ties",
        lambda tf: (
            tf.math.in_top_k(tf.constant([1, 3, 2]), tf.constant(P), 2),
            tf.nn.in_top_k(tf.constant([0, 2, 2]), tf.constant(P), 3),
        ),
    ),
    ("in_top_k out of range", lambda tf: tf.math.in_top_k(tf.constant([4, -1, 0]), tf.constant(P), 2)),
    (
        "in_top_k non-finite",
        lambda tf: tf.math.in_top_k(
            tf.constant([0, 1]), tf.constant(np.array([[np.nan, 1.0], [0.5, np.inf]], np.float32)), 2
        ),
    ),
    ("invert_permutation", lambda tf: tf.math.invert_permutation(tf.constant([3, 4, 0, 2, 1]))),
    ("invert_permutation int64", lambda tf: tf.math.invert_permutation(tf.constant(np.array([1, 0], np.int64)))),
    (
        "is_non_decreasing",
        lambda tf: (
            tf.math.is_non_decreasing(tf.constant([1, 1, 2])),
            tf.math.is_non_decreasing(tf.constant(X)),
            tf.math.is_non_decreasing(tf.constant([5.0])),
        ),
    ),
    (
        "is_strictly_increasing",
        lambda tf: (
            tf.math.is_strictly_increasing(tf.constant([1, 1, 2])),
            tf.math.is_strictly_increasing(tf.constant([[1.0, 2.0], [3.0, 4.5]])),
            tf.math.is_strictly_increasing(tf.constant([], tf.float32)),
        ),
    ),
    ("is_non_decreasing of strings", lambda tf: tf.math.is_non_decreasing(tf.constant(["a", "b"]))),
    ("segment_mean", lambda tf: tf.math.segment_mean(tf.constant(DATA), tf.constant([0, 0, 2, 2]))),
    (
        "unsorted_segment_mean",
        lambda tf: tf.math.unsorted_segment_mean(tf.constant(DATA), tf.constant([1, 0, 1, 1]), 3),
    ),
    (
        "unsorted_segment_sqrt_n",
        lambda tf: tf.math.unsorted_segment_sqrt_n(tf.constant(DATA), tf.constant([2, 0, 2, -1]), 3),
    ),
    (
        "unsorted_segment_mean of a vector",
        lambda tf: tf.math.unsorted_segment_mean(tf.constant([1.0, 2.0, 4.0]), tf.constant([0, 0, 1]), 2),
    ),
    ("cumulative_logsumexp", lambda tf: tf.math.cumulative_logsumexp(tf.constant([1.0, 2.0, 3.0, -1.0]))),
    (
        "cumulative_logsumexp axis exclusive reverse",
        lambda tf: (
            tf.math.cumulative_logsumexp(tf.constant(X), axis=1, exclusive=True),
            tf.math.cumulative_logsumexp(tf.constant(X), axis=0, reverse=True),
        ),
    ),
    ("accumulate_n", lambda tf: tf.math.accumulate_n([tf.constant(X), tf.constant(X) * 2.0, tf.ones([2, 3])])),
    ("lbeta", lambda tf: (tf.math.lbeta(tf.constant(X * X + 0.5)), tf.math.lbeta(tf.constant([1.0, 2.0, 3.0])))),
    ("nextafter", lambda tf: tf.math.nextafter(tf.constant([1.0, 0.0, -2.0, 3.0]), tf.constant([2.0, -1.0, 0.0, 3.0]))),
    (
        "nextafter float64",
        lambda tf: tf.math.nextafter(tf.constant(np.array([1.0, 0.0])), tf.constant(np.inf, tf.float64)),
    ),
    ("nextafter ints", lambda tf: tf.math.nextafter(tf.constant([1]), tf.constant([2]))),
    ("cumulative_logsumexp large", lambda tf: tf.math.cumulative_logsumexp(tf.constant([1000.0, 1000.0, -5.0]))),
)
def test_more_of_tf_math_matches_tensorflow(case: Any) -> None:
    same(case, rtol=1e-5, atol=1e-6)
