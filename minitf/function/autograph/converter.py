"""AutoGraph: a function's Python control flow rewritten so that it also works on tensors.

`converted(fn)` parses fn's source, rewrites it (transform.py) and compiles the result with `ag__`
bound to the runtime operators (operators.py); a `tf.function` calls the converted function when
it traces. `tf.autograph.to_code(f)` shows the rewritten code. Calls inside converted code go through
`converted_call`, so the user's functions they call are converted too (once each), as in TensorFlow.
"""

from __future__ import annotations

import ast
import types
import weakref
from collections.abc import Callable
from typing import Any

from minitf.core import logs
from minitf.function.autograph.operators import (
    and_,
    for_stmt,
    if_exp,
    if_stmt,
    ld,
    not_,
    or_,
    range_,
    retval,
    while_stmt,
)
from minitf.function.autograph.transform import GENERATED, parse, transform
from minitf.function.autograph.undefined import Undefined, UndefinedReturnValue
from minitf.function.tracing.user_code import register_converted


def to_code(fn: Callable, recursive: bool = True, experimental_optional_features: Any = None) -> str:
    """The source of the converted function, for looking at what AutoGraph did."""
    fn = getattr(fn, "python_function", fn)
    fn = getattr(fn, "__func__", fn)
    return ast.unparse(transform(parse(fn))) + "\n"


def do_not_convert(func: Callable | None = None) -> Any:
    """`tf.autograph.experimental.do_not_convert`: run this function's Python as it is, even in a trace."""

    def mark(fn: Callable) -> Callable:
        target: Any = getattr(fn, "__func__", fn)  # a bound method marks its function
        target.__minitf_do_not_convert__ = True
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
    if _is_library(target):
        return fn  # tf.function(tf.tanh): the library's own code runs as it is, as TensorFlow's does
    try:
        node = transform(parse(target))
        new = _compile(target, node)
    except (OSError, TypeError, SyntaxError, IndentationError) as exc:
        logs.warning("AutoGraph could not transform %s and will run it as-is.\nCause: %s", target, exc)
        return fn
    return types.MethodType(new, bound_self) if bound_self is not None else new


def _compile(fn: Any, node: ast.FunctionDef) -> Callable:
    freevars = list(fn.__code__.co_freevars)
    factory = ast.FunctionDef(
        name="__ag_factory",
        args=ast.arguments(
            posonlyargs=[],
            args=[ast.arg(arg=n) for n in ["ag__", *freevars]],
            kwonlyargs=[],
            kw_defaults=[],
            defaults=[],
        ),
        body=[node, ast.Return(value=ast.Name(id=node.name, ctx=ast.Load()))],
        decorator_list=[],
        returns=None,
        type_params=[],
    )  # type: ignore[call-arg]  # a field from Python 3.12 on; 3.11 keeps it unused
    module = ast.Module(body=[factory], type_ignores=[])
    ast.fix_missing_locations(module)
    first_line = fn.__code__.co_firstlineno
    ast.increment_lineno(module, first_line - 1)
    code = compile(module, fn.__code__.co_filename, "exec")
    factory_code = next(c for c in code.co_consts if isinstance(c, types.CodeType))
    inner_code = next(c for c in factory_code.co_consts if isinstance(c, types.CodeType) and c.co_name == node.name)
    cells = dict(zip(fn.__code__.co_freevars, fn.__closure__ or ()))
    cells[GENERATED] = types.CellType(_Runtime)
    if node.name not in cells and node.name in fn.__globals__:
        # Inside the factory the converted function's own name is a local: a function that calls itself
        # (a recursive tf.function) must still find the global it names.
        cells[node.name] = types.CellType(fn.__globals__[node.name])
    closure = tuple(cells[name] if name in cells else types.CellType() for name in inner_code.co_freevars)
    new = types.FunctionType(inner_code, fn.__globals__, fn.__name__, fn.__defaults__, closure)
    new.__kwdefaults__ = fn.__kwdefaults__
    new.__dict__.update(fn.__dict__)
    new.__wrapped_original__ = fn  # type: ignore[attr-defined]
    register_converted(inner_code)  # so that errors can mark its frames as converted code
    return new


_CONVERTED: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _is_library(fn: types.FunctionType) -> bool:
    """A function of minitf, NumPy, TensorFlow or Keras: never converted (TensorFlow allow-lists its own)."""
    module = getattr(fn, "__module__", "") or ""
    return module.split(".")[0] in ("minitf", "numpy", "tensorflow", "keras")


def _is_user_function(fn: Any) -> bool:
    """Plain Python functions from the user's code (not minitf, NumPy or installed libraries) get converted."""
    if not isinstance(fn, types.FunctionType) or _is_library(fn):
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


def set_verbosity(level: int, alsologtostdout: bool = False) -> None:
    """`tf.autograph.set_verbosity`: how much AutoGraph logs (minitf's AutoGraph logs nothing, so it is ignored)."""
