"""More of tf.nn (gelu, conv1d, 1-D pooling, embedding_lookup, batch_normalization, the moment helpers, crelu,
weighted and Poisson losses, zero_fraction, loss scaling): values, dtypes, errors, traced and under a tape."""

from __future__ import annotations

from typing import Any

import numpy as np
from harness import named_examples, same

ACT = np.array([-4.0, -1.0, -0.1, 0.0, 0.3, 1.0, 2.5, 6.0], np.float32)
SEQ = np.arange(2 * 7 * 3, dtype=np.float32).reshape(2, 7, 3) / 10 - 1
KERNEL = np.linspace(-1, 1, 3 * 3 * 4, dtype=np.float32).reshape(3, 3, 4)
TABLE = np.arange(12, dtype=np.float32).reshape(4, 3) / 4
X = np.array([[1.0, -2.0, 3.0], [0.5, 0.0, -1.5], [2.0, 2.0, 1.0]], np.float32)


@named_examples(
    ("gelu", lambda tf: tf.nn.gelu(tf.constant(ACT))),
    ("gelu approximate", lambda tf: tf.nn.gelu(tf.constant(ACT), approximate=True)),
    ("gelu float64", lambda tf: tf.nn.gelu(tf.constant(ACT.astype(np.float64)))),
    ("gelu ints", lambda tf: tf.nn.gelu(tf.constant([1, 2]))),
    ("conv1d", lambda tf: tf.nn.conv1d(tf.constant(SEQ), tf.constant(KERNEL), stride=1, padding="VALID")),
    ("conv1d same stride 2", lambda tf: tf.nn.conv1d(tf.constant(SEQ), tf.constant(KERNEL), 2, "SAME")),
    ("conv1d dilated", lambda tf: tf.nn.conv1d(tf.constant(SEQ), tf.constant(KERNEL), 1, "VALID", dilations=2)),
    ("max_pool1d", lambda tf: tf.nn.max_pool1d(tf.constant(SEQ), 2, 2, "VALID")),
    ("avg_pool1d", lambda tf: tf.nn.avg_pool1d(tf.constant(SEQ), 3, 2, "SAME")),
    ("embedding_lookup", lambda tf: tf.nn.embedding_lookup(tf.constant(TABLE), tf.constant([[0, 3], [2, 2]]))),
    ("embedding_lookup max_norm", lambda tf: tf.nn.embedding_lookup(tf.constant(TABLE), [1, 3], max_norm=1.0)),
    ("embedding_lookup out of range", lambda tf: tf.nn.embedding_lookup(tf.constant(TABLE), [4])),
    (
        "batch_normalization",
        lambda tf: (
            lambda mv: tf.nn.batch_normalization(
                tf.constant(X), mv[0], mv[1], tf.constant([0.1, 0.2, 0.3]), tf.constant([1.0, 2.0, 0.5]), 1e-3
            )
        )(tf.nn.moments(tf.constant(X), [0])),
    ),
    (
        "batch_normalization without offset and scale",
        lambda tf: tf.nn.batch_normalization(tf.constant(X), tf.constant(1.0), tf.constant(2.0), None, None, 1e-5),
    ),
    ("sufficient_statistics", lambda tf: tf.nn.sufficient_statistics(tf.constant(X), [0])),
    (
        "sufficient_statistics shift",
        lambda tf: tf.nn.sufficient_statistics(tf.constant(X), [0, 1], shift=0.5, keepdims=True),
    ),
    ("normalize_moments", lambda tf: tf.nn.normalize_moments(*tf.nn.sufficient_statistics(tf.constant(X), [1]))),
    ("weighted_moments", lambda tf: tf.nn.weighted_moments(tf.constant(X), [0], tf.constant([[1.0], [2.0], [0.5]]))),
    ("crelu", lambda tf: tf.nn.crelu(tf.constant(X))),
    ("crelu axis 0", lambda tf: tf.nn.crelu(tf.constant(X), axis=0)),
    (
        "weighted_cross_entropy_with_logits",
        lambda tf: tf.nn.weighted_cross_entropy_with_logits(tf.constant([[1.0, 0.0, 1.0]] * 3), tf.constant(X), 2.0),
    ),
    (
        "log_poisson_loss",
        lambda tf: tf.nn.log_poisson_loss(tf.constant([0.0, 1.0, 2.0, 5.0]), tf.constant([0.5, -1.0, 1.0, 1.5])),
    ),
    (
        "log_poisson_loss full",
        lambda tf: tf.nn.log_poisson_loss(
            tf.constant([0.0, 1.0, 2.0, 5.0]), tf.constant([0.5, -1.0, 1.0, 1.5]), compute_full_loss=True
        ),
    ),
    ("zero_fraction", lambda tf: (tf.nn.zero_fraction(tf.constant(X)), tf.math.zero_fraction(tf.constant([0, 0, 3])))),
    ("compute_average_loss", lambda tf: tf.nn.compute_average_loss(tf.constant([1.0, 2.0, 4.0]))),
    (
        "compute_average_loss weighted",
        lambda tf: tf.nn.compute_average_loss(
            tf.constant([1.0, 2.0, 4.0]), sample_weight=tf.constant([0.5, 1.0, 0.0]), global_batch_size=4
        ),
    ),
    ("scale_regularization_loss", lambda tf: tf.nn.scale_regularization_loss(tf.constant([1.0, 2.0]))),
)
def test_more_of_tf_nn_matches_tensorflow(case: Any) -> None:
    same(case, rtol=1e-5, atol=1e-6)


IMG = np.arange(2 * 4 * 6 * 8, dtype=np.float32).reshape(2, 4, 6, 8) / 50 - 1


@named_examples(
    ("max_pool 1d", lambda tf: tf.nn.max_pool(tf.constant(SEQ), 2, 2, "VALID")),
    ("max_pool 2d", lambda tf: tf.nn.max_pool(tf.constant(IMG), [2, 2], [2, 2], "SAME")),
    ("avg_pool 1d", lambda tf: tf.nn.avg_pool(tf.constant(SEQ), 3, 1, "SAME")),
    ("avg_pool 2d", lambda tf: tf.nn.avg_pool(tf.constant(IMG), 2, 1, "VALID")),
    ("depth_to_space", lambda tf: tf.nn.depth_to_space(tf.constant(IMG), 2)),
    ("space_to_depth", lambda tf: tf.nn.space_to_depth(tf.constant(IMG), 2)),
    ("space_to_depth round trip", lambda tf: tf.nn.depth_to_space(tf.nn.space_to_depth(tf.constant(IMG), 2), 2)),
    ("depth_to_space not divisible", lambda tf: tf.nn.depth_to_space(tf.constant(IMG), 3)),
    ("space_to_depth not divisible", lambda tf: tf.nn.space_to_depth(tf.constant(IMG), 3)),
)
def test_pooling_by_rank_and_space_depth_moves_match_tensorflow(case: Any) -> None:
    same(case, rtol=1e-5, atol=1e-6)
