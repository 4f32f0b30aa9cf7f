"""Turning a graph into one straight-line Python function over NumPy arrays.

Every operation becomes one line that calls its kernel; constants and attribute values that are not plain
literals become globals of the generated module. The source is kept, so a student can read what their
function became (`ConcreteFunction.python_code()`):

    def f(x, resource):
        ReadVariableOp = ops.ReadVariableOp(resource, dtype=float32)
        mul = ops.Mul(x, mul_y)
        add = ops.AddV2(mul, ReadVariableOp)
        return [add]

Branches and loops call the compiled functions of their bodies through their kernels (`ops.If(...)` runs
`then_branch`'s code or `else_branch`'s); a fused node calls the kernel the fusion pass generated for it.
"""

from __future__ import annotations

import builtins
import keyword
import linecache
import math
import re
import types
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, cast

import numpy as np

from minitf.core import dtypes
from minitf.function.compiling import specialize
from minitf.function.tracing.graph import FuncGraph, Operation, SymbolicTensor


@dataclass
class CompiledGraph:
    """The generated function, its source, and which line runs which node (to name the node that fails)."""

    fn: Callable[..., list[Any]]
    source: str
    filename: str
    line_ops: dict[int, Operation] = field(default_factory=dict)

    def failing_op(self, exc: BaseException) -> Operation | None:
        """The node whose line raised `exc` (the innermost frame of this code in the traceback)."""
        found = None
        tb = exc.__traceback__
        while tb is not None:
            if tb.tb_frame.f_code.co_filename == self.filename:
                found = self.line_ops.get(tb.tb_lineno, found)
            tb = tb.tb_next
        return found


class Names:
    """Python identifiers for a graph's tensors and globals: readable (from node names), unique, never a
    keyword, builtin or one of the module's own names."""

    def __init__(self, reserved: set[str]) -> None:
        self.taken = set(reserved) | set(keyword.kwlist) | set(dir(builtins))
        self.of_tensor: dict[int, str] = {}

    def fresh(self, text: str) -> str:
        base = re.sub(r"\W", "_", text) or "t"
        if base[0].isdigit():
            base = "t_" + base
        name, n = base, 1
        while name in self.taken:
            name, n = f"{base}_{n}", n + 1
        self.taken.add(name)
        return name

    def tensor(self, t: SymbolicTensor) -> str:
        name = self.of_tensor.get(id(t))
        if name is None:
            text = t.op.name if t.value_index == 0 else f"{t.op.name}_{t.value_index}"
            name = self.of_tensor[id(t)] = self.fresh(text)
        return name


REUSE_MIN_ELEMENTS = 4096  # below this, a fresh array costs less than passing `out=` (as in fusion.py)
_counter = [0]
# The module name generated code runs under: minitf's warnings filter (core/op.py) keeps NumPy's 1/0 and overflow
# warnings quiet here too, as TensorFlow returns inf and nan silently.
GENERATED_MODULE = "minitf.generated"
DTYPE_NAMES = {d.name: d for d in dtypes.ALL}


def literal(value: Any) -> str | None:
    """Python source for `value` when it is a plain literal that reads back equal, else None."""
    kind = type(value)  # exact types: NumPy's float64 is a float whose repr is "np.float64(...)"
    if value is None or kind in (bool, int, str, bytes):
        return repr(value)
    if kind is float:
        return repr(value) if math.isfinite(value) else None
    if isinstance(value, dtypes.DType) and value.name in DTYPE_NAMES:
        return value.name
    if isinstance(value, tuple | list):
        parts = [literal(v) for v in value]
        if any(p is None for p in parts):
            return None
        text = ", ".join(cast("list[str]", parts))  # no None left
        if isinstance(value, list):
            return f"[{text}]"
        return f"({text},)" if len(parts) == 1 else f"({text})"
    return None


def compile_graph(graph: FuncGraph) -> CompiledGraph:
    """Generate, compile and keep the Python function that runs `graph`'s execution plan."""
    kernels = types.SimpleNamespace()
    env: dict[str, Any] = {"__name__": GENERATED_MODULE, "ops": kernels, "np": np, **DTYPE_NAMES}
    names = Names(set(env))
    params = [names.tensor(t) for t in graph.inputs]
    function_name = names.fresh(graph.name)
    lines = [f"def {function_name}({', '.join(params)}):"]
    line_ops: dict[int, Operation] = {}
    plan = graph.execution_plan()
    last_reader = _variable_reads_last_used(plan, graph)
    readers: dict[int, int] = {}
    for op in plan:
        for t in op.inputs:
            readers[id(t)] = readers.get(id(t), 0) + 1
    for t in graph.outputs:
        readers[id(t)] = readers.get(id(t), 0) + 2  # a returned tensor's buffer is never reused
    for op in plan:
        if op.type == "Placeholder":
            continue
        if op.type == "Const":  # a constant is a global of the module, ready before the first call
            env[names.tensor(op.outputs[0])] = op.attrs["value"]
            continue
        line = _line(op, names, env, kernels)
        reused = _reusable_input(op, readers)
        if reused is not None:  # the kernel writes into a product nobody else reads (`lr * grad`)
            line = f"{line[:-1]}, out={names.tensor(reused)})"
        lines.append(line)
        line_ops[len(lines)] = op
        done = last_reader.get(id(op))
        if done:  # a variable's value no longer needed: an update may then write into its buffer
            lines.append(f"    del {', '.join(names.tensor(t) for t in done)}")
    lines.append(f"    return [{', '.join(names.tensor(t) for t in graph.outputs)}]")
    source = "\n".join(lines) + "\n"
    _counter[0] += 1
    filename = f"<minitf graph {graph.name} #{_counter[0]}>"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)  # tracebacks show the line
    exec(compile(source, filename, "exec"), env)  # noqa: S102 - our own generated code
    return CompiledGraph(env[function_name], source, filename, line_ops)


def _variable_reads_last_used(plan: list[Operation], graph: FuncGraph) -> dict[int, list[SymbolicTensor]]:
    """id(op) -> the variable reads whose last reader `op` is (not returned, read by something)."""
    outputs = {id(t) for t in graph.outputs}
    last: dict[int, tuple[SymbolicTensor, Operation]] = {}
    for op in plan:
        for t in op.inputs:
            if t.op.type == "ReadVariableOp" and id(t) not in outputs:
                last[id(t)] = (t, op)
    done: dict[int, list[SymbolicTensor]] = {}
    for t, op in last.values():
        done.setdefault(id(op), []).append(t)
    return done


def _reusable_input(op: Operation, readers: dict[int, int]) -> SymbolicTensor | None:
    """The input whose buffer a NumPy ufunc node may write its result into: a fresh matrix product (never a
    variable's or an input's buffer) of the result's shape and dtype, large enough for a fresh array to cost
    more than `out=`, read by this node alone."""
    if not isinstance(op.op_def.kernel, np.ufunc) or op.attrs or len(op.outputs) != 1 or "_kernel" in op.attrs:
        return None
    out = op.outputs[0]
    for t in op.inputs:
        if (t.op.type == "MatMul" and readers.get(id(t)) == 1 and t.dtype is out.dtype
                and t.shape.is_fully_defined() and t.shape.as_list() == out.shape.as_list()
                and (t.shape.num_elements() or 0) >= REUSE_MIN_ELEMENTS):
            return t
    return None


def _line(op: Operation, names: Names, env: dict[str, Any], kernels: types.SimpleNamespace) -> str:
    """`out = ops.Type(inputs..., attr=value)` for one node, or the NumPy expression it specialises to."""
    special = specialize.expression(op)
    if special is not None:
        template, needed = special
        global_names = {}
        for key, value in needed.items():
            global_names[key] = key if env.get(key) is value else names.fresh(key)
            env[global_names[key]] = value
        call = template.format(*(names.tensor(t) for t in op.inputs), **global_names)
        return f"    {names.tensor(op.outputs[0])} = {call}" if op.outputs else f"    {call}"
    kernel = op.attrs.get("_kernel", op.op_def.kernel)
    kernel_name = op.attrs.get("_kernel_name", op.type)
    setattr(kernels, kernel_name, kernel)
    args = [names.tensor(t) for t in op.inputs]
    if "_kernel" not in op.attrs:  # (a fused node's generated kernel takes its inputs only)
        for key, value in op.attrs.items():
            text = literal(value)
            if text is None:  # arrays, sub-graphs, streams...: a global named after the node and attribute
                text = names.fresh(f"{op.name}_{key}")
                env[text] = value
            args.append(f"{key}={text}")
    call = f"ops.{kernel_name}({', '.join(args)})"
    n = op.op_def.num_outputs
    if n == 0 or not op.outputs:
        return f"    {call}"
    outs = [names.tensor(t) for t in op.outputs]
    if n == 1:
        return f"    {outs[0]} = {call}"
    return f"    {', '.join(outs)}, = {call}" if len(outs) == 1 else f"    {', '.join(outs)} = {call}"


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


