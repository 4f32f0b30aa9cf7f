"""Duplication: a cheap elementwise value that several regions read is computed in each of them.

A region writes every value that something outside it reads to memory (regions.py), and the reader loads
it back: for a [4096, 1000] float32 value, 16 MB written and 16 MB read, where recomputing `logits - max`
costs one subtraction per element in a loop that reads `logits` anyway. XLA's fusion duplicates such
producers into their consumers; so does this pass, before clustering: an op with a rule that costs a few
cycles (no transcendental function), whose inputs no loop has to compute (arguments, constants, results of
reductions, broadcasts of those), gets one copy per reader after the first, so each reader's region
computes it itself. Where two copies land in one region, LLVM computes them once.
"""

from __future__ import annotations

from minitf.function.compiling.jit.lowering import (
    DATA_MOVEMENT,
    REDUCTIONS,
    TRANSCENDENTAL_OPS,
    lowerable,
    value_inputs,
)
from minitf.function.compiling.jit.regions import MOVES
from minitf.function.tracing.func_graph import FuncGraph
from minitf.function.tracing.graph import Operation, SymbolicTensor


def _free(t: SymbolicTensor) -> bool:
    """Does a loop read `t` without computing anything (an argument, a constant, a reduction's result, or a
    broadcast of one of those)?"""
    op = t.op
    if op.type in MOVES:
        return all(_free(u) for u in value_inputs(op))
    return op.type in REDUCTIONS or not lowerable(op) or not op.inputs


def cheap(op: Operation) -> bool:
    """An elementwise op worth computing twice rather than storing: a rule, no transcendental, free inputs."""
    if op.type in DATA_MOVEMENT or op.type in TRANSCENDENTAL_OPS or op.stateful or len(op.outputs) != 1:
        return False
    return lowerable(op) and all(_free(t) for t in value_inputs(op))


def _copy(graph: FuncGraph, t: SymbolicTensor, before: Operation) -> SymbolicTensor:
    """A copy of the op computing `t` (and of the broadcasts it reads), placed before `before`."""
    op = t.op
    inputs = [(_copy(graph, u, before) if u.op.type in MOVES else u) for u in value_inputs(op)]
    inputs += op.inputs[len(inputs) :]  # a shape-only input is read as it is
    made = graph.create_op(op.op_def, inputs, dict(op.attrs), name=f"{op.name}/copy")
    graph.move_to(made, before)
    return made.outputs[0]


def duplicate(graph: FuncGraph) -> list[str]:
    """Give every reader after the first of a cheap value its own copy of the op that computes it."""
    readers: dict[int, list[Operation]] = {}
    for op in graph.get_operations():
        for t in value_inputs(op):
            readers.setdefault(id(t), []).append(op)
    changes = []
    for op in list(graph.get_operations()):
        if not cheap(op):
            continue
        later = [r for r in dict.fromkeys(readers.get(id(op.outputs[0]), []))][1:]
        for reader in later:
            copy = _copy(graph, op.outputs[0], reader)
            reader.inputs = tuple(copy if t is op.outputs[0] else t for t in reader.inputs)
            graph.changed()
            changes.append(f"{op.name} ({op.type}) computed again for {reader.name}")
    return changes
