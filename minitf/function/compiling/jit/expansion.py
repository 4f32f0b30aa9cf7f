"""Expansion: ops that XLA knows only as several simpler ones are rewritten into them before clustering.

TensorFlow's bridge to XLA writes `Softmax` and `LogSoftmax` as a max, a subtraction, an exponential, a sum
(and a division or a logarithm) along the last axis; so does this pass. Their parts can then fuse with what
surrounds them: the cross-entropy that reads a log-softmax, the gradient that reads a softmax.
"""

from __future__ import annotations

from minitf.core.op import REGISTRY
from minitf.function.tracing.graph import FuncGraph, Operation, SymbolicTensor

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


def expand(graph: FuncGraph) -> list[str]:
    """Replace every float softmax and log-softmax of known rank by its parts."""
    changes = []
    for op in list(graph.get_operations()):
        if op.type not in EXPANDED or op.inputs[0].shape.rank is None or not op.inputs[0].dtype.is_floating:
            continue
        before = len(graph.get_operations())
        result = _expand(graph, op)
        created = graph.get_operations()[before - len(graph.get_operations()):]
        for made in created:
            graph.move_to(made, op)
        graph.replace_uses({id(op.outputs[0]): result})
        graph.remove_ops([op])
        changes.append(f"expanded {op.name} ({op.type}) into {' -> '.join(m.type for m in created)}")
    return changes
