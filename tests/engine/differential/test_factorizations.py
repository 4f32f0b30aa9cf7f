"""tf.linalg.qr, lu, lstsq and expm: values (QR's signs are TensorFlow's), shapes, dtypes, errors, gradients
(QR for square, tall and wide matrices; lstsq and expm through their compositions), eagerly, traced and under
a tape."""

from __future__ import annotations

from typing import Any

import numpy as np
from harness import EAGER, TRACED, examples, named_examples, same, same_program
from hypothesis import given
from hypothesis import strategies as st

A = np.array([[2.0, -1.0, 0.5], [1.0, 3.0, -2.0], [-4.0, 0.5, 1.0], [0.3, 0.2, 0.1]], np.float32)
SQUARE = A[:3]
BATCH = np.stack([SQUARE, SQUARE.T * 0.5])
COMPLEX = (SQUARE + 1j * SQUARE.T).astype(np.complex64)


@named_examples(
    ("qr tall", lambda tf: tf.linalg.qr(tf.constant(A))),
    ("qr square", lambda tf: tf.linalg.qr(tf.constant(SQUARE))),
    ("qr wide", lambda tf: tf.linalg.qr(tf.constant(A.T))),
    ("qr float64", lambda tf: tf.linalg.qr(tf.constant(A.astype(np.float64)))),
    ("qr batch", lambda tf: tf.linalg.qr(tf.constant(BATCH))),
    ("qr complex", lambda tf: tf.linalg.qr(tf.constant(COMPLEX))),
    ("qr full wide", lambda tf: tf.linalg.qr(tf.constant(A.T), full_matrices=True)),
    ("qr full square", lambda tf: tf.linalg.qr(tf.constant(SQUARE), full_matrices=True)),
    ("qr positional", lambda tf: tf.linalg.qr(tf.constant(A), True)),
    ("qr fields", lambda tf: (lambda res: [res.q, res.r, type(res).__name__])(tf.linalg.qr(tf.constant(A)))),
    ("qr of a vector", lambda tf: tf.linalg.qr(tf.constant(A[0]))),
    ("qr of ints", lambda tf: tf.linalg.qr(tf.constant([[1, 2], [3, 4]]))),
    ("lstsq tall", lambda tf: tf.linalg.lstsq(tf.constant(A), tf.constant(A[:, :2] + 1.0))),
    ("lstsq wide", lambda tf: tf.linalg.lstsq(tf.constant(A.T), tf.constant(np.ones((3, 1), np.float32)))),
    (
        "lstsq regularized",
        lambda tf: tf.linalg.lstsq(tf.constant(A), tf.constant(np.ones((4, 1), np.float32)), l2_regularizer=0.5),
    ),
    (
        "lstsq float64 batch",
        lambda tf: tf.linalg.lstsq(tf.constant(BATCH.astype(np.float64)), tf.constant(np.ones((2, 3, 2)))),
    ),
    ("lstsq exact path", lambda tf: tf.linalg.lstsq(tf.constant(A), tf.constant(A[:, :2] + 1.0), fast=False)),
    (
        "lstsq exact path wide",
        lambda tf: tf.linalg.lstsq(tf.constant(A.T), tf.constant(np.ones((3, 1), np.float32)), fast=False),
    ),
    ("lstsq rows differ", lambda tf: tf.linalg.lstsq(tf.constant(A), tf.constant(np.ones((3, 1), np.float32)))),
    ("expm", lambda tf: tf.linalg.expm(tf.constant(SQUARE))),
    ("expm float64", lambda tf: tf.linalg.expm(tf.constant(SQUARE.astype(np.float64)))),
    ("expm small norm", lambda tf: tf.linalg.expm(tf.constant(SQUARE * 0.01))),
    ("expm middle norms", lambda tf: tf.linalg.expm(tf.constant(np.stack([SQUARE * 0.08, SQUARE * 0.3])))),
    (
        "expm float64 norms",
        lambda tf: tf.linalg.expm(
            tf.constant(np.stack([SQUARE * s for s in (0.002, 0.03, 0.1, 0.25, 3.0)]).astype(np.float64))
        ),
    ),
    ("expm large norm", lambda tf: tf.linalg.expm(tf.constant(SQUARE * 3.0))),
    ("expm zeros", lambda tf: tf.linalg.expm(tf.zeros([2, 2]))),
    ("expm of ints", lambda tf: tf.linalg.expm(tf.constant([[1, 0], [0, 1]]))),
)
def test_factorizations_match_tensorflow(case: Any) -> None:
    same(case)


@named_examples(
    ("lu", lambda tf: tf.linalg.lu(tf.constant(SQUARE))),
    ("lu float64 batch", lambda tf: tf.linalg.lu(tf.constant(BATCH.astype(np.float64)))),
    ("lu int64 permutation", lambda tf: tf.linalg.lu(tf.constant(SQUARE), output_idx_type=tf.int64)),
    ("lu fields", lambda tf: (lambda res: [res.lu, res.p, type(res).__name__])(tf.linalg.lu(tf.constant(SQUARE)))),
    ("lu ties take the first row", lambda tf: tf.linalg.lu(tf.constant([[1.0, 2.0], [-1.0, 5.0]]))),
    ("lu not square", lambda tf: tf.linalg.lu(tf.constant(A))),
    ("lu of a vector", lambda tf: tf.linalg.lu(tf.constant(A[0]))),
    ("lu singular", lambda tf: tf.linalg.lu(tf.zeros([2, 2]))),
    ("lu of ints", lambda tf: tf.linalg.lu(tf.constant([[1, 2], [3, 4]]))),
)
def test_lu_matches_tensorflow(case: Any) -> None:
    same(case)


def test_lu_has_no_gradient_in_either_engine() -> None:
    def case(tf: Any, seen: list) -> None:
        x = tf.constant(SQUARE)
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.reduce_sum(tf.linalg.lu(x).lu)
        tape.gradient(y, x)

    same_program(case, "Lu")


def test_qr_gradient_of_full_tall_matrices_is_not_implemented() -> None:
    def case(tf: Any, seen: list) -> None:
        x = tf.constant(A)
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.reduce_sum(tf.linalg.qr(x, full_matrices=True).r)
        tape.gradient(y, x)

    same_program(case, "QrGrad not implemented when nrows > ncols and full_matrices is true")


def test_static_shapes_while_tracing() -> None:
    def case(tf: Any, seen: list) -> None:
        def f(x: Any) -> Any:
            return [*tf.linalg.qr(x), *tf.linalg.qr(x, full_matrices=True)]

        for spec in ([None, 4, 3], [2, None, 5], None):
            traced = tf.function(f).get_concrete_function(tf.TensorSpec(spec))
            seen.append([str(t.shape) for t in traced.outputs])
        for spec in ([None, 3, 3], [2, None, None], None):
            traced = tf.function(lambda x: tf.linalg.expm(x)).get_concrete_function(tf.TensorSpec(spec))
            seen.append([str(t.shape) for t in traced.outputs])
        lu = tf.function(lambda x: tf.linalg.lu(x)).get_concrete_function(tf.TensorSpec([None, 3, None]))
        seen.append([str(t.shape) for t in lu.outputs])

    same_program(case)


@examples
@given(rows=st.integers(1, 5), cols=st.integers(1, 5), seed=st.integers(0, 2**16), wide=st.booleans())
def test_qr_on_generated_matrices_matches_tensorflow(rows: int, cols: int, seed: int, wide: bool) -> None:
    m = np.random.default_rng(seed).normal(size=(rows, cols)).astype(np.float64 if wide else np.float32)
    same(lambda tf: tf.linalg.qr(tf.constant(m)), rtol=1e-4, atol=1e-5)


@examples
@given(size=st.integers(1, 5), seed=st.integers(0, 2**16), scale=st.sampled_from([0.01, 0.3, 1.0, 4.0]))
def test_lu_and_expm_on_generated_matrices_match_tensorflow(size: int, seed: int, scale: float) -> None:
    m = (np.random.default_rng(seed).normal(size=(size, size)) * scale).astype(np.float32)
    same(lambda tf: tf.linalg.lu(tf.constant(m)), modes=(EAGER, TRACED))
    same(lambda tf: tf.linalg.expm(tf.constant(m)), rtol=1e-4, atol=1e-5)


@named_examples(
    ("lu_reconstruct", lambda tf: tf.linalg.lu_reconstruct(*tf.linalg.lu(tf.constant(SQUARE)))),
    ("lu_reconstruct batch", lambda tf: tf.linalg.lu_reconstruct(*tf.linalg.lu(tf.constant(BATCH)))),
    ("lu_solve", lambda tf: tf.linalg.lu_solve(*tf.linalg.lu(tf.constant(SQUARE)), tf.constant(A[:3, :2] + 1.0))),
    (
        "lu_solve batch float64",
        lambda tf: tf.linalg.lu_solve(
            *tf.linalg.lu(tf.constant(BATCH.astype(np.float64))), tf.constant(np.ones((2, 3, 1)))
        ),
    ),
    ("lu_matrix_inverse", lambda tf: tf.linalg.lu_matrix_inverse(*tf.linalg.lu(tf.constant(SQUARE)))),
    ("lu_matrix_inverse batch", lambda tf: tf.linalg.lu_matrix_inverse(*tf.linalg.lu(tf.constant(BATCH)))),
)
def test_using_lu_factorizations_matches_tensorflow(case: Any) -> None:
    same(case, modes=(EAGER, TRACED))


def test_lu_solve_differentiates_through_its_right_hand_side() -> None:
    def case(tf: Any, seen: list) -> None:
        lower_upper, perm = tf.linalg.lu(tf.constant(SQUARE))
        rhs = tf.constant(A[:3, :2])
        with tf.GradientTape() as tape:
            tape.watch(rhs)
            x = tf.linalg.lu_solve(lower_upper, perm, rhs)
        seen.extend([x, tape.gradient(x, rhs)])

    same_program(case)
