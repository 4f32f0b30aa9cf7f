"""Helpers of TensorFlow's autodiff guides built on the tape, tf.gradients and tf.custom_gradient:
tf.grad_pass_through (the forward of f, the gradient of the identity), tf.recompute_grad (the same values and
gradients; minitf keeps no memory it could save by recomputing) and tf.hessians (second derivatives, inside a
tf.function only, as in TensorFlow)."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from minitf.autodiff.custom_gradients import custom_gradient
from minitf.autodiff.graph_gradients import gradients
from minitf.core import nest
from minitf.core.conversion import convert_to_tensor
from minitf.ops.array.join_split import stack
from minitf.ops.array.shape_ops import reshape


def grad_pass_through(f: Callable[..., Any]) -> Callable[..., Any]:
    """f's values, but gradients that flow through as if f were the identity (e.g. through a rounding)."""

    @custom_gradient
    def passed(*args: Any, **kwargs: Any) -> Any:
        def grad(*upstream: Any, **grad_kwargs: Any) -> Any:
            variables = grad_kwargs.get("variables")
            if variables is not None:
                return upstream, [None] * len(variables)
            return upstream

        return f(*args, **kwargs), grad

    return functools.wraps(f)(passed)


def recompute_grad(f: Callable[..., Any]) -> Callable[..., Any]:
    """f itself: its gradients are the same whether or not its activations are recomputed."""

    @functools.wraps(f)
    def recomputed(*args: Any, **kwargs: Any) -> Any:
        return f(*args, **kwargs)

    return recomputed


def hessians(
    ys: Any,
    xs: Any,
    name: str = "hessians",
    colocate_gradients_with_ops: bool = False,
    gate_gradients: bool = False,
    aggregation_method: Any = None,
) -> list[Any]:
    """For each x, the second derivatives of sum(ys): a tensor of shape x.shape + x.shape."""
    sources = nest.flatten(xs)
    firsts = gradients(ys, sources)
    result = []
    for x, first in zip(sources, firsts):
        if not x.shape.is_fully_defined():
            raise ValueError(f"tf.hessians needs the shape of each x while tracing; got {x.shape}.")
        flat = reshape(first, [-1])
        size = int(flat.shape[0])
        rows = [gradients(flat[j], x)[0] for j in range(size)]
        rows = [convert_to_tensor(0.0, dtype=x.dtype) * x if r is None else r for r in rows]
        result.append(reshape(stack(rows), x.shape.as_list() * 2))
    return result
