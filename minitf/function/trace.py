"""Tracing a Python function into a FuncGraph.

Tracing: `trace_into(graph, fn, args)` makes `graph` the current graph (`core.state.graph`), so every op the
function calls becomes a node instead of running.

Shapes while tracing: every op has a shape rule (minitf/ops/shapes.py) that works out its outputs' static
shapes and dtypes from its inputs' (unknown dimensions stay None, as in TensorFlow); no kernel runs while
tracing.

Running a graph is execute.py's job; optimising it, optimizer.py's.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from contextlib import contextmanager
from typing import Any

from minitf import dtypes
from minitf.core import Op, state, static_value
from minitf.errors import InvalidArgumentError
from minitf.function.graph import FuncGraph, SymbolicTensor
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
    """(shape, dtype) of each output of `op` applied to `inputs`, from the op's shape rule; nothing runs.

    Ops whose output shape depends on input values (`Op.value_dependent`: `Range`, `StridedSlice` with tensor
    bounds, ...) also get the values of their constant inputs (None for the others), as TensorFlow's
    constant-value shape inference does. A shape the rule finds impossible is TensorFlow's graph-building
    ValueError, which names the node and the input shapes.
    """
    shapes = [t.shape for t in inputs]
    types = [t.dtype for t in inputs]
    try:
        if op.value_dependent:
            return list(op.shape(shapes, types, attrs, values=[static_value(t) for t in inputs]))
        return list(op.shape(shapes, types, attrs))
    except ValueError as exc:
        raise ValueError(_build_error(op, shapes, str(exc))) from None
    except InvalidArgumentError as exc:  # a rule sharing the kernel's check: at graph building, a ValueError
        message = re.sub(r" ?\[Op:\w+\]( name: ?)?", "", exc.message)
        raise ValueError(_build_error(op, shapes, message)) from None


def _build_error(op: Op, shapes: Sequence[TensorShape], message: str) -> str:
    """TensorFlow's graph-building message: what is wrong, for which node, with which input shapes."""
    from minitf.ops.shapes import shape_text

    head, _, hint = message.partition("\nHint:")
    listed = ", ".join(shape_text(s) for s in shapes)
    hint = hint or (" the shapes of the inputs do not fit this op; print(x.shape) inside the function shows "
                    "the shapes it was traced with.")
    return f"{head} for '{{{{node {op.name}}}}}' with input shapes: {listed}.\nHint:{hint}"

