"""`tf.py_function` and `tf.numpy_function`: run arbitrary Python inside a graph.

In a traced function they become one op each (`EagerPyFunc`, `PyFunc`) that calls the Python function every
time the graph runs: with eager tensors (`py_function`) or NumPy arrays (`numpy_function`). Their outputs have
the dtypes given in `Tout` and an unknown shape; the ops are stateful (they run in program order and are
never pruned). `py_function` is differentiable: its gradient runs the function again under a GradientTape.
`numpy_function` is not.

An exception raised by the Python function becomes the error TensorFlow raises: InvalidArgumentError for a
ValueError or TypeError, OutOfRangeError for StopIteration, UnknownError otherwise.
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Callable, Sequence
from typing import Any, cast

import numpy as np

from minitf.autodiff.tape import GradientTape
from minitf.autodiff.tape_arguments import UnconnectedGradients
from minitf.core import dtypes, nest
from minitf.core.context import state
from minitf.core.conversion import convert_to_tensor
from minitf.core.errors import InvalidArgumentError, OpError, OutOfRangeError, UnknownError, op_error, tf_type_name
from minitf.core.op import GradContext, Op, bind
from minitf.core.tensor import EagerTensor, Tensor, make
from minitf.core.tensor_shape import TensorShape
from minitf.function.tracing.trace import graph_scope
from minitf.ops.array.creation import zeros_like

_counter = itertools.count()


def _error(op_name: str, exc: Exception) -> OpError:
    kind = (
        InvalidArgumentError
        if isinstance(exc, ValueError | TypeError)
        else OutOfRangeError
        if isinstance(exc, StopIteration)
        else UnknownError
    )
    return op_error(
        kind,
        op_name,
        f"{type(exc).__name__}: {exc}",
        "the Python function given to "
        f"tf.{'py_function' if op_name == 'EagerPyFunc' else 'numpy_function'} raised this error when "
        "the op ran.",
    )


def _outside_everything(fn: Callable[[], Any]) -> Any:
    """Run `fn` eagerly with no tape recording (the op itself is what tapes and graphs see)."""
    tapes = list(state.tapes)
    state.tapes.clear()
    try:
        with graph_scope(None):
            return fn()
    finally:
        state.tapes[:] = tapes
        state.refresh()


def _returned(op_name: str, name: str, result: Any, types: Sequence[dtypes.DType], as_list: bool) -> list[Any]:
    values = list(result) if isinstance(result, list | tuple) else ([] if result is None else [result])
    if not as_list:
        values = values[:1]
    if len(values) != len(types):
        raise op_error(
            InvalidArgumentError,
            op_name,
            f"{name} returns {len(values)} values, but expects to see {len(types)} values.",
            "return one value per dtype in Tout.",
        )
    return values


def _eager_py_func_kernel(*values: Any, _func: Callable, Tout: tuple, _as_list: bool, token: str) -> tuple:
    def run() -> list[Any]:
        args = [
            make(v, dtypes.from_numpy(np.asarray(v).dtype)) if not isinstance(v, EagerTensor) else v for v in values
        ]
        try:
            result = _func(*args)
            outs = [
                convert_to_tensor(v, dtype=t)
                for v, t in zip(_returned("EagerPyFunc", token, result, Tout, _as_list), Tout)
            ]
        except OpError:
            raise
        except Exception as exc:  # any error of the user's function becomes TensorFlow's
            raise _error("EagerPyFunc", exc) from exc
        return [cast(EagerTensor, t)._value for t in outs]  # eager: run outside every graph

    return tuple(_outside_everything(run))


def _py_func_kernel(*values: Any, _func: Callable, Tout: tuple, _as_list: bool, token: str) -> tuple:
    try:
        result = _func(*[np.asarray(v) if np.ndim(v) else np.asarray(v)[()] for v in values])
    except Exception as exc:  # any error of the user's function becomes TensorFlow's
        raise _error("PyFunc", exc) from exc
    outs = []
    for i, (v, t) in enumerate(zip(_returned("PyFunc", token, result, Tout, _as_list), Tout)):
        array = np.asarray(v.numpy() if isinstance(v, EagerTensor) else v)
        got = dtypes.from_numpy(array.dtype) if array.dtype.kind != "U" else dtypes.string
        if got is not t:
            raise op_error(
                InvalidArgumentError,
                "PyFunc",
                f"{i}-th value returned by {token} is {tf_type_name(got)}, but expects {tf_type_name(t)}",
                "make the NumPy function return arrays of the dtypes in Tout (e.g. .astype(np.float32)).",
            )
        outs.append(array[()] if array.ndim == 0 else array)
    return tuple(outs)


def _unknown_shapes(shapes: Any, types: Any, attrs: dict) -> list:
    return [(TensorShape(None), t) for t in attrs["Tout"]]


def _eager_py_func_grad(ctx: GradContext, grads: list) -> list:
    """Run the function again under a tape (as another EagerPyFunc, so this works in graphs too)."""
    func = ctx.attrs["_func"]
    inputs = list(ctx.inputs)
    n = len(inputs)
    differentiable = [t.dtype.is_floating or t.dtype.is_complex for t in inputs]
    if not any(differentiable):
        return [None] * n
    upstream = [g if g is not None else zeros_like(o) for g, o in zip(grads, ctx.outputs)]

    def vector_jacobian_product(*args: Tensor) -> list[Tensor]:
        xs, gs = list(args[:n]), list(args[n:])
        with GradientTape() as tape:
            tape.watch([x for x, d in zip(xs, differentiable) if d])
            ys = func(*xs)
        ys = list(ys) if isinstance(ys, list | tuple) else [ys]
        sources = [x for x, d in zip(xs, differentiable) if d]
        return list(
            tape.gradient(ys[: len(gs)], sources, output_gradients=gs, unconnected_gradients=UnconnectedGradients.ZERO)
        )

    types = tuple(t.dtype for t, d in zip(inputs, differentiable) if d)
    outs = iter(py_function(vector_jacobian_product, inputs + upstream, list(types)))
    return [next(outs) if d else None for d in differentiable]


EagerPyFunc = Op(
    "EagerPyFunc", _eager_py_func_kernel, shape=_unknown_shapes, grad=_eager_py_func_grad, num_outputs=-1, stateful=True
)
PyFunc = Op("PyFunc", _py_func_kernel, shape=_unknown_shapes, num_outputs=-1, stateful=True)
PyFuncStateless = Op("PyFuncStateless", _py_func_kernel, shape=_unknown_shapes, num_outputs=-1)


def _types(Tout: Any) -> tuple[tuple[dtypes.DType, ...], bool]:  # TensorFlow's argument name
    if isinstance(Tout, list | tuple):
        return tuple(dtypes.as_dtype(t) for t in Tout), True
    return (dtypes.as_dtype(Tout),), False


def _inputs(inp: Any) -> list[Tensor]:
    return [
        v.read_value() if hasattr(v, "_as_tensor") and not isinstance(v, Tensor) else convert_to_tensor(v)
        for v in nest.flatten(list(inp or []))
    ]


def _on_cpu(outs: Sequence[Any]) -> None:
    """TensorFlow pins these ops to the host: their traced outputs print `device=/job:localhost/...`."""
    op = getattr(outs[0], "op", None) if outs else None
    if op is not None and not op.device:
        op.device = "/job:localhost/replica:0/task:0"


def _as_decorator(
    script_op: Callable[..., Any], public_name: str, func: Callable | None, inp: Any, Tout: Any, **options: Any
) -> Callable[[Callable], Callable] | None:
    """TensorFlow's argument checks for tf.py_function / tf.numpy_function, and the decorator they become when
    `func` is left out (the decorated function's arguments are then the op's inputs); None for a plain call."""
    if Tout is None:
        raise TypeError(
            f"Missing required argument: 'Tout'\n  If using {public_name} as a decorator, set `Tout`\n"
            f"  **by name** above the function:\n  `@{public_name}(Tout=tout)`"
        )
    if func is None:
        if inp is not None:
            raise TypeError(f"Don't set the `inp` argument when using {public_name} as a decorator (`func=None`).")

        def decorator(fn: Callable) -> Callable:
            @functools.wraps(fn)
            def call_as_op(*args: Any) -> Any:
                return script_op(fn, inp=args, Tout=Tout, **options)

            return call_as_op

        return decorator
    if inp is None:
        raise TypeError(
            f"Missing argument `inp`:\n  You must set the `inp` argument (the list of arguments to the\n"
            f"  function), unless you use `{public_name}` as a decorator(`func=None`)."
        )
    return None


def py_function(func: Callable | None = None, inp: Any = None, Tout: Any = None, name: str | None = None) -> Any:
    """`tf.py_function`: call `func` on eager tensors, now or (in a graph) every time the graph runs.
    Without `func` it is a decorator: `@tf.py_function(Tout=tf.float32)`."""
    decorator = _as_decorator(py_function, "tf.py_function", func, inp, Tout, name=name)
    if decorator is not None:
        return decorator
    types, as_list = _types(Tout)
    outs = bind(EagerPyFunc, *_inputs(inp), _func=func, Tout=types, _as_list=as_list, token=f"pyfunc_{next(_counter)}")
    outs = list(outs)
    if state.graph is not None:
        _on_cpu(outs)
    return outs if as_list else (outs[0] if outs else None)


def numpy_function(
    func: Callable | None = None, inp: Any = None, Tout: Any = None, stateful: bool = True, name: str | None = None
) -> Any:
    """`tf.numpy_function`: call `func` on NumPy arrays, now or (in a graph) every time the graph runs.

    Eagerly TensorFlow simply calls the function and converts what it returns (Tout is not enforced then).
    Without `func` it is a decorator: `@tf.numpy_function(Tout=tf.float32)`.
    """
    decorator = _as_decorator(numpy_function, "tf.numpy_function", func, inp, Tout, stateful=stateful, name=name)
    if decorator is not None:
        return decorator
    inputs = _inputs(inp)
    if state.graph is None:
        result = func(*[t.numpy() for t in inputs])  # type: ignore[misc, attr-defined]
        if isinstance(result, list | tuple):
            return [convert_to_tensor(v) for v in result]
        return convert_to_tensor(result)
    types, as_list = _types(Tout)
    outs = list(
        bind(
            PyFunc if stateful else PyFuncStateless,
            *inputs,
            _func=func,
            Tout=types,
            _as_list=as_list,
            token=f"pyfunc_{next(_counter)}",
        )
    )
    _on_cpu(outs)
    return outs if as_list else (outs[0] if outs else None)
