"""QR and LU factorizations, least squares and the matrix exponential: tf.linalg.qr, lu, lstsq, expm.

* `Qr` is LAPACK's Householder QR (NumPy's), whose signs are TensorFlow's (Eigen's Householder reflections
  choose them the same way: R's diagonal has the opposite sign of the column's leading entry); its gradient is
  TensorFlow's rule, for square, tall (not with full_matrices) and wide matrices.
* `Lu` is Gaussian elimination with partial pivoting (the largest pivot in the column, the first on a tie), as
  Eigen's PartialPivLU: L (unit diagonal, not stored) and U packed in one matrix, and the row permutation p
  with P A = L U. TensorFlow has no gradient for it; neither has minitf.
* `lstsq` is composed as TensorFlow composes its fast path: the normal equations solved by Cholesky
  (A^H A + l2 I for tall matrices, A A^H + l2 I and then A^H for wide ones), so its gradient follows; with
  fast=False it is the minimum-norm least-squares solution (`MatrixSolveLs`, no gradient).
* `expm` is TensorFlow's scaling and squaring with Pade approximants (degrees 3, 5, 7 for single precision,
  up to 13 for double), chosen by the matrix's 1-norm, composed of minitf ops, so it traces and differentiates.
"""

from __future__ import annotations

import collections
from collections.abc import Sequence
from typing import Any

import numpy as np

from minitf.core import dtypes
from minitf.core.conversion import convert_to_tensor
from minitf.core.errors import InvalidArgumentError, allowed_dtypes, op_error
from minitf.core.op import GradContext, Op, bind
from minitf.core.shape_rules import merge_dims, need_rank
from minitf.core.tensor import Tensor
from minitf.core.tensor_shape import TensorShape
from minitf.function.control_flow.loops import while_loop
from minitf.ops.array.creation import one_hot, ones_like, zeros_like
from minitf.ops.array.gather_scatter import gather
from minitf.ops.array.join_split import concat
from minitf.ops.array.sort_ops import argsort
from minitf.ops.array.where import where
from minitf.ops.linalg.decomposition_ops import cholesky, cholesky_solve, triangular_solve
from minitf.ops.linalg.linalg_ops import adjoint, matmul, solve
from minitf.ops.linalg.matrix_ops import band_part, diag, diag_part
from minitf.ops.math.binary_math import maximum
from minitf.ops.math.cast import cast
from minitf.ops.math.comparisons import less
from minitf.ops.math.reductions import reduce_max, reduce_sum
from minitf.ops.math.unary_math import abs as abs_
from minitf.ops.math.unary_math import floor, log, real

Specs = list[tuple[TensorShape, dtypes.DType]]
FC = dtypes.FLOAT_OR_COMPLEX

QrResult = collections.namedtuple("Qr", ["q", "r"])  # type: ignore[name-match]  # TensorFlow's class name
LuResult = collections.namedtuple("Lu", ["lu", "p"])  # type: ignore[name-match]  # TensorFlow's class name


def _check(name: str) -> Any:
    def check(inputs: Sequence[Tensor], attrs: dict) -> None:
        allowed_dtypes(name, FC, inputs[0].dtype)

    return check


def _rank_at_least_2(x: np.ndarray, op: str, tensor: str = "tensor") -> None:
    if np.ndim(x) < 2:
        raise InvalidArgumentError(
            None,
            None,
            f"Input {tensor} must have rank >= 2, got {np.ndim(x)} [Op:{op}] "
            "name: \nHint: a matrix (or a batch of them) has at least two axes.",
        )


def _via_float32(x: np.ndarray) -> tuple[np.ndarray, Any]:
    """float16 is factorized in float32, as Eigen computes half precision."""
    return (x.astype(np.float32), np.float16) if x.dtype == np.float16 else (x, x.dtype)


# ---------------------------------------------------------------------------------------------------
# QR
# ---------------------------------------------------------------------------------------------------


def _qr_kernel(x: np.ndarray, full_matrices: bool) -> tuple[np.ndarray, np.ndarray]:
    _rank_at_least_2(x, "Qr", "tensor 0")
    a, dtype = _via_float32(x)
    q, r = np.linalg.qr(a, mode="complete" if full_matrices else "reduced")
    return q.astype(dtype), r.astype(dtype)


def _qr_shape(shapes: Sequence[TensorShape], types: Sequence[dtypes.DType], attrs: dict) -> Specs:
    x = shapes[0]
    need_rank(x, 2, at_least=True)
    if x.rank is None:
        return [(TensorShape(None), types[0])] * 2
    m, n = x[-2], x[-1]
    k = None if m is None or n is None else min(m, n)
    batch = x[:-2]
    if attrs["full_matrices"]:
        return [(batch + TensorShape([m, m]), types[0]), (batch + TensorShape([m, n]), types[0])]
    return [(batch + TensorShape([m, k]), types[0]), (batch + TensorShape([k, n]), types[0])]


def _solve_right_upper(x: Tensor, r: Tensor) -> Tensor:
    """x R^-1 for upper-triangular R, as (R^-H x^H)^H."""
    return adjoint(triangular_solve(r, adjoint(x), lower=False, adjoint=False))


def _qr_grad_tall(q: Tensor, r: Tensor, dq: Tensor, dr: Tensor) -> Tensor:
    """The gradient for m >= n (reduced Q): Q (dR + tril(Q^H dQ - ..., R dR^H - ...) R^-H) + (dQ - Q Q^H dQ) R^-H."""
    qdq = matmul(q, dq, adjoint_a=True)
    rdr = matmul(r, dr, adjoint_b=True)
    lower = band_part(qdq - adjoint(qdq) + rdr - adjoint(rdr), -1, 0)
    result = matmul(q, dr + _solve_right_upper(lower, r)) + _solve_right_upper(dq - matmul(q, qdq), r)
    if q.dtype.is_complex:  # only the imaginary part of the diagonal of R dR^H - (Q^H dQ)^H is left to correct
        d = diag_part(rdr - adjoint(qdq))
        correction = diag(d - cast(real(d), q.dtype))
        result = result + _solve_right_upper(matmul(q, adjoint(correction)), r)
    return result


def _qr_grad(c: GradContext, grads: list) -> list:
    q, r = c.outputs
    dq = zeros_like(q) if grads[0] is None else grads[0]
    dr = zeros_like(r) if grads[1] is None else grads[1]
    rows, cols = q.shape[-2], r.shape[-1]
    if r.shape.rank is None or r.shape[-2] is None or cols is None:
        raise NotImplementedError(f"QrGrad not implemented with dynamic shapes. Received r.shape: {r.shape}")
    if r.shape[-2] > cols and q.shape[-2] == q.shape[-1]:
        raise NotImplementedError(
            "QrGrad not implemented when nrows > ncols and full_matrices is true. Received "
            f"r.shape={tuple(r.shape.as_list())} with nrows={r.shape[-2]}and ncols={cols}."
        )
    if rows >= cols:
        return [_qr_grad_tall(q, r, dq, dr)]
    a = c.inputs[0]
    y, u = a[..., :, rows:], r[..., :, :rows]
    dv, du = dr[..., :, rows:], dr[..., :, :rows]
    dx = _qr_grad_tall(q, u, dq + matmul(y, dv, adjoint_b=True), du)
    return [concat([dx, matmul(q, dv)], axis=-1)]


Qr = Op("Qr", _qr_kernel, check=_check("Qr"), shape=_qr_shape, grad=_qr_grad, num_outputs=2)


def qr(input: Any, full_matrices: bool = False, name: str | None = None) -> QrResult:
    """Q with orthonormal columns and upper-triangular R with Q R = input (Householder reflections)."""
    q, r = bind(Qr, convert_to_tensor(input), full_matrices=bool(full_matrices))
    return QrResult(q, r)


# ---------------------------------------------------------------------------------------------------
# LU
# ---------------------------------------------------------------------------------------------------


def _lu_one(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    a = a.copy()
    n = a.shape[0]
    perm = np.arange(n)
    for k in range(n):
        pivot = k + int(np.argmax(np.abs(a[k:, k])))
        if pivot != k:
            a[[k, pivot]] = a[[pivot, k]]
            perm[[k, pivot]] = perm[[pivot, k]]
        if a[k, k] != 0:
            a[k + 1 :, k] /= a[k, k]
            a[k + 1 :, k + 1 :] -= np.outer(a[k + 1 :, k], a[k, k + 1 :])
    return a, perm


def _lu_kernel(x: np.ndarray, output_idx_type: dtypes.DType) -> tuple[np.ndarray, np.ndarray]:
    _rank_at_least_2(x, "Lu")
    if x.shape[-1] != x.shape[-2]:
        raise op_error(
            InvalidArgumentError,
            "Lu",
            "Input matrix must be square.",
            "LU factorizes square matrices; tf.linalg.qr or lstsq take rectangular ones.",
        )
    a, dtype = _via_float32(x)
    flat = a.reshape((-1,) + a.shape[-2:])
    lus, perms = np.empty_like(flat), np.empty(flat.shape[:2], np.int64)
    for i, matrix in enumerate(flat):
        lus[i], perms[i] = _lu_one(matrix)
    if flat.size and np.any(np.diagonal(lus, axis1=-2, axis2=-1) == 0):
        raise op_error(InvalidArgumentError, "Lu", "Input is not invertible.", "a singular matrix has a zero pivot.")
    return lus.reshape(x.shape).astype(dtype), perms.reshape(x.shape[:-1]).astype(output_idx_type._np)


def _lu_shape(shapes: Sequence[TensorShape], types: Sequence[dtypes.DType], attrs: dict) -> Specs:
    x = shapes[0]
    need_rank(x, 2, at_least=True)
    if x.rank is None:
        return [(TensorShape(None), types[0]), (TensorShape(None), attrs["output_idx_type"])]
    size = merge_dims(x[-2], x[-1], "")
    return [(x[:-2] + TensorShape([size, size]), types[0]), (x[:-2] + TensorShape([size]), attrs["output_idx_type"])]


def _no_lu_gradient(c: GradContext, grads: list) -> list:
    raise LookupError("gradient registry has no entry for: Lu")


Lu = Op("Lu", _lu_kernel, check=_check("Lu"), shape=_lu_shape, grad=_no_lu_gradient, num_outputs=2)


def lu(input: Any, output_idx_type: Any = dtypes.int32, name: str | None = None) -> LuResult:
    """P A = L U with partial pivoting: L and U packed in `lu`, the permutation as row indices `p`."""
    index_type = dtypes.as_dtype(output_idx_type)
    if index_type not in (dtypes.int32, dtypes.int64):
        raise TypeError(
            f"Value passed to parameter 'output_idx_type' has DataType {index_type.name} not in list "
            "of allowed values: int32, int64"
        )
    packed, perm = bind(Lu, convert_to_tensor(input), output_idx_type=index_type)
    return LuResult(packed, perm)


# ---------------------------------------------------------------------------------------------------
# Least squares
# ---------------------------------------------------------------------------------------------------


def _solve_ls_kernel(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    x, dtype = _via_float32(a)
    batch = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    aa = np.broadcast_to(x, batch + a.shape[-2:]).reshape((-1,) + a.shape[-2:])
    bb = np.broadcast_to(b.astype(x.dtype), batch + b.shape[-2:]).reshape((-1,) + b.shape[-2:])
    out = (
        np.stack([np.linalg.lstsq(m, r, rcond=None)[0] for m, r in zip(aa, bb)])
        if len(aa)
        else np.zeros((0, a.shape[-1], b.shape[-1]), x.dtype)
    )
    return out.reshape(batch + (a.shape[-1], b.shape[-1])).astype(dtype)


def _solve_ls_shape(shapes: Sequence[TensorShape], types: Sequence[dtypes.DType], attrs: dict) -> Specs:
    a, b = shapes
    if a.rank is None or b.rank is None:
        return [(TensorShape(None), types[0])]
    need_rank(a, 2, at_least=True)
    need_rank(b, 2, at_least=True)
    merge_dims(a[-2], b[-2], "")
    return [(a[:-2] + TensorShape([a[-1], b[-1]]), types[0])]


def _no_exact_gradient(c: GradContext, g: Tensor) -> list:
    raise ValueError("Gradient not defined for fast=False")


MatrixSolveLs = Op(
    "MatrixSolveLs", _solve_ls_kernel, check=_check("MatrixSolveLs"), shape=_solve_ls_shape, grad=_no_exact_gradient
)


def lstsq(matrix: Any, rhs: Any, l2_regularizer: Any = 0.0, fast: bool = True, name: str | None = None) -> Tensor:
    """X minimizing ||A X - B||^2 + l2 ||X||^2 (the minimum-norm solution of a wide system)."""
    a = convert_to_tensor(matrix)
    b = convert_to_tensor(rhs, dtype=a.dtype)
    if not fast:
        return bind(MatrixSolveLs, a, b)
    l2 = cast(convert_to_tensor(l2_regularizer), a.dtype)
    rows, cols = a.shape[-2], a.shape[-1]
    tall = rows is None or cols is None or rows >= cols
    gram = matmul(a, a, adjoint_a=True) if tall else matmul(a, a, adjoint_b=True)
    chol = cholesky(gram + l2 * diag(ones_like(gram[..., 0])))
    if tall:
        return cholesky_solve(chol, matmul(a, b, adjoint_a=True))
    return matmul(a, cholesky_solve(chol, b), adjoint_a=True)


# ---------------------------------------------------------------------------------------------------
# The matrix exponential
# ---------------------------------------------------------------------------------------------------

PADE = {  # Higham's coefficients b_0 ... b_m of the [m/m] Pade approximants of exp
    3: [120.0, 60.0, 12.0, 1.0],
    5: [30240.0, 15120.0, 3360.0, 420.0, 30.0, 1.0],
    7: [17297280.0, 8648640.0, 1995840.0, 277200.0, 25200.0, 1512.0, 56.0, 1.0],
    9: [17643225600.0, 8821612800.0, 2075673600.0, 302702400.0, 30270240.0, 2162160.0, 110880.0, 3960.0, 90.0, 1.0],
    13: [
        64764752532480000.0,
        32382376266240000.0,
        7771770303897600.0,
        1187353796428800.0,
        129060195264000.0,
        10559470521600.0,
        670442572800.0,
        33522128640.0,
        1323241920.0,
        40840800.0,
        960960.0,
        16380.0,
        182.0,
        1.0,
    ],
}
# Up to which 1-norm each degree is accurate enough, and the norm scaled down to before degree 7 or 13.
SINGLE = ([3, 5, 7], [4.258730016922831e-001, 1.880152677804762e000], 3.925724783138660)
DOUBLE = (
    [3, 5, 7, 9, 13],
    [1.495585217958292e-002, 2.539398330063230e-001, 9.504178996162932e-001, 2.097847961257068e000],
    5.371920351148152,
)


def _pade(a: Tensor, degree: int) -> tuple[Tensor, Tensor]:
    """U (odd powers) and V (even powers) of the degree-m Pade approximant, exp(A) ~ (V - U)^-1 (V + U)."""
    b = PADE[degree]
    ident = diag(ones_like(a[..., 0]))  # the batch's identities, whatever of its shape is known
    a2 = matmul(a, a)
    if degree <= 9:
        powers = [ident, a2]
        while len(powers) <= degree // 2:
            powers.append(matmul(powers[-1], a2))
        odd = sum((b[2 * k + 1] * p for k, p in enumerate(powers)), zeros_like(a))
        even = sum((b[2 * k] * p for k, p in enumerate(powers)), zeros_like(a))
        return matmul(a, odd), even
    a4 = matmul(a2, a2)
    a6 = matmul(a4, a2)
    odd = matmul(a6, b[13] * a6 + b[11] * a4 + b[9] * a2) + b[7] * a6 + b[5] * a4 + b[3] * a2 + b[1] * ident
    even = matmul(a6, b[12] * a6 + b[10] * a4 + b[8] * a2) + b[6] * a6 + b[4] * a4 + b[2] * a2 + b[0] * ident
    return matmul(a, odd), even


def expm(input: Any, name: str | None = None) -> Tensor:
    """exp(A) = I + A + A^2/2! + ... by scaling and squaring with a Pade approximant."""
    a = convert_to_tensor(input)
    if a.dtype not in (dtypes.float16, dtypes.float32, dtypes.float64, dtypes.complex64, dtypes.complex128):
        raise ValueError(f"tf.linalg.expm does not support matrices of type {a.dtype}")
    norm = reduce_max(reduce_sum(abs_(a), axis=-2), axis=-1)[..., None, None]
    degrees, bounds, largest = DOUBLE if a.dtype in (dtypes.float64, dtypes.complex128) else SINGLE
    squarings = maximum(floor(log(norm / largest) / log(convert_to_tensor(2.0, dtype=norm.dtype))), zeros_like(norm))
    scaled = a / cast(2.0**squarings, a.dtype)
    pairs = [_pade(a, d) for d in degrees[:-1]] + [_pade(scaled, degrees[-1])]
    u, v = pairs[-1]
    for (u_k, v_k), bound in reversed(list(zip(pairs[:-1], bounds))):  # the lowest degree accurate enough
        small = less(norm, bound)
        u, v = where(small, u_k, u), where(small, v_k, v)
    result = solve(v - u, v + u)
    most = reduce_max(squarings)

    def square_where_needed(i: Tensor, r: Tensor) -> tuple[Tensor, Tensor]:
        return i + 1.0, where(less(i, squarings), matmul(r, r), r)

    _, result = while_loop(
        lambda i, r: less(i, most), square_where_needed, [convert_to_tensor(0.0, dtype=norm.dtype), result]
    )
    return result


# ---------------------------------------------------------------------------------------------------
# Using an LU factorization
# ---------------------------------------------------------------------------------------------------


def _lu_factors(lower_upper: Tensor) -> tuple[Tensor, Tensor]:
    """L (the strict lower triangle with a unit diagonal) and U from the packed factorization."""
    lower = band_part(lower_upper, -1, 0)
    lower = lower - diag(diag_part(lower)) + diag(ones_like(diag_part(lower)))
    return lower, band_part(lower_upper, 0, -1)


def _rows(x: Tensor, order: Tensor) -> Tensor:
    """The rows of each matrix of x in the given order."""
    batch = (order.shape.rank or 1) - 1
    return gather(x, order, axis=-2 if batch == 0 else batch, batch_dims=batch)


def lu_reconstruct(lower_upper: Any, perm: Any, validate_args: bool = False, name: str | None = None) -> Tensor:
    """The matrix A whose LU factorization (with row permutation `perm`) is `lower_upper`."""
    packed = convert_to_tensor(lower_upper)
    order = convert_to_tensor(perm)
    lower, upper = _lu_factors(packed)
    return _rows(matmul(lower, upper), argsort(order, axis=-1))  # the inverse permutation(s)


def lu_solve(lower_upper: Any, perm: Any, rhs: Any, validate_args: bool = False, name: str | None = None) -> Tensor:
    """X with A X = rhs, from A's LU factorization: two triangular solves of the permuted right-hand side."""
    packed = convert_to_tensor(lower_upper)
    lower, upper = _lu_factors(packed)
    right = convert_to_tensor(rhs, dtype=packed.dtype)
    order = convert_to_tensor(perm)
    size = packed.shape[-1] if packed.shape.rank is not None else None
    if size is None:  # rows picked directly (one_hot needs its depth while tracing)
        permuted = _rows(right, order)
    else:  # a permutation matrix, so the gradient of rhs is dense, as TensorFlow's
        permuted = matmul(one_hot(order, size, dtype=packed.dtype), right)
    return triangular_solve(upper, triangular_solve(lower, permuted, lower=True), lower=False)


def lu_matrix_inverse(lower_upper: Any, perm: Any, validate_args: bool = False, name: str | None = None) -> Tensor:
    """A^-1 from A's LU factorization."""
    packed = convert_to_tensor(lower_upper)
    return lu_solve(packed, perm, diag(ones_like(diag_part(packed))))
