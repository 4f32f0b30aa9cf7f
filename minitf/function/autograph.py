"""AutoGraph: rewrite a function's Python control flow so that it also works on tensors.

`converted(fn)` parses fn's source and rewrites it, as TensorFlow's AutoGraph does:

* `return` inside `if`/`while`/`for` becomes `do_return = True; retval_ = value` (the rest is guarded);
* `break` and `continue` become flags (`break_`, `continue_`) checked by the loop and by guards;
* each `if`, `while` and `for` becomes a call to `ag__.if_stmt`, `ag__.while_stmt` or `ag__.for_stmt`,
  with the branch or body as a nested function and the variables it changes passed through
  `get_state`/`set_state` functions;
* `not`, `and`, `or` and `x if c else y` become `ag__.not_`, `ag__.and_`, `ag__.or_`, `ag__.if_exp`.

At run time those helpers look at the condition: a Python value (or an eager tensor) runs plain Python,
so `if` on a Python bool is decided while tracing and `for i in range(3)` is unrolled; a symbolic tensor
builds a `tf.cond` / `tf.while_loop` (control_flow.py). `tf.autograph.to_code(f)` shows the rewritten code.
"""

from __future__ import annotations

import ast
import inspect
import logging
import textwrap
import types
import weakref
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from minitf import dtypes
from minitf.core import convert_to_tensor, state
from minitf.errors import OperatorNotAllowedInGraphError
from minitf.function import control_flow
from minitf.function.control_flow import TensorArray, Undefined, UndefinedReturnValue
from minitf.function.graph import SymbolicTensor
from minitf.tensor import Tensor
from minitf.tensor_shape import TensorShape

_GENERATED = "ag__"
log = logging.getLogger("minitf")


# ---------------------------------------------------------------------------------------------------
# Source -> rewritten function
# ---------------------------------------------------------------------------------------------------

def _parse(fn: Callable) -> ast.FunctionDef:
    source = textwrap.dedent(inspect.getsource(fn))
    module = ast.parse(source)
    node = module.body[0]
    if not isinstance(node, ast.FunctionDef):
        raise TypeError("only functions defined with `def` can be converted")
    node.decorator_list = []
    return node


def to_code(fn: Callable, recursive: bool = True, experimental_optional_features: Any = None) -> str:
    """The source of the converted function, for looking at what AutoGraph did."""
    fn = getattr(fn, "python_function", fn)
    fn = getattr(fn, "__func__", fn)
    return ast.unparse(_transform(_parse(fn))) + "\n"


def do_not_convert(func: Callable | None = None) -> Any:
    """`tf.autograph.experimental.do_not_convert`: run this function's Python as it is, even in a trace."""
    def mark(fn: Callable) -> Callable:
        target = getattr(fn, "__func__", fn)
        target.__minitf_do_not_convert__ = True  # type: ignore[attr-defined]
        return fn
    return mark if func is None else mark(func)


def converted(fn: Callable) -> Callable:
    """`fn` with its control flow rewritten (or `fn` itself when its source is not available)."""
    target = getattr(fn, "__func__", fn)
    if getattr(target, "__minitf_do_not_convert__", False):
        return fn
    bound_self = getattr(fn, "__self__", None)
    if getattr(target, "__name__", "") == "<lambda>":
        return fn  # a lambda is one expression: no statements to convert
    if not isinstance(target, types.FunctionType):
        return fn  # a callable object (a @tf.custom_gradient function, say) runs as it is
    try:
        node = _transform(_parse(target))
        new = _compile(target, node)
    except (OSError, TypeError, SyntaxError, IndentationError) as exc:
        log.warning("AutoGraph could not transform %s and will run it as-is.\nCause: %s", target, exc)
        return fn
    return types.MethodType(new, bound_self) if bound_self is not None else new


def _compile(fn: Any, node: ast.FunctionDef) -> Callable:
    freevars = list(fn.__code__.co_freevars)
    factory = ast.FunctionDef(
        name="__ag_factory",
        args=ast.arguments(posonlyargs=[], args=[ast.arg(arg=n) for n in ["ag__", *freevars]], kwonlyargs=[],
                           kw_defaults=[], defaults=[]),
        body=[node, ast.Return(value=ast.Name(id=node.name, ctx=ast.Load()))], decorator_list=[], returns=None,
        type_params=[])
    module = ast.Module(body=[factory], type_ignores=[])
    ast.fix_missing_locations(module)
    first_line = fn.__code__.co_firstlineno
    ast.increment_lineno(module, first_line - 1)
    code = compile(module, fn.__code__.co_filename, "exec")
    factory_code = next(c for c in code.co_consts if isinstance(c, types.CodeType))
    inner_code = next(c for c in factory_code.co_consts if isinstance(c, types.CodeType) and c.co_name == node.name)
    cells = dict(zip(fn.__code__.co_freevars, fn.__closure__ or ()))
    cells["ag__"] = types.CellType(_Runtime)
    if node.name not in cells and node.name in fn.__globals__:
        # Inside the factory the converted function's own name is a local: a function that calls itself
        # (a recursive tf.function) must still find the global it names.
        cells[node.name] = types.CellType(fn.__globals__[node.name])
    closure = tuple(cells[name] if name in cells else types.CellType() for name in inner_code.co_freevars)
    new = types.FunctionType(inner_code, fn.__globals__, fn.__name__, fn.__defaults__, closure)
    new.__kwdefaults__ = fn.__kwdefaults__
    new.__dict__.update(fn.__dict__)
    new.__wrapped_original__ = fn  # type: ignore[attr-defined]
    from minitf.function.user_code import register_converted
    register_converted(inner_code)  # so that errors can mark its frames as converted code
    return new


# ---------------------------------------------------------------------------------------------------
# AST helpers
# ---------------------------------------------------------------------------------------------------

def _name(id_: str, store: bool = False) -> ast.Name:
    return ast.Name(id=id_, ctx=ast.Store() if store else ast.Load())


def _assign(target: str, value: ast.expr) -> ast.Assign:
    return ast.Assign(targets=[_name(target, True)], value=value)


def _call(func: str, *args: ast.expr) -> ast.Call:
    obj, _, attr = func.partition(".")
    target: ast.expr = ast.Attribute(value=_name(obj), attr=attr, ctx=ast.Load()) if attr else _name(obj)
    return ast.Call(func=target, args=list(args), keywords=[])


def _not(expr: ast.expr) -> ast.expr:
    return ast.UnaryOp(op=ast.Not(), operand=expr)


def _walk_shallow(nodes: Sequence[ast.AST], stop_at_loops: bool = False) -> Any:
    """Every node under `nodes` without entering nested functions, classes (and loops if asked)."""
    stack = list(nodes)
    while stack:
        node = stack.pop()
        yield node
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda | ast.ClassDef):
                continue
            if stop_at_loops and isinstance(child, ast.For | ast.While):
                continue
            stack.append(child)


def _contains(nodes: Sequence[ast.AST], kind: type | tuple, stop_at_loops: bool = False) -> bool:
    return any(isinstance(n, kind) for n in _walk_shallow(nodes, stop_at_loops))


def _assigned_names(nodes: Sequence[ast.AST]) -> list[str]:
    """Names the statements assign (including those assigned inside already-converted nested blocks)."""
    names: list[str] = []

    def add(n: str) -> None:
        if n not in names:
            names.append(n)

    stack = list(nodes)
    while stack:
        node = stack.pop(0)
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            add(node.id)
        if isinstance(node, ast.FunctionDef):
            if node.name.startswith(_GENERATED):
                for stmt in node.body:
                    if isinstance(stmt, ast.Nonlocal):
                        for n in stmt.names:
                            add(n)
            else:
                add(node.name)
            continue
        if isinstance(node, ast.Lambda | ast.ClassDef | ast.ListComp | ast.SetComp | ast.DictComp
                      | ast.GeneratorExp | ast.AsyncFunctionDef):
            continue
        stack.extend(ast.iter_child_nodes(node))
    return names


# ---------------------------------------------------------------------------------------------------
# Lowering return / break / continue to flags
# ---------------------------------------------------------------------------------------------------

def _lower_returns(stmts: list[ast.stmt], in_loop: bool) -> tuple[list[ast.stmt], bool]:
    out: list[ast.stmt] = []
    for i, s in enumerate(stmts):
        rest = stmts[i + 1:]
        if isinstance(s, ast.Return):
            out += [_assign("do_return", ast.Constant(True)),
                    _assign("retval_", s.value if s.value is not None else ast.Constant(None))]
            if in_loop:
                out.append(ast.Break())
            return out, True
        if isinstance(s, ast.If) and _contains([s], ast.Return):
            body, body_returns = _lower_returns(s.body, in_loop)
            orelse, else_returns = _lower_returns(s.orelse, in_loop)
            # As TensorFlow does: what follows an `if` whose one branch always returns moves into the other
            # branch (appended, not merged into a nested `if` there).
            if body_returns and not else_returns and rest:
                orelse, else_returns = _append_rest(orelse, rest, in_loop)
                rest = []
            elif else_returns and not body_returns and rest:
                body, body_returns = _append_rest(body, rest, in_loop)
                rest = []
            out.append(ast.If(test=s.test, body=body or [ast.Pass()], orelse=orelse))
            if body_returns and else_returns:
                return out, True
            if rest:
                guarded, _ = _lower_returns(rest, in_loop)
                out.append(ast.If(test=_not(_name("do_return")), body=guarded, orelse=[]))
            return out, False
        if isinstance(s, ast.For | ast.While) and _contains([s], ast.Return):
            body, _ = _lower_returns(s.body, True)
            s.body = body
            out.append(s)
            if in_loop:
                out.append(ast.If(test=_name("do_return"), body=[ast.Break()], orelse=[]))
            if rest:
                guarded, _ = _lower_returns(rest, in_loop)
                out.append(ast.If(test=_not(_name("do_return")), body=guarded, orelse=[]))
            return out, False
        out.append(s)
    return out, False


def _append_rest(block: list[ast.stmt], rest: list[ast.stmt], in_loop: bool) -> tuple[list[ast.stmt], bool]:
    lowered, rest_returns = _lower_returns(rest, in_loop)
    if _contains(block, ast.Return) or any(_assigns_flag(s, "do_return") for s in block):
        return block + [ast.If(test=_not(_name("do_return")), body=lowered, orelse=[])], False
    return block + lowered, rest_returns


def _assigns_flag(stmt: ast.stmt, flag: str) -> bool:
    return any(isinstance(n, ast.Name) and n.id == flag and isinstance(n.ctx, ast.Store) for n in ast.walk(stmt))


def _lower_jumps(stmts: list[ast.stmt], kind: type, flag: str) -> tuple[list[ast.stmt], bool]:
    out: list[ast.stmt] = []
    for i, s in enumerate(stmts):
        if isinstance(s, kind):
            out.append(_assign(flag, ast.Constant(True)))
            return out, True
        if isinstance(s, ast.If) and _contains([s], kind, stop_at_loops=True):
            body, body_jumps = _lower_jumps(s.body, kind, flag)
            orelse, else_jumps = _lower_jumps(s.orelse, kind, flag)
            out.append(ast.If(test=s.test, body=body or [ast.Pass()], orelse=orelse))
            if body_jumps and else_jumps:
                return out, True
            rest = stmts[i + 1:]
            if rest:
                guarded, _ = _lower_jumps(rest, kind, flag)
                out.append(ast.If(test=_not(_name(flag)), body=guarded, orelse=[]))
            return out, False
        out.append(s)
    return out, False


class _Converter(ast.NodeTransformer):
    """Turns if/while/for and boolean operators into calls of the `ag__` runtime helpers."""

    def __init__(self, declared: set[str] | None = None) -> None:
        self.counter = 0
        self.state_names: list[str] = []
        self.declared = declared or set()  # names declared global/nonlocal: not the function's to carry

    def _next(self) -> int:
        self.counter += 1
        return self.counter

    def visit_FunctionDef(self, node: ast.FunctionDef) -> Any:
        return node  # nested user functions are left alone (the top one is handled in _transform)

    def visit_Lambda(self, node: ast.Lambda) -> Any:
        return node

    def visit_BoolOp(self, node: ast.BoolOp) -> Any:
        self.generic_visit(node)
        helper = "ag__.and_" if isinstance(node.op, ast.And) else "ag__.or_"
        result = node.values[-1]
        for value in reversed(node.values[:-1]):
            result = _call(helper, _lambda(value), _lambda(result))
        return result

    def visit_UnaryOp(self, node: ast.UnaryOp) -> Any:
        self.generic_visit(node)
        if isinstance(node.op, ast.Not):
            return _call("ag__.not_", node.operand)
        return node

    def visit_Call(self, node: ast.Call) -> Any:
        self.generic_visit(node)
        func = node.func
        if isinstance(func, ast.Name) and (func.id in _BUILTIN_NAMES or func.id.startswith(_GENERATED)):
            return node
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == "ag__":
            return node
        node.func = _call("ag__.converted_call", func)
        return node

    def visit_IfExp(self, node: ast.IfExp) -> Any:
        self.generic_visit(node)
        return _call("ag__.if_exp", node.test, _lambda(node.body), _lambda(node.orelse))

    def _state_functions(self, k: int, names: list[str]) -> list[ast.stmt]:
        self.state_names.extend(n for n in names if n not in self.state_names)
        getter = ast.parse(f"def ag__get_state_{k}():\n    return ("
                           + "".join(f"ag__.ld(lambda: {n}, {n!r}), " for n in names) + ")").body[0]
        if names:
            setter_src = (f"def ag__set_state_{k}(ag__values):\n    nonlocal {', '.join(names)}\n"
                          f"    ({', '.join(names)},) = ag__values")
        else:
            setter_src = f"def ag__set_state_{k}(ag__values):\n    pass"
        setter = ast.parse(setter_src).body[0]
        return [getter, setter]  # type: ignore[list-item]

    def _def(self, name: str, args: list[str], names: list[str], body: list[ast.stmt]) -> ast.FunctionDef:
        prefix: list[ast.stmt] = [ast.Nonlocal(names=list(names))] if names else []
        return ast.FunctionDef(
            name=name, args=ast.arguments(posonlyargs=[], args=[ast.arg(arg=a) for a in args], kwonlyargs=[],
                                          kw_defaults=[], defaults=[]),
            body=prefix + (body or [ast.Pass()]), decorator_list=[], returns=None, type_params=[])

    def visit_If(self, node: ast.If) -> Any:
        self.generic_visit(node)
        k = self._next()
        names = [n for n in _assigned_names(node.body + node.orelse) if n not in self.declared]
        return [
            self._def(f"ag__if_body_{k}", [], names, node.body),
            self._def(f"ag__else_body_{k}", [], names, node.orelse),
            *self._state_functions(k, names),
            ast.Expr(_call("ag__.if_stmt", node.test, _name(f"ag__if_body_{k}"), _name(f"ag__else_body_{k}"),
                           _name(f"ag__get_state_{k}"), _name(f"ag__set_state_{k}"), _names_tuple(names))),
        ]

    def visit_While(self, node: ast.While) -> Any:
        pre, node = self._lower_loop_jumps(node)
        self.generic_visit(node)
        k = self._next()
        names = [n for n in _assigned_names(node.body) if n not in self.declared]
        test = self._def(f"ag__loop_test_{k}", [], [], [ast.Return(value=node.test)])
        return [
            *pre,
            test,
            self._def(f"ag__loop_body_{k}", [], names, node.body),
            *self._state_functions(k, names),
            ast.Expr(_call("ag__.while_stmt", _name(f"ag__loop_test_{k}"), _name(f"ag__loop_body_{k}"),
                           _name(f"ag__get_state_{k}"), _name(f"ag__set_state_{k}"), _names_tuple(names))),
            *node.orelse,
        ]

    def visit_For(self, node: ast.For) -> Any:
        pre, node = self._lower_loop_jumps(node)
        extra = getattr(node, "ag_extra_test", None)
        self.generic_visit(node)
        k = self._next()
        body = [ast.Assign(targets=[node.target], value=_name("ag__itr")), *node.body]
        names = [n for n in _assigned_names(body) if n not in self.declared]
        iterable = node.iter
        if isinstance(iterable, ast.Call) and isinstance(iterable.func, ast.Name) and iterable.func.id == "range":
            iterable = ast.Call(func=ast.Attribute(value=_name("ag__"), attr="range_", ctx=ast.Load()),
                                args=iterable.args, keywords=iterable.keywords)
        extra_def: list[ast.stmt] = []
        extra_ref: ast.expr = ast.Constant(None)
        if extra is not None:
            extra_def = [self._def(f"ag__extra_test_{k}", [], [], [ast.Return(value=self.visit(extra))])]
            extra_ref = _name(f"ag__extra_test_{k}")
        return [
            *pre,
            *extra_def,
            self._def(f"ag__loop_body_{k}", ["ag__itr"], names, body),
            *self._state_functions(k, names),
            ast.Expr(_call("ag__.for_stmt", iterable, extra_ref, _name(f"ag__loop_body_{k}"),
                           _name(f"ag__get_state_{k}"), _name(f"ag__set_state_{k}"), _names_tuple(names))),
            *node.orelse,
        ]

    def _lower_loop_jumps(self, node: Any) -> tuple[list[ast.stmt], Any]:
        pre: list[ast.stmt] = []
        k = self._next()
        if _contains(node.body, ast.Continue, stop_at_loops=True):
            flag = f"continue_{k}"
            body, _ = _lower_jumps(node.body, ast.Continue, flag)
            node.body = [_assign(flag, ast.Constant(False)), *body]
        if _contains(node.body, ast.Break, stop_at_loops=True):
            flag = f"break_{k}"
            body, _ = _lower_jumps(node.body, ast.Break, flag)
            node.body = body
            pre.append(_assign(flag, ast.Constant(False)))
            if isinstance(node, ast.While):
                node.test = ast.BoolOp(op=ast.And(), values=[_not(_name(flag)), node.test])
            else:
                node.ag_extra_test = _not(_name(flag))
        return pre, node


def _lambda(expr: ast.expr) -> ast.Lambda:
    return ast.Lambda(args=ast.arguments(posonlyargs=[], args=[], kwonlyargs=[], kw_defaults=[], defaults=[]),
                      body=expr)


def _names_tuple(names: list[str]) -> ast.Tuple:
    return ast.Tuple(elts=[ast.Constant(n) for n in names], ctx=ast.Load())


def _transform(node: ast.FunctionDef) -> ast.FunctionDef:
    body = node.body
    if any(_contains([s], ast.Return) for s in body if isinstance(s, ast.If | ast.For | ast.While)):
        lowered, _ = _lower_returns(body, False)
        body = [_assign("do_return", ast.Constant(False)), _assign("retval_", _call("ag__.UndefinedReturnValue")),
                *lowered, ast.Return(value=_call("ag__.retval", _name("retval_")))]
    declared = {n for s in ast.walk(node) if isinstance(s, ast.Global | ast.Nonlocal) for n in s.names}
    converter = _Converter(declared)
    new_body: list[ast.stmt] = []
    for stmt in body:
        result = converter.visit(stmt)
        new_body.extend(result if isinstance(result, list) else [result])
    params = {a.arg for a in node.args.posonlyargs + node.args.args + node.args.kwonlyargs}
    params |= {a.arg for a in (node.args.vararg, node.args.kwarg) if a is not None}
    prologue = [_assign(n, _call("ag__.Undefined", ast.Constant(n)))
                for n in converter.state_names if n not in params and n not in declared]
    docstring = new_body[:1] if new_body and isinstance(new_body[0], ast.Expr) and isinstance(
        getattr(new_body[0], "value", None), ast.Constant) and isinstance(new_body[0].value.value, str) else []
    node.body = docstring + prologue + new_body[len(docstring):]
    return ast.fix_missing_locations(node)


# ---------------------------------------------------------------------------------------------------
# The runtime the rewritten code calls (`ag__`)
# ---------------------------------------------------------------------------------------------------

def _is_symbolic(value: Any) -> bool:
    return isinstance(value, SymbolicTensor)


def _as_condition(value: Any) -> Any:
    if isinstance(value, Undefined):
        value.fail()
    if hasattr(value, "_as_tensor") and not isinstance(value, Tensor) and state.graph is not None:
        return value.read_value()
    return value


def ld(getter: Callable[[], Any], name: str) -> Any:
    try:
        return getter()
    except NameError:
        return Undefined(name)


def retval(value: Any) -> Any:
    if isinstance(value, UndefinedReturnValue):
        if object.__getattribute__(value, "error") is not None:
            value.fail()
        return None
    if isinstance(value, Undefined):
        value.fail()
    return value


def not_(value: Any) -> Any:
    value = _as_condition(value)
    if _is_symbolic(value):
        from minitf.ops.math_ops import logical_not
        return logical_not(value)
    return not value


def and_(left: Callable[[], Any], right: Callable[[], Any]) -> Any:
    a = _as_condition(left())
    if _is_symbolic(a):
        return control_flow.cond(a, lambda: convert_to_tensor(right()), lambda: a)
    return a and right()


def or_(left: Callable[[], Any], right: Callable[[], Any]) -> Any:
    a = _as_condition(left())
    if _is_symbolic(a):
        return control_flow.cond(a, lambda: a, lambda: convert_to_tensor(right()))
    return a or right()


def if_exp(test: Any, body: Callable[[], Any], orelse: Callable[[], Any]) -> Any:
    test = _as_condition(test)
    if _is_symbolic(test):
        return control_flow.cond(test, body, orelse)
    return body() if test else orelse()


def if_stmt(test: Any, body: Callable[[], None], orelse: Callable[[], None], get_state: Callable[[], tuple],
            set_state: Callable[[tuple], None], names: tuple[str, ...]) -> None:
    test = _as_condition(test)
    if not _is_symbolic(test):
        body() if test else orelse()
        return
    _check_scalar_bool(test, "if statement")
    initial = get_state()

    def branch(fn: Callable[[], None]) -> Callable[[], list]:
        def run() -> list:
            set_state(initial)
            fn()
            return list(get_state())
        return run

    set_state(tuple(control_flow.build_if(test, branch(body), branch(orelse), names)))


def _check_scalar_bool(test: Any, where: str) -> None:
    if test.dtype is not dtypes.bool:
        raise TypeError(f"Condition of {where} expected to be `tf.bool` scalar, got {test}; to check for None, use "
                        f"`is not None`")
    if test.shape.rank not in (None, 0):
        raise ValueError(f"condition of {where} expected to be `tf.bool` scalar, got {test}")


_LOOP_OPTIONS: list[dict] = []


def set_loop_options(parallel_iterations: Any = None, swap_memory: Any = None, maximum_iterations: Any = None,
                     shape_invariants: Any = None) -> None:
    """`tf.autograph.experimental.set_loop_options`: shape invariants for the loop being traced."""
    if _LOOP_OPTIONS:
        _LOOP_OPTIONS[-1]["shape_invariants"] = list(shape_invariants or [])
        if maximum_iterations is not None:
            _LOOP_OPTIONS[-1]["maximum_iterations"] = maximum_iterations


def _loop_values(values: Sequence[Any], names: Sequence[str]) -> tuple[list[int], list[Any]]:
    """Which state values a graph loop carries (tensors, numbers, TensorArrays) and as what tensors."""
    positions, carried = [], []
    for i, v in enumerate(values):
        if isinstance(v, Undefined) or v is None:
            continue
        if isinstance(v, TensorArray):
            positions.append(i)
            carried.append(v)
        elif isinstance(v, Tensor | bool | int | float | np.ndarray | np.generic) or hasattr(v, "_as_tensor"):
            positions.append(i)
            carried.append(v.read_value() if hasattr(v, "_as_tensor") and not isinstance(v, Tensor)
                           else convert_to_tensor(v))
    return positions, carried


def _graph_loop(test: Callable[[], Any], body: Callable[[], None], get_state: Callable[[], tuple],
                set_state: Callable[[tuple], None], names: tuple[str, ...], extra_vars: list[Any] | None = None,
                extra_step: Callable[[list[Any]], list[Any]] | None = None, max_iterations: Any = None) -> None:
    """Build a While op from the converted loop; `extra_vars` are hidden loop variables (a for-loop iterate)."""
    initial = list(get_state())
    positions, carried = _loop_values(initial, names)
    extra_vars = extra_vars or []
    n_extra = len(extra_vars)
    flat = [v._stack if isinstance(v, TensorArray) else v for v in carried] + extra_vars
    loop_names = [names[i] for i in positions] + [f"itr_{k}" for k in range(n_extra)]
    invariants: list[Any] = [TensorShape(None) if isinstance(v, TensorArray) and v._element_shape is None
                             else (TensorShape([None]) + v._element_shape if isinstance(v, TensorArray) else None)
                             for v in carried] + [None] * n_extra
    options: dict = {}
    _LOOP_OPTIONS.append(options)

    def restore(holders: Sequence[Any]) -> None:
        values = list(initial)
        for k, i in enumerate(positions):
            h = holders[k]
            values[i] = TensorArray._from_stack(h, carried[k]) if isinstance(carried[k], TensorArray) else h
        set_state(tuple(values))

    def cond_fn(*holders: Any) -> Any:
        restore(holders)
        return test(*holders[len(positions):]) if n_extra else test()

    body_holders: list[Any] = []
    learned: dict[int, Any] = {}

    def body_fn(*holders: Any) -> list:
        body_holders[:] = holders
        restore(holders)
        extra = list(holders[len(positions):])
        if extra_step is not None:
            extra = extra_step(extra)
        else:
            body()
        after = list(get_state())
        out = []
        for k, i in enumerate(positions):
            v = after[i]
            if isinstance(v, Undefined):
                raise ValueError(f"'{names[i]}' must be defined before the loop.")
            if isinstance(v, TensorArray):
                learned[k] = v._element_shape  # what the body wrote: the TensorArray's elements after the loop
            out.append(v._stack if isinstance(v, TensorArray) else v)
        return out + extra

    try:
        try:
            result = control_flow.build_while(cond_fn, body_fn, flat, loop_names, invariants, max_iterations)
        except ValueError as exc:
            given = options.get("shape_invariants")
            if not given or "set_loop_options" not in str(exc):
                raise
            by_var = {id(v): s for v, s in given}
            for k, holder in enumerate(body_holders[:len(carried)]):
                if id(holder) in by_var:
                    invariants[k] = TensorShape(by_var[id(holder)])
            result = control_flow.build_while(cond_fn, body_fn, flat, loop_names, invariants, max_iterations)
    finally:
        _LOOP_OPTIONS.pop()
    final = list(initial)
    for k, i in enumerate(positions):
        final[i] = TensorArray._from_stack(result[k], carried[k]) if isinstance(carried[k], TensorArray) \
            else result[k]
        if isinstance(final[i], TensorArray) and final[i]._element_shape is None:
            final[i]._element_shape = learned.get(k)
    for i, v in enumerate(initial):
        if isinstance(v, Undefined) and i not in positions:
            final[i] = v
    set_state(tuple(final))


_LIMITATIONS = ("\nSee https://github.com/tensorflow/tensorflow/blob/master/tensorflow/python/autograph/g3doc/"
                "reference/limitations.md#consistency-of-control-flow-types for more info.")
_WHILE_BECAME_TENSOR = ("The condition of while loop started as non-Tensor, then changed to Tensor. This may happen "
                        "either because variables changed type, or when a break or return statement inside the loop "
                        "depends on a Tensor condition. In both cases, changing to a TF loop should remove the error."
                        + _LIMITATIONS)
_FOR_BREAK_ON_TENSOR = ("break and return statements which depend on a TF condition are not supported in Python for "
                        "loops. Did you intend to make it a TF loop?" + _LIMITATIONS)


def _python_bool(value: Any, message: str) -> bool:
    """A Python loop's condition; one that turned into a tensor gets TensorFlow's NotImplementedError."""
    try:
        return bool(_as_condition(value))
    except OperatorNotAllowedInGraphError:
        raise NotImplementedError(message) from None


def _probe(test: Callable[[], Any]) -> Any:
    """Evaluate a loop condition to see whether it is a tensor, without adding its ops to the graph."""
    if state.graph is None:
        return _as_condition(test())
    from minitf.function.graph import FuncGraph
    from minitf.function.trace import graph_scope
    scratch = FuncGraph("probe", outer=state.graph, autograph=state.graph.autograph)
    with graph_scope(scratch):
        value = _as_condition(test())
    if isinstance(value, SymbolicTensor) and value.graph is scratch:
        return value
    return _as_condition(test()) if not _is_symbolic(value) else value


def while_stmt(test: Callable[[], Any], body: Callable[[], None], get_state: Callable[[], tuple],
               set_state: Callable[[tuple], None], names: tuple[str, ...]) -> None:
    first = _probe(test)
    if not _is_symbolic(first):
        while _python_bool(test(), _WHILE_BECAME_TENSOR):
            body()
        return
    _check_scalar_bool(first, "while loop")
    _graph_loop(lambda: _as_condition(test()), body, get_state, set_state, names)


def range_(*args: Any) -> Any:
    """`range(...)` in converted code: a Python range for ints (unrolled), `tf.range` for symbolic tensors."""
    if any(isinstance(a, Tensor) and _is_symbolic(a) for a in args):
        from minitf.ops.array_ops import range as tf_range
        return tf_range(*args)
    return range(*[int(a) for a in args])


def for_stmt(iterable: Any, extra_test: Callable[[], Any] | None, body: Callable[[Any], None],
             get_state: Callable[[], tuple], set_state: Callable[[tuple], None], names: tuple[str, ...]) -> None:
    """A converted `for` loop: a Python loop over Python values, a graph loop over a tensor (or tf.range).

    Hook for other iterables (tf.data datasets): while tracing, an object whose class defines
    `_minitf_for_stmt(self, extra_test, body, get_state, set_state, names)` builds its own graph loop, with
    the same arguments as this function (`body(element)` runs one iteration; the state functions read and
    write the loop's variables, see `_graph_loop`).
    """
    custom = getattr(type(iterable), "_minitf_for_stmt", None)
    if custom is not None and state.graph is not None:
        custom(iterable, extra_test, body, get_state, set_state, names)
        return
    if hasattr(iterable, "_as_tensor") and not isinstance(iterable, Tensor) and state.graph is not None:
        iterable = iterable.read_value()
    if not _is_symbolic(iterable):
        for item in iterable:
            if extra_test is not None and not _python_bool(extra_test(), _FOR_BREAK_ON_TENSOR):
                break
            body(item)
        return
    _tensor_for(iterable, extra_test, body, get_state, set_state, names)


def _tensor_for(iterable: SymbolicTensor, extra_test: Callable[[], Any] | None, body: Callable[[Any], None],
                get_state: Callable[[], tuple], set_state: Callable[[tuple], None], names: tuple[str, ...]) -> None:
    """`for x in tensor`: a While over the iterations; for tf.range the iterate is computed, not indexed."""
    from minitf.ops import math_ops as m
    from minitf.ops.array_ops import shape as tf_shape

    op = iterable.op
    if op.type == "Range":
        start, limit, delta = op.inputs
        span = m.subtract(limit, start)
        count = m.add(m.floordiv(span, delta), m.cast(m.not_equal(m.floormod(span, delta), 0), span.dtype))
        count = m.maximum(count, m.cast(0, count.dtype))
        first: Tensor = start

        def step(extra: list[Any]) -> list[Any]:
            itr = extra[0]
            body(itr)
            return [itr + delta]
    else:
        if iterable.shape.rank == 0:
            raise TypeError("Cannot iterate over a scalar tensor.")
        count = tf_shape(iterable)[0]
        first = convert_to_tensor(0)

        def step(extra: list[Any]) -> list[Any]:
            k = extra[0]
            body(iterable[k])
            return [k + 1]

    test = (lambda *extra: _as_condition(extra_test())) if extra_test is not None else \
        (lambda *extra: convert_to_tensor(True))
    _graph_loop(test, lambda: None, get_state, set_state, names, extra_vars=[first], extra_step=step,
                max_iterations=m.cast(count, dtypes.int32))


_BUILTIN_NAMES = frozenset(dir(__builtins__) if isinstance(__builtins__, dict) else dir(__builtins__)) | {
    "range", "print", "len", "isinstance", "super"}
_CONVERTED: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _is_user_function(fn: Any) -> bool:
    """Plain Python functions from the user's code (not minitf, NumPy or installed libraries) get converted."""
    if not isinstance(fn, types.FunctionType):
        return False
    module = getattr(fn, "__module__", "") or ""
    if module.split(".")[0] in ("minitf", "numpy", "tensorflow", "keras"):
        return False
    filename = fn.__code__.co_filename
    return "site-packages" not in filename and not filename.startswith("<frozen")


def converted_call(fn: Any) -> Any:
    """What a call inside converted code calls: user functions are converted too (once each), as in TensorFlow."""
    target = getattr(fn, "__func__", fn)
    if not isinstance(target, types.FunctionType) and not isinstance(fn, type):
        # An object of a user class, e.g. a layer: convert its __call__.
        call = next((vars(k)["__call__"] for k in type(fn).__mro__ if "__call__" in vars(k)), None)
        if _is_user_function(call):
            return converted_call(types.MethodType(call, fn))  # type: ignore[arg-type]
        return fn
    if not _is_user_function(target) or target.__name__ == "<lambda>":
        return fn
    new = _CONVERTED.get(target)
    if new is None:
        new = converted(target)
        _CONVERTED[target] = new
    if new is target:
        return fn
    bound_self = getattr(fn, "__self__", None)
    return types.MethodType(new, bound_self) if bound_self is not None else new


class _Runtime:
    """The `ag__` namespace the rewritten code refers to."""

    if_stmt = staticmethod(if_stmt)
    while_stmt = staticmethod(while_stmt)
    for_stmt = staticmethod(for_stmt)
    if_exp = staticmethod(if_exp)
    not_ = staticmethod(not_)
    and_ = staticmethod(and_)
    or_ = staticmethod(or_)
    ld = staticmethod(ld)
    retval = staticmethod(retval)
    range_ = staticmethod(range_)
    converted_call = staticmethod(converted_call)
    Undefined = Undefined
    UndefinedReturnValue = UndefinedReturnValue
