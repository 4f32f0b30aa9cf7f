"""How elementwise ops are declared and how their gradients find their way back.

`unary_op` / `binary_op` make an elementwise `Op` with TensorFlow's dtype checks and broadcasting error;
`binary_call` converts the second operand as TensorFlow's wrappers do. A gradient that flowed through
broadcasting is summed back to its input's shape (`unbroadcast`, the `SumToShape` op); `BroadcastLike` is
its adjoint. `ZerosLike` / `OnesLike` make the zero and one gradients rules need.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from minitf.core import dtypes, shape_rules
from minitf.core.context import state
from minitf.core.conversion import convert_to_tensor, operand
from minitf.core.dispatch import elementwise_handler
from minitf.core.errors import allowed_dtypes, dims_text, same_dtype
from minitf.core.op import GradContext, Op, bind
from minitf.core.tensor import EagerTensor, Tensor

F = dtypes.FLOATS
FC = dtypes.FLOAT_OR_COMPLEX
NUM = dtypes.NUMERIC
REAL = dtypes.REAL
SIGNED = NUM - {dtypes.uint8, dtypes.uint16, dtypes.uint32, dtypes.uint64}
SIGNED_REAL = SIGNED - {dtypes.complex64, dtypes.complex128}
FLOATS_AND_WIDE_INTS = F | {dtypes.int32, dtypes.int64}
ANY = frozenset(dtypes.ALL)
BOOL = frozenset({dtypes.bool})


def unary_op(
    name: str,
    kernel: Callable,
    allowed: frozenset,
    grad: Callable | None = None,
    shape: Callable = shape_rules.same_as_first,
) -> Op:
    def check(inputs: Sequence[Tensor], attrs: dict) -> None:
        if inputs[0].dtype not in allowed:
            allowed_dtypes(name, allowed, inputs[0].dtype)

    return Op(name, kernel, check=check, shape=shape, grad=grad, elementwise=True, accepts=allowed)


def binary_op(
    name: str, kernel: Callable, allowed: frozenset, grad: Callable | None = None, out_dtype: dtypes.DType | None = None
) -> Op:
    def check(inputs: Sequence[Tensor], attrs: dict) -> None:
        x, y = inputs
        if x.dtype is not y.dtype:
            same_dtype(name, inputs)
        if x.dtype not in allowed:
            allowed_dtypes(name, allowed, x.dtype)

    def explain(inputs: Sequence[EagerTensor], attrs: dict, exc: Exception) -> str:
        if "broadcast" in str(exc):
            a, b = (list(np.shape(t._value)) for t in inputs)
            return (
                f"Incompatible shapes: {dims_text(a)} vs. {dims_text(b)}\nHint: shapes broadcast when, aligned "
                f"from the right, each pair of dimensions is equal or one of them is 1."
            )
        return str(exc)

    return Op(
        name,
        kernel,
        check=check,
        shape=shape_rules.broadcast_rule(out_dtype),
        grad=grad,
        explain=explain,
        elementwise=True,
        accepts=allowed,
    )


def binary_call(op: Op, x: Any, y: Any) -> Tensor:
    """Call a binary op the way TensorFlow's wrappers do: `y` is converted to `x`'s dtype where possible."""
    if not isinstance(x, Tensor):
        try:
            x = convert_to_tensor(x)
        except (TypeError, ValueError):  # a composite value takes over (minitf/core/dispatch.py), or the error stands
            if (handler := elementwise_handler(x, y)) is None:
                raise
            return handler(functools.partial(binary_call, op), x, y)
    if not isinstance(y, Tensor):
        try:
            y = operand(y, x._dtype, op.name != "AddV2")
        except (TypeError, ValueError) as exc:
            if (handler := elementwise_handler(y)) is not None:
                return handler(functools.partial(binary_call, op), x, y)
            if isinstance(exc, ValueError) or state.graph is None or not isinstance(y, int | float | complex):
                raise
            # While a graph is built, TensorFlow's op wrapper converts the argument and words it this way.
            want, kind = x.dtype.name, type(y).__name__
            raise TypeError(
                f"Expected {want} passed to parameter 'y' of op '{op.name}', got {y!r} of type '{kind}' "
                f"instead. Error: Expected {want}, but got {y!r} of type '{kind}'."
            ) from None
    return bind(op, x, y)


def reflected_call(op: Op, x: Any, y: Any) -> Tensor:
    """`2 - t`: the Python value must convert to the tensor's dtype (TypeError otherwise, as in TensorFlow)."""
    number = type(x) is float or type(x) is int  # (a recurring number is converted once: `operand`)
    return bind(op, operand(x, y._dtype) if number else convert_to_tensor(x, dtype=y._dtype), y)


def unbroadcast(g: Any, like: Any) -> Tensor:
    """Sum a broadcast gradient back to the shape of the input it flows to."""
    if state.graph is None:
        if g._value.shape == like._value.shape:  # eager tensors (typed Any: no cast on this hot path)
            return g
    elif g.shape == like.shape and like.shape.is_fully_defined():
        return g
    return bind(SumToShape, g, like)


# Kernels of the ops gradients are made of take `.shape` and `.dtype` from their values (arrays or NumPy scalars)
# and call NumPy's C functions: `np.shape`, `np.zeros_like` or `np.broadcast_to` are Python functions that cost
# more than the arithmetic on the small tensors of a lesson.


def _sum_to_kernel(g: np.ndarray, like: np.ndarray) -> np.ndarray:
    target = like.shape
    extra = g.ndim - len(target)
    axes = tuple(range(extra)) + tuple(i + extra for i, d in enumerate(target) if d == 1 and g.shape[i + extra] != 1)
    out = np.sum(g, axis=axes, keepdims=True) if axes else g
    return np.asarray(out).reshape(target)


def _sum_to_grad(c: GradContext, g: Tensor) -> list:
    return [broadcast_like(g, c.x), None]


SumToShape = Op("SumToShape", _sum_to_kernel, shape=shape_rules.same_as_second, grad=_sum_to_grad)


def _broadcast_like_kernel(x: np.ndarray, like: np.ndarray) -> np.ndarray:
    out = np.empty(np.broadcast(x, like).shape, x.dtype)
    out[...] = x
    return out


BroadcastLike = Op(
    "BroadcastLike",
    _broadcast_like_kernel,
    shape=shape_rules.broadcast_rule(None),
    grad=lambda c, g: [unbroadcast(g, c.x), None],
)


def broadcast_like(x: Tensor, like: Tensor) -> Tensor:
    """Broadcast `x` to `like`'s shape (the adjoint of `unbroadcast`)."""
    return bind(BroadcastLike, x, like)


def unary_function(op: Op, doc: str, public: str | None = None) -> Callable[..., Tensor]:
    def fn(x: Any, name: str | None = None) -> Tensor:
        if not isinstance(x, Tensor):
            if (handler := elementwise_handler(x, api=fn)) is not None:  # a composite value (core/dispatch.py)
                return handler(fn, x)
            x = convert_to_tensor(x)
        return bind(op, x)

    fn.__doc__ = doc
    if public is not None:
        fn.__name__ = public
    return fn


ReshapeLike: Op = Op(
    "ReshapeLike",
    lambda x, like: np.reshape(x, np.shape(like)),
    shape=shape_rules.same_as_second,
    grad=lambda c, g: [bind(ReshapeLike, g, c.x), None],
)


# Not differentiable, as in TensorFlow: tapes do not record them, so nothing downstream waits for their gradient.
def _filled_like(make: Callable, make_like: Callable) -> Callable:
    def kernel(x: Any) -> np.ndarray:
        return make(x.shape, x.dtype) if isinstance(x, np.ndarray | np.generic) else make_like(x)  # (a bytes scalar)

    return kernel


def _ones(shape: tuple, dtype: np.dtype) -> np.ndarray:
    out = np.empty(shape, dtype)  # (np.ones is a Python function around these two calls)
    out.fill(1)
    return out


ZerosLike = Op("ZerosLike", _filled_like(np.zeros, np.zeros_like), shape=shape_rules.same_as_first)
OnesLike = Op("OnesLike", _filled_like(_ones, np.ones_like), shape=shape_rules.same_as_first)


def zeros_like_(x: Any) -> Tensor:
    """A zero gradient shaped like `x` (`tf.zeros_like` without its dtype argument)."""
    return bind(ZerosLike, convert_to_tensor(x))


def ones_like_(x: Any) -> Tensor:
    """Ones shaped like `x` (`tf.ones_like` without its dtype argument)."""
    return bind(OnesLike, convert_to_tensor(x))
