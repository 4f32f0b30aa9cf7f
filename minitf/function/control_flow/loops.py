"""`tf.while_loop`: a loop that lives inside a graph, as one `StatelessWhile` op (`While` with effects).

Eagerly `while_loop` is a Python `while`. While tracing, the condition and the body are traced into their
own graphs over placeholders for the loop variables (with their shape invariants: a dimension that changes
from one iteration to the next must be None), and one op runs them. The op's inputs are an iteration
counter, the maximum number of iterations (-1: none), the loop variables and the captured tensors.

Gradient: run the loop again while stacking the state each iteration starts from, then walk the stack
backwards applying the body's gradient (the body replayed under a tape, replay_gradient.py). Both loops
are while loops of minitf ops, so tapes, tracing and higher derivatives compose.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from minitf.core import dtypes, nest
from minitf.core.context import state
from minitf.core.conversion import constant_tensor, convert_to_tensor
from minitf.core.dtypes import resource
from minitf.core.op import GradContext, Op, bind
from minitf.core.tensor import Tensor
from minitf.core.tensor_shape import TensorShape
from minitf.function.compiling.execute import replay_graph, run_graph
from minitf.function.control_flow.replay_gradient import differentiable, gradient_sources, replay_gradients
from minitf.function.control_flow.subgraphs import convert_in, note_resource_reads, sub_graph, unify_captures
from minitf.function.tracing.func_graph import FuncGraph
from minitf.function.tracing.graph import SymbolicTensor
from minitf.function.tracing.trace import graph_scope
from minitf.ops.array.creation import zeros_like
from minitf.ops.array.gather_scatter import gather
from minitf.ops.array.join_split import concat
from minitf.ops.array.shape_ops import expand_dims
from minitf.ops.state_ops import variable_of


def _while_kernel(
    counter: Any, max_iterations: Any, *values: Any, cond: FuncGraph, body: FuncGraph, n_vars: int
) -> tuple:
    loop_vars = list(values[:n_vars])
    captured = list(values[n_vars:])
    count = int(counter)
    limit = int(max_iterations)
    while (limit < 0 or count < limit) and bool(run_graph(cond, loop_vars + captured)[0]):
        loop_vars = run_graph(body, loop_vars + captured)[:n_vars]
        count += 1
    return (np.int32(count), max_iterations, *loop_vars)


def _while_shape(shapes: Any, types: Any, attrs: dict) -> list:
    """Loop variables leave the loop with the shapes the body was traced for (their invariants). The captured
    tensors are inputs only: a variable's handle has no value to hand back when the loop runs eagerly (under a
    tape, the traced loop is replayed op by op)."""
    n = attrs["n_vars"]
    body_shapes = [t.shape for t in attrs["body"].inputs[:n]]
    return [(s, t) for s, t in zip(shapes[:2] + body_shapes, types[: 2 + n])]


def _while_grad(ctx: GradContext, grads: list) -> list:
    n = ctx.attrs["n_vars"]
    body_graph: FuncGraph = ctx.attrs["body"]
    cond_graph: FuncGraph = ctx.attrs["cond"]
    max_iterations = ctx.inputs[1]
    vars0 = list(ctx.inputs[2 : 2 + n])
    caps = list(ctx.inputs[2 + n :])
    out_grads = grads[2 : 2 + n]
    var_idx = [i for i in range(n) if differentiable(vars0[i])]
    cap_idx = gradient_sources(caps)
    if not var_idx and not cap_idx:
        return [None] * len(ctx.inputs)

    # 1. Run the loop again, stacking the state each iteration starts from.
    def acc_cond(k: Any, *rest: Any) -> Any:
        return replay_graph(cond_graph, list(rest[:n]) + caps)[0]

    def acc_body(k: Any, *rest: Any) -> list:
        current, stacks = list(rest[:n]), list(rest[n:])
        stacks = [concat([s, expand_dims(v, 0)], 0) for s, v in zip(stacks, current)]
        return [k + 1, *replay_graph(body_graph, current + caps)[:n], *stacks]

    shapes = [t.shape for t in body_graph.inputs[:n]]  # the loop's own shape invariants
    if all(s.is_fully_defined() for s in shapes):
        empty = [bind(EmptyStack, v) for v in vars0]
        invariants = [TensorShape([]), *shapes, *[TensorShape([None]) + s for s in shapes]]
        forward = while_loop(
            acc_cond,
            acc_body,
            [convert_to_tensor(0), *vars0, *empty],
            shape_invariants=invariants,
            maximum_iterations=max_iterations,
        )
        iterations, stacks = forward[0], forward[1 + n :]

        def state_before(j: Any) -> list:
            return [gather(s, j) for s in stacks]
    else:
        # Values whose shape changes from one iteration to the next cannot be stacked: recompute the state
        # each backward step needs by running the loop again from the start (slower, but always possible).
        def step(k: Any, *current: Any) -> list:
            return [k + 1, *replay_graph(body_graph, list(current) + caps)[:n]]

        invariants = [TensorShape([]), *shapes]
        iterations = while_loop(
            lambda k, *current: replay_graph(cond_graph, list(current) + caps)[0],
            step,
            [convert_to_tensor(0), *vars0],
            shape_invariants=invariants,
            maximum_iterations=max_iterations,
        )[0]

        def state_before(j: Any) -> list:
            return list(
                while_loop(
                    lambda k, *current: k < j, step, [convert_to_tensor(0), *vars0], shape_invariants=invariants
                )[1:]
            )

    # 2. Walk back through the iterations, applying the body's gradient.
    g_vars = [out_grads[i] if out_grads[i] is not None else zeros_like(vars0[i]) for i in var_idx]
    g_caps = [
        zeros_like(caps[i]) if caps[i].dtype is not resource else zeros_like(variable_of(caps[i]).read_value())
        for i in cap_idx
    ]

    def back_cond(j: Any, *rest: Any) -> Any:
        return j > 0

    def back_body(j: Any, *rest: Any) -> list:
        gv, gc = list(rest[: len(var_idx)]), list(rest[len(var_idx) :])
        j = j - 1
        d = replay_gradients(body_graph, state_before(j) + caps, var_idx + [n + i for i in cap_idx], var_idx, gv)
        return [j, *d[: len(var_idx)], *[a + b for a, b in zip(gc, d[len(var_idx) :])]]

    back = while_loop(back_cond, back_body, [iterations, *g_vars, *g_caps])
    result: list[Any] = [None] * len(ctx.inputs)
    for k, i in enumerate(var_idx):
        result[2 + i] = back[1 + k]
    for k, i in enumerate(cap_idx):
        result[2 + n + i] = back[1 + len(var_idx) + k]
    return result


StatelessWhile = Op("StatelessWhile", _while_kernel, shape=_while_shape, grad=_while_grad, num_outputs=-1)
While = Op("While", _while_kernel, shape=_while_shape, grad=_while_grad, num_outputs=-1, stateful=True)
EmptyStack = Op(
    "EmptyStack",
    lambda x: np.zeros((0,) + np.shape(x), dtype=np.asarray(x).dtype),
    shape=lambda s, t, a: [(TensorShape([0]) + s[0], t[0])],
)


def build_while(
    cond_fn: Callable[..., Any],
    body_fn: Callable[..., Sequence[Any]],
    loop_vars: Sequence[Tensor],
    names: Sequence[str],
    shape_invariants: Sequence[TensorShape | None] | None = None,
    maximum_iterations: Any = None,
) -> list[Tensor]:
    """Trace cond and body over placeholders for `loop_vars`; add one While op; returns the final values."""
    loop_vars = list(loop_vars)
    invariants = list(shape_invariants) if shape_invariants is not None else [None] * len(loop_vars)
    shapes = [TensorShape(inv) if inv is not None else v.shape for v, inv in zip(loop_vars, invariants)]
    for v, inv, name in zip(loop_vars, invariants, names):
        if inv is not None and not TensorShape(inv).is_compatible_with(v.shape):
            raise ValueError(
                f"The shape invariant specified for {name} is not compatible with the initial shape "
                f"of the loop variable. It enters the loop with shape {v.shape}, but the specified "
                f"shape invariant is {TensorShape(inv)}."
            )
    cond_graph = sub_graph("while_cond")
    body_graph = sub_graph("while_body")
    holders_c = [cond_graph.placeholder(s, v.dtype, name=n) for v, s, n in zip(loop_vars, shapes, names)]
    holders_b = [body_graph.placeholder(s, v.dtype, name=n) for v, s, n in zip(loop_vars, shapes, names)]
    cond_graph.inputs = list(holders_c)
    body_graph.inputs = list(holders_b)
    outer = state.graph
    scope = outer.peek_name("while") if outer is not None else "while"  # the While op's name, and its scope:
    cond_graph.name_scopes = body_graph.name_scopes = [scope]  # TensorFlow names the body's ops `while/add`
    with graph_scope(cond_graph):
        test = cond_fn(*holders_c)
        if hasattr(test, "_as_tensor") and not isinstance(test, Tensor):
            test = test.read_value()
        test = convert_to_tensor(test)
        if test.dtype is not dtypes.bool:
            raise TypeError(f"A while loop condition must be a bool tensor, got {test!r}")
        cond_graph.outputs = [
            cond_graph.capture(test) if not (isinstance(test, SymbolicTensor) and test.graph is cond_graph) else test
        ]
    with graph_scope(body_graph):
        new_values = list(body_fn(*holders_b))
    if len(new_values) != len(loop_vars):
        raise ValueError("The loop body must return as many values as there are loop variables.")
    outs: list[Any] = []  # the body graph's tensors (symbolic)
    for v, new, shape, name, inv in zip(loop_vars, new_values, shapes, names, invariants):
        t = convert_in(body_graph, new)
        if t.dtype is not v.dtype:
            raise TypeError(
                f"'{name}' has dtype {v.dtype.name} before the loop, but dtype {t.dtype.name} after one iteration"
            )
        if not shape.is_compatible_with(t.shape) or (
            inv is None and t.shape != shape and t.shape.rank is not None and shape.is_fully_defined()
        ):
            raise ValueError(
                f"'{name}' has shape {v.shape} before the loop, but shape {t.shape} after one iteration. "
                f"Use tf.autograph.experimental.set_loop_options to set shape invariants."
            )
        outs.append(t)
    body_graph.outputs = outs
    n = len(loop_vars)
    captured = unify_captures([cond_graph, body_graph], n)
    body_graph.outputs = outs + body_graph.inputs[n:]
    stateful = bool(cond_graph.control_outputs or body_graph.control_outputs)
    max_iter = (
        constant_tensor(-1 if maximum_iterations is None else maximum_iterations, dtypes.int32)
        if not isinstance(maximum_iterations, Tensor)
        else maximum_iterations
    )
    counter = constant_tensor(0, dtypes.int32)
    note_resource_reads(captured)
    result = bind(
        While if stateful else StatelessWhile,
        counter,
        max_iter,
        *loop_vars,
        *captured,
        cond=cond_graph,
        body=body_graph,
        n_vars=n,
    )
    if outer is not None and isinstance(counter, SymbolicTensor):  # the constants made here, named as TensorFlow's
        outer.name_constant(counter, f"{result[0].op.name}/loop_counter")
        if not isinstance(maximum_iterations, Tensor) and isinstance(max_iter, SymbolicTensor):
            outer.name_constant(max_iter, f"{result[0].op.name}/maximum_iterations")
    return list(result[2 : 2 + n])


def while_loop(
    cond: Callable[..., Any],
    body: Callable[..., Any],
    loop_vars: Any,
    shape_invariants: Any = None,
    parallel_iterations: int = 10,
    back_prop: bool = True,
    swap_memory: bool = False,
    maximum_iterations: Any = None,
    name: str | None = None,
) -> Any:
    """`tf.while_loop`: repeat `loop_vars = body(*loop_vars)` while `cond(*loop_vars)`; a graph loop when traced."""
    structure = loop_vars
    flat = [convert_to_tensor(v) if not isinstance(v, Tensor) else v for v in nest.flatten(loop_vars)]
    if state.graph is None:
        values = nest.pack_sequence_as(structure, flat)
        count = 0
        limit = -1 if maximum_iterations is None else int(maximum_iterations)
        while limit < 0 or count < limit:
            args = values if isinstance(values, list | tuple) else [values]
            if not bool(cond(*args)):
                break
            out = body(*args)
            values = out if isinstance(structure, list | tuple) else (out[0] if isinstance(out, list | tuple) else out)
            count += 1
        return values

    def flat_fn(fn: Callable) -> Callable:
        def run(*holders: Any) -> Any:
            packed = nest.pack_sequence_as(structure, holders)
            args = packed if isinstance(structure, list | tuple) else [packed]
            return fn(*args)

        return run

    def body_flat(*holders: Any) -> list:
        out = flat_fn(body)(*holders)
        if not isinstance(structure, list | tuple):
            out = [out] if not isinstance(out, list | tuple) else out
        return nest.flatten(out)

    invariants = (
        None
        if shape_invariants is None
        else nest.flatten(nest.map_structure(lambda s: s, shape_invariants))
        if not isinstance(shape_invariants, TensorShape)
        else [shape_invariants]
    )
    if invariants is not None:
        invariants = [TensorShape(s) if not isinstance(s, TensorShape) else s for s in _group_shapes(shape_invariants)]
    names = [f"loop_var_{i}" for i in range(len(flat))]
    result = build_while(flat_fn(cond), body_flat, flat, names, invariants, maximum_iterations)
    return nest.pack_sequence_as(structure, result) if isinstance(structure, list | tuple) else result[0]


def _group_shapes(invariants: Any) -> list:
    """Shape invariants as one shape per loop variable (a shape can itself look like a list of ints)."""
    if isinstance(invariants, TensorShape):
        return [invariants]
    out = []
    for s in invariants:
        if isinstance(s, TensorShape) or s is None:
            out.append(s)
        elif isinstance(s, list | tuple) and all(isinstance(d, int | type(None)) for d in s):
            out.append(TensorShape(s))
        else:
            out.extend(_group_shapes(s))
    return out
