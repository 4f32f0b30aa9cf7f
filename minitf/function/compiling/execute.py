"""Running a graph: one evaluator, and the generated code that calling a function runs.

`evaluate` walks operations in program order and applies each one to its inputs' values. What "apply" means
is the only thing that changes between its uses:

* `run_kernel` calls the op's NumPy kernel: evaluating a constant initialiser while tracing;
* `bind_op` goes through `core.bind`, so recording tapes see every op (a function called under a tape is
  replayed this way, which is how gradients flow through it) or the ops are copied into the function being
  traced (inlining).

Calling a traced function when nothing watches runs the same operations as generated Python code
(`codegen.py`): one straight-line function over NumPy arrays, made once per graph. When a kernel fails
there, the traceback's line number says which node it was, and the error gets TensorFlow's class and its
"Graph execution error" text naming that node.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from minitf.core.context import state
from minitf.core.dtypes import resource
from minitf.core.errors import InvalidArgumentError, OpError, missing_kernel_in_graph
from minitf.core.numpy_errors import quietly
from minitf.core.op import bind, make_output
from minitf.core.tensor import EagerTensor, Tensor
from minitf.function.compiling import codegen
from minitf.function.tracing.func_graph import FuncGraph
from minitf.function.tracing.graph import Operation, SymbolicTensor
from minitf.ops.state_ops import variable_of

KERNEL_ERRORS = (OpError, ValueError, IndexError, TypeError, ZeroDivisionError, np.linalg.LinAlgError)

Apply = Callable[[Operation, list[Any]], Sequence[Any]]


def evaluate(
    plan: Sequence[Operation], env: dict[int, Any], outputs: Sequence[SymbolicTensor], apply: Apply
) -> list[Any]:
    """Apply each operation of `plan` in order; `env` maps id(tensor) to its value and starts with the inputs."""
    for op in plan:
        if op.type == "Placeholder":
            continue
        results = apply(op, [env[id(t)] for t in op.inputs])
        for t, value in zip(op.outputs, results):
            env[id(t)] = value
    return [env[id(t)] for t in outputs]


def run_kernel(op: Operation, values: list[Any]) -> Sequence[Any]:
    """Apply `op` by calling its NumPy kernel; a failure names the node, as TensorFlow's graph errors do."""
    try:
        out = quietly(op.op_def.kernel, *values, **op.attrs)  # NumPy's warnings off (minitf/core/numpy_errors.py)
    except KERNEL_ERRORS as exc:
        raise node_error(exc, op) from None
    n = op.op_def.num_outputs
    return [out] if n == 1 else () if n == 0 else list(out)


def bind_op(op: Operation, values: list[Any]) -> Sequence[Any]:
    """Apply `op` through `core.bind` (tapes record it; a trace in progress gets a copy of it)."""
    reads_inside = op.op_def.grad is not None
    values = [as_runtime(v, reads_inside) for v in values]
    result = bind(op.op_def, *values, **op.attrs)
    n = op.op_def.num_outputs
    return [result] if n == 1 else list(result)


def node_error(exc: Exception, op: Operation) -> OpError:
    """The error TensorFlow raises when a node of a running graph fails: same class, the node's name."""
    missing = missing_kernel_in_graph(exc, op.name, op.graph.name)
    if missing is not None:
        return missing
    if isinstance(exc, OpError):
        return type(exc)(None, None, graph_message(exc.message, op))
    return InvalidArgumentError(None, None, graph_message(str(exc), op))


def graph_message(message: str, op: Operation) -> str:
    """TensorFlow reports errors in a graph with the node that failed and the function it belongs to."""
    # (A node of a nested graph, a branch or a called function, failed: its message has the header already.)
    head = message.split(" [Op:")[0].split("\nHint:")[0].removeprefix("Graph execution error:\n\n")
    if head.startswith("{{function_node __wrapped__"):  # (an eager kernel's prefix: this node ran in a graph)
        head = head.split("}} ", 1)[1]
    hint = message[message.index("\nHint:") :] if "\nHint:" in message else ""
    return f"Graph execution error:\n\n{head}\n\t [[{{{{node {op.name}}}}}]] [Op:__inference_{op.graph.name}]{hint}"


# ---------------------------------------------------------------------------------------------------
# Calling a graph
# ---------------------------------------------------------------------------------------------------


def compiled(graph: FuncGraph) -> codegen.CompiledGraph:
    """The generated code for `graph`, made on first use (rewriting the graph forgets it)."""
    if graph._compiled is None:
        graph._compiled = codegen.compile_graph(graph)
    return graph._compiled


def run_graph(graph: FuncGraph, values: Sequence[Any]) -> list[Any]:
    """Run `graph` on NumPy values for `graph.inputs` (Variables for resource inputs); NumPy values out."""
    code = compiled(graph)
    try:
        return quietly(code.fn, *values)  # NumPy's floating-point warnings off (minitf/core/numpy_errors.py)
    except KERNEL_ERRORS as exc:
        op = code.failing_op(exc)
        if op is None:
            raise
        raise node_error(exc, op) from None


def replay_graph(graph: FuncGraph, inputs: Sequence[Any]) -> list[Any]:
    """Run `graph`'s operations through `core.bind` on tensors for `graph.inputs` (Variables for resources)."""
    env = {id(t): v for t, v in zip(graph.inputs, inputs)}
    return evaluate(graph.execution_plan(), env, graph.outputs, bind_op)


def call_graph(graph: FuncGraph, inputs: Sequence[Any], executable: FuncGraph | None = None) -> list[Tensor]:
    """Call a traced function: replayed op by op when tapes or a trace must see it (the traced graph, which is
    what gradients are taken of, as in TensorFlow), else the generated code of `executable` (its optimised
    graph, by default the graph itself)."""
    if state.active:
        return replay_graph(graph, inputs)
    target = executable if executable is not None else graph
    values = [v._value if type(v) is EagerTensor else v for v in inputs]
    outs = run_graph(target, values)
    return [make_output(v, t._dtype) for v, t in zip(outs, target.outputs)]


def as_runtime(value: Any, record_read: bool = True) -> Any:
    """A resource input (a Variable or a handle) as the handle ops take: the Variable's eager handle, or its
    placeholder in the graph being traced; other values pass unchanged. An op with a gradient that reads a
    variable inside (branch, loop, call) counts as a read for the recording tapes (`record_read`), so that
    gradients reach the variable."""
    if isinstance(value, Tensor) and value.dtype is not resource:
        return value
    if not isinstance(value, Tensor) and not hasattr(value, "_handle"):
        return value
    variable = variable_of(value)
    if state.graph is not None:
        handle = state.graph.capture(variable)
    elif isinstance(value, EagerTensor):
        handle = value
    else:
        handle = variable._handle
    if record_read:
        for tape in state.tapes:
            tape.record_read(variable, handle)
    return handle
