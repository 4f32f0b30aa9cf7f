"""matmul (batched, transposed), inv, det, norm, tensordot, and the tf.nn activations and losses."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from harness import examples, named_examples, same
from hypothesis import assume, given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from strategies import ALL, FLOATS, NUMERIC, arrays, elements


@st.composite
def matmul_operands(draw: Any) -> tuple[np.ndarray, np.ndarray, bool, bool]:
    """Two operands that mostly fit (inner sizes equal, batch dims broadcast), with transpose flags."""
    dtype = draw(st.sampled_from(NUMERIC))
    batch_a, batch_b = draw(hnp.mutually_broadcastable_shapes(num_shapes=2, max_dims=2, max_side=3)).input_shapes
    n, k, m = draw(st.integers(0, 3)), draw(st.integers(1, 3)), draw(st.integers(0, 3))
    k_b = k if draw(st.integers(0, 5)) else draw(st.integers(1, 4))
    ta, tb = draw(st.booleans()), draw(st.booleans())
    shape_a = batch_a + ((k, n) if ta else (n, k))
    shape_b = batch_b + ((m, k_b) if tb else (k_b, m))
    if draw(st.integers(0, 7)) == 0:  # a vector: rank 1 is an error for matmul
        shape_a = shape_a[-1:]
    a = draw(hnp.arrays(np.dtype(dtype), shape_a, elements=elements(dtype, small=True, finite=True)))
    b = draw(hnp.arrays(np.dtype(dtype), shape_b, elements=elements(dtype, small=True, finite=True)))
    return a, b, ta, tb


@examples
@given(operands=matmul_operands())
def test_matmul_matches_tensorflow(operands: tuple[np.ndarray, np.ndarray, bool, bool]) -> None:
    a, b, ta, tb = operands
    tolerance = {"rtol": 1e-2, "atol": 1e-2} if a.dtype == np.float16 else {}
    same(lambda tf: tf.matmul(tf.constant(a), tf.constant(b), transpose_a=ta, transpose_b=tb), **tolerance)
    if not (ta or tb):
        same(lambda tf: tf.constant(a) @ tf.constant(b), **tolerance)


@st.composite
def square_matrices(draw: Any) -> np.ndarray:
    dtype = draw(st.sampled_from(["float32", "float64", "complex64", "complex128", "float16", "int32"]))
    n = draw(st.integers(1, 3))
    batch = draw(st.sampled_from([(), (2,)]))
    base = draw(hnp.arrays(np.float64, batch + (n, n), elements=st.floats(-2, 2)))
    # Well-conditioned: diagonally dominant, so inverses agree to float tolerance.
    matrix = base + 5 * np.eye(n)
    return matrix.astype(dtype)


@pytest.mark.parametrize("name", ["linalg.inv", "linalg.det"])
@examples
@given(matrix=square_matrices())
def test_inverse_and_determinant_match_tensorflow(name: str, matrix: np.ndarray) -> None:
    fn = {"linalg.inv": lambda tf: tf.linalg.inv, "linalg.det": lambda tf: tf.linalg.det}[name]
    same(lambda tf: fn(tf)(tf.constant(matrix)), rtol=1e-4)


@examples
@given(matrix=square_matrices(), columns=st.integers(1, 2))
def test_solve_matches_tensorflow(matrix: np.ndarray, columns: int) -> None:
    rhs = np.arange(matrix.shape[-1] * columns).reshape(matrix.shape[-1], columns)
    rhs = np.broadcast_to(rhs, matrix.shape[:-2] + rhs.shape).astype(matrix.dtype)
    same(lambda tf: tf.linalg.solve(tf.constant(matrix), tf.constant(rhs)), rtol=1e-3)


def test_solve_float16_inside_function_matches_tensorflow() -> None:
    matrix = np.array([[2.0, 1.0], [1.0, 3.0]], np.float16)
    rhs = np.array([[0.0], [1.0]], np.float16)
    same(lambda tf: tf.linalg.solve(tf.constant(matrix), tf.constant(rhs)), rtol=1e-3)


@examples
@given(
    a=arrays(st.sampled_from(NUMERIC), small=True, finite=True),
    order=st.sampled_from(["euclidean", 1, 2, np.inf, "fro"]),
    axis=st.sampled_from([None, 0, -1, [0, 1]]),
    keepdims=st.booleans(),
)
def test_norm_matches_tensorflow(a: np.ndarray, order: Any, axis: Any, keepdims: bool) -> None:
    assume(not (order == 2 and isinstance(axis, list)))  # the matrix 2-norm (an SVD) is not part of minitf
    tolerance = {"rtol": 1e-2, "atol": 1e-2} if a.dtype == np.float16 else {}
    same(lambda tf: tf.norm(tf.constant(a), ord=order, axis=axis, keepdims=keepdims), **tolerance)


@examples
@given(
    a=arrays(
        st.sampled_from(["float32", "float64", "int32"]),
        hnp.array_shapes(max_dims=3, max_side=3),
        small=True,
        finite=True,
    ),
    b=arrays(
        st.sampled_from(["float32", "float64", "int32"]),
        hnp.array_shapes(max_dims=3, max_side=3),
        small=True,
        finite=True,
    ),
    axes=st.sampled_from([0, 1, 2, [[0], [0]], [[1], [0]], [[-1], [0]]]),
)
def test_tensordot_matches_tensorflow(a: np.ndarray, b: np.ndarray, axes: Any) -> None:
    same(lambda tf: tf.tensordot(tf.constant(a), tf.constant(b), axes))


ACTIVATIONS = [
    "nn.relu",
    "nn.sigmoid",
    "nn.softmax",
    "nn.log_softmax",
    "math.softmax",
    "nn.tanh",
    "nn.elu",
    "nn.leaky_relu",
    "nn.softplus",
    "math.softplus",
    "nn.l2_loss",
    "linalg.trace",
]


@pytest.mark.parametrize("name", ACTIVATIONS)
@examples
@given(a=arrays(st.sampled_from(ALL)), axis=st.sampled_from([None, -1, 0, 1, 3]))
def test_activation_matches_tensorflow(name: str, a: np.ndarray, axis: Any) -> None:
    module, fn = name.split(".")
    takes_axis = fn in ("softmax", "log_softmax")
    # Next to +inf or nan, TensorFlow's oneDNN float32 softmax says 0 where the plain formula says nan; on a scalar
    # it raises AbortedError on CPUs where oneDNN runs it (test_softmax_of_a_scalar_is_an_error pins that case).
    assume(not (takes_axis and a.dtype.kind == "f" and bool(np.any(np.isposinf(a) | np.isnan(a)))))
    assume(not (takes_axis and a.ndim == 0))

    def case(tf: Any) -> Any:
        f = getattr(getattr(tf, module), fn)
        return f(tf.constant(a), axis=axis) if takes_axis else f(tf.constant(a))

    same(case, rtol=1e-2 if a.dtype == np.float16 else None, atol=1e-2 if a.dtype == np.float16 else None)


@st.composite
def logits_and_labels(draw: Any, sparse: bool) -> tuple[np.ndarray, np.ndarray]:
    dtype = draw(st.sampled_from(FLOATS))
    batch = draw(st.integers(0, 3))
    classes = draw(st.integers(1, 4))
    logits = draw(hnp.arrays(np.dtype(dtype), (batch, classes), elements=elements(dtype, small=True, finite=True)))
    if sparse:
        labels = draw(
            hnp.arrays(
                np.dtype(draw(st.sampled_from(["int32", "int64"]))),
                (batch,),
                elements=st.integers(-1 if draw(st.integers(0, 9)) == 0 else 0, classes - 1),
            )
        )
    else:
        raw = draw(hnp.arrays(np.float64, (batch, classes), elements=st.floats(0.01, 1)))
        labels = (raw / raw.sum(axis=-1, keepdims=True)).astype(dtype)
    return logits, labels


@examples
@given(data=logits_and_labels(sparse=False))
def test_softmax_cross_entropy_matches_tensorflow(data: tuple[np.ndarray, np.ndarray]) -> None:
    logits, labels = data
    same(
        lambda tf: tf.nn.softmax_cross_entropy_with_logits(labels=tf.constant(labels), logits=tf.constant(logits)),
        rtol=1e-2 if logits.dtype == np.float16 else 1e-4,
        atol=1e-2 if logits.dtype == np.float16 else 1e-5,
    )


@examples
@given(data=logits_and_labels(sparse=True))
def test_sparse_softmax_cross_entropy_matches_tensorflow(data: tuple[np.ndarray, np.ndarray]) -> None:
    logits, labels = data
    same(
        lambda tf: tf.nn.sparse_softmax_cross_entropy_with_logits(
            labels=tf.constant(labels), logits=tf.constant(logits)
        ),
        rtol=1e-2 if logits.dtype == np.float16 else 1e-4,
        atol=1e-2 if logits.dtype == np.float16 else 1e-5,
    )


@named_examples(
    ("matmul_vector_raises", lambda tf: tf.matmul(tf.constant([1.0, 2.0]), tf.constant([[1.0], [2.0]]))),
    ("matmul_mixed_dtypes", lambda tf: tf.matmul(tf.ones([2, 2]), tf.ones([2, 2], tf.int32))),
    ("matmul_ints", lambda tf: tf.matmul(tf.constant([[1, 2]]), tf.constant([[3], [4]]))),
    ("matmul_python_lists", lambda tf: tf.matmul([[1.0, 2.0]], [[3.0], [4.0]])),
    ("matmul_size_mismatch", lambda tf: tf.matmul(tf.ones([2, 3]), tf.ones([2, 3]))),
    ("matmul_batch_mismatch", lambda tf: tf.matmul(tf.ones([2, 2, 2]), tf.ones([3, 2, 2]))),
    ("matmul_adjoint", lambda tf: tf.matmul(tf.constant([[1 + 1j, 2]]), tf.constant([[1 + 0j, 2]]), adjoint_b=True)),
    ("matmul_uint8_no_kernel", lambda tf: tf.matmul(tf.ones([2, 2], tf.uint8), tf.ones([2, 2], tf.uint8))),
    ("matmul_bool", lambda tf: tf.matmul(tf.ones([2, 2], tf.bool), tf.ones([2, 2], tf.bool))),
    ("inv_singular", lambda tf: tf.linalg.inv(tf.constant([[1.0, 2.0], [2.0, 4.0]]))),
    ("inv_not_square", lambda tf: tf.linalg.inv(tf.ones([2, 3]))),
    ("inv_int", lambda tf: tf.linalg.inv(tf.constant([[1, 0], [0, 1]]))),
    ("det_vector", lambda tf: tf.linalg.det(tf.ones([3]))),
    ("det_float16", lambda tf: tf.linalg.det(tf.ones([2, 2], tf.float16))),
    ("norm_int_raises", lambda tf: tf.norm(tf.constant([3, 4]))),
    ("norm_of_zero", lambda tf: tf.norm(tf.constant([0.0, 0.0]))),
    ("norm_bad_ord", lambda tf: tf.norm(tf.constant([3.0, 4.0]), ord="nuc")),
    ("tensordot_mismatch", lambda tf: tf.tensordot(tf.ones([2, 3]), tf.ones([2, 3]), 1)),
    ("tensordot_dot_product", lambda tf: tf.tensordot(tf.constant([1.0, 2.0]), tf.constant([3.0, 4.0]), 1)),
    ("relu_int", lambda tf: tf.nn.relu(tf.constant([-1, 2]))),
    ("softmax_stable", lambda tf: tf.nn.softmax(tf.constant([1000.0, 1000.0]))),
    ("softmax_int_raises", lambda tf: tf.nn.softmax(tf.constant([1, 2]))),
    ("softmax_axis_out_of_range", lambda tf: tf.nn.softmax(tf.ones([2, 2]), axis=2)),
    ("log_softmax_axis0", lambda tf: tf.nn.log_softmax(tf.constant([[1.0, 2.0], [3.0, 5.0]]), axis=0)),
    (
        "xent_shape_mismatch",
        lambda tf: tf.nn.softmax_cross_entropy_with_logits(labels=tf.ones([2, 3]), logits=tf.ones([2, 4])),
    ),
    ("xent_python_lists", lambda tf: tf.nn.softmax_cross_entropy_with_logits(labels=[[0.0, 1.0]], logits=[[1.0, 2.0]])),
    (
        "sparse_xent_out_of_range",
        lambda tf: tf.nn.sparse_softmax_cross_entropy_with_logits(labels=tf.constant([2]), logits=tf.ones([1, 2])),
    ),
    (
        "sparse_xent_negative_label",
        lambda tf: tf.nn.sparse_softmax_cross_entropy_with_logits(
            labels=tf.constant(np.array([0, -1], np.int64)), logits=tf.constant(np.ones((2, 3), np.float32))
        ),
    ),
    (
        "sparse_xent_computed_label_out_of_range",
        lambda tf: tf.nn.sparse_softmax_cross_entropy_with_logits(
            labels=tf.constant(np.array([1, 0], np.int32)) * 3, logits=tf.constant(np.ones((2, 3), np.float32))
        ),
    ),
    (
        "sparse_xent_float_labels",
        lambda tf: tf.nn.sparse_softmax_cross_entropy_with_logits(labels=tf.constant([0.0]), logits=tf.ones([1, 2])),
    ),
    (
        "sparse_xent_rank_mismatch",
        lambda tf: tf.nn.sparse_softmax_cross_entropy_with_logits(labels=tf.constant([[0]]), logits=tf.ones([1, 2])),
    ),
)
def test_linalg_and_nn_rules_match_tensorflow(case: Any) -> None:
    same(case)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_softmax_of_a_scalar_is_an_error(dtype: str) -> None:
    """TensorFlow's generic kernel raises InvalidArgumentError; its oneDNN kernel, which runs float32 softmax on
    some CPUs only, raises AbortedError. minitf raises the generic kernel's error on every machine."""
    import tensorflow as real_tf

    import minitf

    with pytest.raises((real_tf.errors.InvalidArgumentError, real_tf.errors.AbortedError)):
        real_tf.nn.softmax(real_tf.constant(1.0, dtype=dtype))
    with pytest.raises(minitf.core.errors.InvalidArgumentError, match="logits must have >= 1 dimension"):
        minitf.api.nn.softmax(minitf.constant(1.0, dtype=dtype))
