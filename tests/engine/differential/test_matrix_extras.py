"""More of tf.linalg (svd, pinv, matrix_rank, cross, set_diag, tensor_diag, tensor_diag_part, normalize): values,
dtypes, errors, traced and under a tape, on both engines. Singular vectors are compared through products that
do not depend on their signs."""

from __future__ import annotations

from typing import Any

import numpy as np
from harness import named_examples, same

M = np.array([[2.0, -1.0, 0.0], [1.0, 3.0, 1.0]], np.float32)
SQ = np.array([[2.0, -1.0, 0.0], [1.0, 3.0, 1.0], [0.5, 0.0, 1.5]], np.float32)
U = np.array([[1.0, 2.0, 3.0], [0.0, -1.0, 0.5]], np.float32)
V = np.array([[4.0, 0.0, -1.0], [2.0, 2.0, 2.0]], np.float32)


@named_examples(
    ("svd values", lambda tf: tf.linalg.svd(tf.constant(M), compute_uv=False)),
    (
        "svd reconstruction",
        lambda tf: (lambda s, u, v: (s, tf.matmul(u * s, v, adjoint_b=True)))(*tf.linalg.svd(tf.constant(M))),
    ),
    ("svd shapes full", lambda tf: [t.shape for t in tf.linalg.svd(tf.constant(M), full_matrices=True)]),
    ("pinv", lambda tf: tf.linalg.pinv(tf.constant(M))),
    ("pinv square", lambda tf: tf.linalg.pinv(tf.constant(SQ))),
    (
        "pinv rank deficient",
        lambda tf: tf.linalg.pinv(tf.constant(np.outer([1.0, 2.0], [1.0, 0.5, 2.0]).astype(np.float32))),
    ),
    (
        "matrix_rank",
        lambda tf: (
            tf.linalg.matrix_rank(tf.constant(SQ)),
            tf.linalg.matrix_rank(tf.constant(np.outer([1.0, 2.0], [1.0, 0.5, 2.0]).astype(np.float32))),
        ),
    ),
    ("matrix_rank tol", lambda tf: tf.linalg.matrix_rank(tf.constant(SQ), tol=2.0)),
    ("cross", lambda tf: tf.linalg.cross(tf.constant(U), tf.constant(V))),
    ("cross ints", lambda tf: tf.linalg.cross(tf.constant([[1, 0, 0]]), tf.constant([[0, 1, 0]]))),
    ("set_diag", lambda tf: tf.linalg.set_diag(tf.constant(SQ), tf.constant([9.0, 8.0, 7.0]))),
    ("set_diag rectangular", lambda tf: tf.linalg.set_diag(tf.constant(M), tf.constant([9.0, 8.0]))),
    ("tensor_diag", lambda tf: tf.linalg.tensor_diag(tf.constant([1.0, 2.0, 3.0]))),
    ("tensor_diag matrix", lambda tf: tf.linalg.tensor_diag(tf.constant(M[:, :2].copy()))),
    ("tensor_diag_part", lambda tf: tf.linalg.tensor_diag_part(tf.constant(SQ))),
    ("tensor_diag_part rank 4", lambda tf: tf.linalg.tensor_diag_part(tf.reshape(tf.range(16.0), [2, 2, 2, 2]))),
    ("normalize", lambda tf: tf.linalg.normalize(tf.constant(M))),
    ("normalize axis", lambda tf: tf.linalg.normalize(tf.constant(M), axis=1)),
    ("normalize ord 1", lambda tf: tf.linalg.normalize(tf.constant(M), ord=1, axis=0)),
)
def test_more_of_tf_linalg_matches_tensorflow(case: Any) -> None:
    same(case, rtol=1e-4, atol=1e-5)
