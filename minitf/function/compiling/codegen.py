"""Turning a graph into one straight-line Python function over NumPy arrays.

Every operation becomes one line that calls its kernel; constants and attribute values that are not plain
literals become globals of the generated module. The source is kept, so a student can read what their
function became (`ConcreteFunction.generated_code()`; here `x * 2.0 + v` for a variable `v`):

    def f(x, resource):
        ReadVariableOp = resource._value._value
        add_fused = ops.add_fused(x, mul_y, ReadVariableOp)
        return [add_fused]

    def add_fused(x, mul_y, ReadVariableOp):
        mul = ops.Mul(x, mul_y)
        add = ops.AddV2(mul, ReadVariableOp)
        return add

Where the graph's known shapes settle a kernel's checks, the line is a NumPy expression (specialize.py);
where a large buffer the code made has no other reader, a ufunc writes into it (`out=`, buffers.py); a
large array read for the last time is deleted after that line (`del`), so its memory is reused at once.
Branches and loops call the compiled functions of their bodies through their kernels (`ops.If(...)` runs
`then_branch`'s code or `else_branch`'s). A fused node calls its kernel, generated here too (`compile_kernel`):
the same lines for the few nodes it joins.
"""

from __future__ import annotations

import types
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from minitf.function.compiling import buffers, specialize
from minitf.function.compiling.source import DTYPE_NAMES, Source
from minitf.function.tracing.func_graph import FuncGraph
from minitf.function.tracing.graph import Operation, SymbolicTensor


@dataclass
class CompiledGraph:
    """The generated function, its source, and which line runs which node (to name the node that fails)."""

    fn: Callable[..., list[Any]]
    source: str
    line_ops: dict[int, Operation] = field(default_factory=dict)

    def failing_op(self, exc: BaseException) -> Operation | None:
        """The node whose line raised `exc` (the innermost frame of this code in the traceback)."""
        found = None
        filename = self.fn.__code__.co_filename
        tb = exc.__traceback__
        while tb is not None:
            if tb.tb_frame.f_code.co_filename == filename:
                found = self.line_ops.get(tb.tb_lineno, found)
            tb = tb.tb_next
        return found


def _module(title: str) -> Source:
    """A module for generated code: kernels as `ops.<Type>`, NumPy as `np`, dtypes by name."""
    return Source(title, ops=types.SimpleNamespace(), np=np, **DTYPE_NAMES)


def compile_graph(graph: FuncGraph) -> CompiledGraph:
    """Generate, compile and keep the Python function that runs `graph`'s execution plan."""
    code = _module(f"graph {graph.name}")
    name, line_ops = write_function(code, graph.name, graph.inputs, graph.execution_plan(), graph.outputs)
    fn = code.compile()[name]
    return CompiledGraph(fn, code.text, line_ops)


def compile_kernel(
    members: Sequence[Operation], inputs: Sequence[SymbolicTensor], result: SymbolicTensor, name: str
) -> tuple[Any, str]:
    """A fused node's kernel: the function that runs `members` (in order) on `inputs` and returns `result`,
    and its source."""
    code = _module(f"fused kernel {name}")
    function_name, _ = write_function(code, name, inputs, members, [result], as_list=False)
    return code.compile()[function_name], code.text


def write_function(
    code: Source,
    name: str,
    params: Sequence[SymbolicTensor],
    plan: Sequence[Operation],
    results: Sequence[SymbolicTensor],
    as_list: bool = True,
) -> tuple[str, dict[int, Operation]]:
    """`def name(params): <a line per node of plan> return results` into `code`: the function's name and
    which line runs which node."""
    names = code.names
    args = [names.tensor(t) for t in params]
    function_name = names.fresh(name)
    found = buffers.readers(plan, results)
    made_here = {id(op) for op in plan}
    plan_position = {id(op): k for k, op in enumerate(plan)}
    line_ops: dict[int, Operation] = {}
    with code.block(f"def {function_name}({', '.join(args)}):"):
        for op in plan:
            if op.type == "Placeholder":
                continue
            if op.type == "Const":  # a constant is a global of the module, ready before the first call
                code.globals[names.tensor(op.outputs[0])] = op.attrs["value"]
                continue
            line_ops[code.line(_statement(op, code, found, made_here))] = op
            dead = last_read_here(op, plan_position, found, made_here, results)
            if dead:
                code.line(f"del {', '.join(names.tensor(t) for t in dead)}")
        returned = ", ".join(names.tensor(t) for t in results)
        code.line(f"return [{returned}]" if as_list else f"return {returned}")
    return function_name, line_ops


def last_read_here(
    op: Operation,
    position: dict[int, int],
    found: buffers.Readers,
    made_here: set[int],
    results: Sequence[SymbolicTensor],
) -> list[SymbolicTensor]:
    """The large arrays this code made that `op` reads for the last time: their names are deleted right after
    its line, so that their memory goes back to the allocator at once, as in eager code. (A name whose buffer
    `op` wrote its result into goes too: the buffer then lives under the result's name only.)
    Held until the function returns, the 4 MB temporaries of a 40-op function on 10^6 float32 values made the
    heap grow by 80 MB and shrink at every return, and each new array page-faulted in again (19,000 page
    faults and 4x NumPy's time per call; 0 with the `del`)."""
    if op.type == "Placeholder" or not op.inputs:
        return []
    returned = {id(t) for t in results}
    dead: dict[int, SymbolicTensor] = {}
    for t in op.inputs:
        if (
            id(t.op) not in made_here
            or t.op.type in ("Const", "Placeholder")
            or id(t) in returned
            or (t.shape.is_fully_defined() and (t.shape.num_elements() or 0) < buffers.REUSE_MIN_ELEMENTS)
        ):
            continue
        readers = found.get(id(t), [])
        if all(r is not None and position.get(id(r), -1) <= position[id(op)] for r in readers):
            dead[id(t)] = t
    return list(dead.values())


def _statement(op: Operation, code: Source, found: buffers.Readers, made_here: set[int]) -> str:
    """One node's line: `out = ops.Type(inputs..., attr=value)`, the NumPy expression it specialises to, or
    the call that writes into a buffer nothing else needs."""
    args = [code.names.tensor(t) for t in op.inputs]
    outs = [code.names.tensor(t) for t in op.outputs]
    if buffers.reusable_delta(op, found, made_here):  # the SGD update, computed into lr * g's buffer
        return f"{code.global_value('assign_sub_into_delta', buffers.assign_sub_into_delta)}({', '.join(args)})"
    call = specialize.expression(op, args)
    if call is None:
        call = _kernel_call(op, args, code)
        reused = buffers.reusable_input(op, found, made_here)
        if reused is not None:
            call = f"{call[:-1]}, out={code.names.tensor(reused)})"
    if op.op_def.num_outputs == 0 or not outs:
        return call
    if op.op_def.num_outputs == 1:
        return f"{outs[0]} = {call}"
    return f"{', '.join(outs)}, = {call}" if len(outs) == 1 else f"{', '.join(outs)} = {call}"


def _kernel_call(op: Operation, args: list[str], code: Source) -> str:
    """`ops.Type(inputs..., attr=value)`: attributes that are not plain literals become globals named after the
    node and attribute (arrays, sub-graphs, streams, ...)."""
    kernel_name = op.attrs.get("_kernel_name", op.type)
    setattr(code.globals["ops"], kernel_name, op.attrs.get("_kernel", op.op_def.kernel))
    if "_kernel" not in op.attrs:  # (a fused node's generated kernel takes its inputs only)
        args = args + [f"{key}={code.value(value, f'{op.name}_{key}')}" for key, value in op.attrs.items()]
    return f"ops.{kernel_name}({', '.join(args)})"


def source_of(graph: FuncGraph, compiled: Callable[[FuncGraph], CompiledGraph]) -> str:
    """The generated code of `graph` and of every body and fused kernel it calls, one after the other."""
    parts = [compiled(graph).source]
    for op in graph.get_operations():
        extra = op.attrs.get("_source")
        if extra:
            parts.append(extra)
        for value in op.attrs.values():
            if isinstance(value, FuncGraph):
                parts.append(source_of(value, compiled))
    return "\n".join(parts)
