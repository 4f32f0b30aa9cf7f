"""Differentiating a subgraph by replaying it under a tape: the gradient of If, While and function calls.

A branch, a loop body or a called function is a FuncGraph run by one op. Its gradient rule runs the graph
again through `core.bind` (`execute.replay_graph`) while a GradientTape records, then asks the tape for the
gradients of the graph's outputs with respect to its inputs. A resource input (a variable the subgraph
reads) is differentiated with respect to the variable it stands for. Because the replay is made of minitf
ops, the gradient can itself be traced, taped again (higher derivatives) or run inside a loop.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from minitf.autodiff.tape import GradientTape
from minitf.autodiff.tape_arguments import UnconnectedGradients
from minitf.core.dtypes import resource
from minitf.core.tensor import Tensor
from minitf.function.compiling.execute import replay_graph
from minitf.function.tracing.func_graph import FuncGraph
from minitf.ops.state_ops import variable_of


def differentiable(t: Any) -> bool:
    """A value gradients flow through: a float or complex tensor."""
    return isinstance(t, Tensor) and (t.dtype.is_floating or t.dtype.is_complex)


def gradient_sources(inputs: Sequence[Any]) -> list[int]:
    """The positions of the inputs a subgraph's gradient is taken with respect to (variables included)."""
    return [i for i, x in enumerate(inputs) if differentiable(x) or x.dtype is resource]


def replay_gradients(
    graph: FuncGraph,
    inputs: Sequence[Any],
    sources: Sequence[int],
    targets: Sequence[int],
    output_gradients: Sequence[Any],
) -> list[Any]:
    """d(outputs[targets]) / d(inputs[sources]) of `graph` run on `inputs`, weighted by `output_gradients`;
    zeros for a source the targets do not depend on."""
    with GradientTape() as tape:
        for i in sources:
            if inputs[i].dtype is not resource:
                tape.watch(inputs[i])
        outputs = replay_graph(graph, inputs)
    wrt = [variable_of(inputs[i]) if inputs[i].dtype is resource else inputs[i] for i in sources]
    return list(
        tape.gradient(
            [outputs[i] for i in targets],
            wrt,
            output_gradients=list(output_gradients),
            unconnected_gradients=UnconnectedGradients.ZERO,
        )
    )
