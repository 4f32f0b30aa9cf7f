"""`tf.custom_gradient`: a function that says what its own gradient is.

The decorated function returns `(result, grad_fn)`. Its result is passed through one `IdentityN` op whose
inputs are the result *and* the function's inputs; that op's gradient rule ignores the way the result was
computed and calls `grad_fn(upstream)` instead, sending what it returns to the inputs.

* Eagerly, the rule calls `grad_fn` itself (its closure holds eager tensors). Like TensorFlow, the ops of the
  forward computation are still recorded, so an outer tape can differentiate what `grad_fn` computes from
  them (higher derivatives).
* While tracing a `tf.function`, `grad_fn` is traced right away into a small graph of its own (inputs: the
  upstream gradients; captures: the forward tensors it uses). The captures become extra inputs of the
  `IdentityN` op, and the rule replays that graph: it works whether the gradient is taken inside the same
  trace or by a tape outside the function, where the forward tensors are the op's inputs as replayed.
* Variables the function reads (and that are not its arguments) get gradients too: `grad_fn` must then take
  a `variables` keyword argument and return `(input_gradients, variable_gradients)`.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Sequence
from typing import Any

from minitf.core import nest
from minitf.core.context import state
from minitf.core.conversion import convert_to_tensor
from minitf.core.op import GradContext, Op, bind
from minitf.core.tensor import Tensor
from minitf.function.compiling.execute import replay_graph
from minitf.function.tracing.graph import SymbolicTensor
from minitf.function.tracing.trace import TracingGraph, graph_scope
from minitf.ops.array.creation import zeros_like


def variable_behind(handle: Any) -> Any:
    """The Variable a resource handle stands for (eager handle, traced placeholder, or the Variable itself)."""
    if isinstance(handle, Tensor):
        return getattr(handle, "_value", None) if not hasattr(handle, "_variable") else handle._variable
    return handle


class _VariableWatcher:
    """Sits on the tape stack while the forward function runs and notes every variable it reads."""

    def __init__(self) -> None:
        self.variables: list[Any] = []

    def record(self, op: Op, inputs: tuple, attrs: dict, outputs: Any) -> None:
        if op.name == "ReadVariableOp":  # where reading a variable is an op bound like the others
            self.record_read(variable_behind(inputs[0]), outputs)

    def record_read(self, variable: Any, out: Tensor) -> None:
        if all(v is not variable for v in self.variables):
            self.variables.append(variable)


def _identity_n(*values: Any, _n_results: int, **_: Any) -> tuple:
    return tuple(values[:_n_results])


def _identity_n_shape(shapes: Sequence[Any], types: Sequence[Any], attrs: dict) -> list:
    n = attrs["_n_results"]
    return list(zip(shapes[:n], types[:n]))


def _identity_n_grad(ctx: GradContext, grads: list) -> list:
    """Upstream gradients go to `grad_fn`; the forward computation of the result gets none."""
    attrs = ctx.attrs
    n, k = attrs["_n_results"], attrs["_n_inputs"]
    upstream = [g if g is not None else zeros_like(o) for g, o in zip(grads, ctx.outputs)]
    graph = attrs.get("_grad_graph")
    if graph is None:
        input_grads = attrs["_grad_fn"](*upstream)
    else:
        outs = iter(replay_graph(graph, upstream + list(ctx.inputs[n + k :])))
        input_grads = [next(outs) if connected else None for connected in attrs["_connected"]]
    return [None] * n + list(input_grads) + [None] * (len(ctx.inputs) - n - k)


IdentityN = Op("IdentityN", _identity_n, shape=_identity_n_shape, grad=_identity_n_grad, num_outputs=-1)


class CustomGradient:
    """What `@tf.custom_gradient` makes of a function: calling it records the custom gradient."""

    def __init__(self, f: Callable) -> None:
        self._f = f
        functools.update_wrapper(self, f)

    def __get__(self, instance: Any, owner: Any = None) -> Any:
        if instance is None:
            return self
        return CustomGradient(self._f.__get__(instance, owner))

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        tracing = state.graph is not None
        if tracing:
            if kwargs:
                raise ValueError(
                    "The custom_gradient decorator currently supports keywords arguments only when eager "
                    "execution is enabled.\nHint: inside a tf.function, pass the arguments of a "
                    "@tf.custom_gradient function by position."
                )
            args = tuple(nest.map_structure(_to_tensor, list(args)))
        result, grad_fn, variables = self._forward(args, kwargs)
        flat_args = nest.flatten(list(args))
        variables = [v for v in variables if all(v is not a for a in flat_args + nest.flatten(kwargs))]
        if variables and not _accepts_variables(grad_fn):
            raise TypeError(
                f"@tf.custom_gradient grad_fn must accept keyword argument 'variables', since function "
                f"uses variables: {variables}\nHint: define the gradient as `def grad(upstream, "
                f"variables=None):` and return (input_gradients, variable_gradients)."
            )
        flat_result = [_to_tensor(x) for x in nest.flatten(result)]
        inputs = [_to_tensor(x) for x in flat_args] + [v.read_value() for v in variables]
        actual = _actual_grad_fn(grad_fn, variables, len(flat_args))
        attrs: dict[str, Any] = {"_n_results": len(flat_result), "_n_inputs": len(inputs)}
        captures: list[Any] = []
        if tracing:
            graph, connected = _trace_gradient(actual, flat_result)
            attrs.update(_grad_graph=graph, _connected=connected)
            captures = graph.external_captures()
        else:
            attrs["_grad_fn"] = actual
        outs = bind(IdentityN, *flat_result, *inputs, *captures, **attrs)
        return nest.pack_sequence_as(result, list(outs)) if nest.is_nested(result) else outs[0]

    def _forward(self, args: tuple, kwargs: dict) -> tuple[Any, Callable, list[Any]]:
        watcher = _VariableWatcher()
        state.tapes.append(watcher)
        state.refresh()
        try:
            returned = self._f(*args, **kwargs)
        finally:
            state.tapes.remove(watcher)
            state.refresh()
        if isinstance(returned, Tensor) and returned.shape.rank == 0:
            raise TypeError(
                "Cannot iterate over a scalar tensor.\nHint: a @tf.custom_gradient function returns two "
                "things: `return result, grad_fn`."
            )
        result, grad_fn = returned
        if not callable(grad_fn):
            raise TypeError(
                f"'{type(grad_fn).__name__}' object is not callable\nHint: a @tf.custom_gradient "
                f"function returns `result, grad_fn`, where grad_fn(upstream) computes the gradient."
            )
        return result, grad_fn, watcher.variables


def _to_tensor(value: Any) -> Any:
    return (
        value.read_value()
        if hasattr(value, "_as_tensor") and not isinstance(value, Tensor)
        else convert_to_tensor(value)
    )


def _accepts_variables(fn: Callable) -> bool:
    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return True
    return any(p.name == "variables" or p.kind is p.VAR_KEYWORD for p in params)


def _actual_grad_fn(grad_fn: Callable, variables: list[Any], arg_count: int) -> Callable[..., list[Any]]:
    """`grad_fn` as the IdentityN rule calls it: upstream gradients in, one gradient per input out."""

    def actual(*upstream: Any) -> list[Any]:
        if variables:
            input_grads, variable_grads = grad_fn(*upstream, variables=variables)
            variable_grads = list(variable_grads)
            if len(variable_grads) != len(variables):
                raise ValueError(
                    "Must return gradient for each variable from @custom_gradient grad_fn.\nHint: "
                    f"return one gradient per variable in `variables` ({len(variables)}), in order."
                )
        else:
            input_grads, variable_grads = grad_fn(*upstream), []
        flat = nest.flatten(input_grads)
        if len(flat) != arg_count:
            raise ValueError(
                f"custom_gradient function expected to return {arg_count} gradients, but returned "
                f"{len(flat)} instead.\nHint: grad_fn returns one gradient per argument of the "
                f"decorated function (None for an argument without one)."
            )
        return [None if g is None else convert_to_tensor(g) for g in flat + variable_grads]

    return actual


def _trace_gradient(actual: Callable[..., list[Any]], results: list[Any]) -> tuple[Any, list[bool]]:
    """Trace the gradient function now, while its forward tensors are in scope, into a graph of its own."""
    outer = state.graph
    graph = TracingGraph(f"{outer.name}_custom_gradient", outer=outer, autograph=outer.autograph)
    holders = [graph.placeholder(t.shape, t.dtype, name="upstream") for t in results]
    graph.inputs = list(holders)
    with graph_scope(graph):
        grads = actual(*holders)
        outputs = [
            g if isinstance(g, SymbolicTensor) and g.graph is graph else graph.capture(g)
            for g in grads
            if g is not None
        ]
    graph.outputs = outputs
    return graph, [g is not None for g in grads]


def custom_gradient(f: Callable | None = None) -> Any:
    """`tf.custom_gradient`: decorate `f(*x) -> (y, grad_fn)`; gradients of y flow back through `grad_fn`."""
    if f is None:
        return custom_gradient
    return CustomGradient(f)
