"""What `tf.cond`, `tf.while_loop` and function calls share: graphs traced inside the current graph.

Each branch or loop body is traced into its own graph, whose `outer` is the graph being traced. Tensors it
uses from outside are captured: they become inputs of the one op that runs it. Graphs run by one op (both
branches of an If, condition and body of a While) get the same capture inputs in the same order.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from minitf.core.context import state
from minitf.core.conversion import convert_to_tensor
from minitf.core.dtypes import resource
from minitf.core.tensor import Tensor
from minitf.function.tracing.func_graph import FuncGraph
from minitf.function.tracing.graph import SymbolicTensor
from minitf.function.tracing.trace import TracingGraph, graph_scope
from minitf.ops.state_ops import variable_of


def sub_graph(name: str) -> TracingGraph:
    """A graph for a branch or loop body traced inside the current graph (named after it, as TensorFlow does)."""
    outer = state.graph
    return TracingGraph(
        f"{outer.name}_{name}" if outer is not None else name, outer=outer, autograph=getattr(outer, "autograph", True)
    )


def unify_captures(graphs: Sequence[FuncGraph], n_args: int) -> list[Any]:
    """Give every graph the same capture inputs, in the same order; returns the outside values."""
    outside: list[Any] = []
    seen: set[int] = set()
    for g in graphs:
        for value, _ in g.captures:
            if id(value) not in seen:
                seen.add(id(value))
                outside.append(value)
    for g in graphs:
        for value in outside:
            g.capture(value)
        inside = {id(v): p for v, p in g.captures}
        g.inputs = g.inputs[:n_args] + [inside[id(v)] for v in outside]
    return outside


def convert_in(graph: FuncGraph, value: Any) -> Tensor:
    """A value a branch or body returns, as a tensor of `graph` (captured when it comes from outside)."""
    with graph_scope(graph):
        if hasattr(value, "_as_tensor") and not isinstance(value, Tensor):
            value = value.read_value()
        t = convert_to_tensor(value)
        return graph.capture(t) if not (isinstance(t, SymbolicTensor) and t.graph is graph) else t


def note_resource_reads(inputs: Sequence[Any]) -> None:
    """A control-flow op that reads a variable inside counts as a read for the tapes (so gradients reach it)."""
    for t in inputs:
        if isinstance(t, Tensor) and t.dtype is resource:
            for tape in state.tapes:
                tape.record_read(variable_of(t), t)
