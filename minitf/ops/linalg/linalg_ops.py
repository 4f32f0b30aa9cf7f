"""Linear algebra: matmul (batched, with transpose flags), inverse, determinant, norm, tensordot."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from minitf.core import dtypes
from minitf.core.conversion import convert_to_tensor
from minitf.core.errors import (
    InvalidArgumentError,
    allowed_dtypes,
    dims_text,
    no_kernel,
    op_error,
    same_dtype,
    static_error,
)
from minitf.core.op import GradContext, Op, bind
from minitf.core.shape_rules import Spec, broadcast_shapes, merge_dims, need_rank
from minitf.core.tensor import Tensor
from minitf.core.tensor_shape import TensorShape
from minitf.ops.array.shape_ops import expand_dims, reshape, squeeze, transpose
from minitf.ops.math.binary_math import multiply
from minitf.ops.math.elementwise import unbroadcast
from minitf.ops.math.reductions import reduce_sum
from minitf.ops.math.unary_math import conj, negative

_MATMUL_TYPES = dtypes.FLOAT_OR_COMPLEX | {dtypes.int32, dtypes.int64, dtypes.uint8}
_BATCH_MATMUL_TYPES = _MATMUL_TYPES | {dtypes.int16}


def _matmul_kernel(a: np.ndarray, b: np.ndarray, transpose_a: bool, transpose_b: bool) -> np.ndarray:
    # (the values' own attributes and methods: NumPy's Python wrappers cost more than a small product)
    if a.dtype.type is np.uint8:  # the op accepts uint8 but has no CPU kernel: an error when it runs, not when traced
        raise no_kernel("MatMul" if a.ndim <= 2 and b.ndim <= 2 else "BatchMatMulV2", dtypes.uint8)
    if a.ndim < 2 or b.ndim < 2:
        raise op_error(
            InvalidArgumentError,
            *_rank_mismatch(a.shape, b.shape),
            hint="tf.matmul multiplies matrices; turn a vector into a matrix with tf.reshape(v, [1, -1])"
            " or tf.expand_dims, or use tf.tensordot(u, v, 1) for a dot product.",
        )
    given = a.shape, b.shape  # (an error shows the shapes as given, before transposing)
    if transpose_a:
        a = a.swapaxes(-1, -2)
    if transpose_b:
        b = b.swapaxes(-1, -2)
    if a.shape[-1] != b.shape[-2]:
        raise op_error(
            InvalidArgumentError,
            "MatMul" if a.ndim == 2 and b.ndim == 2 else "BatchMatMulV2",
            f"Matrix size-incompatible: In[0]: {dims_text(given[0])}, In[1]: {dims_text(given[1])}",
            hint="for a @ b the last dimension "
            f"of a ({a.shape[-1]}) must equal the second-to-last of b ({b.shape[-2]}).",
        )
    try:
        return np.matmul(a, b)
    except ValueError:
        raise op_error(
            InvalidArgumentError,
            "BatchMatMulV2",
            f"In[0] and In[1] must have compatible batch dimensions: {dims_text(a.shape)} vs. {dims_text(b.shape)}",
            "the leading (batch) dimensions broadcast: each pair must be equal or contain a 1.",
        ) from None


def _rank_mismatch(a: tuple[int, ...], b: tuple[int, ...]) -> tuple[str, str]:
    """TensorFlow's op and message for a matmul input of rank < 2: MatMul's kernel (both inputs of rank <= 2)
    compares the two ranks, BatchMatMulV2's names the input that is too small."""
    if len(a) <= 2 and len(b) <= 2:
        if len(a) != len(b):
            return "MatMul", f"In[0] and In[1] has different ndims: {dims_text(a)} vs. {dims_text(b)}"
        return "MatMul", f"In[0] and In[1] ndims must be == 2: {len(a)}"
    i, x = (0, a) if len(a) < 2 else (1, b)
    return "BatchMatMulV2", f"In[{i}] ndims must be >= 2: {len(x)}"


def _matmul_grad(c: GradContext, g: Tensor) -> list:
    a, b = c.x, c.y
    ta, tb = c.attrs["transpose_a"], c.attrs["transpose_b"]
    a_, b_ = (conj(a), conj(b)) if a.dtype.is_complex else (a, b)
    need_a, need_b = c.needs[0], c.needs[1]  # a product nobody asked for (the data's gradient) is not computed

    def mm(needed: bool, x: Tensor, y: Tensor, tx: bool, ty: bool, like: Tensor) -> Tensor | None:
        return unbroadcast(bind(c.op, x, y, transpose_a=tx, transpose_b=ty), like) if needed else None

    # C = op(A) @ op(B), op = transpose where the flag says so; the four cases of the chain rule:
    if not ta and not tb:
        return [mm(need_a, g, b_, False, True, a), mm(need_b, a_, g, True, False, b)]
    if not ta and tb:
        return [mm(need_a, g, b_, False, False, a), mm(need_b, g, a_, True, False, b)]
    if ta and not tb:
        return [mm(need_a, b_, g, False, True, a), mm(need_b, a_, g, False, False, b)]
    return [mm(need_a, b_, g, True, True, a), mm(need_b, g, a_, True, True, b)]


def _matmul_check(name: str) -> Any:
    allowed = _MATMUL_TYPES if name == "MatMul" else _BATCH_MATMUL_TYPES

    def check(inputs: Sequence[Tensor], attrs: dict) -> None:
        same_dtype(name, inputs)
        allowed_dtypes(name, allowed, inputs[0].dtype)

    return check


def matmul_rule(shapes: Sequence[TensorShape], types: Sequence[dtypes.DType], attrs: dict) -> list[Spec]:
    """MatMul: two matrices (an unknown rank is taken to be 2); the inner sizes must agree."""
    a, b = (s if s.rank is not None else TensorShape([None, None]) for s in shapes[:2])
    need_rank(a, 2)
    need_rank(b, 2)
    rows, inner_a = (a[1], a[0]) if attrs["transpose_a"] else (a[0], a[1])
    inner_b, cols = (b[1], b[0]) if attrs["transpose_b"] else (b[0], b[1])
    merge_dims(inner_a, inner_b, "")
    return [(TensorShape([rows, cols]), types[0])]


MatMul = Op("MatMul", _matmul_kernel, check=_matmul_check("MatMul"), shape=matmul_rule, grad=_matmul_grad)


def batch_matmul_rule(shapes: Sequence[TensorShape], types: Sequence[dtypes.DType], attrs: dict) -> list[Spec]:
    """BatchMatMulV2: the leading (batch) dimensions broadcast, the last two multiply as matrices."""
    a, b = shapes[:2]
    if a.rank is None or b.rank is None:
        return [(TensorShape(None), types[0])]
    need_rank(a, 2, at_least=True)
    need_rank(b, 2, at_least=True)
    matrix = matmul_rule([a[-2:], b[-2:]], types, attrs)[0][0]
    return [(broadcast_shapes(a[:-2], b[:-2]) + matrix, types[0])]


BatchMatMulV2 = Op(
    "BatchMatMulV2", _matmul_kernel, check=_matmul_check("BatchMatMulV2"), shape=batch_matmul_rule, grad=_matmul_grad
)


def matmul(
    a: Any,
    b: Any,
    transpose_a: bool = False,
    transpose_b: bool = False,
    adjoint_a: bool = False,
    adjoint_b: bool = False,
    a_is_sparse: bool = False,
    b_is_sparse: bool = False,
    output_type: Any = None,
    name: str | None = None,
) -> Tensor:
    """Matrix product of the last two axes; leading (batch) axes broadcast. Both need rank >= 2."""
    a = convert_to_tensor(a)
    b = convert_to_tensor(b, dtype_hint=a.dtype)
    if adjoint_a:
        a, transpose_a = conj(a), True
    if adjoint_b:
        b, transpose_b = conj(b), True
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
        raise op_error(
            InvalidArgumentError,
            "MatrixInverse",
            "Input is not invertible.",
            hint="the matrix is singular (its determinant is 0).",
        ) from None
    return np.swapaxes(inv, -1, -2).conj() if adjoint else inv


def _square(x: np.ndarray, name: str) -> None:
    if np.ndim(x) < 2:
        hint = "a matrix (or a batch of them) has at least two axes."
        raise op_error(InvalidArgumentError, name, f"Input tensor 0 must have rank >= 2, got {np.ndim(x)}", hint)
    if x.shape[-1] != x.shape[-2]:
        hint = f"the last two dimensions must be equal; these matrices are {x.shape[-2]} x {x.shape[-1]}."
        raise op_error(InvalidArgumentError, name, "Input matrix must be square.", hint)


def _inverse_grad(c: GradContext, g: Tensor) -> list:
    inv = c.out
    left = matmul(inv, g, adjoint_a=True)
    return [negative(matmul(left, inv, adjoint_b=True))]


def _linalg_check(name: str) -> Any:
    def check(inputs: Sequence[Tensor], attrs: dict) -> None:
        allowed_dtypes(name, dtypes.FLOAT_OR_COMPLEX, inputs[0].dtype)

    return check


def _square_matrices(shape: TensorShape) -> TensorShape:
    need_rank(shape, 2, at_least=True)
    if shape.rank is None:
        return shape
    size = merge_dims(shape[-2], shape[-1], "")
    return shape[:-2] + TensorShape([size, size])


def square_matrix_rule(shapes: Sequence[TensorShape], types: Sequence[dtypes.DType], attrs: dict) -> list[Spec]:
    """MatrixInverse: square matrices in, the same shape out."""
    return [(_square_matrices(shapes[0]), types[0])]


MatrixInverse = Op(
    "MatrixInverse", _inverse_kernel, check=_linalg_check("MatrixInverse"), shape=square_matrix_rule, grad=_inverse_grad
)


def _det_kernel(x: np.ndarray) -> np.ndarray:
    _square(x, "MatrixDeterminant")
    if x.dtype == np.float16:
        raise no_kernel("MatrixDeterminant", dtypes.float16)
    return np.asarray(np.linalg.det(x)).astype(x.dtype)[()]


def _det_grad(c: GradContext, g: Tensor) -> list:
    # d det(A) / dA = det(A) * inv(A)^T
    scale = multiply(g, c.out)
    inv_t = transpose(
        inv(c.x), perm=list(range((c.x.shape.rank or 2) - 2)) + [(c.x.shape.rank or 2) - 1, (c.x.shape.rank or 2) - 2]
    )
    return [reshape(scale, scale.shape.as_list() + [1, 1]) * inv_t]


def determinant_rule(shapes: Sequence[TensorShape], types: Sequence[dtypes.DType], attrs: dict) -> list[Spec]:
    square = _square_matrices(shapes[0])
    return [(square[:-2] if square.rank is not None else TensorShape(None), types[0])]


MatrixDeterminant = Op(
    "MatrixDeterminant", _det_kernel, check=_linalg_check("MatrixDeterminant"), shape=determinant_rule, grad=_det_grad
)


def inv(input: Any, adjoint: bool = False, name: str | None = None) -> Tensor:
    """Inverse of a square matrix (or of each matrix in a batch)."""
    return bind(MatrixInverse, convert_to_tensor(input), adjoint=bool(adjoint))


def det(input: Any, name: str | None = None) -> Tensor:
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
        raise op_error(
            InvalidArgumentError,
            "MatrixSolve",
            "Input matrix is not invertible.",
            hint="the system has no unique solution (the matrix is singular).",
        ) from None


def _solve_grad(c: GradContext, g: Tensor) -> list:
    # X = A^-1 B: dB = A^-H g, dA = -dB X^H (for adjoint=True the roles of A and A^H swap).
    adjoint = c.attrs["adjoint"]
    grad_rhs = bind(MatrixSolve, c.x, g, adjoint=not adjoint)
    rank = c.x.shape.rank or 2
    perm = list(range(rank - 2)) + [rank - 1, rank - 2]
    if adjoint:
        grad_matrix = negative(matmul(c.out, grad_rhs, adjoint_b=True))
    else:
        grad_matrix = negative(matmul(grad_rhs, transpose(conj(c.out), perm)))
    return [grad_matrix, grad_rhs]


def solve_rule(shapes: Sequence[TensorShape], types: Sequence[dtypes.DType], attrs: dict) -> list[Spec]:
    """MatrixSolve: [..., M, M] and [..., M, K] give [..., M, K]."""
    matrix, rhs = _square_matrices(shapes[0]), shapes[1]
    need_rank(rhs, 2, at_least=True)
    if matrix.rank is None or rhs.rank is None:
        return [(rhs if matrix.rank is None else matrix[:-1] + TensorShape([None]), types[0])]
    if matrix.rank != rhs.rank:
        raise ValueError(f"Shapes must be equal rank, but are {matrix.rank} and {rhs.rank}")
    batch = [merge_dims(x, y, "") for x, y in zip(matrix[:-2], rhs[:-2])]
    rows = merge_dims(matrix[-1], rhs[-2], "")
    return [(TensorShape(batch + [rows, rhs[-1]]), types[0])]


MatrixSolve = Op("MatrixSolve", _solve_kernel, check=_matmul_check("MatrixSolve"), shape=solve_rule, grad=_solve_grad)


def solve(matrix: Any, rhs: Any, adjoint: bool = False, name: str | None = None) -> Tensor:
    """X with matrix @ X = rhs (matrix square and invertible; rhs has one column per system)."""
    a = convert_to_tensor(matrix)
    b = convert_to_tensor(rhs, dtype_hint=a.dtype)
    if not (a.dtype.is_floating or a.dtype.is_complex):
        allowed_dtypes("MatrixSolve", dtypes.FLOAT_OR_COMPLEX, a.dtype)
    return bind(MatrixSolve, a, b, adjoint=bool(adjoint))


def tensordot(a: Any, b: Any, axes: Any, name: str | None = None) -> Tensor:
    """Sum products over the given axes: axes=1 is a matrix product, axes=0 an outer product.

    Composed as TensorFlow does: move the summed axes together, reshape both to matrices, matmul, reshape.
    """
    a = convert_to_tensor(a)
    b = convert_to_tensor(b, dtype_hint=a.dtype)
    ra, rb = a.shape.rank, b.shape.rank
    if isinstance(axes, int | np.integer) or np.ndim(getattr(axes, "_value", axes)) == 0:
        n = int(getattr(axes, "_value", axes))
        if n < 0:
            raise ValueError(f"'axes' must be at least 0, got {n}.")
        if n > ra:
            raise ValueError(
                f"`axes` must not be larger than the number of dimensions of tensor {a}.  Received {n}, "
                f"vs tensor dimensions {ra}."
            )
        if n > rb:  # TensorFlow's own index error, with a hint
            raise IndexError(
                f"list index out of range\nHint: axes={n} sums over {n} axes, but a has rank {ra} and b rank {rb}."
            )
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

        def part(dims: list, axes: list[int], summed: bool) -> int:
            return int(np.prod([d for k, d in enumerate(dims) if (k in axes) == summed]))

        # TensorFlow multiplies a reshaped to [free, summed] by b reshaped to [summed, free]
        a_matrix = [part(sa, a_axes, False), part(sa, a_axes, True)]
        b_matrix = [part(sb, b_axes, True), part(sb, b_axes, False)]
        raise static_error(
            f"Matrix size-incompatible: In[0]: {dims_text(a_matrix)}, In[1]: {dims_text(b_matrix)}",
            "MatMul",
            hint=f"the summed axes of a and b must have the same sizes: tensordot sums {pairs}.",
        )
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
        raise static_error(
            f"input must be at least 2-dim, received shape: {x.shape.as_list()}", "MatrixDiagPartV3", name="diag_part"
        )
    # The diagonal of the leading k x k block is every (k+1)-th entry of that block read row by row.
    k = min(x.shape[-1], x.shape[-2])
    block = reshape(x[..., :k, :k], x.shape.as_list()[:-2] + [k * k])
    return reduce_sum(block[..., :: k + 1], axis=-1)


def matrix_transpose(a: Any, name: str = "matrix_transpose", conjugate: bool = False) -> Tensor:
    """Swap the last two axes (of a batch of matrices); conjugate too for the adjoint."""
    a = convert_to_tensor(a)
    rank = a.shape.rank
    if rank is not None and rank < 2:
        raise ValueError(
            f"Argument `a` should be a (batch) matrix with rank >= 2.  Received `a` = {a} with shape: "
            f"{a.shape}\nHint: a vector has no second axis to swap with; reshape it to [n, 1] first."
        )
    if rank is None:
        raise ValueError("minitf transposes matrices of known rank only.\nHint: give the input a known rank.")
    return transpose(a, list(range(rank - 2)) + [rank - 1, rank - 2], conjugate=conjugate)


def adjoint(matrix: Any, name: str | None = None) -> Tensor:
    """The conjugate transpose of each matrix (the plain transpose for real ones)."""
    return matrix_transpose(matrix, conjugate=True)


def matvec(
    a: Any,
    b: Any,
    transpose_a: bool = False,
    adjoint_a: bool = False,
    a_is_sparse: bool = False,
    b_is_sparse: bool = False,
    name: str | None = None,
) -> Tensor:
    """Matrix times vector: a [..., M, N] with b [..., N] gives [..., M]."""
    b = convert_to_tensor(b)
    column = expand_dims(b, -1)
    return squeeze(matmul(a, column, transpose_a=transpose_a, adjoint_a=adjoint_a), -1)
