"""The structure of a dataset's elements: tuples and dicts are structure, everything else is one tensor.

An element's `element_spec` has the same structure with a TensorSpec (RaggedTensorSpec, SparseTensorSpec)
for each leaf; these helpers make elements, their specs, their rows and their batches, as tf.data does.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from typing import Any

import numpy as np

from minitf.composite.ragged.tensor import RaggedTensor
from minitf.composite.specs import RaggedTensorSpec
from minitf.core import dtypes, nest
from minitf.core.context import state
from minitf.core.conversion import convert_to_tensor
from minitf.core.tensor import EagerTensor, Tensor, make
from minitf.core.tensor_shape import TensorShape
from minitf.function.cache_keys import TensorSpec
from minitf.ops.array.join_split import concat
from minitf.ops.variables import Variable


def normalize(value: Any) -> Any:
    """Leaves as tensors; lists inside a returned structure become tuples, as TensorFlow's tf.data does."""
    if isinstance(value, dict):
        return {k: normalize(v) for k, v in value.items()}
    if isinstance(value, tuple):
        items = [normalize(v) for v in value]
        return type(value)(*items) if hasattr(value, "_fields") else tuple(items)
    if isinstance(value, Variable):
        return value.read_value()
    return value if isinstance(value, Tensor) or hasattr(value, "_trace_spec") else convert_to_tensor(value)


def spec_of(element: Any) -> Any:
    return nest.map_structure(value_spec, element)


def value_spec(t: Any) -> Any:
    """TensorSpec of a tensor; RaggedTensorSpec / SparseTensorSpec of a composite tensor."""
    return t._trace_spec() if hasattr(t, "_trace_spec") else TensorSpec(t.shape, t.dtype)


def row_spec(t: Any) -> Any:
    """The spec of one row of `t`: a RaggedTensor's rows are ragged one level less (level 0: plain tensors)."""
    if hasattr(t, "ragged_rank"):
        return RaggedTensorSpec(t.shape[1:], t.dtype, t.ragged_rank - 1)
    if hasattr(t, "_trace_spec"):
        raise NotImplementedError(
            "minitf cannot slice a SparseTensor into a dataset yet.\nHint: "
            "tf.sparse.to_dense it first, or use Dataset.from_tensors."
        )
    return TensorSpec(t.shape[1:], t.dtype)


def leaves_of(structure: Any) -> list[Any]:
    return nest.flatten(structure)


def tuples(structure: Any) -> Any:
    """Lists in a map function's result become tuples (tf.data's structures have no lists)."""
    if isinstance(structure, list):
        return tuple(tuples(v) for v in structure)
    if isinstance(structure, tuple) and not hasattr(structure, "_fields"):
        return tuple(tuples(v) for v in structure)
    if isinstance(structure, dict):
        return {k: tuples(v) for k, v in structure.items()}
    return structure


def as_traceable(spec: Any) -> Any:
    """A RaggedTensorSpec of ragged_rank 0 describes plain tensors (rows of a ragged dataset)."""
    if getattr(spec, "ragged_rank", None) == 0:
        return TensorSpec(spec.shape, spec.dtype)
    return spec


def batched_spec(spec: Any, outer: int | None) -> Any:
    if isinstance(spec, RaggedTensorSpec):
        if spec.ragged_rank != 0:
            raise ValueError(
                "minitf batches rows of a ragged dataset (ragged_rank 0), not ragged elements.\nHint: "
                "batch before making the elements ragged."
            )
        return RaggedTensorSpec(TensorShape([outer]).concatenate(spec.shape), spec.dtype, 1)
    return TensorSpec(TensorShape([outer]).concatenate(spec.shape), spec.dtype)


def ragged_batch(rows: list[Any]) -> Any:
    """Rows of different lengths batched into one RaggedTensor, as TensorFlow batches a ragged dataset."""
    lengths = [int(r.shape[0]) for r in rows]
    return RaggedTensor.from_row_lengths(concat(rows, axis=0), np.array(lengths, dtype=np.int64))


def batched_cardinality(cardinality: int, batch_size: int, drop_remainder: bool) -> int:
    """How many batches a dataset of `cardinality` elements makes (infinite and unknown stay so)."""
    if cardinality < 0:
        return cardinality
    return cardinality // batch_size if drop_remainder else -(-cardinality // batch_size)


def row_groups(elements: Iterator[Any], size: int, drop_remainder: bool) -> Iterator[list[Any]]:
    """The elements in lists of `size` (the last one shorter, or dropped), each about to become one batch."""
    while True:
        rows = list(itertools.islice(elements, size))
        if not rows or (drop_remainder and len(rows) < size):
            return
        yield rows


def check_same_state(old: Any, new_spec: Any) -> None:
    old_spec = spec_of(old)
    old_leaves, new_leaves = leaves_of(old_spec), leaves_of(new_spec)
    if len(old_leaves) != len(new_leaves) or any(a.dtype is not b.dtype for a, b in zip(old_leaves, new_leaves)):
        raise TypeError(
            f"The element types for the new state must match the initial state. Expected "
            f"{old_spec}; got {new_spec}.\nHint: tf.cast the result of reduce_func to the initial "
            f"state's dtype."
        )


def python_int(value: Any, what: str) -> int:
    if isinstance(value, Tensor):
        if not isinstance(value, EagerTensor):
            raise TypeError(
                f"minitf needs `{what}` of a dataset as a Python int or an eager tensor while "
                f"tracing.\nHint: build the dataset outside the tf.function."
            )
        return int(value._value)
    return int(value)


def row_of(t: Any, i: int) -> Any:
    if isinstance(t, EagerTensor) and state.graph is None:
        return make(t._value[i], t.dtype)  # the fast way, and strings stay bytes
    return t[i]


def scalar(value: Any, dtype: dtypes.DType) -> Tensor:
    if state.graph is not None:
        return state.graph.constant(value, dtype)
    return make(value, dtype)
