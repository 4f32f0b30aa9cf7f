"""Arithmetic simplification as a table of rewrite rules, driven by one small loop.

Each rule is a pattern and a rewrite. The pattern names the op's type, and in brackets the type of the op
its first input comes from: `"Neg(Neg)"` matches `-(-x)`. The rewrite looks at the matched op and returns
the tensor its result equals (the op goes, its readers read that tensor), new inputs for the op (it stays,
reading them), or None when the values rule it out (`x * 1` matches `"Mul"`, `x * 2` does not rewrite).
TensorFlow's Grappler keeps such rewrites as the stages of its arithmetic optimiser, tinygrad as pattern
tables; minitf's are `RULES`, and a new one is a line:

    RULES.append(Rule("Abs(Abs)", lambda op: op.inputs[0]))  # abs(abs(x)) is abs(x)

`arithmetic_simplification` is the pass: for each op in program order the first rule that rewrites it
applies. Stateful ops never match. The optimiser checks the graph after the pass (`optimizer.verify`), so a
rule that breaks a shape, a dtype or the order of effects is caught the first time it fires.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from minitf.function.compiling.passes import Changes, const_value
from minitf.function.tracing.func_graph import FuncGraph
from minitf.function.tracing.graph import Operation, SymbolicTensor

Rewrite = SymbolicTensor | tuple[SymbolicTensor, ...]  # what the result equals, or the op's new inputs


@dataclass(frozen=True)
class Rule:
    """`pattern`: "Type" or "Type(InputType)"; `rewrite`: the matched op -> its replacement, or None."""

    pattern: str
    rewrite: Callable[[Operation], Rewrite | None]
    op_type: str = field(init=False)
    input_type: str | None = field(init=False)

    def __post_init__(self) -> None:
        outer, _, inner = self.pattern.removesuffix(")").partition("(")
        object.__setattr__(self, "op_type", outer)
        object.__setattr__(self, "input_type", inner or None)

    def matches(self, op: Operation) -> bool:
        return op.type == self.op_type and (self.input_type is None or op.inputs[0].op.type == self.input_type)


# ---------------------------------------------------------------------------------------------------
# What the rules check
# ---------------------------------------------------------------------------------------------------


def is_filled_with(t: SymbolicTensor, number: int) -> bool:
    """`t` is a constant whose every element is `number`."""
    value = const_value(t)
    return value is not None and np.asarray(value).dtype.kind in "iufc" and bool(np.all(np.asarray(value) == number))


def _keeps_shape(x: SymbolicTensor, out: SymbolicTensor, other: SymbolicTensor) -> bool:
    """`x op other` has exactly x's shape: the constant operand broadcasts without enlarging x."""
    if x.dtype is not out.dtype or x.shape.rank is None:
        return False
    other_shape = np.shape(const_value(other))
    if x.shape.is_fully_defined():
        return x.shape.as_list() == out.shape.as_list()
    return int(np.prod(other_shape)) == 1 and len(other_shape) <= x.shape.rank


def neutral(number: int, either_side: bool = True) -> Callable[[Operation], SymbolicTensor | None]:
    """`x op n` (and `n op x` when `either_side`) is x, for a constant n filled with `number`: x * 1, x + 0."""

    def rewrite(op: Operation) -> SymbolicTensor | None:
        if len(op.inputs) != 2:
            return None
        a, b = op.inputs
        if is_filled_with(b, number) and _keeps_shape(a, op.outputs[0], b):
            return a
        if either_side and is_filled_with(a, number) and _keeps_shape(b, op.outputs[0], a):
            return b
        return None

    return rewrite


def _transposes_cancel(op: Operation) -> SymbolicTensor | None:
    """A transpose undone by the next one (perm None reverses all axes: twice is the identity)."""
    inner, outer = op.inputs[0].op.attrs["perm"], op.attrs["perm"]
    if inner is None or outer is None:
        return op.inputs[0].op.inputs[0] if inner is None and outer is None else None
    return op.inputs[0].op.inputs[0] if [inner[i] for i in outer] == list(range(len(outer))) else None


def _same_known_shape(op: Operation) -> bool:
    x = op.inputs[0]
    return x.shape.is_fully_defined() and x.shape.as_list() == op.outputs[0].shape.as_list()


RULES: list[Rule] = [
    Rule("Identity", lambda op: op.inputs[0]),
    Rule("StopGradient", lambda op: op.inputs[0]),  # only gradients see it, and they are taken before this
    Rule("Neg(Neg)", lambda op: op.inputs[0].op.inputs[0]),
    Rule("Cast", lambda op: op.inputs[0] if op.attrs["DstT"] is op.inputs[0].dtype else None),
    Rule("Reshape", lambda op: op.inputs[0] if _same_known_shape(op) else None),
    Rule("Reshape(Reshape)", lambda op: (op.inputs[0].op.inputs[0], *op.inputs[1:])),  # one reshape does both
    Rule("Transpose(Transpose)", _transposes_cancel),
    Rule("Mul", neutral(1)),
    Rule("AddV2", neutral(0)),
    Rule("Sub", neutral(0, either_side=False)),
    Rule("RealDiv", neutral(1, either_side=False)),
    Rule("Div", neutral(1, either_side=False)),
]


# ---------------------------------------------------------------------------------------------------
# The loop
# ---------------------------------------------------------------------------------------------------


def apply(graph: FuncGraph, op: Operation, result: Rewrite) -> str:
    """Make the graph say what a rule found; one line of text for the report."""
    if isinstance(result, tuple):
        op.inputs = result
        graph.changed()
        return f"{op.name} ({op.type}) reads {', '.join(t.name for t in result)} directly"
    graph.bypass(op, result)
    return f"{op.name} ({op.type}) is just {result.name}"


def arithmetic_simplification(graph: FuncGraph, rules: list[Rule] | None = None) -> Changes:
    """Rewrite each op by the first rule (of `rules`, by default `RULES`) that applies to it."""
    changes: Changes = []
    for op in graph.get_operations():
        if op.stateful or not op.inputs or len(op.outputs) != 1:
            continue
        for rule in RULES if rules is None else rules:
            result = rule.rewrite(op) if rule.matches(op) else None
            if result is not None and (isinstance(result, tuple) or result.dtype is op.outputs[0].dtype):
                changes.append(apply(graph, op, result))
                break
    return changes
