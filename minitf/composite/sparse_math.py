"""`tf.sparse.sparse_dense_matmul`, `reduce_sum`, `transpose` and `map_values`: arithmetic on the stored entries of a
SparseTensor (sparse.py has the class, conversion to and from dense tensors, reorder and add)."""

from __future__ import annotations

import typing
from collections.abc import Callable
from typing import Any

import numpy as np

from minitf.composite.sparse import SparseTensor, reorder, sparse_input, to_dense
from minitf.core import shape_rules
from minitf.core.conversion import convert_to_tensor, static_value
from minitf.core.errors import dtype_mismatch, invalid_argument
from minitf.core.op import GradContext, Op, bind
from minitf.core.tensor import Tensor
from minitf.core.tensor_shape import TensorShape
from minitf.ops.array.gather_scatter import gather
from minitf.ops.array.shape_ops import reshape, transpose
from minitf.ops.math.reductions import reduce_sum

# ---------------------------------------------------------------------------------------------------
# sparse_dense_matmul
# ---------------------------------------------------------------------------------------------------


def _matmul_kernel(indices: Any, values: Any, a_shape: Any, b: Any, adjoint_a: bool, adjoint_b: bool) -> Any:
    b = np.asarray(b)
    if adjoint_b:
        b = b.T.conj()
    rows, cols = (int(a_shape[1]), int(a_shape[0])) if adjoint_a else (int(a_shape[0]), int(a_shape[1]))
    if cols != b.shape[0]:
        raise invalid_argument(
            "SparseTensorDenseMatMul",
            f"Cannot multiply A and B because inner dimension does "
            f"not match: {cols} vs. {b.shape[0]}.  Did you forget a transpose?  Dimensions of "
            f"A: [{rows}, {cols}).  Dimensions of B: [{b.shape[0]},{b.shape[1]}]",
        )
    out = np.zeros((rows, b.shape[1]), dtype=b.dtype)
    values = np.asarray(values)
    for (i, j), v in zip(np.asarray(indices).tolist(), values.conj() if adjoint_a else values):
        if adjoint_a:
            i, j = j, i
        out[i] += v * b[j]
    return out


def _matmul_shape(shapes_: Any, types: Any, attrs: dict, values: Any = None) -> list[shape_rules.Spec]:
    b = shapes_[3]
    cols = b[0] if attrs["adjoint_b"] else b[1]
    a_shape = values[2] if values else None
    if a_shape is not None and b.rank == 2:  # a constant dense shape: TensorFlow checks the inner dimension
        inner = int(np.asarray(a_shape)[0 if attrs["adjoint_a"] else 1])
        shape_rules.merge_dims(
            inner,
            b[1] if attrs["adjoint_b"] else b[0],
            "\nHint: the sparse matrix's columns must match the dense matrix's rows (adjoint_a / "
            "adjoint_b transpose them).",
        )
    return [(TensorShape([None, cols]), types[1])]


def _matmul_grad(ctx: GradContext, g: Tensor) -> list[Any]:
    """d/d b = A^T g; d/d value (i, j) = g[i] . b[j] (adjoints swap the roles)."""
    indices, values, shape, b = ctx.inputs
    adjoint_a, adjoint_b = ctx.attrs["adjoint_a"], ctx.attrs["adjoint_b"]
    grad_b = bind(SparseTensorDenseMatMul, indices, values, shape, g, adjoint_a=not adjoint_a, adjoint_b=False)
    if adjoint_b:
        grad_b = transpose(grad_b)
    grad_values = bind(SparseMatMulValuesGrad, indices, g, b, adjoint_a=adjoint_a, adjoint_b=adjoint_b)
    return [None, grad_values, None, grad_b]


def _values_grad_kernel(indices: Any, g: Any, b: Any, adjoint_a: bool, adjoint_b: bool) -> Any:
    b = np.asarray(b)
    if adjoint_b:
        b = b.T
    out = [np.dot(g[j if adjoint_a else i], b[i if adjoint_a else j]) for i, j in np.asarray(indices).tolist()]
    return np.array(out, dtype=np.asarray(g).dtype)


SparseMatMulValuesGrad = Op(
    "SparseMatMulValuesGrad", _values_grad_kernel, shape=lambda s, t, a: [(TensorShape([s[0][0]]), t[1])]
)
SparseTensorDenseMatMul = Op(
    "SparseTensorDenseMatMul", _matmul_kernel, shape=_matmul_shape, grad=_matmul_grad, value_dependent=True
)


def sparse_dense_matmul(
    sp_a: Any, b: Any, adjoint_a: bool = False, adjoint_b: bool = False, name: str | None = None
) -> Tensor:
    """Matrix product of a 2-D SparseTensor and a dense matrix, touching only the stored entries."""
    if not isinstance(sp_a, SparseTensor):
        if isinstance(b, SparseTensor):  # dense @ sparse = (sparse^T @ dense^T)^T
            return transpose(sparse_dense_matmul(b, sp_a, adjoint_a=not adjoint_b, adjoint_b=not adjoint_a))
        sp_a = sparse_input(sp_a, "tf.sparse.sparse_dense_matmul")
    b = convert_to_tensor(b, dtype_hint=sp_a.dtype)
    if b.dtype is not sp_a.dtype:
        raise dtype_mismatch(
            "SparseTensorDenseMatMul", 3, sp_a.dtype, b.dtype, ("a_values", "a_indices", "a_shape", "b")
        )
    if b.shape.rank != 2:
        raise ValueError(f"Shape must be rank 2 but is rank {b.shape.rank} for 'SparseTensorDenseMatMul'.")
    return bind(
        SparseTensorDenseMatMul,
        sp_a.indices,
        sp_a.values,
        sp_a.dense_shape,
        b,
        adjoint_a=adjoint_a,
        adjoint_b=adjoint_b,
    )


def sparse_reduce_sum(
    sp_input: Any, axis: Any = None, keepdims: Any = None, output_is_sparse: bool = False, name: str | None = None
) -> Tensor:
    """The sum of a SparseTensor's entries (the missing ones count as zero) over `axis` (all by default), dense."""
    if not isinstance(sp_input, SparseTensor):  # TensorFlow reads sp_input.indices straight away
        raise AttributeError(
            f"'{type(sp_input).__name__}' object has no attribute 'indices'\nHint: "
            "tf.sparse.reduce_sum takes a tf.sparse.SparseTensor; for a dense tensor use "
            "tf.reduce_sum."
        )
    sp = sp_input
    if output_is_sparse:
        raise NotImplementedError(
            "minitf's tf.sparse.reduce_sum gives dense results only.\nHint: leave "
            "output_is_sparse=False, or wrap the result in tf.sparse.from_dense."
        )
    if axis is None:
        total = reduce_sum(sp.values)
        if keepdims:
            return reshape(total, [1] * typing.cast(int, sp.shape.rank))
        return total
    return reduce_sum(to_dense(sp), axis, keepdims=bool(keepdims))


def sparse_transpose(sp_input: Any, perm: Any = None, name: str | None = None) -> Any:
    """A SparseTensor with its dimensions permuted (reversed by default), entries in row-major order."""
    sp = sparse_input(sp_input, "tf.sparse.transpose")
    rank = sp.shape.rank
    if rank is None:
        raise ValueError(
            "tf.sparse.transpose needs the SparseTensor's rank (the length of its dense_shape) to be known.\n"
            "Hint: give the traced function's SparseTensorSpec a shape of known rank."
        )
    order = (
        list(range(rank))[::-1] if perm is None else [int(p) for p in np.ravel(static_value(convert_to_tensor(perm)))]
    )
    if sorted(order) != list(range(rank)):
        raise ValueError(
            f"perm {order} is not a permutation of the {rank} dimensions.\nHint: list each dimension "
            "index once, e.g. [1, 0] for a matrix."
        )
    indices = gather(sp.indices, order, axis=1)
    shape = gather(sp.dense_shape, order)
    return reorder(SparseTensor(indices, sp.values, shape))


def map_values(op: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """`op` applied to the stored values of the SparseTensor arguments (all with the same indices); the
    missing entries stay missing."""
    sparse_args = [a for a in list(args) + list(kwargs.values()) if isinstance(a, SparseTensor)]
    if not sparse_args:
        raise ValueError(
            "No SparseTensor in argument list of map_values\nHint: pass at least one "
            "tf.sparse.SparseTensor; op is applied to its values."
        )
    first = sparse_args[0]
    for other in sparse_args[1:]:
        if (
            first.indices is not other.indices
            and first.shape.is_fully_defined()
            and other.shape.is_fully_defined()
            and first.shape != other.shape
        ):
            raise ValueError(
                f"Shapes {first.shape} and {other.shape} are incompatible\nHint: map_values needs "
                "SparseTensors with the same indices and dense_shape."
            )

    def values_of(a: Any) -> Any:
        return a.values if isinstance(a, SparseTensor) else a

    out = op(*[values_of(a) for a in args], **{k: values_of(v) for k, v in kwargs.items()})
    return SparseTensor(first.indices, out, first.dense_shape)
