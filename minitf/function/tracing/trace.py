"""Tracing: making a graph the current one, so that every op a Python function calls becomes a node.

`graph_scope(graph)` sets `core.state.graph`; while it is set, `core.bind` adds each op to that graph
(`FuncGraph.add_op`) instead of running it. The graphs a trace builds are `TracingGraph`s: a FuncGraph plus
what running user code needs, namely the variables it creates. TensorFlow allows that on a function's first
trace only and lifts their initial values out of the graph; here they are computed right away.

Shapes while tracing come from shape_inference.py; running a graph is execute.py's job; optimising it,
optimizer.py's.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from minitf.core.context import state
from minitf.function.compiling.execute import evaluate, run_kernel
from minitf.function.tracing.func_graph import FuncGraph
from minitf.function.tracing.graph import Operation, SymbolicTensor


@contextmanager
def graph_scope(graph: FuncGraph | None) -> Iterator[FuncGraph | None]:
    """Make `graph` the graph ops go into (None: eager) for the duration of the block."""
    previous = state.graph
    state.graph = graph
    state.refresh()
    try:
        yield graph
    finally:
        state.graph = previous
        state.refresh()


class TracingGraph(FuncGraph):
    """The graph of a function (or a branch or loop body) being traced from Python code."""

    def __init__(
        self, name: str, outer: FuncGraph | None = None, autograph: bool = True, allow_variable_creation: bool = False
    ) -> None:
        super().__init__(name, outer=outer, autograph=autograph)
        self.allow_variable_creation = allow_variable_creation

    def on_variable_created(self, variable: Any) -> None:
        """Variables may be created on a function's first trace only (TensorFlow lifts them out of the graph)."""
        root: FuncGraph = self
        while root.outer is not None:
            root = root.outer
        if not getattr(root, "allow_variable_creation", False):
            raise ValueError(
                "tf.function only supports singleton tf.Variables created on the first call. Make "
                "sure the tf.Variable is only created once or created outside tf.function. See "
                "https://www.tensorflow.org/guide/function#creating_tfvariables for more information."
            )
        root.variables.append(variable)

    def evaluate_constant(self, tensor: SymbolicTensor) -> Any:
        """The value of a tensor that depends on constants only (a Variable's initial value made in a trace).

        TensorFlow lifts such initialisers out of the function; here they are computed right away.
        """
        seen: set[int] = set()
        stack: list[Operation] = [tensor.op]
        while stack:
            op = stack.pop()
            if id(op) in seen:
                continue
            seen.add(id(op))
            if op.type in ("Placeholder", "ReadVariableOp"):
                raise ValueError(
                    "A tf.Variable's initial value inside a tf.function must not depend on the "
                    "function's arguments or on other variables; compute it from constants or create "
                    "the variable outside (or in tf.init_scope())."
                )
            stack.extend(t.op for t in op.inputs)
        plan = [op for op in self.get_operations() if id(op) in seen]
        return evaluate(plan, {}, [tensor], run_kernel)[0]


def is_symbolic_tensor(tensor: Any) -> bool:
    """`tf.is_symbolic_tensor`: True for a tensor of a graph being traced (no value yet), False for eager tensors
    and anything else."""
    return isinstance(tensor, SymbolicTensor)
