"""`tf.RaggedTensorSpec` and `tf.SparseTensorSpec`: how a tf.function traces composite arguments.

A spec is the part of a tf.function's cache key for one RaggedTensor or SparseTensor argument (like a
TensorSpec for a tensor). It knows how to stand in for the argument while tracing (one placeholder per
component tensor) and which component tensors to feed when the trace runs.

A value and its spec know each other (`RaggedTensor._trace_spec`, `RaggedTensorSpec.value_type`). The specs are
defined here first; minitf/composite/ragged/tensor.py and minitf/composite/sparse.py provide their value classes
to `VALUE_TYPES` (minitf/core/provided.py), so that each module imports the other in one direction only.
"""

from __future__ import annotations

from typing import Any

from minitf.core import dtypes
from minitf.core.provided import Provided
from minitf.core.tensor_shape import TensorShape


def _cannot_cast(value: Any, spec: Any) -> TypeError:
    return TypeError(f"Can not cast {value!r} to {spec!r}")


class ValueTypes(Provided):
    """The value classes the specs build while tracing, provided by the modules that define them."""

    ragged: type[Any]  # RaggedTensor (minitf/composite/ragged/tensor.py)
    sparse: type[Any]  # SparseTensor (minitf/composite/sparse.py)


VALUE_TYPES = ValueTypes()


class CompositeSpec:
    """What both specs share: equal when their keys are (a tf.function's cache compares them), and a spec given to
    get_concrete_function stands for itself.  TensorFlow's common base of the two is `tf.TypeSpec`."""

    def _key(self) -> tuple:
        raise NotImplementedError

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def _trace_spec(self) -> CompositeSpec:
        return self


class RaggedTensorSpec(CompositeSpec):
    """A RaggedTensor argument: its [rows, None, ...] shape, dtype and ragged_rank (not its row lengths)."""

    @property
    def value_type(self) -> Any:
        return VALUE_TYPES.ragged

    def __init__(
        self,
        shape: Any = None,
        dtype: Any = dtypes.float32,
        ragged_rank: int | None = None,
        row_splits_dtype: Any = dtypes.int64,
        flat_values_spec: Any = None,
    ) -> None:
        self._shape = TensorShape(shape)
        self._dtype = dtypes.as_dtype(dtype)
        rank = self._shape.rank
        self._ragged_rank = ragged_rank if ragged_rank is not None else (rank - 1 if rank is not None else 1)
        self._row_splits_dtype = dtypes.as_dtype(row_splits_dtype)

    @classmethod
    def from_value(cls, value: Any) -> RaggedTensorSpec:
        shape = TensorShape([value.shape[0]] + [None] * value.ragged_rank + list(value.flat_values.shape[1:]))
        return cls(shape, value.dtype, value.ragged_rank, value.row_splits_dtype)

    @property
    def shape(self) -> TensorShape:
        return self._shape

    @property
    def dtype(self) -> dtypes.DType:
        return self._dtype

    @property
    def ragged_rank(self) -> int:
        return self._ragged_rank

    def _key(self) -> tuple:
        return (
            "RaggedTensorSpec",
            tuple(self._shape.as_list()) if self._shape.rank is not None else None,
            self._dtype,
            self._ragged_rank,
        )

    def __repr__(self) -> str:
        return f"RaggedTensorSpec({self._shape!r}, {self._dtype!r}, {self._ragged_rank}, {self._row_splits_dtype!r})"

    # --- what a tf.function needs ---
    def _placeholders(self, graph: Any, name: str) -> Any:
        inner = list(self._shape[self._ragged_rank + 1 :]) if self._shape.rank is not None else []
        flat = graph.placeholder([None] + inner, self._dtype, name=name)
        graph.inputs.append(flat)
        nrows = self._shape[0] if self._shape.rank is not None else None
        splits = []
        for level in range(self._ragged_rank):
            size = nrows + 1 if level == 0 and nrows is not None else None
            holder = graph.placeholder([size], self._row_splits_dtype, name=name)
            graph.inputs.append(holder)
            splits.append(holder)
        value: Any = flat
        for row_splits in reversed(splits):
            value = self.value_type(value, row_splits, internal=True)
        return value

    def _flat_inputs(self, value: Any) -> list[Any]:
        if isinstance(value, RaggedTensorSpec):
            return []
        if not isinstance(value, self.value_type) or not RaggedTensorSpec.from_value(value)._fits(self):
            raise _cannot_cast(value, self)
        return value._components()

    def _fits(self, general: RaggedTensorSpec) -> bool:
        return (
            self._dtype is general._dtype
            and self._ragged_rank == general._ragged_rank
            and general._shape.is_compatible_with(self._shape)
        )


class SparseTensorSpec(CompositeSpec):
    """A SparseTensor argument: its dense shape and dtype (not how many values it stores)."""

    @property
    def value_type(self) -> Any:
        return VALUE_TYPES.sparse

    def __init__(self, shape: Any = None, dtype: Any = dtypes.float32) -> None:
        self._shape = TensorShape(shape)
        self._dtype = dtypes.as_dtype(dtype)

    @classmethod
    def from_value(cls, value: Any) -> SparseTensorSpec:
        return cls(value.shape, value.dtype)

    @property
    def shape(self) -> TensorShape:
        return self._shape

    @property
    def dtype(self) -> dtypes.DType:
        return self._dtype

    def _key(self) -> tuple:
        return ("SparseTensorSpec", tuple(self._shape.as_list()) if self._shape.rank is not None else None, self._dtype)

    def __repr__(self) -> str:
        return f"SparseTensorSpec({self._shape!r}, {self._dtype!r})"

    def _placeholders(self, graph: Any, name: str) -> Any:
        rank = self._shape.rank
        indices = graph.placeholder([None, rank], dtypes.int64, name=name)
        values = graph.placeholder([None], self._dtype, name=name)
        dense_shape = graph.placeholder([rank], dtypes.int64, name=name)
        graph.inputs.extend([indices, values, dense_shape])
        sparse = self.value_type(indices, values, dense_shape)
        sparse._static_shape = self._shape  # the traced function sees the dense shape, as in TensorFlow
        return sparse

    def _flat_inputs(self, value: Any) -> list[Any]:
        if isinstance(value, SparseTensorSpec):
            return []
        if (
            not isinstance(value, self.value_type)
            or value.dtype is not self._dtype
            or not self._shape.is_compatible_with(value.shape)
        ):
            raise _cannot_cast(value, self)
        return value._components()
