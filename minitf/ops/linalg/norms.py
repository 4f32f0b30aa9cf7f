"""Norms and clipping: tf.norm, l2_normalize, clip_by_norm, global_norm
and clip_by_global_norm, composed of existing ops as TensorFlow composes them; and the singular values (`Svd`,
with its gradient) that the matrix 2-norm needs, and what is built on them: svd, pinv, matrix_rank; normalize.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from minitf.core import dtypes
from minitf.core.conversion import convert_to_tensor
from minitf.core.errors import InvalidArgumentError, allowed_dtypes
from minitf.core.op import GradContext, Op, bind
from minitf.core.shape_rules import Spec
from minitf.core.tensor import Tensor
from minitf.core.tensor_shape import TensorShape
from minitf.ops.array.creation import eye, ones_like, zeros_like
from minitf.ops.array.join_split import stack
from minitf.ops.array.shape_ops import expand_dims, identity, squeeze, transpose
from minitf.ops.array.where import where
from minitf.ops.linalg.linalg_ops import matmul
from minitf.ops.math.binary_math import add, divide, maximum, minimum, multiply, subtract
from minitf.ops.math.binary_math import pow as power
from minitf.ops.math.cast import cast
from minitf.ops.math.comparisons import greater
from minitf.ops.math.elementwise import ones_like_
from minitf.ops.math.reductions import reduce_max, reduce_sum
from minitf.ops.math.unary_math import abs as absolute
from minitf.ops.math.unary_math import conj, rsqrt, sqrt, square
from minitf.ops.nn.nn_ops import l2_loss


def l2_normalize(x: Any, axis: Any = None, epsilon: float = 1e-12, name: str | None = None, dim: Any = None) -> Tensor:
    """x / sqrt(max(sum(x**2, axis), epsilon)): unit length along `axis` (all axes by default)."""
    x = convert_to_tensor(x)
    axis = dim if axis is None else axis
    square_sum = reduce_sum(square(x), axis, keepdims=True)
    inverse_norm = rsqrt(maximum(square_sum, convert_to_tensor(epsilon, dtype=square_sum.dtype)))
    return multiply(x, inverse_norm)


def clip_by_norm(t: Any, clip_norm: Any, axes: Any = None, name: str | None = None) -> Tensor:
    """t scaled down so that its L2 norm (over `axes`) is at most clip_norm; unchanged if already shorter."""
    values = convert_to_tensor(t)
    l2sum = reduce_sum(multiply(values, values), axes, keepdims=True)
    positive = greater(l2sum, zeros_like(l2sum))
    safe = where(positive, l2sum, ones_like(l2sum))  # sqrt's gradient at 0 would be inf
    l2norm = where(positive, sqrt(safe), l2sum)
    limit = convert_to_tensor(clip_norm, dtype=values.dtype)
    return identity(divide(multiply(values, limit), maximum(l2norm, limit)))


def global_norm(t_list: Sequence[Any], name: str | None = None) -> Tensor:
    """sqrt(sum of the squares of every entry of every tensor in the list)."""
    if isinstance(t_list, Tensor) or not isinstance(t_list, Sequence):
        raise TypeError(
            f"`t_list` should be a sequence of tensors. Received {type(t_list)}.\nHint: pass a list, "
            "e.g. the gradients of all variables."
        )
    values = [convert_to_tensor(t) for t in t_list if t is not None]
    half_squares = stack([l2_loss(v) for v in values])
    return sqrt(multiply(reduce_sum(half_squares), convert_to_tensor(2.0, dtype=half_squares.dtype)))


def clip_by_global_norm(
    t_list: Sequence[Any], clip_norm: Any, use_norm: Any = None, name: str | None = None
) -> tuple[list[Any], Tensor]:
    """Every tensor scaled by clip_norm / max(global_norm, clip_norm): the list keeps its direction and its
    combined norm is at most clip_norm (gradient clipping). Returns (clipped list, global norm)."""
    if isinstance(t_list, Tensor) or not isinstance(t_list, Sequence):
        raise TypeError(
            f"`t_list` should be a sequence of tensors. Received {type(t_list)}.\nHint: pass a list, "
            "e.g. the gradients of all variables."
        )
    norm = global_norm(t_list) if use_norm is None else convert_to_tensor(use_norm)
    limit = convert_to_tensor(clip_norm, dtype=norm.dtype)
    one = convert_to_tensor(1.0, dtype=norm.dtype)
    scale = multiply(limit, minimum(divide(one, norm), divide(one, limit)))
    scale = add(scale, subtract(norm, norm))  # nan when the norm is inf or nan, as in TensorFlow
    clipped = [
        None if t is None else identity(multiply(convert_to_tensor(t), cast(scale, convert_to_tensor(t).dtype)))
        for t in t_list
    ]
    return clipped, norm


def norm(
    tensor: Any, ord: Any = "euclidean", axis: Any = None, keepdims: bool | None = None, name: str | None = None
) -> Tensor:
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
        return matrix_two_norm(x, axis, bool(keepdims))
    if ord in ("fro", "euclidean", 2, 2.0):
        result = sqrt(reduce_sum(x * conj(x), axis, keepdims=True))
    else:
        result = absolute(x)
        if ord == 1:
            result = reduce_sum(result, None if axis is None else axis[0], keepdims=True)
            if is_matrix_norm:
                result = reduce_max(result, axis[-1], keepdims=True)
        elif ord == np.inf:
            if is_matrix_norm:
                result = reduce_sum(result, axis[1], keepdims=True)
            result = reduce_max(result, None if axis is None else axis[0], keepdims=True)
        else:
            result = power(reduce_sum(power(result, ord), axis, keepdims=True), 1.0 / ord)
    if not keepdims:
        result = squeeze(result, axis)
    return result


def _svd_kernel(x: np.ndarray, compute_uv: bool, full_matrices: bool) -> tuple[np.ndarray, ...]:
    if np.ndim(x) < 2:
        raise InvalidArgumentError(None, None, f"input must have rank >= 2, got {np.ndim(x)} [Op:Svd]")
    if not compute_uv:
        s = np.linalg.svd(x, compute_uv=False)
        empty = np.zeros((0,), dtype=x.dtype)
        return s.astype(np.abs(x).dtype), empty, empty
    u, s, vh = np.linalg.svd(x, full_matrices=full_matrices)
    return s.astype(np.abs(x).dtype), u.astype(x.dtype), np.swapaxes(vh, -1, -2).conj().astype(x.dtype)


def _svd_shape(shapes: Sequence[TensorShape], types: Sequence[dtypes.DType], attrs: dict) -> list[Spec]:
    s = shapes[0]
    real = (
        dtypes.float32
        if types[0] is dtypes.complex64
        else (dtypes.float64 if types[0] is dtypes.complex128 else types[0])
    )
    if s.rank is None:
        return [(TensorShape(None), real), (TensorShape(None), types[0]), (TensorShape(None), types[0])]
    batch, rows, cols = s.as_list()[:-2], s[-2], s[-1]
    p = None if rows is None or cols is None else min(rows, cols)
    if not attrs["compute_uv"]:
        return [(TensorShape(batch + [p]), real), (TensorShape([0]), types[0]), (TensorShape([0]), types[0])]
    u_cols, v_cols = (rows, cols) if attrs["full_matrices"] else (p, p)
    return [
        (TensorShape(batch + [p]), real),
        (TensorShape(batch + [rows, u_cols]), types[0]),
        (TensorShape(batch + [cols, v_cols]), types[0]),
    ]


def _svd_grad(c: GradContext, grads: list) -> list:
    """The gradient of A = U diag(s) V^T (thin SVD, real A) from the gradients of s, U and V.

    With F[i, j] = 1 / (s_j^2 - s_i^2) off the diagonal:
      dA = U [diag(g_s) + (F o (U^T g_U - g_U^T U)) S + S (F o (V^T g_V - g_V^T V))] V^T
           + (I - U U^T) g_U S^-1 V^T + U S^-1 g_V^T (I - V V^T)
    (the last two terms only for rectangular A). Written with minitf ops, so it has a gradient too.
    """
    g_s, g_u, g_v = grads
    if c.x.dtype.is_complex:
        raise NotImplementedError("The gradient of the SVD of complex matrices is not part of this engine.")
    if not c.attrs["compute_uv"]:
        s, u, v = bind(Svd, c.x, compute_uv=True, full_matrices=False)
    else:
        s, u, v = c.outputs
    if g_s is None:
        g_s = zeros_like(s)
    inner = expand_dims(g_s, -1) * eye(s.shape[-1], dtype=s.dtype)
    if g_u is None and g_v is None:
        return [matmul(matmul(u, inner), v, transpose_b=True)]
    p = s.shape[-1]
    diagonal = cast(eye(p, dtype=dtypes.int32), dtypes.bool)
    squares = s * s
    gaps = expand_dims(squares, -2) - expand_dims(squares, -1)  # s_j^2 - s_i^2
    gaps = where(diagonal, ones_like(gaps), gaps)  # (no 1/0 on the diagonal, not even unused)
    f = where(diagonal, zeros_like(gaps), 1.0 / gaps)
    rows, cols = c.x.shape[-2], c.x.shape[-1]
    if g_u is not None:
        ut_gu = matmul(u, g_u, transpose_a=True)
        inner = inner + (f * (ut_gu - matmul(g_u, u, transpose_a=True))) * expand_dims(s, -2)
    if g_v is not None:
        vt_gv = matmul(v, g_v, transpose_a=True)
        inner = inner + expand_dims(s, -1) * (f * (vt_gv - matmul(g_v, v, transpose_a=True)))
    grad = matmul(matmul(u, inner), v, transpose_b=True)
    inverse_s = expand_dims(1.0 / s, -2)
    if g_u is not None and rows > p:
        outside = g_u - matmul(u, matmul(u, g_u, transpose_a=True))
        grad = grad + matmul(outside * inverse_s, v, transpose_b=True)
    if g_v is not None and cols > p:
        outside = g_v - matmul(v, matmul(v, g_v, transpose_a=True))
        grad = grad + matmul(u * inverse_s, outside, transpose_b=True)
    return [grad]


Svd = Op(
    "Svd",
    _svd_kernel,
    shape=_svd_shape,
    grad=_svd_grad,
    num_outputs=3,
    check=lambda i, a: allowed_dtypes("Svd", dtypes.FLOAT_OR_COMPLEX, i[0].dtype),
)


def matrix_two_norm(x: Tensor, axis: tuple[int, int], keepdims: bool) -> Tensor:
    """The largest singular value of the matrices in `axis`, composed as TensorFlow composes it."""
    rank = x.shape.rank or 0
    pair = [a % rank for a in axis]
    perm_before = [i for i in range(rank) if i not in pair] + pair
    perm_after = [perm_before.index(i) for i in range(rank)]
    singular, _, _ = bind(Svd, transpose(x, perm_before), compute_uv=False, full_matrices=False)
    largest = expand_dims(reduce_max(absolute(singular), axis=-1, keepdims=True), -1)
    result = transpose(largest, perm_after)
    return result if keepdims else squeeze(result, pair)


def svd(tensor: Any, full_matrices: bool = False, compute_uv: bool = True, name: str | None = None) -> Any:
    """Singular values s (descending) and, with compute_uv, the matrices u and v with tensor = u diag(s) v^H."""
    s, u, v = bind(Svd, convert_to_tensor(tensor), compute_uv=bool(compute_uv), full_matrices=bool(full_matrices))
    return (s, u, v) if compute_uv else s


def pinv(a: Any, rcond: Any = None, validate_args: bool = False, name: str | None = None) -> Tensor:
    """The Moore-Penrose pseudo-inverse: v diag(1/s) u^H, singular values below rcond * max(s) dropped."""
    x = convert_to_tensor(a)
    if rcond is None:
        rows, cols = x.shape[-2], x.shape[-1]
        rcond = 10.0 * max(rows or 1, cols or 1) * np.finfo(x.dtype._np).eps
    s, u, v = svd(x, full_matrices=False, compute_uv=True)
    cutoff = multiply(cast(rcond, s.dtype), reduce_max(s, axis=-1))
    s = where(greater(s, expand_dims(cutoff, -1)), s, multiply(ones_like_(s), np.inf))
    return matmul(divide(v, expand_dims(s, -2)), u, adjoint_b=True)


def matrix_rank(a: Any, tol: Any = None, validate_args: bool = False, name: str | None = None) -> Tensor:
    """The number of singular values above `tol` (by default eps * max(rows, cols) * the largest one)."""
    x = convert_to_tensor(a)
    s = svd(x, compute_uv=False)
    if tol is None:
        rows, cols = x.shape[-2], x.shape[-1]
        eps = np.finfo(x.dtype._np).eps
        tol = multiply(cast(eps * max(rows or 1, cols or 1), s.dtype), reduce_max(s, axis=-1, keepdims=True))
    else:
        tol = convert_to_tensor(tol, dtype=s.dtype)
    return reduce_sum(cast(greater(s, tol), dtypes.int32), axis=-1)


def normalize(tensor: Any, ord: Any = "euclidean", axis: Any = None, name: str | None = None) -> tuple:
    """(tensor / its norm, the norm), the norm kept with keepdims=True."""
    x = convert_to_tensor(tensor)
    n = norm(x, ord=ord, axis=axis, keepdims=True)
    return divide(x, n), n
