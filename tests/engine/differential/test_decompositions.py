"""tf.linalg's decompositions and solves (cholesky, triangular_solve, cholesky_solve, slogdet, logdet, eigh,
eigvalsh): values, dtypes, errors, traced and under a tape, on both engines."""

from __future__ import annotations

from typing import Any

import numpy as np
from harness import named_examples, same

M = np.array([[2.0, -1.0, 0.0], [1.0, 3.0, 1.0], [0.5, 0.0, 1.5]], np.float32)
SPD = (M @ M.T + 3 * np.eye(3)).astype(np.float32)
SPD2 = np.stack([SPD, np.diag([1.0, 4.0, 9.0]).astype(np.float32)])
LOW = np.tril(M) + 2 * np.eye(3, dtype=np.float32)
RHS = np.array([[1.0, 0.0], [2.0, -1.0], [0.5, 3.0]], np.float32)
SYM = np.array([[2.0, 1.0, 0.0], [1.0, -3.0, 0.5], [0.0, 0.5, 1.0]], np.float32)


@named_examples(
    ("cholesky", lambda tf: tf.linalg.cholesky(tf.constant(SPD))),
    ("cholesky batch", lambda tf: tf.linalg.cholesky(tf.constant(SPD2))),
    ("cholesky float64", lambda tf: tf.linalg.cholesky(tf.constant(SPD.astype(np.float64)))),
    ("cholesky not square", lambda tf: tf.linalg.cholesky(tf.ones([2, 3]))),
    ("cholesky ints", lambda tf: tf.linalg.cholesky(tf.constant([[4, 0], [0, 9]]))),
    ("triangular_solve", lambda tf: tf.linalg.triangular_solve(tf.constant(LOW), tf.constant(RHS))),
    (
        "triangular_solve upper",
        lambda tf: tf.linalg.triangular_solve(tf.constant(LOW.T.copy()), tf.constant(RHS), lower=False),
    ),
    (
        "triangular_solve adjoint",
        lambda tf: tf.linalg.triangular_solve(tf.constant(LOW), tf.constant(RHS), adjoint=True),
    ),
    (
        "triangular_solve reads one triangle",
        lambda tf: tf.linalg.triangular_solve(tf.constant(M + 3 * np.eye(3, dtype=np.float32)), tf.constant(RHS)),
    ),
    ("triangular_solve size mismatch", lambda tf: tf.linalg.triangular_solve(tf.constant(LOW), tf.ones([2, 1]))),
    ("cholesky_solve", lambda tf: tf.linalg.cholesky_solve(tf.linalg.cholesky(tf.constant(SPD)), tf.constant(RHS))),
    ("slogdet", lambda tf: tf.linalg.slogdet(tf.constant(M))),
    ("slogdet negative", lambda tf: tf.linalg.slogdet(tf.constant(M[::-1].copy()))),
    ("slogdet batch", lambda tf: tf.linalg.slogdet(tf.constant(SPD2))),
    ("logdet", lambda tf: tf.linalg.logdet(tf.constant(SPD))),
    ("eigvalsh", lambda tf: tf.linalg.eigvalsh(tf.constant(SYM))),
    ("eigvalsh batch", lambda tf: tf.linalg.eigvalsh(tf.constant(SPD2))),
    (
        "eigh values and reconstruction",
        lambda tf: (lambda e, v: (e, tf.matmul(v * e, v, transpose_b=True)))(*tf.linalg.eigh(tf.constant(SYM))),
    ),
    ("eigh reads the lower triangle", lambda tf: tf.linalg.eigh(tf.constant(np.tril(SYM)))[0]),
)
def test_decompositions_match_tensorflow(case: Any) -> None:
    same(case, rtol=1e-4, atol=1e-5)
