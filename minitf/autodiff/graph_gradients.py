"""tf.gradients: symbolic differentiation of the graph a tf.function is building.

Where a GradientTape differentiates the calls it recorded, tf.gradients walks the operations of the graph
under construction backwards from `ys`, applying each op's gradient rule (the same rules the tape uses), and
adds the backward pass to that graph.
"""

from __future__ import annotations

from typing import Any

from minitf.core import nest
from minitf.core.context import state
from minitf.core.conversion import convert_to_tensor
from minitf.core.op import GradContext
from minitf.core.tensor import Tensor
from minitf.ops.array.creation import ones_like, zeros_like
from minitf.ops.math.binary_math import add, add_n
from minitf.ops.variables import Variable


def _unconnected_zero(unconnected_gradients: Any) -> bool:
    value = getattr(unconnected_gradients, "value", unconnected_gradients)
    if value not in ("none", "zero"):
        raise ValueError(f"Unknown value for unconnected_gradients: {unconnected_gradients!r}")
    return value == "zero"


def _sources(graph: Any, xs: list[Any]) -> dict[int, list[Tensor]]:
    """For each source, the graph tensors that stand for it: the tensor itself, or every read of a Variable."""
    found: dict[int, list[Tensor]] = {}
    for x in xs:
        if isinstance(x, Variable):
            reads = [
                op.outputs[0]
                for op in graph.get_operations()
                if op.type == "ReadVariableOp" and getattr(op.inputs[0], "_variable", None) is x
            ]
            found[id(x)] = reads
        else:
            found[id(x)] = [x]
    return found


def gradients(
    ys: Any,
    xs: Any,
    grad_ys: Any = None,
    name: str = "gradients",
    gate_gradients: bool = False,
    aggregation_method: Any = None,
    stop_gradients: Any = None,
    unconnected_gradients: Any = "none",
) -> list[Any]:
    """d(sum of ys)/d(x) for each x, as graph tensors (None where x does not reach ys). Only inside a
    tf.function: eagerly, use tf.GradientTape."""
    graph = state.graph
    if graph is None:
        raise RuntimeError(
            "tf.gradients is not supported when eager execution is enabled. Use tf.GradientTape instead."
        )
    zero = _unconnected_zero(unconnected_gradients)
    targets = [convert_to_tensor(y) for y in nest.flatten(ys)]
    sources = nest.flatten(xs)
    seeds = [None] * len(targets) if grad_ys is None else nest.flatten(grad_ys)
    stops = {id(t) for t in nest.flatten(stop_gradients)} if stop_gradients is not None else set()
    stands_for = _sources(graph, sources)
    grads = _backward(graph, targets, seeds, [t for ts in stands_for.values() for t in ts], stops)
    result = []
    for x in sources:
        parts = [grads[id(t)] for t in stands_for[id(x)] if id(t) in grads]
        g = parts[0] if len(parts) == 1 else (add_n(parts) if parts else None)
        if g is None and zero:
            g = zeros_like(x.read_value() if hasattr(x, "read_value") else x)
        result.append(g)
    return result


def _backward(
    graph: Any, targets: list[Tensor], seeds: list[Any], sources: list[Tensor], stops: set[int]
) -> dict[int, Tensor]:
    """Gradients by tensor id, for every tensor on a path from `sources` to `targets`."""
    operations = list(graph.get_operations())  # the backward pass appends ops: walk the forward ones only
    reachable = {id(t) for t in sources} - stops
    for op in operations:
        if any(id(t) in reachable for t in op.inputs):
            reachable.update(id(t) for t in op.outputs if id(t) not in stops)
    grads: dict[int, Tensor] = {}
    for t, seed in zip(targets, seeds):
        g = ones_like(t) if seed is None else convert_to_tensor(seed, dtype=t.dtype)
        _accumulate(grads, id(t), g)
    for op in reversed(operations):
        if op.op_def is None or op.op_def.grad is None or not any(id(t) in reachable for t in op.inputs):
            continue
        outs = [grads.get(id(t)) for t in op.outputs]
        if all(g is None for g in outs):
            continue
        needs = [id(t) in reachable for t in op.inputs]
        ctx = GradContext(op.op_def, op.inputs, op.outputs, {k: v for k, v in op.attrs.items() if k[0] != "_"}, needs)
        upstream: Any = outs[0] if op.op_def.num_outputs == 1 else outs
        for t, need, g in zip(op.inputs, needs, op.op_def.grad(ctx, upstream)):
            if need and g is not None:
                _accumulate(grads, id(t), g)
    return grads


def _accumulate(grads: dict[int, Tensor], key: int, g: Tensor) -> None:
    previous = grads.get(key)
    grads[key] = g if previous is None else add(previous, g)


def no_gradient(op_type: str) -> None:
    """`tf.no_gradient`: declare that ops of `op_type` have no gradient (minitf's ops say so in their definitions
    already, so this only checks its argument)."""
    if not isinstance(op_type, str):
        raise TypeError("op_type must be a string")
