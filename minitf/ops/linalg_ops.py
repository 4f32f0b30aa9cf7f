"""Linear algebra: matmul (batched, with transpose flags), inverse, determinant, norm, tensordot."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from minitf import dtypes
from minitf.core import Op, allowed_dtypes, bind, convert_to_tensor, no_kernel, same_dtype, static_error
from minitf.errors import InvalidArgumentError
from minitf.ops import math_ops as m
from minitf.ops import shapes
from minitf.ops.array_ops import reshape, squeeze, transpose
from minitf.tensor import Tensor

_MATMUL_TYPES = dtypes.FLOAT_OR_COMPLEX | {dtypes.int32, dtypes.int64, dtypes.uint8}
_BATCH_MATMUL_TYPES = _MATMUL_TYPES | {dtypes.int16}


def _matmul_kernel(a: np.ndarray, b: np.ndarray, transpose_a: bool, transpose_b: bool) -> np.ndarray:
    if a.dtype == np.uint8:  # the op accepts uint8 but has no CPU kernel: an error when it runs, not when traced
        raise no_kernel("MatMul" if a.ndim <= 2 and b.ndim <= 2 else "BatchMatMulV2", dtypes.uint8)
    for i, x in enumerate((a, b)):
        if np.ndim(x) < 2:
            raise InvalidArgumentError(None, None, f"In[{i}] ndims must be >= 2 [Op:MatMul] name: \nHint: tf.matmul "
                                       "multiplies matrices; turn a vector into a matrix with tf.reshape(v, [1, -1])"
                                       " or tf.expand_dims, or use tf.tensordot(u, v, 1) for a dot product.")
    if transpose_a:
        a = np.swapaxes(a, -1, -2)
    if transpose_b:
        b = np.swapaxes(b, -1, -2)
    if a.shape[-1] != b.shape[-2]:
        name = "MatMul" if a.ndim == 2 and b.ndim == 2 else "BatchMatMulV2"
        shown = (f"In[0]: [{','.join(map(str, a.shape))}], In[1]: [{','.join(map(str, b.shape))}]" if name == "MatMul"
                 else f"In[0] mismatch In[1] shape: {a.shape[-1]} vs. {b.shape[-2]}: "
                      f"[{','.join(map(str, a.shape))}] [{','.join(map(str, b.shape))}] 0 0")
        raise InvalidArgumentError(
            None, None, f"Matrix size-incompatible: {shown} [Op:{name}] name: \nHint: for a @ b the last dimension "
            f"of a ({a.shape[-1]}) must equal the second-to-last of b ({b.shape[-2]}).")
    try:
        return np.matmul(a, b)
    except ValueError:
        raise InvalidArgumentError(None, None, f"In[0] and In[1] must have compatible batch dimensions: "
                                   f"[{','.join(map(str, a.shape))}] vs. [{','.join(map(str, b.shape))}] "
                                   "[Op:BatchMatMulV2] name: ") from None


def _matmul_grad(c: Any, g: Tensor) -> list:
    a, b = c.x, c.y
    ta, tb = c.attrs["transpose_a"], c.attrs["transpose_b"]
    a_, b_ = (m.conj(a), m.conj(b)) if a.dtype.is_complex else (a, b)

    def mm(x: Tensor, y: Tensor, tx: bool, ty: bool) -> Tensor:
        return bind(c.op, x, y, transpose_a=tx, transpose_b=ty)

    # C = op(A) @ op(B), op = transpose where the flag says so; the four cases of the chain rule:
    if not ta and not tb:
        da, db = mm(g, b_, False, True), mm(a_, g, True, False)
    elif not ta and tb:
        da, db = mm(g, b_, False, False), mm(g, a_, True, False)
    elif ta and not tb:
        da, db = mm(b_, g, False, True), mm(a_, g, False, False)
    else:
        da, db = mm(b_, g, True, True), mm(g, a_, True, True)
    return [m.unbroadcast(da, a), m.unbroadcast(db, b)]


def _matmul_check(name: str) -> Any:
    allowed = _MATMUL_TYPES if name == "MatMul" else _BATCH_MATMUL_TYPES

    def check(inputs: Sequence[Tensor], attrs: dict) -> None:
        same_dtype(name, inputs)
        allowed_dtypes(name, allowed, inputs[0].dtype)  # type: ignore[attr-defined]
    return check


MatMul = Op("MatMul", _matmul_kernel, check=_matmul_check("MatMul"), shape=shapes.matmul_rule, grad=_matmul_grad)
BatchMatMulV2 = Op("BatchMatMulV2", _matmul_kernel, check=_matmul_check("BatchMatMulV2"),
                   shape=shapes.batch_matmul_rule,
                   grad=_matmul_grad)


def matmul(a: Any, b: Any, transpose_a: bool = False, transpose_b: bool = False, adjoint_a: bool = False,
           adjoint_b: bool = False, a_is_sparse: bool = False, b_is_sparse: bool = False,
           output_type: Any = None, name: str | None = None) -> Tensor:
    """Matrix product of the last two axes; leading (batch) axes broadcast. Both need rank >= 2."""
    a = convert_to_tensor(a)
    b = convert_to_tensor(b, dtype_hint=a.dtype)  # type: ignore[attr-defined]
    if adjoint_a:
        a, transpose_a = m.conj(a), True
    if adjoint_b:
        b, transpose_b = m.conj(b), True
    batched = (a.shape.rank or 0) > 2 or (b.shape.rank or 0) > 2
    op = BatchMatMulV2 if batched else MatMul
    return bind(op, a, b, transpose_a=bool(transpose_a), transpose_b=bool(transpose_b))


def _inverse_kernel(x: np.ndarray, adjoint: bool) -> np.ndarray:
    _square(x, "MatrixInverse")
    if x.dtype == np.float16:  # NumPy's linalg has no float16: invert in float32 and round back
        return _inverse_kernel(x.astype(np.float32), adjoint).astype(np.float16)
    try:
        inv = np.linalg.inv(x)
    except np.linalg.LinAlgError:
        raise InvalidArgumentError(None, None, "Input is not invertible. [Op:MatrixInverse] name: \nHint: the "
                                   "matrix is singular (its determinant is 0).") from None
    return np.swapaxes(inv, -1, -2).conj() if adjoint else inv


def _square(x: np.ndarray, name: str) -> None:
    if np.ndim(x) < 2:
        raise InvalidArgumentError(None, None, f"Input must have rank >= 2, got {np.ndim(x)} [Op:{name}] name: ")
    if x.shape[-1] != x.shape[-2]:
        raise InvalidArgumentError(None, None, f"Input matrices must be squares, got {x.shape[-2]} != {x.shape[-1]} "
                                   f"[Op:{name}] name: ")


def _inverse_grad(c: Any, g: Tensor) -> list:
    inv = c.out
    left = matmul(inv, g, adjoint_a=True)
    return [m.negative(matmul(left, inv, adjoint_b=True))]


def _linalg_check(name: str) -> Any:
    def check(inputs: Sequence[Tensor], attrs: dict) -> None:
        allowed_dtypes(name, dtypes.FLOAT_OR_COMPLEX, inputs[0].dtype)  # type: ignore[attr-defined]
    return check


MatrixInverse = Op("MatrixInverse", _inverse_kernel, check=_linalg_check("MatrixInverse"),
                   shape=shapes.square_matrix_rule,
                   grad=_inverse_grad)


def _det_kernel(x: np.ndarray) -> np.ndarray:
    _square(x, "MatrixDeterminant")
    if x.dtype == np.float16:
        raise no_kernel("MatrixDeterminant", dtypes.float16)
    return np.asarray(np.linalg.det(x)).astype(x.dtype)[()]


def _det_grad(c: Any, g: Tensor) -> list:
    # d det(A) / dA = det(A) * inv(A)^T
    scale = m.multiply(g, c.out)
    inv_t = transpose(inv(c.x), perm=list(range((c.x.shape.rank or 2) - 2)) + [(c.x.shape.rank or 2) - 1,
                                                                                 (c.x.shape.rank or 2) - 2])
    return [reshape(scale, scale.shape.as_list() + [1, 1]) * inv_t]


MatrixDeterminant = Op("MatrixDeterminant", _det_kernel, check=_linalg_check("MatrixDeterminant"),
                       shape=shapes.determinant_rule, grad=_det_grad)


def inv(input: Any, adjoint: bool = False, name: str | None = None) -> Tensor:  # noqa: A002
    """Inverse of a square matrix (or of each matrix in a batch)."""
    return bind(MatrixInverse, convert_to_tensor(input), adjoint=bool(adjoint))


def det(input: Any, name: str | None = None) -> Tensor:  # noqa: A002
    """Determinant of a square matrix (or of each matrix in a batch)."""
    return bind(MatrixDeterminant, convert_to_tensor(input))


def _solve_kernel(matrix: np.ndarray, rhs: np.ndarray, adjoint: bool) -> np.ndarray:
    _square(matrix, "MatrixSolve")
    if matrix.dtype == np.float16:
        raise no_kernel("MatrixSolve", dtypes.float16)
    if adjoint:
        matrix = np.swapaxes(matrix, -1, -2).conj()
    try:
        return np.linalg.solve(matrix, rhs)
    except np.linalg.LinAlgError:
        raise InvalidArgumentError(None, None, "Input matrix is not invertible. [Op:MatrixSolve] name: \nHint: "
                                   "the system has no unique solution (the matrix is singular).") from None


def _solve_grad(c: Any, g: Tensor) -> list:
    # X = A^-1 B: dB = A^-H g, dA = -dB X^H (for adjoint=True the roles of A and A^H swap).
    adjoint = c.attrs["adjoint"]
    grad_rhs = bind(MatrixSolve, c.x, g, adjoint=not adjoint)
    rank = c.x.shape.rank or 2
    perm = list(range(rank - 2)) + [rank - 1, rank - 2]
    if adjoint:
        grad_matrix = m.negative(matmul(c.out, grad_rhs, adjoint_b=True))
    else:
        grad_matrix = m.negative(matmul(grad_rhs, transpose(m.conj(c.out), perm)))
    return [grad_matrix, grad_rhs]


MatrixSolve = Op("MatrixSolve", _solve_kernel, check=_matmul_check("MatrixSolve"), shape=shapes.solve_rule,
                 grad=_solve_grad)


def solve(matrix: Any, rhs: Any, adjoint: bool = False, name: str | None = None) -> Tensor:
    """X with matrix @ X = rhs (matrix square and invertible; rhs has one column per system)."""
    a = convert_to_tensor(matrix)
    b = convert_to_tensor(rhs, dtype_hint=a.dtype)  # type: ignore[attr-defined]
    if not (a.dtype.is_floating or a.dtype.is_complex):  # type: ignore[attr-defined]
        from minitf.core import allowed_dtypes
        allowed_dtypes("MatrixSolve", dtypes.FLOAT_OR_COMPLEX, a.dtype)  # type: ignore[attr-defined]
    return bind(MatrixSolve, a, b, adjoint=bool(adjoint))


def norm(tensor: Any, ord: Any = "euclidean", axis: Any = None, keepdims: bool | None = None,  # noqa: A002
         name: str | None = None) -> Tensor:
    """Vector norms (euclidean/2, 1, inf, p > 0) over `axis` (all entries if None); with a pair of axes the
    matrix norms 'fro'/'euclidean', 1 and inf. Composed of ops exactly as TensorFlow composes it."""
    is_matrix_norm = isinstance(axis, list | tuple) and len(axis) == 2
    if is_matrix_norm:
        axis = tuple(axis)
        if not all(isinstance(a, int) for a in axis) or axis[0] == axis[1]:
            raise ValueError(f"'axis' must be None, an integer, or a tuple of 2 unique integers, got {axis}")
        if ord not in ["euclidean", "fro", 1, 2, np.inf]:
            raise ValueError(f"'ord' must be a supported matrix norm in ['euclidean', 'fro', 1, 2, inf], got {ord}")
    else:
        if not (isinstance(axis, int) or axis is None):
            raise ValueError(f"'axis' must be None, an integer, or a tuple of 2 unique integers, got {axis}")
        if (not np.isreal(ord) or ord <= 0) and ord not in ["euclidean", 1, 2, np.inf]:
            raise ValueError(f"'ord' must be a supported vector norm, got {ord}")
        if axis is not None:
            axis = (axis,)
    x = convert_to_tensor(tensor)
    if is_matrix_norm and ord in (2, 2.0):
        from minitf.ops.matrix_ops import matrix_two_norm
        return matrix_two_norm(x, axis, bool(keepdims))
    if ord in ("fro", "euclidean", 2, 2.0):
        result = m.sqrt(m.reduce_sum(x * m.conj(x), axis, keepdims=True))
    else:
        result = m.abs(x)
        if ord == 1:
            result = m.reduce_sum(result, None if axis is None else axis[0], keepdims=True)
            if is_matrix_norm:
                result = m.reduce_max(result, axis[-1], keepdims=True)
        elif ord == np.inf:
            if is_matrix_norm:
                result = m.reduce_sum(result, axis[1], keepdims=True)
            result = m.reduce_max(result, None if axis is None else axis[0], keepdims=True)
        else:
            result = m.pow(m.reduce_sum(m.pow(result, ord), axis, keepdims=True), 1.0 / ord)
    if not keepdims:
        result = squeeze(result, axis)
    return result


def tensordot(a: Any, b: Any, axes: Any, name: str | None = None) -> Tensor:
    """Sum products over the given axes: axes=1 is a matrix product, axes=0 an outer product.

    Composed as TensorFlow does: move the summed axes together, reshape both to matrices, matmul, reshape.
    """
    a = convert_to_tensor(a)
    b = convert_to_tensor(b, dtype_hint=a.dtype)  # type: ignore[attr-defined]
    ra, rb = a.shape.rank, b.shape.rank
    if isinstance(axes, int | np.integer) or np.ndim(getattr(axes, "_value", axes)) == 0:
        n = int(getattr(axes, "_value", axes))
        if n < 0:
            raise ValueError(f"'axes' must be at least 0, got {n}.")
        if n > ra:
            raise ValueError(f"`axes` must not be larger than the number of dimensions of tensor {a}.  Received {n}, "
                             f"vs tensor dimensions {ra}.")
        if n > rb:  # TensorFlow's own index error, with a hint
            raise IndexError(f"list index out of range\nHint: axes={n} sums over {n} axes, but a has rank {ra} and b "
                             f"rank {rb}.")
        a_axes, b_axes = list(range(ra - n, ra)), list(range(n))
    else:
        a_axes, b_axes = ([int(v) for v in np.ravel(part)] for part in axes)
        if any(not -ra <= v < ra for v in a_axes) or any(not -rb <= v < rb for v in b_axes):
            raise IndexError("list index out of range\nHint: each listed axis must exist in its tensor.")
        a_axes = [v % ra for v in a_axes]
        b_axes = [v % rb for v in b_axes]
    same_dtype("MatMul", [a, b])  # TensorFlow reports mixed dtypes before sizes that do not fit
    sa, sb = a.shape.as_list(), b.shape.as_list()
    # TensorFlow only needs the summed axes to hold as many values on both sides (it reshapes, then multiplies).
    if int(np.prod([sa[i] for i in a_axes])) != int(np.prod([sb[j] for j in b_axes])):
        pairs = ", ".join(f"a[{i}]={sa[i]} with b[{j}]={sb[j]}" for i, j in zip(a_axes, b_axes))
        raise static_error(f"Matrix size-incompatible: tensordot sums {pairs} [Op:MatMul] name: "
                                   "\nHint: the summed axes of a and b must have the same sizes.")
    free_a = [i for i in range(ra) if i not in a_axes]
    free_b = [i for i in range(rb) if i not in b_axes]
    size = int(np.prod([sa[i] for i in a_axes])) if a_axes else 1
    a2 = reshape(transpose(a, free_a + a_axes), [-1 if free_a else 1, size])
    b2 = reshape(transpose(b, b_axes + free_b), [size, -1 if free_b else 1])
    product = matmul(a2, b2)
    return reshape(product, [sa[i] for i in free_a] + [sb[i] for i in free_b])


def trace(x: Any, name: str | None = None) -> Tensor:
    x = convert_to_tensor(x)
    if (x.shape.rank or 0) < 2:
        raise static_error(f"input must be at least 2-dim, received shape: {x.shape.as_list()} "
                                   "[Op:MatrixDiagPartV3] name: diag_part")
    # The diagonal of the leading k x k block is every (k+1)-th entry of that block read row by row.
    k = min(x.shape[-1], x.shape[-2])
    block = reshape(x[..., :k, :k], x.shape.as_list()[:-2] + [k * k])
    return m.reduce_sum(block[..., :: k + 1], axis=-1)
