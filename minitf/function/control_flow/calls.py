"""Calling one traced function from another: one `(Stateful)PartitionedCall` op, as TensorFlow records it.

The op's kernel runs the called graph; its gradient replays that graph under a tape (replay_gradient.py).
A called function that changes variables or prints (or reads a variable) is stateful, so the optimiser
keeps it and its place in program order.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from minitf.core.dtypes import resource
from minitf.core.op import GradContext, Op, bind
from minitf.core.tensor import Tensor
from minitf.function.compiling.execute import as_runtime, run_graph
from minitf.function.control_flow.replay_gradient import differentiable, gradient_sources, replay_gradients
from minitf.function.tracing.func_graph import FuncGraph
from minitf.ops.array.creation import zeros_like


def _call_kernel(*values: Any, f: FuncGraph) -> tuple:
    return tuple(run_graph(f, values))


def _call_shape(shapes: Any, types: Any, attrs: dict) -> list:
    return [(t.shape, t.dtype) for t in attrs["f"].outputs]


def _call_grad(ctx: GradContext, grads: list) -> list:
    """The gradient of a call: replay the called graph under a tape and differentiate it."""
    ins = list(ctx.inputs)
    targets = [i for i, o in enumerate(ctx.outputs) if differentiable(o)]
    sources = gradient_sources(ins)
    if not targets or not sources:
        return [None] * len(ins)
    grads = [g if g is not None else zeros_like(o) for g, o in zip(grads, ctx.outputs)]
    result = replay_gradients(ctx.attrs["f"], ins, sources, targets, [grads[i] for i in targets])
    out: list[Any] = [None] * len(ins)
    for k, i in enumerate(sources):
        out[i] = result[k]
    return out


PartitionedCall = Op("PartitionedCall", _call_kernel, shape=_call_shape, grad=_call_grad, num_outputs=-1)
StatefulPartitionedCall = Op(
    "StatefulPartitionedCall", _call_kernel, shape=_call_shape, grad=_call_grad, num_outputs=-1, stateful=True
)


def call_traced(graph: FuncGraph, inputs: Sequence[Any]) -> list[Tensor]:
    """Inside a trace, a call of another traced function is one call op (as TensorFlow records it)."""
    stateful = bool(graph.control_outputs) or any(t.dtype is resource for t in graph.inputs)
    args = [as_runtime(v) for v in inputs]
    outs = bind(StatefulPartitionedCall if stateful else PartitionedCall, *args, f=graph)
    return list(outs)
