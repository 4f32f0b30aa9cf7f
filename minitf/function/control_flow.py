"""`tf.cond`, `tf.while_loop` and `tf.TensorArray`: control flow that lives *inside* a graph.

Eagerly these are plain Python (`if`, `while`). While tracing, each branch or loop body is traced into its
own FuncGraph, and one `StatelessIf` / `StatelessWhile` op (`If` / `While` when a branch changes a
variable or prints) runs them. Tensors the branches use from outside are captured: they become extra
inputs of the op.

Gradients: the gradient of an If is an If of the branches' gradients. The gradient of a While runs the
loop again while stacking every iteration's state, then walks the stack backwards applying the body's
gradient. Both are written with minitf ops, so tapes, tracing and higher derivatives compose.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from minitf import dtypes, nest
from minitf.core import Op, bind, convert_to_tensor, state
from minitf.errors import InvalidArgumentError
from minitf.function.execute import as_runtime, replay_graph, run_graph
from minitf.function.graph import FuncGraph, SymbolicTensor, resource
from minitf.function.trace import graph_scope
from minitf.ops.state_ops import variable_of
from minitf.tensor import Tensor
from minitf.tensor_shape import TensorShape


def _note_resource_reads(inputs: Sequence[Any]) -> None:
    """A control-flow op that reads a variable inside counts as a read for the tapes (so gradients reach it)."""
    for t in inputs:
        if isinstance(t, Tensor) and t.dtype is resource:  # type: ignore[attr-defined]
            for tape in state.tapes:
                tape.record_read(variable_of(t), t)


def _differentiable(t: Any) -> bool:
    return isinstance(t, Tensor) and (t.dtype.is_floating or t.dtype.is_complex)  # type: ignore[attr-defined]


def _sub_graph(name: str) -> FuncGraph:
    outer = state.graph
    graph = FuncGraph(f"{outer.name}_{name}" if outer is not None else name, outer=outer,
                      autograph=getattr(outer, "autograph", True))
    return graph


def _unify_captures(graphs: Sequence[FuncGraph], n_args: int) -> list[Any]:
    """Give every graph the same capture inputs, in the same order; returns the outside values."""
    outside: list[Any] = []
    seen: set[int] = set()
    for g in graphs:
        for value, _ in g.captures:
            if id(value) not in seen:
                seen.add(id(value))
                outside.append(value)
    for g in graphs:
        for value in outside:
            g.capture(value)
        inside = {id(v): p for v, p in g.captures}
        g.inputs = g.inputs[:n_args] + [inside[id(v)] for v in outside]
    return outside


def _convert_in(graph: FuncGraph, value: Any) -> Tensor:
    with graph_scope(graph):
        if hasattr(value, "_as_tensor") and not isinstance(value, Tensor):
            value = value.read_value()
        t = convert_to_tensor(value)
        return graph.capture(t) if not (isinstance(t, SymbolicTensor) and t.graph is graph) else t


# ---------------------------------------------------------------------------------------------------
# If
# ---------------------------------------------------------------------------------------------------

def _if_kernel(pred: Any, *values: Any, then_branch: FuncGraph, else_branch: FuncGraph) -> tuple:
    return tuple(run_graph(then_branch if bool(pred) else else_branch, values))


def _if_shape(shapes: Any, types: Any, attrs: dict) -> list:
    then_out, else_out = attrs["then_branch"].outputs, attrs["else_branch"].outputs
    return [(a.shape.most_specific_compatible_shape(b.shape), a.dtype) for a, b in zip(then_out, else_out)]


def _if_grad(ctx: Any, grads: list) -> list:
    pred, *ins = ctx.inputs
    grads = [g if g is not None else _zeros_like(o) for g, o in zip(grads, ctx.outputs)]
    targets = [i for i, o in enumerate(ctx.outputs) if _differentiable(o)]
    sources = [i for i, x in enumerate(ins) if _differentiable(x) or x.dtype is resource]
    if not targets or not sources:
        return [None] * len(ctx.inputs)

    def branch_gradient(graph: FuncGraph) -> Callable[[], list]:
        def fn() -> list:
            from minitf.tape import GradientTape, UnconnectedGradients
            with GradientTape() as tape:
                for i in sources:
                    if ins[i].dtype is not resource:
                        tape.watch(ins[i])
                outs = replay_graph(graph, ins)
            wrt = [variable_of(ins[i]) if ins[i].dtype is resource else ins[i] for i in sources]
            result = tape.gradient([outs[i] for i in targets], wrt, output_gradients=[grads[i] for i in targets],
                                   unconnected_gradients=UnconnectedGradients.ZERO)
            return list(result)
        return fn

    result = cond(pred, branch_gradient(ctx.attrs["then_branch"]), branch_gradient(ctx.attrs["else_branch"]))
    result = list(result) if isinstance(result, list | tuple) else [result]
    out: list[Any] = [None] * len(ctx.inputs)
    for k, i in enumerate(sources):
        out[1 + i] = result[k]
    return out


StatelessIf = Op("StatelessIf", _if_kernel, shape=_if_shape, grad=_if_grad, num_outputs=-1)
If = Op("If", _if_kernel, shape=_if_shape, grad=_if_grad, num_outputs=-1, stateful=True)


class Undefined:
    """A Python variable that has no value (yet) on some path; using it raises the error it carries."""

    def __init__(self, name: str, error: Exception | None = None) -> None:
        object.__setattr__(self, "symbol_name", name)
        object.__setattr__(self, "error", error)

    def fail(self) -> Any:
        error = object.__getattribute__(self, "error")
        if error is not None:
            raise error
        name = object.__getattribute__(self, "symbol_name")
        raise UnboundLocalError(f"local variable '{name}' referenced before assignment")

    def __getattr__(self, name: str) -> Any:
        return self.fail()

    def __repr__(self) -> str:
        return f"Undefined({object.__getattribute__(self, 'symbol_name')!r})"

    def __bool__(self) -> bool:
        return self.fail()  # type: ignore[no-any-return]


for _dunder in ("add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "matmul", "lt", "le", "gt", "ge",
                "radd", "rsub", "rmul", "rtruediv", "getitem", "call", "iter", "len", "neg", "index", "float",
                "int"):
    setattr(Undefined, f"__{_dunder}__", lambda self, *a, **k: self.fail())


class UndefinedReturnValue(Undefined):
    """The value of a function's return before any `return` ran."""

    def __init__(self, error: Exception | None = None) -> None:
        super().__init__("retval_", error)


def build_if(pred: Tensor, true_fn: Callable[[], Sequence[Any]], false_fn: Callable[[], Sequence[Any]],
             names: Sequence[str] | None = None) -> list[Any]:
    """Trace both branches (each returns a list of values) and add one If op; returns the merged values.

    Values that are tensors (or Python numbers) in both branches become outputs of the op; an object that
    both branches leave untouched passes through; a value defined in one branch only becomes an Undefined
    that raises TensorFlow's error when used.
    """
    branches = []
    for label, fn in (("true", true_fn), ("false", false_fn)):
        graph = _sub_graph(f"cond_{label}_branch")
        with graph_scope(graph):
            values = list(fn())
        branches.append((graph, values))
    (g_then, v_then), (g_else, v_else) = branches
    names = list(names) if names is not None else [f"output_{i}" for i in range(len(v_then))]
    if len(v_then) != len(v_else):
        raise ValueError("true_fn and false_fn arguments to tf.cond must have the same number, type, and overall "
                         "structure of return values.")
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
                merged[i] = UndefinedReturnValue(ValueError(f"the {missing} branch must also have a return "
                                                            f"statement."))
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
        ta, tb = _convert_in(g_then, a), _convert_in(g_else, b)
        if ta.dtype is not tb.dtype:  # type: ignore[attr-defined]
            raise TypeError(f"'{name}' has dtype {ta.dtype.name} in the main branch, but dtype {tb.dtype.name} in "  # type: ignore
                            f"the else branch")
        output_positions.append(i)
        then_outs.append(ta)
        else_outs.append(tb)
    g_then.outputs, g_else.outputs = then_outs, else_outs  # type: ignore[assignment]
    outside = _unify_captures([g_then, g_else], 0)
    if not output_positions:
        g_then.outputs = [_convert_in(g_then, 0)]  # type: ignore[list-item]
        g_else.outputs = [_convert_in(g_else, 0)]  # type: ignore[list-item]
    stateful = bool(g_then.control_outputs or g_else.control_outputs)
    _note_resource_reads(outside)
    outs = bind(If if stateful else StatelessIf, pred, *outside, then_branch=g_then, else_branch=g_else)
    graph = state.graph
    if graph is not None:  # TensorFlow names the outputs cond/Identity, cond/Identity_1, ...
        graph.name_scopes.append(outs[0].op.name if outs else "cond")
    try:
        for i, t in zip(output_positions, outs):
            merged[i] = bind(_IdentityOp(), t)
    finally:
        if graph is not None:
            graph.name_scopes.pop()
    return merged


def _IdentityOp() -> Op:
    from minitf.ops.array_ops import Identity
    return Identity


def _tensorish(v: Any) -> bool:
    return isinstance(v, Tensor | bool | int | float | np.ndarray | np.generic) or hasattr(v, "_as_tensor")


def _zeros_like(t: Tensor) -> Tensor:
    from minitf.ops.array_ops import zeros_like
    return zeros_like(t)


def cond(pred: Any, true_fn: Callable[[], Any] | None = None, false_fn: Callable[[], Any] | None = None,
         name: str | None = None) -> Any:
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


# ---------------------------------------------------------------------------------------------------
# While
# ---------------------------------------------------------------------------------------------------

def _while_kernel(counter: Any, max_iterations: Any, *values: Any, cond: FuncGraph, body: FuncGraph,
                  n_vars: int) -> tuple:
    loop_vars = list(values[:n_vars])
    captured = list(values[n_vars:])
    count = int(counter)
    limit = int(max_iterations)
    while (limit < 0 or count < limit) and bool(run_graph(cond, loop_vars + captured)[0]):
        loop_vars = run_graph(body, loop_vars + captured)[:n_vars]
        count += 1
    return (np.int32(count), max_iterations, *loop_vars, *captured)


def _while_shape(shapes: Any, types: Any, attrs: dict) -> list:
    """Loop variables leave the loop with the shapes the body was traced for (their invariants)."""
    body_shapes = [t.shape for t in attrs["body"].inputs]
    return [(s, t) for s, t in zip(shapes[:2] + body_shapes, types)]


def _while_grad(ctx: Any, grads: list) -> list:
    from minitf.ops.array_ops import concat, expand_dims, gather
    from minitf.tape import GradientTape, UnconnectedGradients

    n = ctx.attrs["n_vars"]
    body_graph: FuncGraph = ctx.attrs["body"]
    cond_graph: FuncGraph = ctx.attrs["cond"]
    max_iterations = ctx.inputs[1]
    vars0 = list(ctx.inputs[2:2 + n])
    caps = list(ctx.inputs[2 + n:])
    out_grads = grads[2:2 + n]
    var_idx = [i for i in range(n) if _differentiable(vars0[i])]
    cap_idx = [i for i, c in enumerate(caps) if _differentiable(c) or c.dtype is resource]
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
        forward = while_loop(acc_cond, acc_body, [convert_to_tensor(0), *vars0, *empty],
                             shape_invariants=invariants, maximum_iterations=max_iterations)
        iterations, stacks = forward[0], forward[1 + n:]

        def state_before(j: Any) -> list:
            return [gather(s, j) for s in stacks]
    else:
        # Values whose shape changes from one iteration to the next cannot be stacked: recompute the state
        # each backward step needs by running the loop again from the start (slower, but always possible).
        def step(k: Any, *current: Any) -> list:
            return [k + 1, *replay_graph(body_graph, list(current) + caps)[:n]]

        invariants = [TensorShape([]), *shapes]
        iterations = while_loop(lambda k, *current: replay_graph(cond_graph, list(current) + caps)[0], step,
                                [convert_to_tensor(0), *vars0], shape_invariants=invariants,
                                maximum_iterations=max_iterations)[0]

        def state_before(j: Any) -> list:
            return list(while_loop(lambda k, *current: k < j, step, [convert_to_tensor(0), *vars0],
                                   shape_invariants=invariants)[1:])

    # 2. Walk back through the iterations, applying the body's gradient.
    g_vars = [out_grads[i] if out_grads[i] is not None else _zeros_like(vars0[i]) for i in var_idx]
    cap_sources = [variable_of(caps[i]) if caps[i].dtype is resource else caps[i] for i in cap_idx]
    g_caps = [_zeros_like(caps[i]) if caps[i].dtype is not resource else _zeros_like(variable_of(caps[i]).read_value())
              for i in cap_idx]

    def back_cond(j: Any, *rest: Any) -> Any:
        return j > 0

    def back_body(j: Any, *rest: Any) -> list:
        gv, gc = list(rest[:len(var_idx)]), list(rest[len(var_idx):])
        j = j - 1
        start = state_before(j)
        with GradientTape() as tape:
            for i in var_idx:
                tape.watch(start[i])
            for i in cap_idx:
                if caps[i].dtype is not resource:
                    tape.watch(caps[i])
            outs = replay_graph(body_graph, start + caps)
        wrt = [start[i] for i in var_idx] + cap_sources
        d = tape.gradient([outs[i] for i in var_idx], wrt, output_gradients=gv,
                          unconnected_gradients=UnconnectedGradients.ZERO)
        d = list(d)
        return [j, *d[:len(var_idx)], *[a + b for a, b in zip(gc, d[len(var_idx):])]]

    back = while_loop(back_cond, back_body, [iterations, *g_vars, *g_caps])
    result: list[Any] = [None] * len(ctx.inputs)
    for k, i in enumerate(var_idx):
        result[2 + i] = back[1 + k]
    for k, i in enumerate(cap_idx):
        result[2 + n + i] = back[1 + len(var_idx) + k]
    return result


StatelessWhile = Op("StatelessWhile", _while_kernel, shape=_while_shape, grad=_while_grad, num_outputs=-1)
While = Op("While", _while_kernel, shape=_while_shape, grad=_while_grad, num_outputs=-1, stateful=True)
EmptyStack = Op("EmptyStack", lambda x: np.zeros((0,) + np.shape(x), dtype=np.asarray(x).dtype),
                shape=lambda s, t, a: [(TensorShape([0]) + s[0], t[0])])


def build_while(cond_fn: Callable[..., Any], body_fn: Callable[..., Sequence[Any]], loop_vars: Sequence[Tensor],
                names: Sequence[str], shape_invariants: Sequence[TensorShape | None] | None = None,
                maximum_iterations: Any = None) -> list[Tensor]:
    """Trace cond and body over placeholders for `loop_vars`; add one While op; returns the final values."""
    loop_vars = list(loop_vars)
    invariants = list(shape_invariants) if shape_invariants is not None else [None] * len(loop_vars)
    shapes = [TensorShape(inv) if inv is not None else v.shape for v, inv in zip(loop_vars, invariants)]
    for v, inv, name in zip(loop_vars, invariants, names):
        if inv is not None and not TensorShape(inv).is_compatible_with(v.shape):
            raise ValueError(f"The shape invariant specified for {name} is not compatible with the initial shape "
                             f"of the loop variable. It enters the loop with shape {v.shape}, but the specified "
                             f"shape invariant is {TensorShape(inv)}.")
    cond_graph = _sub_graph("while_cond")
    body_graph = _sub_graph("while_body")
    holders_c = [cond_graph.placeholder(s, v.dtype, name=n) for v, s, n in zip(loop_vars, shapes, names)]
    holders_b = [body_graph.placeholder(s, v.dtype, name=n) for v, s, n in zip(loop_vars, shapes, names)]
    cond_graph.inputs = list(holders_c)
    body_graph.inputs = list(holders_b)
    with graph_scope(cond_graph):
        test = cond_fn(*holders_c)
        if hasattr(test, "_as_tensor") and not isinstance(test, Tensor):
            test = test.read_value()
        test = convert_to_tensor(test)
        if test.dtype is not dtypes.bool:  # type: ignore[attr-defined]
            raise TypeError(f"A while loop condition must be a bool tensor, got {test!r}")
        cond_graph.outputs = [cond_graph.capture(test) if not (isinstance(test, SymbolicTensor)
                                                               and test.graph is cond_graph) else test]
    with graph_scope(body_graph):
        new_values = list(body_fn(*holders_b))
    if len(new_values) != len(loop_vars):
        raise ValueError("The loop body must return as many values as there are loop variables.")
    outs = []
    for v, new, shape, name, inv in zip(loop_vars, new_values, shapes, names, invariants):
        t = _convert_in(body_graph, new)
        if t.dtype is not v.dtype:  # type: ignore[attr-defined]
            raise TypeError(f"'{name}' has dtype {v.dtype.name} before the loop, but dtype {t.dtype.name} after one "  # type: ignore
                            f"iteration")
        if not shape.is_compatible_with(t.shape) or (inv is None and t.shape != shape and t.shape.rank is not None
                                                     and shape.is_fully_defined()):
            raise ValueError(f"'{name}' has shape {v.shape} before the loop, but shape {t.shape} after one iteration. "
                             f"Use tf.autograph.experimental.set_loop_options to set shape invariants.")
        outs.append(t)
    body_graph.outputs = outs  # type: ignore[assignment]
    n = len(loop_vars)
    captured = _unify_captures([cond_graph, body_graph], n)
    body_graph.outputs = outs + body_graph.inputs[n:]
    stateful = bool(cond_graph.control_outputs or body_graph.control_outputs)
    from minitf.core import constant_tensor
    max_iter = constant_tensor(-1 if maximum_iterations is None else maximum_iterations, dtypes.int32) \
        if not isinstance(maximum_iterations, Tensor) else maximum_iterations
    counter = constant_tensor(0, dtypes.int32)
    _note_resource_reads(captured)
    result = bind(While if stateful else StatelessWhile, counter, max_iter, *loop_vars, *captured, cond=cond_graph,
                  body=body_graph, n_vars=n)
    return list(result[2:2 + n])


def while_loop(cond: Callable[..., Any], body: Callable[..., Any], loop_vars: Any, shape_invariants: Any = None,
               parallel_iterations: int = 10, back_prop: bool = True, swap_memory: bool = False,
               maximum_iterations: Any = None, name: str | None = None) -> Any:
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

    invariants = None if shape_invariants is None else nest.flatten(
        nest.map_structure(lambda s: s, shape_invariants)) if not isinstance(shape_invariants, TensorShape) \
        else [shape_invariants]
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


# ---------------------------------------------------------------------------------------------------
# TensorArray
# ---------------------------------------------------------------------------------------------------

def _write_kernel(stack: Any, index: Any, value: Any, size: int = 0) -> Any:
    """Write row `index`; a TensorArray of static `size` has all its rows from the first write (zeros)."""
    stack = np.asarray(stack)
    value = np.asarray(value)
    i = int(index)
    if stack.ndim == 1 and stack.shape[0] == 0 and value.ndim != 0:
        stack = np.zeros((0,) + value.shape, dtype=value.dtype)
    if stack.ndim >= 1 and stack.shape[0] and stack.shape[1:] != value.shape:
        raise InvalidArgumentError(None, None, f"Tried to set a tensor with incompatible shape at a list index. Item "
                                   f"element shape: {list(value.shape)} list shape: {list(stack.shape[1:])}\nHint: "
                                   "every element of a TensorArray (every result of map_fn) needs the same shape.")
    if i >= stack.shape[0]:
        grown = np.zeros((max(i + 1, size),) + value.shape, dtype=value.dtype)
        grown[:stack.shape[0]] = stack
        stack = grown
    else:
        stack = stack.copy()
    stack[i] = value
    return stack


def _write_grad(ctx: Any, g: Tensor) -> list:
    index = ctx.inputs[1]
    from minitf.ops.array_ops import gather
    return [bind(_ZeroRow, g, index), None, gather(g, index)]


TensorArrayWrite = Op("TensorListSetItem", _write_kernel, grad=_write_grad,
                      shape=lambda s, t, a: [(TensorShape([a.get("size") or None]) + s[2], t[2])])


def _zero_row_kernel(g: Any, index: Any) -> Any:
    out = np.array(g, copy=True)
    if int(index) < out.shape[0]:
        out[int(index)] = 0
    return out


_ZeroRow = Op("ZeroRow", _zero_row_kernel, shape=lambda s, t, a: [(s[0], t[0])],
              grad=lambda c, g: [bind(_ZeroRow, g, c.inputs[1]), None])


class TensorArray:
    """`tf.TensorArray`: a list of same-shaped tensors that works inside graph loops (`ta = ta.write(i, x)`).

    It is stored as one stacked tensor, so a loop can carry it like any other loop variable.
    """

    def __init__(self, dtype: Any, size: Any = None, dynamic_size: bool | None = None, clear_after_read: Any = None,
                 tensor_array_name: Any = None, handle: Any = None, flow: Any = None, infer_shape: bool = True,
                 element_shape: Any = None, colocate_with_first_write_call: bool = True, name: Any = None) -> None:
        from minitf.core import constant_tensor
        self.dtype = dtypes.as_dtype(dtype)
        self._dynamic_size = bool(dynamic_size)
        self._element_shape = TensorShape(element_shape) if element_shape is not None else None
        n = 0 if size is None or isinstance(size, Tensor) else int(size)
        if self._element_shape is not None and self._element_shape.is_fully_defined():
            self._stack = constant_tensor(np.zeros([n] + self._element_shape.as_list(), dtype=self.dtype._np),
                                          self.dtype)
        else:
            self._stack = constant_tensor(np.zeros([0], dtype=self.dtype._np), self.dtype)
        self._size = n

    @classmethod
    def _from_stack(cls, stack: Tensor, like: TensorArray) -> TensorArray:
        ta = cls.__new__(cls)
        ta.dtype = like.dtype
        ta._dynamic_size = like._dynamic_size
        ta._element_shape = like._element_shape
        ta._stack = stack
        ta._size = like._size
        return ta

    @property
    def element_shape(self) -> TensorShape:
        return self._element_shape if self._element_shape is not None else TensorShape(None)

    def write(self, index: Any, value: Any, name: Any = None) -> TensorArray:
        value = convert_to_tensor(value, dtype=self.dtype)
        index = convert_to_tensor(index, dtype=dtypes.int32)
        size = 0 if self._dynamic_size else self._size
        stack = bind(TensorArrayWrite, self._stack, index, value, size=size) if size else \
            bind(TensorArrayWrite, self._stack, index, value)
        ta = TensorArray._from_stack(stack, self)
        if ta._element_shape is None:
            ta._element_shape = value.shape  # type: ignore[attr-defined]
        return ta

    def read(self, index: Any, name: Any = None) -> Tensor:
        from minitf.ops.array_ops import gather
        out = gather(self._stack, convert_to_tensor(index, dtype=dtypes.int32))
        if isinstance(out, SymbolicTensor) and self._element_shape is not None:
            out.set_shape(self._element_shape)
        return out

    def stack(self, name: Any = None) -> Tensor:
        """All rows as one tensor; while tracing, its static shape is [size] + the written elements' shape."""
        if isinstance(self._stack, SymbolicTensor) and self._element_shape is not None:
            rows = None if self._dynamic_size or not self._size else self._size
            self._stack.set_shape(TensorShape([rows]) + self._element_shape)
        return self._stack

    def gather(self, indices: Any, name: Any = None) -> Tensor:
        from minitf.ops.array_ops import gather
        return gather(self._stack, indices)

    def unstack(self, value: Any, name: Any = None) -> TensorArray:
        value = convert_to_tensor(value, dtype=self.dtype)
        ta = TensorArray._from_stack(value, self)
        ta._element_shape = value.shape[1:]  # type: ignore[attr-defined]
        return ta

    def concat(self, name: Any = None) -> Tensor:
        from minitf.ops.array_ops import reshape
        shape = self._stack.shape  # type: ignore[attr-defined]
        return reshape(self._stack, [-1] + shape.as_list()[2:])

    def size(self, name: Any = None) -> Tensor:
        from minitf.ops.array_ops import shape
        if self._size and not self._dynamic_size:
            from minitf.core import constant_tensor
            return constant_tensor(self._size, dtypes.int32)
        return shape(self._stack)[0]

    def __repr__(self) -> str:
        return f"<TensorArray dtype={self.dtype!r}>"


# ---------------------------------------------------------------------------------------------------
# Calling one traced function from another: (Stateful)PartitionedCall
# ---------------------------------------------------------------------------------------------------

def _call_kernel(*values: Any, f: FuncGraph) -> tuple:
    return tuple(run_graph(f, values))


def _call_shape(shapes: Any, types: Any, attrs: dict) -> list:
    return [(t.shape, t.dtype) for t in attrs["f"].outputs]


def _call_grad(ctx: Any, grads: list) -> list:
    """The gradient of a call: replay the called graph under a tape and differentiate it."""
    from minitf.tape import GradientTape, UnconnectedGradients

    ins = list(ctx.inputs)
    targets = [i for i, o in enumerate(ctx.outputs) if _differentiable(o)]
    sources = [i for i, x in enumerate(ins) if _differentiable(x) or x.dtype is resource]
    if not targets or not sources:
        return [None] * len(ins)
    grads = [g if g is not None else _zeros_like(o) for g, o in zip(grads, ctx.outputs)]
    with GradientTape() as tape:
        for i in sources:
            if ins[i].dtype is not resource:
                tape.watch(ins[i])
        outs = replay_graph(ctx.attrs["f"], ins)
    wrt = [variable_of(ins[i]) if ins[i].dtype is resource else ins[i] for i in sources]
    result = tape.gradient([outs[i] for i in targets], wrt, output_gradients=[grads[i] for i in targets],
                           unconnected_gradients=UnconnectedGradients.ZERO)
    out: list[Any] = [None] * len(ins)
    for k, i in enumerate(sources):
        out[i] = result[k]
    return out


PartitionedCall = Op("PartitionedCall", _call_kernel, shape=_call_shape, grad=_call_grad, num_outputs=-1)
StatefulPartitionedCall = Op("StatefulPartitionedCall", _call_kernel, shape=_call_shape, grad=_call_grad,
                             num_outputs=-1, stateful=True)


def call_traced(graph: FuncGraph, inputs: Sequence[Any]) -> list[Tensor]:
    """Inside a trace, a call of another traced function is one call op (as TensorFlow records it)."""
    stateful = bool(graph.control_outputs) or any(t.dtype is resource for t in graph.inputs)
    args = [as_runtime(v) for v in inputs]
    outs = bind(StatefulPartitionedCall if stateful else PartitionedCall, *args, f=graph)
    return list(outs)
