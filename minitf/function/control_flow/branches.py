"""`tf.cond`: a branch that lives inside a graph, as one `StatelessIf` op (`If` when a branch has effects).

Eagerly `cond` is a Python `if`. While tracing, each branch is traced into its own graph (subgraphs.py) and
one op runs the branch its predicate picks; tensors the branches use from outside become extra inputs.
Both branches must return the same structure and dtypes; the outputs get the most specific shape that
fits both. AutoGraph's `if` on a tensor comes here too (`build_if`, which also merges values that only
one branch defines into undefined values, undefined.py).

The gradient of an If is an If of the branches' gradients (replay_gradient.py), so it is taken only for
the branch that ran, also when traced.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from minitf.core import dtypes, nest
from minitf.core.context import state
from minitf.core.op import GradContext, Op, bind
from minitf.core.tensor import Tensor
from minitf.function.autograph.undefined import Undefined, UndefinedReturnValue
from minitf.function.compiling.execute import run_graph
from minitf.function.control_flow.replay_gradient import differentiable, gradient_sources, replay_gradients
from minitf.function.control_flow.subgraphs import convert_in, note_resource_reads, sub_graph, unify_captures
from minitf.function.tracing.func_graph import FuncGraph
from minitf.function.tracing.graph import SymbolicTensor
from minitf.function.tracing.trace import graph_scope
from minitf.ops.array.creation import zeros_like
from minitf.ops.array.shape_ops import Identity


def _if_kernel(pred: Any, *values: Any, then_branch: FuncGraph, else_branch: FuncGraph) -> tuple:
    return tuple(run_graph(then_branch if bool(pred) else else_branch, values))


def _if_shape(shapes: Any, types: Any, attrs: dict) -> list:
    then_out, else_out = attrs["then_branch"].outputs, attrs["else_branch"].outputs
    return [(a.shape.most_specific_compatible_shape(b.shape), a.dtype) for a, b in zip(then_out, else_out)]


def _if_grad(ctx: GradContext, grads: list) -> list:
    """The gradient of an If is an If of its branches' gradients, each one the branch replayed under a tape."""
    pred, *ins = ctx.inputs
    grads = [g if g is not None else zeros_like(o) for g, o in zip(grads, ctx.outputs)]
    targets = [i for i, o in enumerate(ctx.outputs) if differentiable(o)]
    sources = gradient_sources(ins)
    if not targets or not sources:
        return [None] * len(ctx.inputs)

    def branch_gradient(graph: FuncGraph) -> Callable[[], list]:
        return lambda: replay_gradients(graph, ins, sources, targets, [grads[i] for i in targets])

    result = cond(pred, branch_gradient(ctx.attrs["then_branch"]), branch_gradient(ctx.attrs["else_branch"]))
    result = list(result) if isinstance(result, list | tuple) else [result]
    out: list[Any] = [None] * len(ctx.inputs)
    for k, i in enumerate(sources):
        out[1 + i] = result[k]
    return out


StatelessIf = Op("StatelessIf", _if_kernel, shape=_if_shape, grad=_if_grad, num_outputs=-1)
If = Op("If", _if_kernel, shape=_if_shape, grad=_if_grad, num_outputs=-1, stateful=True)


def build_if(
    pred: Tensor,
    true_fn: Callable[[], Sequence[Any]],
    false_fn: Callable[[], Sequence[Any]],
    names: Sequence[str] | None = None,
) -> list[Any]:
    """Trace both branches (each returns a list of values) and add one If op; returns the merged values.

    Values that are tensors (or Python numbers) in both branches become outputs of the op; an object that
    both branches leave untouched passes through; a value defined in one branch only becomes an Undefined
    that raises TensorFlow's error when used.
    """
    branches = []
    for label, fn in (("true", true_fn), ("false", false_fn)):
        graph = sub_graph(f"cond_{label}_branch")
        with graph_scope(graph):
            values = list(fn())
        branches.append((graph, values))
    (g_then, v_then), (g_else, v_else) = branches
    names = list(names) if names is not None else [f"output_{i}" for i in range(len(v_then))]
    if len(v_then) != len(v_else):
        raise ValueError(
            "true_fn and false_fn arguments to tf.cond must have the same number, type, and overall "
            "structure of return values."
        )
    merged: list[Any] = [None] * len(v_then)
    output_positions: list[int] = []
    then_outs: list[Tensor] = []
    else_outs: list[Tensor] = []
    for i, (a, b, name) in enumerate(zip(v_then, v_else, names)):
        a_undef, b_undef = isinstance(a, Undefined), isinstance(b, Undefined)
        if a_undef or b_undef:
            if a_undef and b_undef:
                merged[i] = a
                continue
            missing = "main" if a_undef else "else"
            if isinstance(a if a_undef else b, UndefinedReturnValue):
                merged[i] = UndefinedReturnValue(ValueError(f"the {missing} branch must also have a return statement."))
            else:
                merged[i] = Undefined(name, ValueError(f"'{name}' must also be initialized in the {missing} branch"))
            continue
        if a is b and not _tensorish(a):
            merged[i] = a
            continue
        if not (_tensorish(a) and _tensorish(b)):
            if a is None or b is None:
                which = "main" if a is None else "else"
                raise ValueError(f"'{name}' is None at the end of the {which} branch.")
            raise ValueError(f"'{name}' must have the same nested structure in the main and else branches")
        ta, tb = convert_in(g_then, a), convert_in(g_else, b)
        if ta.dtype is not tb.dtype:
            raise TypeError(
                f"'{name}' has dtype {ta.dtype.name} in the main branch, but dtype {tb.dtype.name} in the else branch"
            )
        output_positions.append(i)
        then_outs.append(ta)
        else_outs.append(tb)
    g_then.outputs, g_else.outputs = then_outs, else_outs  # type: ignore[assignment]
    outside = unify_captures([g_then, g_else], 0)
    if not output_positions:
        g_then.outputs = [convert_in(g_then, 0)]  # type: ignore[list-item]
        g_else.outputs = [convert_in(g_else, 0)]  # type: ignore[list-item]
    stateful = bool(g_then.control_outputs or g_else.control_outputs)
    note_resource_reads(outside)
    outs = bind(If if stateful else StatelessIf, pred, *outside, then_branch=g_then, else_branch=g_else)
    graph = state.graph
    if graph is not None:  # TensorFlow names the outputs cond/Identity, cond/Identity_1, ...
        graph.name_scopes.append(outs[0].op.name if outs else "cond")
    try:
        for i, t in zip(output_positions, outs):
            merged[i] = bind(Identity, t)
    finally:
        if graph is not None:
            graph.name_scopes.pop()
    return merged


def _tensorish(v: Any) -> bool:
    return isinstance(v, Tensor | bool | int | float | np.ndarray | np.generic) or hasattr(v, "_as_tensor")


def cond(
    pred: Any,
    true_fn: Callable[[], Any] | None = None,
    false_fn: Callable[[], Any] | None = None,
    name: str | None = None,
) -> Any:
    """`tf.cond`: `true_fn()` if pred else `false_fn()`; in a graph both are traced and one If op picks."""
    if true_fn is None or false_fn is None:
        raise TypeError("cond(): 'true_fn' and 'false_fn' arguments are required.")
    if hasattr(pred, "_as_tensor") and not isinstance(pred, Tensor):
        pred = pred.read_value()
    if not isinstance(pred, SymbolicTensor):
        return true_fn() if bool(pred) else false_fn()
    if pred.dtype is not dtypes.bool or (pred.shape.rank not in (0, None)):
        raise TypeError(f"pred must be a bool scalar Tensor, got {pred!r}")
    structures: list[Any] = [None, None]

    def wrap(fn: Callable[[], Any], k: int) -> Callable[[], list]:
        def run() -> list:
            out = fn()
            structures[k] = out
            return nest.flatten(out)

        return run

    flat = build_if(pred, wrap(true_fn, 0), wrap(false_fn, 1))
    return nest.pack_sequence_as(structures[0], flat) if nest.is_nested(structures[0]) else flat[0]
