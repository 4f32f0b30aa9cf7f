"""Top-level helpers over lists of tensors (identity_n, shape_n, tuple, unique_with_counts) and the graph helpers
no_op, group and inside_function: results eagerly, traced and under a tape, on both engines."""

from __future__ import annotations

from typing import Any

import numpy as np
from harness import named_examples, same

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
