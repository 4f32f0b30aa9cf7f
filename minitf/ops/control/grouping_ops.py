"""Small helpers over lists of tensors that TensorFlow has at its top level: identity_n, shape_n, tuple,
unique_with_counts (unique plus how often each value occurs), and the graph-building helpers no_op, group
and inside_function. Eagerly no_op and group do nothing and return None, as in TensorFlow; inside a
tf.function they add a `NoOp` operation and return it (group's names its inputs' operations as control inputs),
which needs no run-time effect because minitf's stateful ops keep program order."""

from __future__ import annotations

import builtins
import collections
import contextlib
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any

from minitf.core import dtypes
from minitf.core.context import state
from minitf.core.conversion import convert_to_tensor
from minitf.core.tensor import Tensor
from minitf.ops.array.shape_ops import identity, shape, size
from minitf.ops.array.sort_ops import unique
from minitf.ops.math.segment_ops import unsorted_segment_sum
from minitf.ops.state_ops import NoOp

if TYPE_CHECKING:  # the graph module imports the ops; at run time the class is looked up late
    from minitf.function.tracing.graph import Operation

UniqueWithCountsResult = collections.namedtuple("UniqueWithCounts", ["y", "idx", "count"])  # type: ignore[name-match]  # TensorFlow's class name


def identity_n(input: Sequence[Any], name: str | None = None) -> list[Tensor]:
    """Each tensor unchanged, as a list."""
    return [identity(t) for t in input]


def shape_n(input: Sequence[Any], out_type: Any = dtypes.int32, name: str | None = None) -> list[Tensor]:
    """The shape of each tensor, as a list of 1-D tensors."""
    return [shape(t, out_type=out_type) for t in input]


def tuple(tensors: Sequence[Any], control_inputs: Any = None, name: str | None = None) -> list[Any]:
    """The tensors, each available only once all are computed (always the case here): a list of identities."""
    return [None if t is None else identity(t) for t in tensors]


def unique_with_counts(x: Any, out_idx: Any = dtypes.int32, name: str | None = None) -> UniqueWithCountsResult:
    """The unique values in order of first appearance, each element's index among them, and each one's count."""
    y, idx = unique(x, out_idx=out_idx)
    ones = convert_to_tensor(1, dtype=out_idx) + 0 * idx
    return UniqueWithCountsResult(y, idx, unsorted_segment_sum(ones, idx, size(y, out_type=out_idx)))


def _no_op_node(name: str, control_inputs: Sequence[Operation] = ()) -> Operation | None:
    graph = state.graph
    if graph is None:
        return None
    node = graph.add_node(NoOp, [], {}, name=name)
    node._control_inputs = list(control_inputs)
    return node


def no_op(name: str | None = None) -> Operation | None:
    """Nothing (TensorFlow's placeholder op for control dependencies): None eagerly, an operation traced."""
    return _no_op_node(name or "NoOp")


def _is_operation(value: Any) -> bool:
    """A graph operation (minitf/function/tracing/graph.py, which the ops cannot import: it imports them)."""
    return hasattr(type(value), "node_def") and hasattr(value, "control_inputs")


def _operations(value: Any) -> list[Operation]:
    """The operations a (nested) group input stands for: an operation itself, or a tensor's producer."""
    if isinstance(value, list | builtins.tuple):
        return [op for v in value for op in _operations(v)]
    if _is_operation(value):
        return [value]
    if isinstance(value, Tensor) or hasattr(value, "handle"):
        op: Any = getattr(value, "op", None) if isinstance(value, Tensor) else None
        return [op] if _is_operation(op) else []
    if value is None:
        return []
    raise TypeError(f"'inputs' should be zero or more (nested) Tensors. Received '{value}' with type '{type(value)}'.")


def group(*inputs: Any, **kwargs: Any) -> Operation | None:
    """An operation that runs after `inputs` (None eagerly): minitf already runs them in program order."""
    if state.graph is None:
        return None
    name = kwargs.pop("name", None)
    if kwargs:
        raise TypeError(f"Unknown keyword arguments: {', '.join(kwargs)}")
    return _no_op_node(name or "group_deps", _operations(list(inputs)))


def inside_function() -> bool:
    """True while a tf.function is being traced."""
    return state.graph is not None


@contextlib.contextmanager
def control_dependencies(control_inputs: Any) -> Iterator[None]:
    """Ops made inside run after `control_inputs`. Eagerly everything already runs in order; inside a
    tf.function stateful ops (assertions, assignments, prints) keep program order, so nothing is added."""
    operations: list[Any] = []
    if control_inputs is not None:
        for c in control_inputs:
            # None is an eager assertion that held; () an assertion op (it has no outputs) inside a function
            if (
                c is not None
                and c != ()
                and not (callable(c) or isinstance(c, Tensor) or hasattr(c, "type") or hasattr(c, "_as_tensor"))
            ):
                raise TypeError(f"Control input must be Operation or Tensor: {c}")
            op: Any = c if hasattr(type(c), "node_def") else getattr(c, "op", None) if isinstance(c, Tensor) else None
            if hasattr(type(op), "node_def") and op not in operations:
                operations.append(op)
    graph = state.graph
    if graph is None:
        yield
        return
    outer = graph.control_dependencies
    graph.control_dependencies = (
        [] if control_inputs is None else outer + [op for op in operations if op.graph is graph and op not in outer]
    )
    try:
        yield
    finally:
        graph.control_dependencies = outer
