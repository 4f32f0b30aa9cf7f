"""Matrix decompositions and the solves built on them: Cholesky, triangular solves, cholesky_solve,
log-determinants (slogdet, logdet) and the symmetric eigendecomposition (eigh, eigvalsh).

Kernels are NumPy's LAPACK calls (a triangular solve is back-substitution, row by row, as Eigen's is);
gradients are TensorFlow's rules, written with minitf ops so that they have gradients too; `logdet` and
`cholesky_solve` are composed of the ops here exactly as TensorFlow composes them.
"""

from __future__ import annotations

import collections
from collections.abc import Sequence
from typing import Any

import numpy as np

from minitf.core import dtypes, shape_rules
from minitf.core.conversion import convert_to_tensor
from minitf.core.errors import InvalidArgumentError, allowed_dtypes, op_error, same_dtype
from minitf.core.op import GradContext, Op, bind
from minitf.core.tensor import Tensor
from minitf.core.tensor_shape import TensorShape
from minitf.ops.array.creation import eye, zeros_like
from minitf.ops.array.shape_ops import expand_dims
from minitf.ops.linalg.linalg_ops import adjoint, determinant_rule, inv, matmul, square_matrix_rule
from minitf.ops.linalg.matrix_ops import band_part, diag, diag_part
from minitf.ops.math.binary_math import divide_no_nan
from minitf.ops.math.cast import cast
from minitf.ops.math.elementwise import ones_like_, unbroadcast
from minitf.ops.math.reductions import reduce_sum
from minitf.ops.math.unary_math import log, negative, real

Specs = list[tuple[TensorShape, dtypes.DType]]
FC = dtypes.FLOAT_OR_COMPLEX


def _check(name: str) -> Any:
    def check(inputs: Sequence[Tensor], attrs: dict) -> None:
        allowed_dtypes(name, FC, inputs[0].dtype)
        if len(inputs) > 1:
            same_dtype(name, inputs)

    return check


def _square(x: np.ndarray, name: str) -> None:
    if np.ndim(x) < 2:
        hint = "a matrix (or a batch of them) has at least two axes."
        raise op_error(InvalidArgumentError, name, f"Input tensor 0 must have rank >= 2, got {np.ndim(x)}", hint)
    if x.shape[-1] != x.shape[-2]:
        hint = f"the last two dimensions must be equal; these matrices are {x.shape[-2]} x {x.shape[-1]}."
        raise op_error(InvalidArgumentError, name, "Input matrix must be square.", hint)


def set_diagonal(x: Tensor, d: Tensor) -> Tensor:
    """x with its main diagonal replaced by d (band_part and diag, no op of its own)."""
    return x - diag(diag_part(x)) + diag(d)


# ---------------------------------------------------------------------------------------------------
# Cholesky
# ---------------------------------------------------------------------------------------------------


def _cholesky_kernel(x: np.ndarray) -> np.ndarray:
    _square(x, "Cholesky")
    if x.dtype == np.float16:
        return _cholesky_kernel(x.astype(np.float32)).astype(np.float16)
    try:
        return np.linalg.cholesky(x).astype(x.dtype)
    except np.linalg.LinAlgError:
        raise op_error(
            InvalidArgumentError,
            "Cholesky",
            "Cholesky decomposition was not successful. The input might not be valid.",
            "the matrix must be symmetric (Hermitian) and positive definite.",
        ) from None


def _cholesky_grad(c: GradContext, g: Tensor) -> list:
    low = c.out
    n = low.shape[-1]
    low_inverse = triangular_solve(low, eye(n, batch_shape=low.shape[:-2].as_list(), dtype=low.dtype))
    middle = matmul(low, g, adjoint_a=True)
    middle = set_diagonal(middle, 0.5 * diag_part(middle))
    middle = band_part(middle, -1, 0)
    grad = matmul(matmul(low_inverse, middle, adjoint_a=True), low_inverse)
    grad = grad + adjoint(grad)
    return [grad * 0.5]


Cholesky = Op("Cholesky", _cholesky_kernel, check=_check("Cholesky"), shape=square_matrix_rule, grad=_cholesky_grad)


def cholesky(input: Any, name: str | None = None) -> Tensor:
    """The lower-triangular L with L L^H = input, for a symmetric (Hermitian) positive definite matrix."""
    return bind(Cholesky, convert_to_tensor(input))


# ---------------------------------------------------------------------------------------------------
# Triangular solves
# ---------------------------------------------------------------------------------------------------


def _substitute(a: np.ndarray, b: np.ndarray, lower: bool) -> np.ndarray:
    """Solve a x = b for triangular a by substitution, one row at a time (each batch and column at once)."""
    n = a.shape[-1]
    x = np.zeros(np.broadcast_shapes(a.shape[:-2], b.shape[:-2]) + b.shape[-2:], dtype=b.dtype)
    rows = range(n) if lower else range(n - 1, -1, -1)
    for i in rows:
        known = slice(0, i) if lower else slice(i + 1, n)
        partial = np.einsum("...k,...kj->...j", a[..., i, known], x[..., known, :])
        x[..., i, :] = (b[..., i, :] - partial) / a[..., i, i, None]
    return x


def _triangular_solve_kernel(matrix: np.ndarray, rhs: np.ndarray, lower: bool, adjoint: bool) -> np.ndarray:
    _square(matrix, "MatrixTriangularSolve")
    if matrix.shape[-1] != rhs.shape[-2]:
        raise op_error(
            InvalidArgumentError,
            "MatrixTriangularSolve",
            f"Input matrix and right-hand side must have "
            f"the same number of rows: {matrix.shape[-2]} vs. {rhs.shape[-2]}",
        )
    a = np.tril(matrix) if lower else np.triu(matrix)
    if adjoint:
        a, lower = np.swapaxes(a, -1, -2).conj(), not lower
    with np.errstate(divide="ignore", invalid="ignore"):
        return _substitute(a, rhs, lower).astype(rhs.dtype)


def _triangular_solve_grad(c: GradContext, g: Tensor) -> list:
    a, lower, adjoint_a = c.x, c.attrs["lower"], c.attrs["adjoint"]
    grad_b = triangular_solve(a, g, lower=lower, adjoint=not adjoint_a)
    if adjoint_a:
        grad_a = negative(matmul(c.out, grad_b, adjoint_b=True))
    else:
        grad_a = negative(matmul(grad_b, c.out, adjoint_b=True))
    grad_a = band_part(grad_a, -1, 0) if lower else band_part(grad_a, 0, -1)
    return [unbroadcast(grad_a, a), unbroadcast(grad_b, c.y)]


def _triangular_solve_shape(shapes_: Sequence[TensorShape], types: Sequence[dtypes.DType], attrs: dict) -> Specs:
    matrix, rhs = shapes_
    if matrix.rank is None or rhs.rank is None:
        return [(TensorShape(None), types[0])]
    rows = shape_rules.merge_dims(matrix[-1], rhs[-2], "")
    batch = shape_rules.broadcast_shapes(matrix[:-2], rhs[:-2])
    return [(batch.concatenate(TensorShape([rows, rhs[-1]])), types[0])]


MatrixTriangularSolve = Op(
    "MatrixTriangularSolve",
    _triangular_solve_kernel,
    check=_check("MatrixTriangularSolve"),
    shape=_triangular_solve_shape,
    grad=_triangular_solve_grad,
)


def triangular_solve(
    matrix: Any, rhs: Any, lower: bool = True, adjoint: bool = False, name: str | None = None
) -> Tensor:
    """x with matrix @ x = rhs, reading only the lower (or upper) triangle of `matrix`."""
    a = convert_to_tensor(matrix)
    return bind(
        MatrixTriangularSolve, a, convert_to_tensor(rhs, dtype=a.dtype), lower=bool(lower), adjoint=bool(adjoint)
    )


def cholesky_solve(chol: Any, rhs: Any, name: str | None = None) -> Tensor:
    """x with A x = rhs, given chol = cholesky(A): two triangular solves."""
    y = triangular_solve(chol, rhs, lower=True, adjoint=False)
    return triangular_solve(chol, y, lower=True, adjoint=True)


# ---------------------------------------------------------------------------------------------------
# Log-determinants
# ---------------------------------------------------------------------------------------------------


def _slogdet_kernel(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    _square(x, "LogMatrixDeterminant")
    sign, logabs = np.linalg.slogdet(x.astype(np.float32) if x.dtype == np.float16 else x)
    return np.asarray(sign).astype(x.dtype), np.asarray(logabs).astype(x.dtype)


def _slogdet_grad(c: GradContext, grads: list) -> list:
    g = grads[1]
    if g is None:
        return [zeros_like(c.x)]
    return [expand_dims(expand_dims(g, -1), -1) * inv(c.x, adjoint=True)]


LogMatrixDeterminant = Op(
    "LogMatrixDeterminant",
    _slogdet_kernel,
    check=_check("LogMatrixDeterminant"),
    shape=lambda s, t, a: determinant_rule(s, t, a) * 2,
    grad=_slogdet_grad,
    num_outputs=2,
)


# What TensorFlow's slogdet returns: a named pair.
SignAndLogDeterminant = collections.namedtuple("LogMatrixDeterminant", ["sign", "log_abs_determinant"])  # type: ignore[name-match]  # TensorFlow's class name


def slogdet(input: Any, name: str | None = None) -> tuple[Tensor, Tensor]:
    """(sign, log|det|) of each matrix: the determinant without overflow."""
    return SignAndLogDeterminant(*bind(LogMatrixDeterminant, convert_to_tensor(input)))


def logdet(matrix: Any, name: str | None = None) -> Tensor:
    """log det of a Hermitian positive definite matrix, from its Cholesky factor's diagonal."""
    low = cholesky(matrix)
    return 2.0 * reduce_sum(log(real(diag_part(low))), axis=[-1])


# ---------------------------------------------------------------------------------------------------
# Symmetric eigendecomposition
# ---------------------------------------------------------------------------------------------------


def _eigh_kernel(x: np.ndarray, compute_v: bool) -> tuple[np.ndarray, np.ndarray]:
    _square(x, "SelfAdjointEigV2")
    values, vectors = np.linalg.eigh(x, UPLO="L")
    real = np.abs(np.zeros((), x.dtype)).dtype
    return values.astype(real), (vectors.astype(x.dtype) if compute_v else np.zeros((0,), x.dtype))


def _eigh_shape(shapes_: Sequence[TensorShape], types: Sequence[dtypes.DType], attrs: dict) -> Specs:
    square = square_matrix_rule(shapes_, types, attrs)[0][0]
    real = {dtypes.complex64: dtypes.float32, dtypes.complex128: dtypes.float64}.get(types[0], types[0])
    if square.rank is None:
        return [(TensorShape(None), real), (TensorShape(None), types[0])]
    return [(square[:-1], real), (square if attrs["compute_v"] else TensorShape([0]), types[0])]


def _eigh_grad(c: GradContext, grads: list) -> list:
    values = c.outputs[0]
    g_e, g_v = grads
    if g_e is None:
        g_e = zeros_like(values)
    if c.attrs["compute_v"]:
        vectors = c.outputs[1]
        gaps = expand_dims(values, -2) - expand_dims(values, -1)
        f = set_diagonal(divide_no_nan(ones_like_(gaps), gaps), zeros_like(values))
        inner = diag(cast(g_e, vectors.dtype))
        if g_v is not None:
            inner = inner + cast(f, vectors.dtype) * matmul(vectors, g_v, adjoint_a=True)
        grad = matmul(vectors, matmul(inner, vectors, adjoint_b=True))
    else:
        _, vectors = bind(SelfAdjointEigV2, c.x, compute_v=True)
        grad = matmul(vectors, matmul(diag(cast(g_e, vectors.dtype)), vectors, adjoint_b=True))
    grad = band_part(grad + adjoint(grad), -1, 0)
    return [set_diagonal(grad, 0.5 * diag_part(grad))]


SelfAdjointEigV2 = Op(
    "SelfAdjointEigV2",
    _eigh_kernel,
    check=_check("SelfAdjointEigV2"),
    shape=_eigh_shape,
    grad=_eigh_grad,
    num_outputs=2,
)


def eigh(tensor: Any, name: str | None = None) -> tuple[Tensor, Tensor]:
    """Eigenvalues (ascending) and eigenvectors (columns) of a symmetric (Hermitian) matrix; only its lower
    triangle is read."""
    return tuple(bind(SelfAdjointEigV2, convert_to_tensor(tensor), compute_v=True))


def eigvalsh(tensor: Any, name: str | None = None) -> Tensor:
    """The eigenvalues of a symmetric (Hermitian) matrix, ascending."""
    return bind(SelfAdjointEigV2, convert_to_tensor(tensor), compute_v=False)[0]
