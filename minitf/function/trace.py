"""Tracing a Python function into a FuncGraph, and running a FuncGraph.

Tracing: `trace_into(graph, fn, args)` makes `graph` the current graph (`core.state.graph`), so every op the
function calls becomes a node instead of running.

Shapes while tracing: every op has a shape rule (minitf/ops/shapes.py) that works out its outputs' static
shapes and dtypes from its inputs' (unknown dimensions stay None, as in TensorFlow); no kernel runs while
tracing.

Running: `run_graph` walks the execution plan (the ops the outputs need, plus every stateful op, in program
order) and calls each op's NumPy kernel. This is a small interpreter: no optimisation passes, no fast
executor. When a GradientTape is recording (or another function is being traced), `replay_graph` runs the
same operations through `core.bind` instead, so the tape sees every op (or the outer graph gets a copy).
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from contextlib import contextmanager
from typing import Any

import numpy as np

from minitf import dtypes
from minitf.core import Op, bind, constant_tensor, state, static_value
from minitf.errors import InvalidArgumentError, OpError
from minitf.function.graph import FuncGraph, Operation, SymbolicTensor, resource
from minitf.tensor import EagerTensor, Tensor, make
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


def _build_error(op: Op, shapes: Sequence[TensorShape], message: str) -> str:
    """TensorFlow's graph-building message: what is wrong, for which node, with which input shapes."""
    from minitf.ops.shapes import shape_text

    head, _, hint = message.partition("\nHint:")
    listed = ", ".join(shape_text(s) for s in shapes)
    hint = hint or (" the shapes of the inputs do not fit this op; print(x.shape) inside the function shows "
                    "the shapes it was traced with.")
    return f"{head} for '{{{{node {op.name}}}}}' with input shapes: {listed}.\nHint:{hint}"


# ---------------------------------------------------------------------------------------------------
# Running a graph: the NumPy interpreter
# ---------------------------------------------------------------------------------------------------

def run_graph(graph: FuncGraph, values: Sequence[Any]) -> list[Any]:
    """Run `graph` on NumPy values for `graph.inputs` (Variables for resource inputs); NumPy values out.

    The plan is turned into steps once per graph: each step names its kernel and the slots (positions in
    one list of values) it reads and writes, so a call is a plain loop over kernels.
    """
    size, steps, results = _steps(graph)
    env: list[Any] = [None] * size
    env[:len(values)] = values
    for kernel, attrs, reads, writes, single, op in steps:
        ins = [env[i] for i in reads]
        if kernel is None:
            outs = _execute(op, ins)
        else:
            try:
                out = kernel(*ins, **attrs)
            except (OpError, ValueError, IndexError, TypeError, ZeroDivisionError, np.linalg.LinAlgError):
                outs = _execute(op, ins)  # run again for TensorFlow's error message
            else:
                if single:
                    env[writes[0]] = out
                    continue
                outs = list(out)
        for i, v in zip(writes, outs):
            env[i] = v
    return [env[i] for i in results]


_SPECIAL = frozenset({"Const", "ReadVariableOp", "AssignVariableOp", "AssignAddVariableOp", "AssignSubVariableOp",
                      "StringFormat", "NoOp", "PrintV2"})


def _steps(graph: FuncGraph) -> tuple[int, list[tuple], list[int]]:
    compiled = graph._compiled
    if compiled is not None:
        return compiled
    slots = {id(t): i for i, t in enumerate(graph.inputs)}
    size = len(graph.inputs)
    steps = []
    for op in graph.execution_plan():
        if op.type == "Placeholder":
            continue
        reads = [slots[id(t)] for t in op.inputs]
        writes = []
        for t in op.outputs:
            slots[id(t)] = size
            writes.append(size)
            size += 1
        special = op.type in _SPECIAL or op.op_def is None
        kernel = None if special else op.op_def.kernel  # type: ignore[union-attr]
        single = not special and op.op_def.num_outputs == 1  # type: ignore[union-attr]
        steps.append((kernel, op.attrs, reads, writes, single, op))
    graph._compiled = (size, steps, [slots[id(t)] for t in graph.outputs])
    return graph._compiled


def _execute(op: Operation, ins: list[Any]) -> list[Any]:
    kind = op.type
    if kind == "Const":
        return [op.attrs["value"]]
    if kind == "ReadVariableOp":
        return [variable_of(ins[0])._value._value]
    if kind in ("AssignVariableOp", "AssignAddVariableOp", "AssignSubVariableOp"):
        variable, value = variable_of(ins[0]), ins[1]
        if kind == "AssignAddVariableOp":
            value = variable._value._value + value
        elif kind == "AssignSubVariableOp":
            value = variable._value._value - value
        variable._set_value_eagerly(np.asarray(value, dtype=variable.dtype._np)[()])
        return []
    if kind == "StringFormat":
        return [_format_print(op, ins)]
    if kind == "NoOp":
        return []
    if kind == "PrintV2":
        _write_print(op.attrs["output_stream"], ins[0], op.attrs["end"])
        return []
    op_def = op.op_def
    assert op_def is not None, op
    try:
        out = op_def.kernel(*ins, **op.attrs)
    except OpError as exc:
        raise type(exc)(None, None, _graph_message(exc.message, op)) from None
    except (ValueError, IndexError, TypeError, ZeroDivisionError, np.linalg.LinAlgError) as exc:
        raise InvalidArgumentError(None, None, _graph_message(str(exc), op)) from None
    return [out] if op_def.num_outputs == 1 else list(out)


def _graph_message(message: str, op: Operation) -> str:
    """TensorFlow reports errors in a graph with the node that failed and the function it belongs to."""
    head = message.split(" [Op:")[0].split("\nHint:")[0]
    hint = message[message.index("\nHint:"):] if "\nHint:" in message else ""
    return f"Graph execution error:\n\n{head}\n\t [[{{{{node {op.name}}}}}]] [Op:__inference_{op.graph.name}]{hint}"


def _format_print(op: Operation, ins: list[Any]) -> str:
    from minitf.printing import format_value
    summarize = op.attrs["summarize"]
    parts = [format_value(ins[k], summarize) if kind == "tensor" else str(k) for kind, k in op.attrs["template"]]
    return op.attrs["sep"].join(parts)


def _write_print(stream: Any, text: Any, end: str) -> None:
    if stream is None or stream == "stderr":
        stream = sys.stderr
    elif stream == "stdout":
        stream = sys.stdout
    stream.write(str(text) + end)
    stream.flush()


# ---------------------------------------------------------------------------------------------------
# Replaying a graph through `bind` (for tapes, and to inline a function into another one)
# ---------------------------------------------------------------------------------------------------

def replay_graph(graph: FuncGraph, inputs: Sequence[Any]) -> list[Tensor]:
    """Run `graph`'s operations through `core.bind` on tensors for `graph.inputs` (Variables for resources).

    Eagerly, recording tapes see each op (so gradients flow through a function call); while tracing another
    function, the ops are copied into that function's graph.
    """
    from minitf.printing import print_values

    env: dict[int, Any] = {id(t): v for t, v in zip(graph.inputs, inputs)}
    for op in graph.execution_plan():
        kind = op.type
        if kind == "Placeholder":
            continue
        ins = [env[id(t)] for t in op.inputs]
        if kind == "Const":
            outs: Any = [constant_tensor(op.attrs["value"], op.attrs["dtype"])]
        elif kind == "ReadVariableOp":
            outs = [variable_of(ins[0]).read_value()]
        elif kind == "AssignVariableOp":
            variable_of(ins[0]).assign(ins[1])
            outs = []
        elif kind == "AssignAddVariableOp":
            variable_of(ins[0]).assign_add(ins[1])
            outs = []
        elif kind == "AssignSubVariableOp":
            variable_of(ins[0]).assign_sub(ins[1])
            outs = []
        elif kind == "StringFormat":
            outs = [("print", ins)]
        elif kind == "NoOp":
            outs = []
        elif kind == "PrintV2":
            fmt_op = op.inputs[0].op
            tensors = ins[0][1]
            parts = [tensors[k] if kind == "tensor" else k for kind, k in fmt_op.attrs["template"]]
            print_values(*parts, output_stream=fmt_op.attrs["output_stream"], summarize=fmt_op.attrs["summarize"],
                         sep=fmt_op.attrs["sep"], end=fmt_op.attrs["end"])
            outs = []
        else:
            assert op.op_def is not None
            result = bind(op.op_def, *[_as_runtime(v) for v in ins], **op.attrs)
            outs = [result] if op.op_def.num_outputs == 1 else list(result)
        for t, v in zip(op.outputs, outs):
            env[id(t)] = v
    return [env[id(t)] for t in graph.outputs]


def variable_of(handle: Any) -> Any:
    """The Variable behind a resource value: the Variable itself, an eager handle or a symbolic one."""
    if isinstance(handle, SymbolicTensor):
        return handle._variable
    if isinstance(handle, EagerTensor):
        return handle._value
    return handle


def _as_runtime(value: Any) -> Any:
    """Resource inputs of control-flow ops travel as the Variable (wrapped as a tensor when eager)."""
    from minitf.variables import Variable
    if isinstance(value, Variable):
        variable = value
        handle = state.graph.capture(value) if state.graph is not None else make(value, resource)
    elif isinstance(value, Tensor) and value.dtype is resource:  # type: ignore[attr-defined]
        variable, handle = variable_of(value), value
    else:
        return value
    for tape in state.tapes:  # the op reads the variable inside: gradients must reach it
        tape.record_read(variable, handle)
    return handle


def call_graph(graph: FuncGraph, inputs: Sequence[Any]) -> list[Tensor]:
    """Run `graph` on tensors/Variables: the interpreter when nothing watches, `replay_graph` otherwise."""
    if state.active:
        return replay_graph(graph, inputs)
    values = [v if not isinstance(v, EagerTensor) else v._value for v in inputs]
    outs = run_graph(graph, values)
    return [make(v, t.dtype) for v, t in zip(outs, graph.outputs)]
