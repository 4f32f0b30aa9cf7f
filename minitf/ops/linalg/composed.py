"""More of `tf.linalg`, composed of existing ops as TensorFlow composes them (so gradients and traced graphs
follow): svd (the `Svd` op the matrix 2-norm uses), pinv and matrix_rank from the singular values, cross,
set_diag, tensor_diag / tensor_diag_part, normalize."""

from __future__ import annotations

from typing import Any

import numpy as np

from minitf.core import dtypes
from minitf.core.conversion import convert_to_tensor
from minitf.core.op import bind
from minitf.core.tensor import Tensor
from minitf.ops.array.creation import eye
from minitf.ops.array.join_split import stack
from minitf.ops.array.shape_ops import expand_dims, reshape
from minitf.ops.array.where import where
from minitf.ops.linalg.linalg_ops import matmul
from minitf.ops.linalg.matrix_ops import diag, diag_part
from minitf.ops.linalg.norms import Svd, norm
from minitf.ops.math.binary_math import divide, multiply, subtract
from minitf.ops.math.cast import cast
from minitf.ops.math.comparisons import greater
from minitf.ops.math.elementwise import ones_like_
from minitf.ops.math.reductions import reduce_max, reduce_sum


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


def cross(a: Any, b: Any, name: str | None = None) -> Tensor:
    """The cross product of 3-vectors along the last axis."""
    u = convert_to_tensor(a)
    v = convert_to_tensor(b, dtype=u.dtype)
    u0, u1, u2 = (u[..., i] for i in range(3))
    v0, v1, v2 = (v[..., i] for i in range(3))
    return stack([subtract(u1 * v2, u2 * v1), subtract(u2 * v0, u0 * v2), subtract(u0 * v1, u1 * v0)], axis=-1)


def set_diag(input: Any, diagonal: Any, name: str = "set_diag", k: int = 0,  # noqa: A002
             align: str = "RIGHT_LEFT") -> Tensor:
    """`input` with its main diagonal replaced by `diagonal`."""
    x = convert_to_tensor(input)
    d = convert_to_tensor(diagonal, dtype=x.dtype)
    rows, cols = x.shape[-2], x.shape[-1]
    mask = cast(eye(rows, cols, dtype=dtypes.int32), dtypes.bool)
    return where(mask, diag(d, num_rows=rows, num_cols=cols), x)


def tensor_diag(diagonal: Any, name: str | None = None) -> Tensor:
    """A tensor of shape s + s with `diagonal` (shape s) on its diagonal and zeros elsewhere."""
    d = convert_to_tensor(diagonal)
    dims = d.shape.as_list()
    return reshape(diag(reshape(d, [-1])), dims + dims)


def tensor_diag_part(input: Any, name: str | None = None) -> Tensor:  # noqa: A002
    """The diagonal of a tensor of shape s + s, of shape s."""
    x = convert_to_tensor(input)
    dims: list[Any] = x.shape.as_list()  # known sizes: the diagonal's length is their product
    half = dims[:len(dims) // 2]
    n = int(np.prod(half))
    return reshape(diag_part(reshape(x, [n, n])), half)


def normalize(tensor: Any, ord: Any = "euclidean", axis: Any = None, name: str | None = None) -> tuple:  # noqa: A002
    """(tensor / its norm, the norm), the norm kept with keepdims=True."""
    x = convert_to_tensor(tensor)
    n = norm(x, ord=ord, axis=axis, keepdims=True)
    return divide(x, n), n
