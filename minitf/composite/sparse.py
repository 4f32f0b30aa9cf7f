"""`tf.SparseTensor` and `tf.sparse`: a mostly-zero tensor stored as its non-zero entries.

As in TensorFlow, a SparseTensor is a Python object over three ordinary tensors: `indices` (int64,
[N, rank], one row per stored entry), `values` ([N]) and `dense_shape` (int64, [rank]). The ops here work
on those components, so sparse tensors work eagerly, inside `tf.function` and under a tape. This file: the
class, conversion to and from dense tensors, reorder and add; products, sums and transposes: sparse_math.py.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from minitf.composite.specs import VALUE_TYPES, SparseTensorSpec
from minitf.core import dtypes, shape_rules
from minitf.core.context import state
from minitf.core.conversion import convert_to_tensor
from minitf.core.errors import invalid_argument, same_dtype
from minitf.core.op import GradContext, Op, bind
from minitf.core.tensor import EagerTensor, Tensor
from minitf.core.tensor_shape import TensorShape
from minitf.ops.math.binary_math import add as dense_add
from minitf.ops.math.cast import cast


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


VALUE_TYPES.provide(sparse=SparseTensor)  # the spec builds SparseTensors while tracing (specs.py)


def _int64(value: Any, what: str) -> Tensor:
    t = convert_to_tensor(value, dtype_hint=dtypes.int64)
    if t.dtype is dtypes.int32:
        t = cast(t, dtypes.int64)
    if t.dtype is not dtypes.int64:
        raise TypeError(
            f"SparseTensor {what} must be int64, got {t.dtype.name}.\nHint: indices and shapes are whole numbers."
        )
    return t


def sparse_input(value: Any, where: str) -> SparseTensor:
    """`value`, which `where` (`tf.sparse.concat`, ...) needs to be a SparseTensor: TensorFlow's TypeError otherwise."""
    if not isinstance(value, SparseTensor):
        raise TypeError(
            f"Input must be a SparseTensor.\nHint: {where} takes a tf.sparse.SparseTensor, not a "
            f"{type(value).__name__}; tf.sparse.from_dense makes one from a dense tensor."
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


def _to_dense_grad(ctx: GradContext, g: Tensor) -> list[Any]:
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
    sp = sparse_input(sp_input, "tf.sparse.to_dense")
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


def _from_dense_grad(ctx: GradContext, grads: list) -> list[Any]:
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
    sp = sparse_input(sp_input, "tf.sparse.reorder")
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
