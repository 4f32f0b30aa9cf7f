"""`tf.SparseTensor` and `tf.sparse`: a mostly-zero tensor stored as its non-zero entries.

As in TensorFlow, a SparseTensor is a Python object over three ordinary tensors: `indices` (int64,
[N, rank], one row per stored entry), `values` ([N]) and `dense_shape` (int64, [rank]). The ops here work
on those components, so sparse tensors work eagerly, inside `tf.function` and under a tape.
"""

from __future__ import annotations

import typing
from collections.abc import Callable
from typing import Any

import numpy as np

from minitf.composite.specs import SparseTensorSpec
from minitf.core import dtypes, shape_rules
from minitf.core.context import state
from minitf.core.conversion import convert_to_tensor, static_value
from minitf.core.errors import dtype_mismatch, invalid_argument, same_dtype
from minitf.core.op import Op, bind
from minitf.core.tensor import EagerTensor, Tensor
from minitf.core.tensor_shape import TensorShape
from minitf.ops.array.gather_scatter import gather
from minitf.ops.array.shape_ops import reshape, transpose
from minitf.ops.math.binary_math import add as dense_add
from minitf.ops.math.cast import cast
from minitf.ops.math.reductions import reduce_sum


class SparseTensor:
    """`tf.SparseTensor(indices, values, dense_shape)`: only the listed entries are stored; the rest are zero."""

    _static_shape: TensorShape | None = None  # set when a tf.function traces a SparseTensor argument

    def __init__(self, indices: Any, values: Any, dense_shape: Any) -> None:
        self._indices = _int64(indices, "indices")
        self._values = convert_to_tensor(values)
        self._dense_shape = _int64(dense_shape, "dense_shape")
        n_indices, n_values = self._indices.shape[0], self._values.shape[0]
        if self._values.shape.rank != 1:
            raise ValueError(f"Shape {self._values.shape} must have rank 1")
        if self._indices.shape.rank != 2:
            raise ValueError(f"Shape {self._indices.shape} must have rank 2")
        if n_indices is not None and n_values is not None and n_indices != n_values:
            raise ValueError(f"Dimensions {n_indices} and {n_values} are not compatible")
        rank_i, rank_s = self._indices.shape[1], self._dense_shape.shape[0]
        if rank_i is not None and rank_s is not None and rank_i != rank_s:
            raise ValueError(f"Dimensions {rank_i} and {rank_s} are not compatible")

    @classmethod
    def from_value(cls, value: Any) -> SparseTensor:
        return value if isinstance(value, SparseTensor) else from_dense(value)

    @property
    def indices(self) -> Tensor:
        return self._indices

    @property
    def values(self) -> Tensor:
        return self._values

    @property
    def dense_shape(self) -> Tensor:
        return self._dense_shape

    @property
    def dtype(self) -> dtypes.DType:
        return self._values.dtype

    @property
    def shape(self) -> TensorShape:
        """The dense shape, as far as it is known without running anything."""
        if self._static_shape is not None:
            return self._static_shape
        shape = self._dense_shape
        while not isinstance(shape, EagerTensor) and shape.op.type == "Identity":
            shape = shape.op.inputs[0]
        if isinstance(shape, EagerTensor):
            return TensorShape([int(d) for d in np.asarray(shape._value)])
        if shape.op.type == "Const":
            return TensorShape([int(d) for d in np.asarray(shape.op.attrs["value"])])
        if shape.op.type == "DenseToSparse":  # the dense tensor's static shape
            return shape.op.inputs[0].shape
        return TensorShape([None] * shape.shape[0]) if shape.shape[0] is not None else TensorShape(None)

    def get_shape(self) -> TensorShape:
        return self.shape

    @property
    def ndim(self) -> int | None:
        return self.shape.rank

    # --- as components (tf.nest with expand_composites=True; tf.function arguments and outputs) ---
    def _trace_spec(self) -> Any:
        return SparseTensorSpec.from_value(self)

    def _components(self) -> list[Tensor]:
        return [self._indices, self._values, self._dense_shape]

    def _with_components(self, components: list[Any]) -> SparseTensor:
        return SparseTensor(*components)

    def with_values(self, new_values: Any) -> SparseTensor:
        return SparseTensor(self._indices, new_values, self._dense_shape)

    def __repr__(self) -> str:
        return f"SparseTensor(indices={self._indices!s}, values={self._values!s}, dense_shape={self._dense_shape!s})"

    __str__ = __repr__

    def __neg__(self) -> SparseTensor:
        return self.with_values(-self._values)

    def __mul__(self, other: Any) -> SparseTensor:
        """Scaling by a scalar keeps the tensor sparse."""
        return self.with_values(self._values * other)

    __rmul__ = __mul__

    def __truediv__(self, other: Any) -> SparseTensor:
        return self.with_values(self._values / other)

    def __bool__(self) -> bool:
        raise TypeError("SparseTensor may not be used as a boolean.")


SparseTensorSpec.value_type = SparseTensor  # the spec builds SparseTensors while tracing (specs.py)


def _int64(value: Any, what: str) -> Tensor:
    t = convert_to_tensor(value, dtype_hint=dtypes.int64)
    if t.dtype is dtypes.int32:
        t = cast(t, dtypes.int64)
    if t.dtype is not dtypes.int64:
        raise TypeError(
            f"SparseTensor {what} must be int64, got {t.dtype.name}.\nHint: indices and shapes are whole numbers."
        )
    return t


def _sparse(value: Any, where: str) -> SparseTensor:
    if not isinstance(value, SparseTensor):
        raise TypeError(
            f"Input must be a SparseTensor, got {type(value).__name__}.\nHint: tf.sparse.from_dense "
            f"turns a dense tensor into a SparseTensor (needed by {where})."
        )
    return value


# ---------------------------------------------------------------------------------------------------
# To and from dense tensors
# ---------------------------------------------------------------------------------------------------


def _check_entries(indices: np.ndarray, shape: np.ndarray, op_name: str, ordered: bool) -> None:
    """TensorFlow's checks: every index inside the shape, and (for ops that need it) in row-major order."""
    for i, index in enumerate(indices):
        if np.any(index < 0) or np.any(index >= shape):
            raise invalid_argument(
                op_name,
                f"indices[{i}] = [{','.join(map(str, index))}] is out of bounds: "
                f"need 0 <= index < [{','.join(map(str, shape))}]",
            )
        if ordered and i and tuple(index) <= tuple(indices[i - 1]):
            what = "is repeated" if tuple(index) == tuple(indices[i - 1]) else "is out of order"
            raise invalid_argument(
                op_name,
                f"indices[{i}] = [{','.join(map(str, index))}] {what}. Many sparse "
                f"ops require sorted indices.\n    Use `tf.sparse.reorder` to create a "
                f"correctly ordered copy.\n\n",
            )


def _to_dense_kernel(indices: Any, values: Any, dense_shape: Any, default: Any, validate_indices: bool) -> Any:
    indices = np.asarray(indices).reshape(-1, len(dense_shape))
    shape = np.asarray(dense_shape)
    _check_entries(indices, shape, "SparseToDense", ordered=validate_indices)
    out = np.full(tuple(shape), default, dtype=np.asarray(values).dtype)
    out[tuple(indices.T)] = values
    return out


def _to_dense_shape(shapes_: Any, types: Any, attrs: dict) -> list[shape_rules.Spec]:
    rank = shapes_[2][0]
    return [(TensorShape([None] * rank) if rank is not None else TensorShape(None), types[1])]


def _to_dense_grad(ctx: Any, g: Tensor) -> list[Any]:
    """The gradient of each stored value is the gradient at its position."""
    return [None, bind(GatherAt, g, ctx.inputs[0]), None, None]


def _gather_at(dense: Any, indices: Any) -> Any:
    indices = np.asarray(indices)
    return np.asarray(dense)[tuple(indices.T)] if indices.size else np.zeros(0, dtype=np.asarray(dense).dtype)


GatherAt = Op("SparseGatherAt", _gather_at, shape=lambda s, t, a: [(TensorShape([s[1][0]]), t[0])])
SparseToDense = Op("SparseToDense", _to_dense_kernel, shape=_to_dense_shape, grad=_to_dense_grad)


def to_dense(
    sp_input: Any, default_value: Any = None, validate_indices: bool = True, name: str | None = None
) -> Tensor:
    """The dense tensor: stored values at their indices, `default_value` (zero) everywhere else."""
    sp = _sparse(sp_input, "tf.sparse.to_dense")
    default = convert_to_tensor(
        default_value if default_value is not None else (b"" if sp.dtype is dtypes.string else sp.dtype._np.type(0)),
        dtype=sp.dtype,
    )
    dense = bind(SparseToDense, sp.indices, sp.values, sp.dense_shape, default, validate_indices=validate_indices)
    if isinstance(dense, Tensor) and not isinstance(dense, EagerTensor) and sp.shape.rank is not None:
        dense.set_shape(sp.shape)  # type: ignore[attr-defined]
    return dense


def _from_dense_kernel(x: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    x = np.asarray(x)
    mask = x != (b"" if x.dtype == object else 0)
    indices = np.argwhere(mask).astype(np.int64)
    return indices, x[mask], np.array(x.shape, dtype=np.int64)


def _from_dense_shape(shapes_: Any, types: Any, attrs: dict, values: Any = None) -> list[shape_rules.Spec]:
    rank = shapes_[0].rank
    return [
        (TensorShape([None, rank]), dtypes.int64),
        (TensorShape([None]), types[0]),
        (TensorShape([rank]), dtypes.int64),
    ]


def _from_dense_grad(ctx: Any, grads: list) -> list[Any]:
    """The stored values' gradients go back to their places in the dense tensor; the rest get zero."""
    g_values = grads[1]
    if g_values is None:
        return [None]
    indices, _, dense_shape = ctx.outputs
    zero = convert_to_tensor(0, dtype=g_values.dtype)
    return [bind(SparseToDense, indices, g_values, dense_shape, zero, validate_indices=False)]


DenseToSparse = Op(
    "DenseToSparse",
    _from_dense_kernel,
    num_outputs=3,
    shape=_from_dense_shape,
    grad=_from_dense_grad,
    value_dependent=True,
)


def from_dense(tensor: Any, name: str | None = None) -> SparseTensor:
    """The non-zero entries of a dense tensor, in row-major order."""
    t = convert_to_tensor(tensor)
    indices, values, dense_shape = bind(DenseToSparse, t)
    return SparseTensor(indices, values, dense_shape)


# ---------------------------------------------------------------------------------------------------
# reorder, add
# ---------------------------------------------------------------------------------------------------


def _reorder_kernel(indices: Any, values: Any, dense_shape: Any) -> tuple[np.ndarray, np.ndarray]:
    indices = np.asarray(indices).reshape(-1, len(dense_shape))
    order = np.lexsort(indices.T[::-1]) if len(indices) else np.zeros(0, dtype=np.int64)
    return indices[order], np.asarray(values)[order]


SparseReorder = Op(
    "SparseReorder", _reorder_kernel, num_outputs=2, shape=lambda s, t, a: [(s[0], dtypes.int64), (s[1], t[1])]
)


def reorder(sp_input: Any, name: str | None = None) -> SparseTensor:
    """The same entries sorted in row-major order, which `to_dense` and most sparse ops expect."""
    sp = _sparse(sp_input, "tf.sparse.reorder")
    indices, values = bind(SparseReorder, sp.indices, sp.values, sp.dense_shape)
    return SparseTensor(indices, values, sp.dense_shape)


def _add_kernel(
    a_indices: Any, a_values: Any, a_shape: Any, b_indices: Any, b_values: Any, b_shape: Any, threshold: Any
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    a_shape, b_shape = np.asarray(a_shape), np.asarray(b_shape)
    if a_shape.shape != b_shape.shape or np.any(a_shape != b_shape):
        for dim, (x, y) in enumerate(zip(a_shape, b_shape)):
            if x != y:
                raise invalid_argument(
                    "SparseAdd", f"Operands' shapes do not match: got {x} and {y} for dimension {dim}"
                )
        raise invalid_argument(
            "SparseAdd", f"Operands do not have the same ranks; got shapes: {a_shape.tolist()} and {b_shape.tolist()}"
        )
    sums: dict[tuple, Any] = {}
    for index, value in zip(map(tuple, np.asarray(a_indices).tolist()), np.asarray(a_values)):
        sums[index] = sums[index] + value if index in sums else value
    for index, value in zip(map(tuple, np.asarray(b_indices).tolist()), np.asarray(b_values)):
        sums[index] = sums[index] + value if index in sums else value
    kept = sorted(k for k, v in sums.items() if not abs(v) < threshold)
    dtype = np.asarray(a_values).dtype
    indices = np.array(kept, dtype=np.int64).reshape(-1, len(a_shape))
    return indices, np.array([sums[k] for k in kept], dtype=dtype), a_shape.astype(np.int64)


SparseAdd = Op(
    "SparseAdd",
    _add_kernel,
    num_outputs=3,
    value_dependent=True,
    shape=lambda s, t, a, values=None: [
        (TensorShape([None, s[0][1]]), dtypes.int64),
        (TensorShape([None]), t[1]),
        (s[2], dtypes.int64),
    ],
)


def add(a: Any, b: Any, threshold: Any = 0) -> Any:
    """Sparse + sparse is sparse (entries whose sum is below `threshold` in magnitude are dropped); sparse +
    dense is dense."""
    if isinstance(a, SparseTensor) and isinstance(b, SparseTensor):
        same_dtype("SparseAdd", [a.values, b.values])
        if state.graph is not None and not a.shape.is_compatible_with(b.shape):  # TensorFlow's graph-time check
            raise ValueError(
                f"Shapes {a.shape} and {b.shape} are incompatible\nHint: tf.sparse.add needs two "
                "SparseTensors of the same dense_shape."
            )
        limit = convert_to_tensor(threshold, dtype_hint=a.dtype)
        indices, values, shape = bind(
            SparseAdd, a.indices, a.values, a.dense_shape, b.indices, b.values, b.dense_shape, limit
        )
        return SparseTensor(indices, values, shape)
    if isinstance(b, SparseTensor):
        a, b = b, a
    if not isinstance(a, SparseTensor):
        raise TypeError(
            "At least one input to tf.sparse.add should be a SparseTensor.\nHint: add dense tensors with tf.add."
        )
    dense = convert_to_tensor(b, dtype_hint=a.dtype)
    return dense_add(dense, to_dense(a, validate_indices=False))


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


def _matmul_grad(ctx: Any, g: Tensor) -> list[Any]:
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
        sp_a = _sparse(sp_a, "tf.sparse.sparse_dense_matmul")
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


__all__ = ["SparseTensor", "add", "from_dense", "reorder", "sparse_dense_matmul", "to_dense"]


def _as_sparse(value: Any, what: str) -> Any:
    if not isinstance(value, SparseTensor):
        raise TypeError(
            f"Input must be a SparseTensor.\nHint: {what} takes a tf.sparse.SparseTensor; "
            "tf.sparse.from_dense makes one from a dense tensor."
        )
    return value


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
    sp = _as_sparse(sp_input, "tf.sparse.transpose")
    rank = sp.shape.rank
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
