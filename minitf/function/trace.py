"""Tracing a Python function into a FuncGraph.

Tracing: `trace_into(graph, fn, args)` makes `graph` the current graph (`core.state.graph`), so every op the
function calls becomes a node instead of running.

Shapes while tracing: an op with a shape rule (minitf/ops/shapes.py) uses it. For the others the tracer runs
the op's NumPy kernel on stand-in values of the known shapes, twice with unknown dimensions set to different
sizes: a dimension of the result that changes between the two runs depends on an unknown one and stays unknown.

Running a graph is execute.py's job; optimising it, optimizer.py's.
"""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import contextmanager
from typing import Any

import numpy as np

from minitf import dtypes
from minitf.core import Op, state
from minitf.errors import OpError
from minitf.function.graph import FuncGraph, SymbolicTensor, resource
from minitf.tensor_shape import TensorShape

# ---------------------------------------------------------------------------------------------------
# Tracing
# ---------------------------------------------------------------------------------------------------

@contextmanager
def graph_scope(graph: FuncGraph | None) -> Any:
    """Make `graph` the graph ops go into (None: eager) for the duration of the block."""
    previous = state.graph
    state.graph = graph
    state.refresh()
    try:
        yield graph
    finally:
        state.graph = previous
        state.refresh()


def on_variable_created(graph: FuncGraph, variable: Any) -> None:
    """Variables may be created on a function's first trace only (TensorFlow lifts them out of the graph)."""
    root = graph
    while root.outer is not None:
        root = root.outer
    allowed = getattr(root, "allow_variable_creation", False)
    if not allowed:
        raise ValueError("tf.function only supports singleton tf.Variables created on the first call. Make sure "
                         "the tf.Variable is only created once or created outside tf.function. See "
                         "https://www.tensorflow.org/guide/function#creating_tfvariables for more information.")
    root.variables.append(variable)


# ---------------------------------------------------------------------------------------------------
# Shape inference
# ---------------------------------------------------------------------------------------------------

def infer_specs(op: Op, inputs: Sequence[SymbolicTensor], attrs: dict) -> list[tuple[TensorShape, dtypes.DType]]:
    """(shape, dtype) of each output of `op` applied to `inputs`, without running the real computation."""
    shapes = [t.shape for t in inputs]
    types = [t.dtype for t in inputs]
    if op.shape is not None:
        return list(op.shape(shapes, types, attrs))
    return _infer_by_running(op, inputs, attrs)


def _stand_in(t: SymbolicTensor, unknown_size: int, fill: int | None) -> Any:
    if t.op.type == "Const" and (fill is None or t.dtype._np.kind not in "iufcb" or t.shape.rank is None):
        return t.op.attrs["value"]
    if t.dtype is resource or t.dtype._np.kind == "O":
        return np.full([d if d is not None else unknown_size for d in t.shape] if t.shape.rank is not None else [],
                       b"", dtype=object) if t.dtype is dtypes.string else t._variable
    if t.shape.rank is None:
        raise _Unknown()
    dims = [d if d is not None else unknown_size for d in t.shape]
    return np.full(dims, 1 if fill is None else fill, dtype=t.dtype._np)[()]


class _Unknown(Exception):
    """Not enough is known to work out the output shape."""


def _run_kernel(op: Op, inputs: Sequence[SymbolicTensor], attrs: dict, unknown_size: int) -> list[Any]:
    last: Exception | None = None
    for fill in (None, 1, 0):  # None: constants keep their values
        try:
            values = [_stand_in(t, unknown_size, fill) for t in inputs]
            out = op.kernel(*values, **attrs)
        except _Unknown:
            raise
        except (OpError, ValueError, IndexError, TypeError, ZeroDivisionError, np.linalg.LinAlgError) as exc:
            last = exc
            continue
        return [out] if op.num_outputs == 1 else list(out)
    assert last is not None
    raise last


def _infer_by_running(op: Op, inputs: Sequence[SymbolicTensor], attrs: dict) -> list[tuple[TensorShape, dtypes.DType]]:
    all_known = all(t.shape.is_fully_defined() for t in inputs)
    try:
        first = _run_kernel(op, inputs, attrs, 2)
        second = first if all_known else _run_kernel(op, inputs, attrs, 3)
    except _Unknown:
        return [(TensorShape(None), inputs[0].dtype if inputs else dtypes.float32)] * max(op.num_outputs, 1)
    except (OpError, ValueError, IndexError, TypeError, ZeroDivisionError, np.linalg.LinAlgError) as exc:
        if all_known:
            # The shapes alone make the op impossible: TensorFlow reports this while building the graph.
            message = exc.message if isinstance(exc, OpError) else str(exc)
            raise ValueError(message.replace("[Op:", f"for '{{{{node {op.name}}}}}' [Op:")) from None
        return [(TensorShape(None), inputs[0].dtype if inputs else dtypes.float32)] * max(op.num_outputs, 1)
    value_dependent = op.value_dependent or (
        op.name == "StridedSlice" and any(isinstance(s, tuple) and s and s[0] == "slice"
                                          and any(isinstance(v, tuple) for v in s[1:]) for s in attrs["spec"]))
    known_values = all(t.op.type == "Const" for t in inputs)
    specs = []
    for a, b in zip(first, second):
        sa, sb = np.shape(a), np.shape(b)
        if value_dependent and not known_values:
            shape = TensorShape([None] * len(sa))
        else:
            shape = TensorShape([x if x == y else None for x, y in zip(sa, sb)]) if len(sa) == len(sb) \
                else TensorShape(None)
        specs.append((shape, dtypes.from_numpy(np.asarray(a).dtype)))
    return specs
