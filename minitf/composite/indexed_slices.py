"""`tf.IndexedSlices`: a sparse gradient, made of the rows it touches.

The gradient of `tf.gather(params, indices)` with respect to `params` is zero except in the gathered rows,
so TensorFlow returns it as `values` (one row per index, repeats included) plus `indices` and the
`dense_shape` of `params`, instead of a mostly-zero tensor. The tape keeps it sparse while it flows into a
variable or through `tf.identity`; where two sparse gradients meet they are concatenated, and where a
sparse one meets a dense one (or enters another op's gradient rule) it becomes dense.
`tf.convert_to_tensor(slices)` makes the dense tensor (repeated indices are summed).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from minitf.core.conversion import convert_to_tensor
from minitf.core.provided import Provided
from minitf.core.tensor import Tensor
from minitf.core.tensor_shape import TensorShape
from minitf.ops.array.join_split import concat
from minitf.ops.array.shape_ops import reshape, shape
from minitf.ops.math.binary_math import add
from minitf.ops.math.unary_math import negative


class ToDense(Provided):
    """How slices become one dense tensor: an unsorted segment sum of the rows. That op's gradient is a gather,
    whose gradient makes IndexedSlices, so it is defined above this module: minitf/ops/math/segment_ops.py
    provides the rule where it defines the op (minitf/core/provided.py), and the imports go one way."""

    rule: Callable[[IndexedSlices], Tensor]


TO_DENSE = ToDense()


class IndexedSlices:
    """`values[i]` is the slice of a `dense_shape` tensor at row `indices[i]` (rows may repeat: they add up)."""

    __slots__ = ("_values", "_indices", "_dense_shape", "_static_shape")

    def __init__(self, values: Any, indices: Any, dense_shape: Any = None) -> None:
        self._values = convert_to_tensor(values)
        self._indices = convert_to_tensor(indices)
        self._dense_shape = None if dense_shape is None else convert_to_tensor(dense_shape)
        self._static_shape: TensorShape | None = None  # what the tracer knows of the dense shape

    @property
    def values(self) -> Tensor:
        return self._values

    @property
    def indices(self) -> Tensor:
        return self._indices

    @property
    def dense_shape(self) -> Tensor | None:
        return self._dense_shape

    @property
    def dtype(self) -> Any:
        return self._values.dtype

    @property
    def shape(self) -> TensorShape:
        """The dense tensor's static shape (unknown parts stay None)."""
        known = getattr(self._dense_shape, "_value", None)
        if known is not None:
            return TensorShape([int(d) for d in known])
        if self._static_shape is not None:
            return self._static_shape
        rows = TensorShape([None])
        return rows + self._values.shape[1:] if self._values.shape.rank is not None else TensorShape(None)

    @property
    def device(self) -> str:
        return self._values.device

    @property
    def name(self) -> str:
        return self._values.name

    @property
    def op(self) -> Any:
        return self._values.op

    @property
    def graph(self) -> Any:
        return self._values.graph

    def __neg__(self) -> IndexedSlices:
        return IndexedSlices(negative(self._values), self._indices, self._dense_shape)

    def __str__(self) -> str:
        shape = "" if self._dense_shape is None else f", dense_shape={self._dense_shape!s}"
        return f"IndexedSlices(indices={self._indices!s}, values={self._values!s}{shape})"

    def _to_dense(self) -> Tensor:
        """The dense tensor these slices stand for (what `tf.convert_to_tensor` gives)."""
        if self._dense_shape is None:
            raise ValueError(
                f"Tensor conversion requested for IndexedSlices without dense_shape: {self}\nHint: "
                f"build it as tf.IndexedSlices(values, indices, dense_shape)."
            )
        out = TO_DENSE.rule(self)
        if self._static_shape is not None and hasattr(out, "set_shape"):
            out.set_shape(self._static_shape)
        return out


def gather_gradient(params: Any, indices: Any, upstream: Any) -> IndexedSlices | None:
    """The gradient of `tf.gather(params, indices)` (axis 0) with respect to `params`, kept sparse.

    None when the rows' shape is not known statically (the caller then makes a dense gradient).
    """
    row = params.shape[1:] if params.shape.rank is not None else None
    if row is None or not row.is_fully_defined():
        return None
    values = reshape(upstream, [-1, *row.as_list()])
    slices = IndexedSlices(values, reshape(indices, [-1]), shape(params))
    slices._static_shape = params.shape
    return slices


def dense(gradient: Any) -> Any:
    """A gradient as a dense tensor (IndexedSlices are converted, everything else passes through)."""
    return gradient._to_dense() if isinstance(gradient, IndexedSlices) else gradient


def add_gradients(a: Any, b: Any) -> Any:
    """The sum of two gradients of one value: sparse + sparse stays sparse (rows concatenated), else dense."""
    if isinstance(a, IndexedSlices) and isinstance(b, IndexedSlices):
        # The rows in the order the gradients arrived (the tape follows TensorFlow's order).
        total = IndexedSlices(concat([a.values, b.values], 0), concat([a.indices, b.indices], 0), a.dense_shape)
        total._static_shape = a._static_shape
        return total
    return add(dense(a), dense(b))
