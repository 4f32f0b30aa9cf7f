"""AutoGraph's source rewrite: a function's Python control flow turned into calls that also work on tensors.

`transform(parse(fn))` rewrites a function's syntax tree, as TensorFlow's AutoGraph does:

* `return` inside `if`/`while`/`for` becomes `do_return = True; retval_ = value` (the rest is guarded);
* `break` and `continue` become flags (`break_`, `continue_`) checked by the loop and by guards;
* each `if`, `while` and `for` becomes a call to `ag__.if_stmt`, `ag__.while_stmt` or `ag__.for_stmt`,
  with the branch or body as a nested function and the variables it changes passed through
  `get_state`/`set_state` functions;
* `not`, `and`, `or` and `x if c else y` become `ag__.not_`, `ag__.and_`, `ag__.or_`, `ag__.if_exp`;
* calls of user functions go through `ag__.converted_call`, so they are converted too.

`ag__` is the namespace of runtime operators (operators.py); converter.py compiles the result.
"""

from __future__ import annotations

import ast
import inspect
import textwrap
from collections.abc import Callable, Sequence
from typing import Any

GENERATED = "ag__"
BUILTIN_NAMES = frozenset(dir(__builtins__) if isinstance(__builtins__, dict) else dir(__builtins__)) | {
    "range",
    "print",
    "len",
    "isinstance",
    "super",
}


def parse(fn: Callable) -> ast.FunctionDef:
    source = textwrap.dedent(inspect.getsource(fn))
    module = ast.parse(source)
    node = module.body[0]
    if not isinstance(node, ast.FunctionDef):
        raise TypeError("only functions defined with `def` can be converted")
    node.decorator_list = []
    return node


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
            if node.name.startswith(GENERATED):
                for stmt in node.body:
                    if isinstance(stmt, ast.Nonlocal):
                        for n in stmt.names:
                            add(n)
            else:
                add(node.name)
            continue
        if isinstance(
            node,
            ast.Lambda
            | ast.ClassDef
            | ast.ListComp
            | ast.SetComp
            | ast.DictComp
            | ast.GeneratorExp
            | ast.AsyncFunctionDef,
        ):
            continue
        stack.extend(ast.iter_child_nodes(node))
    return names


# ---------------------------------------------------------------------------------------------------
# Lowering return / break / continue to flags
# ---------------------------------------------------------------------------------------------------


def _lower_returns(stmts: list[ast.stmt], in_loop: bool) -> tuple[list[ast.stmt], bool]:
    out: list[ast.stmt] = []
    for i, s in enumerate(stmts):
        rest = stmts[i + 1 :]
        if isinstance(s, ast.Return):
            out += [
                _assign("do_return", ast.Constant(True)),
                _assign("retval_", s.value if s.value is not None else ast.Constant(None)),
            ]
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
            rest = stmts[i + 1 :]
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
        self.global_names: set[str] = set()  # of those, the ones declared global

    def _next(self) -> int:
        self.counter += 1
        return self.counter

    def visit_FunctionDef(self, node: ast.FunctionDef) -> Any:
        return node  # nested user functions are left alone (the top one is handled in transform)

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
        if isinstance(func, ast.Name) and (func.id in BUILTIN_NAMES or func.id.startswith(GENERATED)):
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
        getter = ast.parse(
            f"def ag__get_state_{k}():\n    return (" + "".join(f"ag__.ld(lambda: {n}, {n!r}), " for n in names) + ")"
        ).body[0]
        if names:
            setter_src = (
                f"def ag__set_state_{k}(ag__values):\n    nonlocal {', '.join(names)}\n"
                f"    ({', '.join(names)},) = ag__values"
            )
        else:
            setter_src = f"def ag__set_state_{k}(ag__values):\n    pass"
        setter = ast.parse(setter_src).body[0]
        return [getter, setter]

    def _def(self, name: str, args: list[str], names: list[str], body: list[ast.stmt]) -> ast.FunctionDef:
        prefix: list[ast.stmt] = [ast.Nonlocal(names=list(names))] if names else []
        # A name the function declares global (or nonlocal) and a branch or loop body assigns must stay that
        # name in the generated function too, or the assignment would make a local of it.
        outer = [n for n in _assigned_names(body) if n in self.declared]
        if outer:
            glob = [n for n in outer if n in self.global_names]
            prefix += [ast.Global(names=glob)] if glob else []
            prefix += [ast.Nonlocal(names=[n for n in outer if n not in glob])] if len(glob) < len(outer) else []
        return ast.FunctionDef(
            name=name,
            args=ast.arguments(
                posonlyargs=[], args=[ast.arg(arg=a) for a in args], kwonlyargs=[], kw_defaults=[], defaults=[]
            ),
            body=prefix + (body or [ast.Pass()]),
            decorator_list=[],
            returns=None,
            type_params=[],
        )  # type: ignore[call-arg]  # a field from Python 3.12 on; 3.11 keeps it unused

    def visit_If(self, node: ast.If) -> Any:
        self.generic_visit(node)
        k = self._next()
        names = [n for n in _assigned_names(node.body + node.orelse) if n not in self.declared]
        return [
            self._def(f"ag__if_body_{k}", [], names, node.body),
            self._def(f"ag__else_body_{k}", [], names, node.orelse),
            *self._state_functions(k, names),
            ast.Expr(
                _call(
                    "ag__.if_stmt",
                    node.test,
                    _name(f"ag__if_body_{k}"),
                    _name(f"ag__else_body_{k}"),
                    _name(f"ag__get_state_{k}"),
                    _name(f"ag__set_state_{k}"),
                    _names_tuple(names),
                )
            ),
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
            ast.Expr(
                _call(
                    "ag__.while_stmt",
                    _name(f"ag__loop_test_{k}"),
                    _name(f"ag__loop_body_{k}"),
                    _name(f"ag__get_state_{k}"),
                    _name(f"ag__set_state_{k}"),
                    _names_tuple(names),
                )
            ),
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
            iterable = ast.Call(
                func=ast.Attribute(value=_name("ag__"), attr="range_", ctx=ast.Load()),
                args=iterable.args,
                keywords=iterable.keywords,
            )
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
            ast.Expr(
                _call(
                    "ag__.for_stmt",
                    iterable,
                    extra_ref,
                    _name(f"ag__loop_body_{k}"),
                    _name(f"ag__get_state_{k}"),
                    _name(f"ag__set_state_{k}"),
                    _names_tuple(names),
                )
            ),
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
    return ast.Lambda(
        args=ast.arguments(posonlyargs=[], args=[], kwonlyargs=[], kw_defaults=[], defaults=[]), body=expr
    )


def _names_tuple(names: list[str]) -> ast.Tuple:
    return ast.Tuple(elts=[ast.Constant(n) for n in names], ctx=ast.Load())


def transform(node: ast.FunctionDef) -> ast.FunctionDef:
    body = node.body
    if any(_contains([s], ast.Return) for s in body if isinstance(s, ast.If | ast.For | ast.While)):
        lowered, _ = _lower_returns(body, False)
        body = [
            _assign("do_return", ast.Constant(False)),
            _assign("retval_", _call("ag__.UndefinedReturnValue")),
            *lowered,
            ast.Return(value=_call("ag__.retval", _name("retval_"))),
        ]
    declared = {n for s in ast.walk(node) if isinstance(s, ast.Global | ast.Nonlocal) for n in s.names}
    converter = _Converter(declared)
    converter.global_names = {n for s in ast.walk(node) if isinstance(s, ast.Global) for n in s.names}
    new_body: list[ast.stmt] = []
    for stmt in body:
        result = converter.visit(stmt)
        new_body.extend(result if isinstance(result, list) else [result])
    params = {a.arg for a in node.args.posonlyargs + node.args.args + node.args.kwonlyargs}
    params |= {a.arg for a in (node.args.vararg, node.args.kwarg) if a is not None}
    prologue = [
        _assign(n, _call("ag__.Undefined", ast.Constant(n)))
        for n in converter.state_names
        if n not in params and n not in declared
    ]
    docstring = (
        new_body[:1]
        if new_body
        and isinstance(new_body[0], ast.Expr)
        and isinstance(getattr(new_body[0], "value", None), ast.Constant)
        and isinstance(getattr(getattr(new_body[0], "value", None), "value", None), str)
        else []
    )
    node.body = docstring + prologue + new_body[len(docstring) :]
    return ast.fix_missing_locations(node)
