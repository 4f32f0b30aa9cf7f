"""Expansion: ops that XLA knows only as several simpler ones are rewritten into them before clustering.

TensorFlow's bridge to XLA writes `Softmax` and `LogSoftmax` as a max, a subtraction, an exponential, a sum
(and a division or a logarithm) along the last axis; so does this pass. Their parts can then fuse with what
surrounds them: the cross-entropy that reads a log-softmax, the gradient that reads a softmax.

A log-softmax's gradient takes exp(log_softmax(x)) = exp(x - max - log(sum)), the exponential the forward
pass has computed already, up to the division by the sum: `reuse_exp` writes it as exp(x - max) / sum,
so the exponential runs once per element instead of twice.
"""

from __future__ import annotations

from minitf.core.op import REGISTRY
from minitf.function.tracing.func_graph import FuncGraph
from minitf.function.tracing.graph import Operation, SymbolicTensor

EXPANDED = ("Softmax", "LogSoftmax")


def _expand(graph: FuncGraph, op: Operation) -> SymbolicTensor:
    """The ops of one softmax or log-softmax, created at the end of the graph; their result."""
    x = op.inputs[0]
    axis = (op.attrs["axis"] % (x.shape.rank or 1),)
    name = op.name

    def new(kind: str, *inputs: SymbolicTensor, **attrs: object) -> SymbolicTensor:
        return graph.create_op(REGISTRY[kind], inputs, dict(attrs), name=f"{name}/{kind}").outputs[0]

    shifted = new("Sub", x, new("Max", x, axis=axis, keepdims=True))
    exp = new("Exp", shifted)
    total = new("Sum", exp, axis=axis, keepdims=True)
    if op.type == "Softmax":
        return new("RealDiv", exp, total)
    return new("Sub", shifted, new("Log", total))


def reuse_exp(graph: FuncGraph) -> list[str]:
    """`Exp(Sub(a, Log(b)))` becomes `RealDiv(Exp(a), b)` where the graph computes `Exp(a)` already (equal in
    exact arithmetic; within float rounding, as TensorFlow's softmax kernel is exp(a) / b itself)."""
    exps = {id(op.inputs[0]): op for op in graph.get_operations() if op.type == "Exp"}
    changes = []
    for op in list(graph.get_operations()):
        sub = op.inputs[0].op if op.type == "Exp" else None
        if sub is None or sub.type != "Sub" or sub.inputs[1].op.type != "Log":
            continue
        known = exps.get(id(sub.inputs[0]))
        if known is None or known is op:
            continue
        total = sub.inputs[1].op.inputs[0]
        divided = graph.create_op(REGISTRY["RealDiv"], (known.outputs[0], total), {}, name=f"{op.name}/reused")
        graph.move_to(divided, op)
        graph.replace_uses({id(op.outputs[0]): divided.outputs[0]})
        graph.remove_ops([op])
        changes.append(f"{op.name} (Exp) is {known.name} / {total.op.name}, computed once")
    return changes


def expand(graph: FuncGraph) -> list[str]:
    """Replace every float softmax and log-softmax of known rank by its parts, then reuse their exponentials."""
    changes = []
    for op in list(graph.get_operations()):
        if op.type not in EXPANDED or op.inputs[0].shape.rank is None or not op.inputs[0].dtype.is_floating:
            continue
        before = len(graph.get_operations())
        result = _expand(graph, op)
        created = graph.get_operations()[before - len(graph.get_operations()) :]
        for made in created:
            graph.move_to(made, op)
        graph.replace_uses({id(op.outputs[0]): result})
        graph.remove_ops([op])
        changes.append(f"expanded {op.name} ({op.type}) into {' -> '.join(m.type for m in created)}")
    return changes + reuse_exp(graph)
