"""Elementwise math, comparisons, logic and reductions: each op's kernel, checks and gradient in one place.

Gradients are written with minitf's own functions, so a tape watching a gradient computation records it
(second derivatives) and a traced function can contain it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from minitf import dtypes
from minitf.core import (
    Op,
    allowed_dtypes,
    bind,
    convert_to_tensor,
    dtype_mismatch,
    no_kernel,
    operand,
    same_dtype,
    state,
    static_error,
    static_value,
)
from minitf.errors import InternalError, InvalidArgumentError, UnimplementedError
from minitf.ops import shapes, summation, vector_math
from minitf.tensor import Tensor

F = dtypes.FLOATS
FC = dtypes.FLOAT_OR_COMPLEX
NUM = dtypes.NUMERIC
REAL = dtypes.REAL
SIGNED = NUM - {dtypes.uint8, dtypes.uint16, dtypes.uint32, dtypes.uint64}
SIGNED_REAL = SIGNED - {dtypes.complex64, dtypes.complex128}
FLOATS_AND_WIDE_INTS = F | {dtypes.int32, dtypes.int64}
ANY = frozenset(dtypes.ALL)
BOOL = frozenset({dtypes.bool})


# ---------------------------------------------------------------------------------------------------
# How elementwise ops are declared
# ---------------------------------------------------------------------------------------------------

def _unary(name: str, kernel: Callable, allowed: frozenset, grad: Callable | None = None,
           shape: Callable = shapes.same_as_first) -> Op:
    def check(inputs: Sequence[Tensor], attrs: dict) -> None:
        if inputs[0].dtype not in allowed:  # type: ignore[attr-defined]
            allowed_dtypes(name, allowed, inputs[0].dtype)  # type: ignore[attr-defined]

    return Op(name, kernel, check=check, shape=shape, grad=grad, elementwise=True)


def _binary(name: str, kernel: Callable, allowed: frozenset, grad: Callable | None = None,
            out_dtype: dtypes.DType | None = None) -> Op:
    def check(inputs: Sequence[Tensor], attrs: dict) -> None:
        x, y = inputs
        if x.dtype is not y.dtype:  # type: ignore[attr-defined]
            same_dtype(name, inputs)
        if x.dtype not in allowed:  # type: ignore[attr-defined]
            allowed_dtypes(name, allowed, x.dtype)  # type: ignore[attr-defined]

    def explain(inputs: Sequence[Tensor], attrs: dict, exc: Exception) -> str:
        if "broadcast" in str(exc):
            a, b = (list(np.shape(t._value)) for t in inputs)  # type: ignore[attr-defined]
            return (f"Incompatible shapes: {_dims(a)} vs. {_dims(b)}\nHint: shapes broadcast when, aligned "
                    f"from the right, each pair of dimensions is equal or one of them is 1.")
        return str(exc)

    return Op(name, kernel, check=check, shape=shapes.broadcast_rule(out_dtype), grad=grad, explain=explain,
              elementwise=True)


def _dims(shape: list[int]) -> str:
    return "[" + ",".join(str(d) for d in shape) + "]"


def binary_call(op: Op, x: Any, y: Any) -> Tensor:
    """Call a binary op the way TensorFlow's wrappers do: `y` is converted to `x`'s dtype where possible."""
    if not isinstance(x, Tensor):
        x = convert_to_tensor(x)
    if not isinstance(y, Tensor):
        try:
            y = operand(y, x.dtype, op is not Add)  # type: ignore[attr-defined]
        except TypeError:
            if state.graph is None or not isinstance(y, int | float | complex):
                raise
            # While a graph is built, TensorFlow's op wrapper converts the argument and words it this way.
            want, kind = x.dtype.name, type(y).__name__  # type: ignore[attr-defined]
            raise TypeError(f"Expected {want} passed to parameter 'y' of op '{op.name}', got {y!r} of type '{kind}' "
                            f"instead. Error: Expected {want}, but got {y!r} of type '{kind}'.") from None
    return bind(op, x, y)


def reflected_call(op: Op, x: Any, y: Any) -> Tensor:
    """`2 - t`: the Python value must convert to the tensor's dtype (TypeError otherwise, as in TensorFlow)."""
    return bind(op, convert_to_tensor(x, dtype=y.dtype), y)


# ---------------------------------------------------------------------------------------------------
# Gradient helpers
# ---------------------------------------------------------------------------------------------------

def unbroadcast(g: Tensor, like: Tensor) -> Tensor:
    """Sum a broadcast gradient back to the shape of the input it flows to."""
    if state.graph is None and g._value.shape == like._value.shape:  # type: ignore[attr-defined]
        return g
    if state.graph is not None and g.shape == like.shape and like.shape.is_fully_defined():
        return g
    return bind(SumToShape, g, like)


def _sum_to_kernel(g: np.ndarray, like: np.ndarray) -> np.ndarray:
    target = np.shape(like)
    extra = np.ndim(g) - len(target)
    axes = tuple(range(extra)) + tuple(i + extra for i, d in enumerate(target) if d == 1 and g.shape[i + extra] != 1)
    out = np.sum(g, axis=axes, keepdims=True) if axes else g
    return np.asarray(out).reshape(target)


def _sum_to_grad(c: Any, g: Tensor) -> list:
    return [broadcast_like(g, c.x), None]


SumToShape = Op("SumToShape", _sum_to_kernel, shape=shapes.same_as_second, grad=_sum_to_grad)

BroadcastLike = Op(
    "BroadcastLike",
    lambda x, like: np.broadcast_to(x, np.broadcast_shapes(np.shape(x), np.shape(like))).copy(),
    shape=shapes.broadcast_rule(None),
    grad=lambda c, g: [unbroadcast(g, c.x), None],
)


def broadcast_like(x: Tensor, like: Tensor) -> Tensor:
    """Broadcast `x` to `like`'s shape (the adjoint of `unbroadcast`)."""
    return bind(BroadcastLike, x, like)


def _conj_if_complex(x: Tensor) -> Tensor:
    return conj(x) if x.dtype.kind == "c" else x  # type: ignore[attr-defined]


# ---------------------------------------------------------------------------------------------------
# Binary arithmetic
# ---------------------------------------------------------------------------------------------------

# Binary gradient rules compute only what the tape needs (`c.needs[i]`): in `x * 1.01` nobody asks
# for the gradient of the constant.

def _add_grad(c: Any, g: Tensor) -> list:
    return [unbroadcast(g, c.x) if c.needs[0] else None, unbroadcast(g, c.y) if c.needs[1] else None]


def _sub_grad(c: Any, g: Tensor) -> list:
    return [unbroadcast(g, c.x) if c.needs[0] else None, unbroadcast(negative(g), c.y) if c.needs[1] else None]


def _mul_grad(c: Any, g: Tensor) -> list:
    return [unbroadcast(g * _conj_if_complex(c.y), c.x) if c.needs[0] else None,
            unbroadcast(_conj_if_complex(c.x) * g, c.y) if c.needs[1] else None]


def _div_grad(c: Any, g: Tensor) -> list:
    x, y = c.x, c.y
    # TensorFlow's order of operations, g * ((-x / y) / y), so that infinities come out the same at y = 0.
    return [unbroadcast(g / y, x) if c.needs[0] else None,
            unbroadcast(g * (negative(x) / y / y), y) if c.needs[1] else None]


def _pow_grad(c: Any, g: Tensor) -> list:
    x, y, z = c.x, c.y, c.out
    dx = g * y * pow(x, y - 1)
    # d/dy x**y = x**y * log(x); TensorFlow defines it as 0 where x <= 0 (for real inputs).
    if x.dtype.is_complex:
        dy = g * z * log(x)
    else:
        positive = x > 0
        safe_x = where(positive, x, ones_like_(x))
        dy = g * z * where(positive, log(safe_x), zeros_like_(x))
    return [unbroadcast(dx, x), unbroadcast(dy, y)]


def _floordiv_kernel(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    if x.dtype.kind == "c":
        raise no_kernel("FloorDiv", dtypes.from_numpy(x.dtype))
    if x.dtype.kind in "iu" and np.any(np.asarray(y) == 0) and np.broadcast(x, y).size:
        raise InvalidArgumentError(None, None, "Integer division by zero [Op:FloorDiv] name: \n"
                                   "Hint: an integer tensor has a 0 where you divide; check the divisor.")
    if x.dtype.kind == "f":
        return np.floor(np.true_divide(x, y))  # TensorFlow's floor(x / y): inf // 1 is inf (NumPy says nan)
    return np.floor_divide(x, y)


def _mod_kernel(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    if x.dtype.kind in "iu":
        if np.any(np.asarray(y) == 0) and np.broadcast(x, y).size:
            raise InvalidArgumentError(None, None, "Integer division by zero [Op:FloorMod] name: \n"
                                       "Hint: an integer tensor has a 0 where you take the remainder.")
        return np.mod(x, y)
    # TensorFlow's float rule: C's fmod, moved by one divisor when the signs differ (keeps fmod's zero sign).
    remainder = np.fmod(x, y)
    return np.where((remainder != 0) & ((y < 0) != (remainder < 0)), remainder + y, remainder)


def _squared_difference(d: np.ndarray) -> np.ndarray:
    return d * np.conj(d) if d.dtype.kind == "c" else np.square(d)  # |x - y|^2 for complex numbers


def _pow_kernel(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    if x.dtype.kind in "iu" and np.any(np.asarray(y) < 0) and np.broadcast(x, y).size:
        raise InvalidArgumentError(None, None, "Integers to negative integer powers are not allowed [Op:Pow] "
                                   "name: \nHint: cast to a float dtype first, e.g. tf.cast(x, tf.float32).")
    return np.power(x, y)


def _maxmin_grad(first_wins: Callable) -> Callable:
    """Gradient of maximum/minimum: where the two tie, TensorFlow gives it all to the first argument."""
    def grad(c: Any, g: Tensor) -> list:
        x, y = c.x, c.y
        mask = first_wins(x, y)
        zeros = zeros_like_(g)
        return [unbroadcast(where(mask, g, zeros), x), unbroadcast(where(mask, zeros, g), y)]
    return grad


Add = _binary("AddV2", np.add, NUM | {dtypes.string}, _add_grad)
Sub = _binary("Sub", np.subtract, NUM, _sub_grad)
Mul = _binary("Mul", np.multiply, NUM, _mul_grad)
RealDiv = _binary("RealDiv", np.true_divide, FC, _div_grad)
Div = _binary("Div", np.true_divide, FC, _div_grad)
FloorDiv = _binary("FloorDiv", _floordiv_kernel, NUM)
FloorMod = _binary("FloorMod", _mod_kernel, REAL,
                   lambda c, g: [unbroadcast(g, c.x), unbroadcast(negative(g) * floordiv(c.x, c.y), c.y)])
Pow = _binary("Pow", _pow_kernel, SIGNED, _pow_grad)
Maximum = _binary("Maximum", np.maximum, REAL, _maxmin_grad(lambda x, y: x >= y))
Minimum = _binary("Minimum", np.minimum, REAL, _maxmin_grad(lambda x, y: x <= y))
SquaredDifference = _binary("SquaredDifference", lambda x, y: _squared_difference(x - y), FLOATS_AND_WIDE_INTS | FC,
                            lambda c, g: [unbroadcast(2.0 * g * (c.x - c.y), c.x),
                                          unbroadcast(-2.0 * g * (c.x - c.y), c.y)])


def _truncate_kernel(name: str, np_fn: Callable) -> Callable:
    """TruncateDiv/TruncateMod: C semantics (round toward zero); integer division by zero is an InternalError."""
    def kernel(x: np.ndarray, y: np.ndarray) -> np.ndarray:
        if x.dtype.kind == "c" or (name == "TruncateMod" and x.dtype == np.float16):
            raise no_kernel(name, dtypes.from_numpy(x.dtype))
        if x.dtype.kind in "iu" and np.any(np.asarray(y) == 0) and np.broadcast(x, y).size:
            raise InternalError(None, None, f"Unexpected error in binary operator (only integer div and mod should "
                                f"have errors) [Op:{name}] name: \nHint: an integer tensor has a 0 where you divide.")
        return np_fn(x, y)
    return kernel


def _truncated_quotient(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    if x.dtype.kind in "iu":
        quotient = np.floor_divide(x, y)
        return quotient + ((quotient < 0) & (quotient * y != x))
    return np.trunc(x / y)


TruncateDiv = _binary("TruncateDiv", _truncate_kernel("TruncateDiv", _truncated_quotient), NUM)
TruncateMod = _binary("TruncateMod", _truncate_kernel("TruncateMod", np.fmod),
                      FLOATS_AND_WIDE_INTS, grad=lambda c, g: _no_gradient_registered("TruncateMod"))


def _no_gradient_registered(name: str) -> list:
    """TensorFlow has no gradient for some ops at all (not even None): asking for one is a LookupError."""
    raise LookupError(f"gradient registry has no entry for: {name}\nHint: {name} cannot be differentiated; "
                      "compute the value under tape.stop_recording() or use a differentiable op.")


def _add_strings(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    return np.frompyfunc(lambda a, b: a + b, 2, 1)(x, y)


def add(x: Any, y: Any, name: str | None = None) -> Tensor:
    """x + y elementwise (with broadcasting)."""
    return binary_call(Add, x, y)


def subtract(x: Any, y: Any, name: str | None = None) -> Tensor:
    return binary_call(Sub, x, y)


def multiply(x: Any, y: Any, name: str | None = None) -> Tensor:
    return binary_call(Mul, x, y)


def floordiv(x: Any, y: Any, name: str | None = None) -> Tensor:
    """Division rounded toward minus infinity: `[7, -7] // 2` is `[3, -4]`."""
    return binary_call(FloorDiv, x, y)


def floormod(x: Any, y: Any, name: str | None = None) -> Tensor:
    """Remainder whose sign follows the divisor, as Python's `%`."""
    return binary_call(FloorMod, x, y)


mod = floormod


def truncatediv(x: Any, y: Any, name: str | None = None) -> Tensor:
    return binary_call(TruncateDiv, x, y)


def truncatemod(x: Any, y: Any, name: str | None = None) -> Tensor:
    return binary_call(TruncateMod, x, y)


def pow(x: Any, y: Any, name: str | None = None) -> Tensor:  # noqa: A001  (TensorFlow's name)
    return binary_call(Pow, x, y)


def maximum(x: Any, y: Any, name: str | None = None) -> Tensor:
    return binary_call(Maximum, x, y)


def minimum(x: Any, y: Any, name: str | None = None) -> Tensor:
    return binary_call(Minimum, x, y)


def squared_difference(x: Any, y: Any, name: str | None = None) -> Tensor:
    return binary_call(SquaredDifference, x, y)


_TRUEDIV = {
    dtypes.uint8: dtypes.float32, dtypes.int8: dtypes.float32, dtypes.uint16: dtypes.float32,
    dtypes.int16: dtypes.float32, dtypes.uint32: dtypes.float64, dtypes.int32: dtypes.float64,
    dtypes.uint64: dtypes.float64, dtypes.int64: dtypes.float64,
    dtypes.float16: None, dtypes.float32: None, dtypes.float64: None, dtypes.complex64: None, dtypes.complex128: None,
}


def truediv(x: Any, y: Any, name: str | None = None) -> Tensor:
    """`/`: integers are first cast to a float (int32 / int32 gives float64), as TensorFlow's table says."""
    x = convert_to_tensor(x)
    y = convert_to_tensor(y, dtype_hint=x.dtype)
    return _truediv(x, y)


def _truediv(x: Tensor, y: Tensor) -> Tensor:
    if x.dtype is not y.dtype:  # type: ignore[attr-defined]
        raise TypeError(f"`x` and `y` must have the same dtype, got {x.dtype!r} != {y.dtype!r}.\n"  # type: ignore
                        f"Hint: use tf.cast so both sides of `/` have the same dtype.")
    if x.dtype not in _TRUEDIV:  # type: ignore[attr-defined]
        raise TypeError(f"Invalid dtype {x.dtype!r} in __truediv__. Expected one of "  # type: ignore[attr-defined]
                        f"{{{', '.join(repr(d) for d in _TRUEDIV)}}}.")
    target = _TRUEDIV[x.dtype]  # type: ignore[attr-defined]
    if target is not None:
        x, y = cast(x, target), cast(y, target)
    return bind(RealDiv, x, y)


def divide(x: Any, y: Any, name: str | None = None) -> Tensor:
    """`tf.divide` (= `tf.math.truediv` for tensors): `tf.divide(7, 2)` is 3.5 as a float64."""
    return truediv(x, y)


def divide_no_nan(x: Any, y: Any, name: str | None = None) -> Tensor:
    """x / y, but 0 where y is 0; integers are first cast to a float, as for `/`."""
    x = convert_to_tensor(x)
    y = convert_to_tensor(y, dtype=x.dtype)  # type: ignore[attr-defined]
    if x.dtype not in _TRUEDIV:  # type: ignore[attr-defined]
        raise TypeError(f"Invalid dtype {x.dtype!r} in tf.math.divide_no_nan. Expected one of "  # type: ignore
                        f"{{{', '.join(repr(d) for d in _TRUEDIV)}}}.")
    target = _TRUEDIV[x.dtype]  # type: ignore[attr-defined]
    if target is not None:
        x, y = cast(x, target), cast(y, target)
    zero = y == 0
    return where(zero, zeros_like_(x * y), x / where(zero, ones_like_(y), y))


# ---------------------------------------------------------------------------------------------------
# Unary math
# ---------------------------------------------------------------------------------------------------

def _sigmoid_kernel(x: np.ndarray) -> np.ndarray:
    """1 / (1 + exp(-x)) without overflow: exp(-|x|) is at most 1, so for x < 0 use exp(x) / (1 + exp(x)).

    Far below zero the result is tiny but positive, as in TensorFlow, which flushes only float32 and float64
    results below the smallest normal number to 0 (float16 keeps its subnormals).
    """
    if np.asarray(x).dtype.kind == "c":
        return np.asarray(0.5 * (np.tanh(0.5 * x) + 1), dtype=x.dtype)[()]
    if np.asarray(x).dtype == np.float32:
        return vector_math.sigmoid(np.asarray(x))[()]  # TensorFlow's own float32 kernel, bit for bit
    wide = np.asarray(x, dtype=np.float64)
    e = np.exp(-np.abs(wide))
    out = np.where(wide >= 0, 1 / (1 + e), e / (1 + e)).astype(x.dtype)
    if out.dtype != np.float16:
        out[np.abs(out) < np.finfo(out.dtype).tiny] = 0
    return out[()]


# Gradient kernels TensorFlow also has as ops of their own (TanhGrad, ...): one NumPy call instead of
# three, and their own rules for second derivatives. Inputs are (y, dy): the forward output and its gradient.
TanhGrad = Op("TanhGrad", lambda y, dy: dy * (1 - y * y), shape=shapes.same_as_first, elementwise=True,
              grad=lambda c, g: [g * c.y * -2 * c.x, bind(TanhGrad, c.x, g)])
SigmoidGrad = Op("SigmoidGrad", lambda y, dy: dy * (y * (1 - y)), shape=shapes.same_as_first, elementwise=True,
                 grad=lambda c, g: [g * c.y * (1 - 2 * c.x), bind(SigmoidGrad, c.x, g)])
SqrtGrad = Op("SqrtGrad", lambda y, dy: np.where(dy == 0, np.zeros((), y.dtype), dy * (0.5 / y)).astype(y.dtype),
              shape=shapes.same_as_first, elementwise=True,
              grad=lambda c, g: [negative(g) * c.out / c.x, bind(SqrtGrad, c.x, g)])
ReciprocalGrad = Op("ReciprocalGrad", lambda y, dy: -dy * y * y, shape=shapes.same_as_first, elementwise=True,
                    grad=lambda c, g: [g * -2 * c.y * c.x, bind(ReciprocalGrad, c.x, g)])
RsqrtGrad = Op("RsqrtGrad", lambda y, dy: dy * (-0.5 * y * y * y), shape=shapes.same_as_first, elementwise=True,
               grad=lambda c, g: [g * -1.5 * c.y * c.x * c.x, bind(RsqrtGrad, c.x, g)])
ReluGrad = Op("ReluGrad", lambda dy, y: np.where(y > 0, dy, np.zeros((), dy.dtype)), shape=shapes.same_as_first,
              elementwise=True, grad=lambda c, g: [bind(ReluGrad, g, c.y), zeros_like_(c.y)])


def _reciprocal_kernel(x: np.ndarray) -> np.ndarray:
    if x.dtype.kind in "iu":
        raise no_kernel("Reciprocal", dtypes.from_numpy(x.dtype))
    return np.reciprocal(x)


def _round_kernel(x: np.ndarray) -> np.ndarray:
    if x.dtype.kind == "c":
        raise no_kernel("Round", dtypes.from_numpy(x.dtype))
    return np.round(x) if x.dtype.kind == "f" else x


def _fused_grad(op: Op, y: Tensor, g: Tensor) -> Tensor:
    if y.dtype.is_complex:  # type: ignore[attr-defined]
        y = conj(y)
    return bind(op, y, g)


Neg = _unary("Neg", np.negative, NUM - {dtypes.uint8, dtypes.uint16, dtypes.uint32, dtypes.uint64},
             lambda c, g: [negative(g)])
Abs = _unary("Abs", np.abs, SIGNED_REAL, lambda c, g: [g * sign(c.x)])
ComplexAbs = _unary("ComplexAbs", np.abs, frozenset({dtypes.complex64, dtypes.complex128}),
                    lambda c, g: [cast(g, c.x.dtype) * c.x / cast(c.out, c.x.dtype)], shapes.real_part_rule)
Sign = _unary("Sign", np.sign, SIGNED, lambda c, g: [zeros_like_(c.x)])
Square = _unary("Square", np.square, NUM, lambda c, g: [g * 2 * _conj_if_complex(c.x)])
# SqrtGrad is g * 0.5 / y, except that a zero upstream gradient gives 0 (not nan), as in TensorFlow.
Sqrt = _unary("Sqrt", np.sqrt, FC, lambda c, g: [_fused_grad(SqrtGrad, c.out, g)])
Rsqrt = _unary("Rsqrt", lambda x: 1 / np.sqrt(x), FC, lambda c, g: [_fused_grad(RsqrtGrad, c.out, g)])
def _float32_like_tensorflow(tensorflows: Callable[[np.ndarray], np.ndarray],
                             other: Callable[[Any], Any]) -> Callable[[Any], Any]:
    """float32 through TensorFlow's own kernel (`vector_math`: Eigen's packets and the C library's tail),
    other dtypes through `other`."""
    def kernel(x: Any) -> Any:
        if np.asarray(x).dtype == np.float32:
            return tensorflows(np.asarray(x))[()]
        return other(x)
    return kernel


Exp = _unary("Exp", _float32_like_tensorflow(vector_math.exp, np.exp), FC,
             lambda c, g: [g * _conj_if_complex(c.out)])
Expm1 = _unary("Expm1", np.expm1, FC, lambda c, g: [g * exp(c.x)])
Log = _unary("Log", _float32_like_tensorflow(vector_math.log, np.log), FC,
             lambda c, g: [g / _conj_if_complex(c.x)])
Log1p = _unary("Log1p", np.log1p, FC, lambda c, g: [g / (1 + c.x)])
Sin = _unary("Sin", np.sin, FC, lambda c, g: [g * cos(c.x)])
Cos = _unary("Cos", np.cos, FC, lambda c, g: [negative(g) * sin(c.x)])
Tan = _unary("Tan", np.tan, FC, lambda c, g: [g / square(cos(c.x))])
Tanh = _unary("Tanh", np.tanh, FC, lambda c, g: [_fused_grad(TanhGrad, c.out, g)])
Sigmoid = _unary("Sigmoid", _sigmoid_kernel, FC, lambda c, g: [_fused_grad(SigmoidGrad, c.out, g)])
Reciprocal = _unary("Reciprocal", _reciprocal_kernel, SIGNED, lambda c, g: [_fused_grad(ReciprocalGrad, c.out, g)])
Round = _unary("Round", _round_kernel, NUM)
Floor = _unary("Floor", np.floor, F)
Ceil = _unary("Ceil", np.ceil, F)
Relu = _unary("Relu", lambda x: np.maximum(x, np.zeros((), x.dtype)), REAL,
              lambda c, g: [bind(ReluGrad, g, c.out)])
Conj = _unary("Conj", np.conj, FC - F, lambda c, g: [conj(g)])
Real = _unary("Real", np.real, FC - F, shape=shapes.real_part_rule)
Imag = _unary("Imag", np.imag, FC - F, shape=shapes.real_part_rule)
IsNan = _unary("IsNan", np.isnan, F, shape=shapes.bool_rule)
IsInf = _unary("IsInf", np.isinf, F, shape=shapes.bool_rule)
IsFinite = _unary("IsFinite", np.isfinite, F, shape=shapes.bool_rule)


def _unary_fn(op: Op, doc: str) -> Callable[..., Tensor]:
    def fn(x: Any, name: str | None = None) -> Tensor:
        return bind(op, x if isinstance(x, Tensor) else convert_to_tensor(x))
    fn.__doc__ = doc
    return fn


negative = _unary_fn(Neg, "-x elementwise.")
sign = _unary_fn(Sign, "-1, 0 or 1 elementwise.")
square = _unary_fn(Square, "x * x elementwise.")
sqrt = _unary_fn(Sqrt, "Square root (floats only; sqrt(-1) is nan).")
rsqrt = _unary_fn(Rsqrt, "1 / sqrt(x).")
exp = _unary_fn(Exp, "e ** x (floats only).")
expm1 = _unary_fn(Expm1, "exp(x) - 1, accurate near 0.")
log = _unary_fn(Log, "Natural logarithm (floats only; log(0) is -inf).")
log1p = _unary_fn(Log1p, "log(1 + x), accurate near 0.")
sin = _unary_fn(Sin, "Sine.")
cos = _unary_fn(Cos, "Cosine.")
tan = _unary_fn(Tan, "Tangent.")
tanh = _unary_fn(Tanh, "Hyperbolic tangent.")
sigmoid = _unary_fn(Sigmoid, "1 / (1 + exp(-x)), computed stably.")
reciprocal = _unary_fn(Reciprocal, "1 / x.")
round = _unary_fn(Round, "Rounds half to even: [0.5, 1.5, 2.5] -> [0, 2, 2].")  # noqa: A001
floor = _unary_fn(Floor, "Largest integer not greater than x (floats only).")
ceil = _unary_fn(Ceil, "Smallest integer not less than x (floats only).")


def conj(x: Any, name: str | None = None) -> Tensor:
    """Complex conjugate; real numbers are returned unchanged."""
    x = convert_to_tensor(x)
    if x.dtype.is_complex:  # type: ignore[attr-defined]
        return bind(Conj, x)
    if x.dtype.is_numeric:  # type: ignore[attr-defined]
        return x
    raise TypeError(f"Expected numeric or variant tensor, got dtype {x.dtype!r}.")  # type: ignore[attr-defined]


def real(input: Any, name: str | None = None) -> Tensor:  # noqa: A002
    """Real part; real numbers are returned unchanged."""
    x = convert_to_tensor(input)
    if x.dtype.is_complex:  # type: ignore[attr-defined]
        return bind(Real, x)
    if x.dtype.is_numeric:  # type: ignore[attr-defined]
        return x
    raise TypeError(f"input must be a numeric tensor, but got tensor with dtype {x.dtype}")  # type: ignore


def imag(input: Any, name: str | None = None) -> Tensor:  # noqa: A002
    """Imaginary part; for real (or any non-complex) input a tensor of zeros."""
    x = convert_to_tensor(input)
    return bind(Imag, x) if x.dtype.is_complex else zeros_like_(x)  # type: ignore[attr-defined]
is_nan = _unary_fn(IsNan, "True where x is nan.")
is_inf = _unary_fn(IsInf, "True where x is +-inf.")
is_finite = _unary_fn(IsFinite, "True where x is neither nan nor inf.")
relu = _unary_fn(Relu, "max(x, 0) elementwise.")


def abs(x: Any, name: str | None = None) -> Tensor:  # noqa: A001
    """|x|; for complex input the magnitude, as a real tensor."""
    x = convert_to_tensor(x)
    return bind(ComplexAbs if x.dtype.is_complex else Abs, x)  # type: ignore[attr-defined]


# ---------------------------------------------------------------------------------------------------
# Comparisons and logic (no gradients: they return bools)
# ---------------------------------------------------------------------------------------------------

Less = _binary("Less", np.less, REAL, out_dtype=dtypes.bool)
LessEqual = _binary("LessEqual", np.less_equal, REAL, out_dtype=dtypes.bool)
Greater = _binary("Greater", np.greater, REAL, out_dtype=dtypes.bool)
GreaterEqual = _binary("GreaterEqual", np.greater_equal, REAL, out_dtype=dtypes.bool)
Equal = _binary("Equal", np.equal, ANY, out_dtype=dtypes.bool)
NotEqual = _binary("NotEqual", np.not_equal, ANY, out_dtype=dtypes.bool)
LogicalAnd = _binary("LogicalAnd", np.logical_and, BOOL, out_dtype=dtypes.bool)
LogicalOr = _binary("LogicalOr", np.logical_or, BOOL, out_dtype=dtypes.bool)
LogicalNot = _unary("LogicalNot", np.logical_not, BOOL)
# `&`, `|`, `^` and `~` on integer tensors are bitwise, as in TensorFlow (on bools they are logical).
BitwiseAnd = _binary("BitwiseAnd", np.bitwise_and, dtypes.INTEGERS)
BitwiseOr = _binary("BitwiseOr", np.bitwise_or, dtypes.INTEGERS)
BitwiseXor = _binary("BitwiseXor", np.bitwise_xor, dtypes.INTEGERS)
Invert = _unary("Invert", np.invert, dtypes.INTEGERS)


def less(x: Any, y: Any, name: str | None = None) -> Tensor:
    return binary_call(Less, x, y)


def less_equal(x: Any, y: Any, name: str | None = None) -> Tensor:
    return binary_call(LessEqual, x, y)


def greater(x: Any, y: Any, name: str | None = None) -> Tensor:
    return binary_call(Greater, x, y)


def greater_equal(x: Any, y: Any, name: str | None = None) -> Tensor:
    return binary_call(GreaterEqual, x, y)


def equal(x: Any, y: Any, name: str | None = None) -> Tensor:
    return binary_call(Equal, x, y)


def not_equal(x: Any, y: Any, name: str | None = None) -> Tensor:
    return binary_call(NotEqual, x, y)


def logical_and(x: Any, y: Any, name: str | None = None) -> Tensor:
    return binary_call(LogicalAnd, x, y)


def logical_or(x: Any, y: Any, name: str | None = None) -> Tensor:
    return binary_call(LogicalOr, x, y)


def logical_not(x: Any, name: str | None = None) -> Tensor:
    return bind(LogicalNot, convert_to_tensor(x))


def logical_xor(x: Any, y: Any, name: str | None = None) -> Tensor:
    """(x or y) and not (x and y), composed as TensorFlow composes it."""
    return logical_and(logical_or(x, y), logical_not(logical_and(x, y)))


# ---------------------------------------------------------------------------------------------------
# where / select
# ---------------------------------------------------------------------------------------------------

def _select_check(inputs: Sequence[Tensor], attrs: dict) -> None:
    c, x, y = inputs
    if c.dtype is not dtypes.bool:  # type: ignore[attr-defined]
        message = (f"condition must be a bool tensor, got {c.dtype.name} [Op:SelectV2] name: \nHint: build the "  # type: ignore
                   "condition with a comparison such as x > 0.")
        raise TypeError(message) if state.graph is not None else InvalidArgumentError(None, None, message)
    if x.dtype is not y.dtype:  # type: ignore[attr-defined]
        same_dtype("SelectV2", [x, y])


def _select_grad(c: Any, g: Tensor) -> list:
    cond, x, y = c.inputs
    zeros = zeros_like_(g)
    return [None, unbroadcast(where(cond, g, zeros), x), unbroadcast(where(cond, zeros, g), y)]


SelectV2 = Op("SelectV2", np.where, check=_select_check, shape=shapes.select_rule, grad=_select_grad,
              explain=lambda inputs, attrs, exc: "condition, x and y must be broadcastable: shapes "
              + " vs. ".join(_dims(list(np.shape(t._value))) for t in inputs))


def _where_kernel(c: np.ndarray) -> np.ndarray:
    if np.ndim(c) == 0:
        raise InvalidArgumentError(None, None, "WhereOp : Unhandled input dimensions: 0 [Op:Where] name: \nHint: "
                                   "tf.where(condition) needs a condition of rank >= 1.")
    return np.argwhere(c).astype(np.int64)


Where = Op("Where", _where_kernel, shape=shapes.where_rule, value_dependent=True)


def where(condition: Any, x: Any = None, y: Any = None, name: str | None = None) -> Tensor:
    """Three arguments: pick from x where condition holds, else from y. One argument: coordinates of the
    true (non-zero) entries as an int64 [N, rank] tensor."""
    condition = convert_to_tensor(condition)
    if x is None and y is None:
        if condition.dtype is dtypes.float16:  # type: ignore[attr-defined]
            raise UnimplementedError(None, None, "No WhereOp available for float16/half type on CPU; dying in CPU "
                                     "WhereOp to avoid silently creating costly copies from device. [Op:Where] name: ")
        if condition.dtype is not dtypes.bool:  # type: ignore[attr-defined]
            condition = not_equal(condition, 0)
        return bind(Where, condition)
    if x is None or y is None:
        raise ValueError("x and y must both be non-None or both be None.")
    if isinstance(x, Tensor) or not isinstance(y, Tensor):
        x = convert_to_tensor(x)
        y = convert_to_tensor(y, dtype=x.dtype)  # type: ignore[attr-defined]
    else:
        y = convert_to_tensor(y)
        x = convert_to_tensor(x, dtype=y.dtype)  # type: ignore[attr-defined]
    return bind(SelectV2, condition, x, y)


# ---------------------------------------------------------------------------------------------------
# Cast
# ---------------------------------------------------------------------------------------------------

def _cast_kernel(x: Any, DstT: dtypes.DType) -> Any:
    if x.dtype.kind == "c" and DstT._np.kind != "c":
        x = np.real(x)
    return np.asarray(x).astype(DstT._np)[()]


def _cast_grad(c: Any, g: Tensor) -> list:
    src = c.x.dtype
    if not (src.is_floating or src.is_complex) or not (g.dtype.is_floating or g.dtype.is_complex):
        return [None]
    return [cast(g, src)]


Cast = Op("Cast", _cast_kernel, shape=shapes.cast_rule, grad=_cast_grad)


def cast(x: Any, dtype: Any, name: str | None = None) -> Tensor:
    """Convert to `dtype`: floats to ints truncate toward zero, narrowing ints wrap around."""
    dtype = dtypes.as_dtype(dtype)
    x = x if isinstance(x, Tensor) else convert_to_tensor(x)
    if x.dtype is dtype:  # type: ignore[attr-defined]
        return x
    if (x.dtype is dtypes.string) != (dtype is dtypes.string):  # type: ignore[attr-defined]
        raise UnimplementedError(None, None, f"Cast {x.dtype.name} to {dtype.name} is not supported [Op:Cast] "  # type: ignore
                                 "name: \nHint: text and numbers do not convert into each other with tf.cast.")
    return bind(Cast, x, DstT=dtype)


def saturate_cast(value: Any, dtype: Any, name: str | None = None) -> Tensor:
    dtype = dtypes.as_dtype(dtype)
    value = convert_to_tensor(value)
    if dtype.is_integer or dtype.is_floating:
        lo = np.maximum(dtype.min, value.dtype.min) if not value.dtype.is_bool else 0  # type: ignore
        hi = np.minimum(dtype.max, value.dtype.max) if not value.dtype.is_bool else 1  # type: ignore
        value = clip_by_value(value, cast(lo, value.dtype), cast(hi, value.dtype))  # type: ignore[attr-defined]
    return cast(value, dtype)


# ---------------------------------------------------------------------------------------------------
# Reductions
# ---------------------------------------------------------------------------------------------------

def _axes(x: Tensor, axis: Any, op_name: str) -> tuple[int, ...] | None:
    """Normalise an axis argument (int, list, tensor or None) and check it like TensorFlow."""
    if axis is None:
        return None
    if isinstance(axis, Tensor):
        known = static_value(axis)
        if known is None:
            raise TypeError(f"the axis of {op_name} must be known when tracing in this engine; got a tensor computed "
                            "inside the function.\nHint: pass the axis as a Python int or list.")
        axis = np.asarray(known).tolist()
    axes = [int(a) for a in np.ravel(axis)]
    rank = x.shape.rank
    if rank is None:
        return tuple(axes)
    out = []
    for a in axes:
        if not -rank <= a < rank:  # a scalar has no axis at all
            message = (f"Invalid reduction dimension ({a} for input with {rank} dimension(s) [Op:{op_name}] "
                       f"name: \nHint: axis must be in [{-rank}, {rank}) for a rank-{rank} tensor.")
            if state.graph is not None:
                raise ValueError(message)
            raise InvalidArgumentError(None, None, message)
        if a % rank in out:
            raise InvalidArgumentError(None, None, f"Invalid reduction arguments: Axes contains duplicate dimension: "
                                       f"{a % rank} [Op:{op_name}]\nHint: list each axis once.")
        out.append(a % rank)
    return tuple(sorted(out))


def _reduce_kernel(np_fn: Callable, **extra: Any) -> Callable:
    def kernel(x: np.ndarray, axis: tuple | None, keepdims: bool) -> np.ndarray:
        if np.ndim(x) == 0:
            return np.asarray(x)[()]
        return np.asarray(np_fn(x, axis=axis, keepdims=keepdims, **extra))[()]
    return kernel


def _sum_kernel(x: np.ndarray, axis: tuple | None, keepdims: bool) -> Any:
    if _in_tensorflows_order(x):
        return _keep_dims(summation.tf_sum(x, axis), x, axis, keepdims)
    return np.asarray(np.sum(x, axis=axis, keepdims=keepdims, dtype=x.dtype))[()]


def _in_tensorflows_order(x: Any) -> bool:
    """float32 and float64 sums follow TensorFlow's order (summation.py), so they print its last digit."""
    return isinstance(x, np.ndarray) and x.ndim > 0 and x.dtype in (np.float32, np.float64)


def _keep_dims(total: np.ndarray, x: np.ndarray, axis: tuple | None, keepdims: bool) -> Any:
    if keepdims:
        axes = range(x.ndim) if axis is None else axis
        total = total.reshape([1 if i in axes else d for i, d in enumerate(x.shape)])
    return np.asarray(total)[()]


def _prod_kernel(x: np.ndarray, axis: tuple | None, keepdims: bool) -> Any:
    return np.asarray(np.prod(x, axis=axis, keepdims=keepdims, dtype=x.dtype))[()]


def _mean_kernel(x: np.ndarray, axis: tuple | None, keepdims: bool) -> Any:
    if x.dtype.kind in "iu":
        # TensorFlow sums narrow integers in 64 bits (the mean of uint8 [1, 255] is 128); int64 wraps.
        total = np.sum(x, axis=axis, keepdims=keepdims, dtype=np.int64 if x.dtype.itemsize < 8 else x.dtype)
        count = np.size(x) // max(np.size(total), 1) if np.size(x) else 0
        if count == 0:
            return np.asarray(np.zeros_like(total)).astype(x.dtype)[()]
        # Integer mean truncates toward zero: mean([-1, -2]) is -1.
        quotient = total // count
        quotient = quotient + ((total < 0) & (quotient * count != total))
        return np.asarray(quotient).astype(x.dtype)[()]
    if _in_tensorflows_order(x):  # TensorFlow's mean: the sum, divided by the count in the same precision
        total = summation.tf_sum(x, axis)
        count = x.dtype.type(x.size // total.size if total.size else 0)
        if not keepdims and type(total) is not np.ndarray:  # a whole tensor: NumPy scalars divide in a tenth of
            return total / count  # the time of arrays (the same float division)
        return _keep_dims(total / count, x, axis, keepdims)
    return np.asarray(np.mean(x, axis=axis, keepdims=keepdims, dtype=x.dtype))[()]


def _extreme_kernel(np_fn: Callable, initial_of: Callable) -> Callable:
    def kernel(x: np.ndarray, axis: tuple | None, keepdims: bool) -> Any:
        # `initial` makes empty reductions give TensorFlow's identities (-inf for max, INT_MIN for int max...).
        return np.asarray(np_fn(x, axis=axis, keepdims=keepdims, initial=initial_of(x.dtype)))[()]
    return kernel


def _lowest(dt: np.dtype) -> Any:
    return -np.inf if dt.kind == "f" else np.iinfo(dt).min if dt.kind in "iu" else False


def _highest(dt: np.dtype) -> Any:
    return np.inf if dt.kind == "f" else np.iinfo(dt).max if dt.kind in "iu" else True


def _keep_reduced(t: Tensor, c: Any) -> Tensor:
    """A reduced tensor reshaped with the reduced axes kept as size 1, ready to broadcast back."""
    if c.attrs["keepdims"]:
        return t
    return bind(KeepDims, t, c.x, axis=c.attrs["axis"])


def _sum_grad(c: Any, g: Tensor) -> list:
    return [broadcast_like(_keep_reduced(g, c), c.x)]


def _mean_grad(c: Any, g: Tensor) -> list:
    count = cast(size(c.x), g.dtype) / cast(size(g), g.dtype)  # type: ignore[attr-defined]
    return [broadcast_like(_keep_reduced(g, c), c.x) / count]


def _prod_grad(c: Any, g: Tensor) -> list:
    """d prod / d x_i is the product of all the other entries: exclusive cumulative products from the left
    and from the right, multiplied (TensorFlow's method; no division, so zeros in x are fine)."""
    from minitf.ops.array_ops import reshape, transpose

    x = c.x
    g = broadcast_like(_keep_reduced(g, c), x)
    if not x.shape.is_fully_defined():  # a traced input of unknown size: prod / x (wrong only where x is 0)
        return [g * broadcast_like(_keep_reduced(c.out, c), x) / x]
    shape = x.shape.as_list()
    rank = len(shape)
    if rank == 0:
        return [g]
    reduced = list(range(rank)) if c.attrs["axis"] is None else list(c.attrs["axis"])
    other = [i for i in range(rank) if i not in reduced]
    perm = reduced + other
    permuted = transpose(x, perm)
    flat = reshape(permuted, [int(np.prod([shape[i] for i in reduced])), int(np.prod([shape[i] for i in other]))])
    left = cumprod(flat, axis=0, exclusive=True)
    right = cumprod(flat, axis=0, exclusive=True, reverse=True)
    others = reshape(_conj_if_complex(left) * _conj_if_complex(right), [shape[i] for i in perm])
    return [g * transpose(others, [int(i) for i in np.argsort(perm)])]


def _extreme_grad(c: Any, g: Tensor) -> list:
    # Ties share the gradient equally, as TensorFlow does: [1, 3, 3] -> [0, .5, .5].
    out = broadcast_like(_keep_reduced(c.out, c), c.x)
    hits = cast(equal(c.x, out), g.dtype)  # type: ignore[attr-defined]
    count = broadcast_like(_keep_reduced(bind(Sum, hits, axis=c.attrs["axis"], keepdims=c.attrs["keepdims"]), c),
                           c.x)
    return [broadcast_like(_keep_reduced(g, c), c.x) * hits / count]


def _reduction(name: str, kernel: Callable, allowed: frozenset, grad: Callable | None = None) -> Op:
    def check(inputs: Sequence[Tensor], attrs: dict) -> None:
        allowed_dtypes(name, allowed, inputs[0].dtype)  # type: ignore[attr-defined]
    return Op(name, kernel, check=check, shape=shapes.reduce_rule, grad=grad)


Sum = _reduction("Sum", _sum_kernel, NUM, _sum_grad)
Mean = _reduction("Mean", _mean_kernel, NUM, _mean_grad)
Prod = _reduction("Prod", _prod_kernel, NUM, _prod_grad)
Max = _reduction("Max", _extreme_kernel(np.max, _lowest), REAL, _extreme_grad)
Min = _reduction("Min", _extreme_kernel(np.min, _highest), REAL, _extreme_grad)
Any_ = _reduction("Any", _reduce_kernel(np.any), BOOL)
All = _reduction("All", _reduce_kernel(np.all), BOOL)


def _keepdims_kernel(g: np.ndarray, like: np.ndarray, axis: tuple | None) -> np.ndarray:
    shape = [1 if (axis is None or i in axis) else d for i, d in enumerate(np.shape(like))]
    return np.reshape(g, shape)


KeepDims = Op("KeepDims", _keepdims_kernel, shape=shapes.keepdims_rule,
              grad=lambda c, g: [bind(Reshape_like, g, c.x), None])
Reshape_like = Op("ReshapeLike", lambda x, like: np.reshape(x, np.shape(like)), shape=shapes.same_as_second,
                  grad=lambda c, g: [bind(Reshape_like, g, c.x), None])


def _reduce(op: Op, input_tensor: Any, axis: Any, keepdims: bool) -> Tensor:
    x = convert_to_tensor(input_tensor)
    if op.check is not None:
        op.check([x], {})  # the dtype first: TensorFlow reports it before a bad axis
    return bind(op, x, axis=_axes(x, axis, op.name), keepdims=bool(keepdims))


def reduce_sum(input_tensor: Any, axis: Any = None, keepdims: bool = False, name: str | None = None) -> Tensor:
    """Sum over `axis` (all axes if None). Bools must be cast first, as in TensorFlow."""
    return _reduce(Sum, input_tensor, axis, keepdims)


def reduce_mean(input_tensor: Any, axis: Any = None, keepdims: bool = False, name: str | None = None) -> Tensor:
    """Mean over `axis`. On integers the result is an integer, truncated toward zero."""
    return _reduce(Mean, input_tensor, axis, keepdims)


def reduce_prod(input_tensor: Any, axis: Any = None, keepdims: bool = False, name: str | None = None) -> Tensor:
    return _reduce(Prod, input_tensor, axis, keepdims)


def reduce_max(input_tensor: Any, axis: Any = None, keepdims: bool = False, name: str | None = None) -> Tensor:
    return _reduce(Max, input_tensor, axis, keepdims)


def reduce_min(input_tensor: Any, axis: Any = None, keepdims: bool = False, name: str | None = None) -> Tensor:
    return _reduce(Min, input_tensor, axis, keepdims)


def reduce_any(input_tensor: Any, axis: Any = None, keepdims: bool = False, name: str | None = None) -> Tensor:
    return _reduce(Any_, _bool_input(input_tensor, axis), axis, keepdims)


def reduce_all(input_tensor: Any, axis: Any = None, keepdims: bool = False, name: str | None = None) -> Tensor:
    return _reduce(All, _bool_input(input_tensor, axis, "All"), axis, keepdims)


def _bool_input(value: Any, axis: Any, op_name: str = "Any") -> Tensor:
    """reduce_any/reduce_all take bools only (TensorFlow says ValueError when the axes are a list: its
    slower conversion path runs then)."""
    x = convert_to_tensor(value)
    if x.dtype is not dtypes.bool:  # type: ignore[attr-defined]
        if isinstance(axis, list | tuple) and state.graph is None:
            raise ValueError(f"Tensor conversion requested dtype bool for Tensor with dtype "
                             f"{x.dtype.name}: {x!r}")  # type: ignore[attr-defined]
        raise dtype_mismatch(op_name, 0, dtypes.bool, x.dtype)  # type: ignore[attr-defined]
    return x


def reduce_logsumexp(input_tensor: Any, axis: Any = None, keepdims: bool = False,
                     name: str | None = None) -> Tensor:
    """log(sum(exp(x))) computed stably: the max is subtracted first (and kept out of the gradient)."""
    from minitf.ops.array_ops import stop_gradient

    x = convert_to_tensor(input_tensor)
    allowed_dtypes("Exp", FC, x.dtype)  # type: ignore[attr-defined]
    raw_max = reduce_max(x, axis, keepdims=True)
    finite_max = stop_gradient(where(is_finite(raw_max), raw_max, zeros_like_(raw_max)))
    result = log(reduce_sum(exp(x - finite_max), axis, keepdims=True)) + finite_max
    if not keepdims:
        from minitf.ops.array_ops import squeeze
        axes = _axes(x, axis, "Sum")
        result = squeeze(result, axis=list(axes) if axes is not None else None)
        if axes is None:
            result = bind(Reshape_like, result, reduce_sum(x))
    return result


def _real_or_complex(x: Tensor) -> None:
    if not (x.dtype.is_floating or x.dtype.is_complex):  # type: ignore[attr-defined]
        raise TypeError(f"Input must be either real or complex. Received integer type {x.dtype}.\n"  # type: ignore
                        f"Hint: cast first, e.g. tf.math.reduce_std(tf.cast(x, tf.float32)).")


def reduce_variance(input_tensor: Any, axis: Any = None, keepdims: bool = False, name: str | None = None) -> Tensor:
    """Population variance (ddof=0): mean of squared deviations."""
    x = convert_to_tensor(input_tensor)
    mean = reduce_mean(x, axis, keepdims=True)  # first, as in TensorFlow: bad axes and bools fail here
    _real_or_complex(x)
    deviation = x - mean
    squared = real(deviation * conj(deviation)) if x.dtype.is_complex else square(deviation)  # type: ignore
    return reduce_mean(squared, axis, keepdims=keepdims)


def reduce_std(input_tensor: Any, axis: Any = None, keepdims: bool = False, name: str | None = None) -> Tensor:
    """Population standard deviation (ddof=0): `[[1, 2], [3, 4]]` gives 1.118034."""
    return sqrt(reduce_variance(input_tensor, axis, keepdims))


def reduce_euclidean_norm(input_tensor: Any, axis: Any = None, keepdims: bool = False,
                          name: str | None = None) -> Tensor:
    x = convert_to_tensor(input_tensor)
    if x.dtype.is_complex:  # type: ignore[attr-defined]
        return sqrt(reduce_sum(x * conj(x), axis, keepdims))
    if x.dtype.is_integer:  # type: ignore[attr-defined]  (TensorFlow sums the squares in the integer dtype)
        return cast(sqrt(cast(reduce_sum(x * x, axis, keepdims), dtypes.float64)), x.dtype)  # type: ignore
    return sqrt(reduce_sum(x * x, axis, keepdims))


def count_nonzero(input: Any, axis: Any = None, keepdims: bool = False, dtype: Any = dtypes.int64,  # noqa: A002
                  name: str | None = None) -> Tensor:
    x = convert_to_tensor(input)
    zero = "" if x.dtype is dtypes.string else np.zeros((), x.dtype._np)  # type: ignore[attr-defined]
    nonzero = not_equal(x, zero)
    return cast(reduce_sum(cast(nonzero, dtypes.int64), axis, keepdims), dtype)


# ---------------------------------------------------------------------------------------------------
# argmax / argmin / cumsum / cumprod
# ---------------------------------------------------------------------------------------------------

def _arg_kernel(np_fn: Callable) -> Callable:
    def kernel(x: np.ndarray, axis: int, output_type: dtypes.DType) -> np.ndarray:
        if np.shape(x)[axis] == 0:
            raise InvalidArgumentError(None, None, "Reduction axis 0 is empty in shape [0] [Op:ArgMax] name: ")
        return np.asarray(np_fn(x, axis=axis)).astype(output_type._np)[()]
    return kernel


def _arg_check(name: str) -> Callable:
    def check(inputs: Sequence[Tensor], attrs: dict) -> None:
        allowed_dtypes(name, REAL | {dtypes.bool}, inputs[0].dtype)  # type: ignore[attr-defined]
    return check


ArgMax = Op("ArgMax", _arg_kernel(np.argmax), check=_arg_check("ArgMax"), shape=shapes.arg_rule)
ArgMin = Op("ArgMin", _arg_kernel(np.argmin), check=_arg_check("ArgMin"), shape=shapes.arg_rule)


def _arg(op: Op, input: Any, axis: Any, output_type: Any) -> Tensor:  # noqa: A002
    x = convert_to_tensor(input)
    axis = 0 if axis is None else int(np.asarray(getattr(axis, "_value", axis)))
    rank = x.shape.rank
    if state.graph is not None and op.check is not None:
        op.check([x], {})  # building a graph, TensorFlow refuses the dtype before it looks at the axis
    if rank is not None and not -max(rank, 1) <= axis < max(rank, 1):
        # While tracing, TensorFlow checks the axis of a matrix (or more) at once, a vector's at run time.
        message = f"Expected dimension in the range [{-rank}, {rank}), but got {axis} [Op:{op.name}] name: "
        raise static_error(message) if rank > 1 else _invalid(message)
    if rank:
        axis %= rank
    return bind(op, x, axis=axis, output_type=dtypes.as_dtype(output_type))


def _invalid(message: str) -> InvalidArgumentError:
    return InvalidArgumentError(None, None, message)


def argmax(input: Any, axis: Any = None, output_type: Any = dtypes.int64, name: str | None = None) -> Tensor:  # noqa: A002
    """Index of the largest entry along `axis` (default 0), as int64; ties go to the first index."""
    return _arg(ArgMax, input, axis, output_type)


def argmin(input: Any, axis: Any = None, output_type: Any = dtypes.int64, name: str | None = None) -> Tensor:  # noqa: A002
    return _arg(ArgMin, input, axis, output_type)


def _cum_kernel(np_fn: Callable, identity: int) -> Callable:
    def kernel(x: np.ndarray, axis: int, exclusive: bool, reverse: bool) -> np.ndarray:
        if np.ndim(x) == 0:
            return x
        y = np.flip(x, axis) if reverse else x
        out = np_fn(y, axis=axis, dtype=x.dtype)
        if exclusive:
            pad = [(0, 0)] * np.ndim(x)
            pad[axis] = (1, 0)
            out = np.pad(out, pad, constant_values=identity)
            out = np.take(out, range(np.shape(x)[axis]), axis=axis)
        return np.flip(out, axis) if reverse else out
    return kernel


def _cumsum_grad(c: Any, g: Tensor) -> list:
    a = c.attrs
    return [bind(Cumsum, g, axis=a["axis"], exclusive=a["exclusive"], reverse=not a["reverse"])]


Cumsum = Op("Cumsum", _cum_kernel(np.cumsum, 0), shape=shapes.same_as_first, grad=_cumsum_grad)
def _cumprod_grad(c: Any, g: Tensor) -> list:
    # TensorFlow's rule: cumsum of (cumprod * g) the other way round, divided by x (0 where x is 0).
    a = c.attrs
    out = bind(Cumsum, c.out * g, axis=a["axis"], exclusive=a["exclusive"], reverse=not a["reverse"])
    return [divide_no_nan(out, c.x)]


Cumprod = Op("Cumprod", _cum_kernel(np.cumprod, 1), shape=shapes.same_as_first, grad=_cumprod_grad)


def _cum(op: Op, x: Any, axis: int, exclusive: bool, reverse: bool) -> Tensor:
    x = convert_to_tensor(x)
    allowed_dtypes(op.name, NUM, x.dtype)  # type: ignore[attr-defined]
    rank = x.shape.rank
    axis = int(np.asarray(getattr(axis, "_value", axis)))
    if rank is not None and not -rank <= axis < rank:
        raise InvalidArgumentError(None, None, f"ScanOp: Expected scan axis in the range [{-rank}, {rank}), but got "
                                   f"{axis} [Op:{op.name}] name: ")
    return bind(op, x, axis=axis % rank if rank else axis, exclusive=bool(exclusive), reverse=bool(reverse))


def cumsum(x: Any, axis: int = 0, exclusive: bool = False, reverse: bool = False, name: str | None = None) -> Tensor:
    """Running sum along `axis`."""
    return _cum(Cumsum, x, axis, exclusive, reverse)


def cumprod(x: Any, axis: int = 0, exclusive: bool = False, reverse: bool = False, name: str | None = None) -> Tensor:
    return _cum(Cumprod, x, axis, exclusive, reverse)


# ---------------------------------------------------------------------------------------------------
# Compositions
# ---------------------------------------------------------------------------------------------------

def clip_by_value(t: Any, clip_value_min: Any, clip_value_max: Any, name: str | None = None) -> Tensor:
    """Clamp into [min, max]. The gradient is 1 inside the range, bounds included (ties favour `t`)."""
    t = convert_to_tensor(t)
    below_max = minimum(t, clip_value_max)  # TensorFlow applies the upper bound first (and converts it first)
    _same_shape(t, below_max)
    clipped = maximum(below_max, clip_value_min)
    _same_shape(t, clipped)
    return clipped


def _same_shape(t: Tensor, clipped: Tensor) -> None:
    if clipped.shape != t.shape and t.shape.is_fully_defined():
        raise ValueError(f"Shapes {t.shape} and {clipped.shape} are incompatible\nHint: the bounds of "
                         f"clip_by_value may broadcast to the clipped tensor's shape {t.shape}, not beyond it.")


def add_n(inputs: Sequence[Any], name: str | None = None) -> Tensor:
    total = convert_to_tensor(inputs[0])
    for x in inputs[1:]:
        total = add(total, x)
    return total


def zeros_like_(x: Tensor) -> Tensor:
    from minitf.ops.array_ops import zeros_like
    return zeros_like(x)


def ones_like_(x: Tensor) -> Tensor:
    from minitf.ops.array_ops import ones_like
    return ones_like(x)


def size(x: Tensor) -> Tensor:
    from minitf.ops.array_ops import size as size_
    return size_(x)


def scalar_mul(scalar: Any, x: Any, name: str | None = None) -> Tensor:
    x = convert_to_tensor(x)
    return multiply(convert_to_tensor(scalar, dtype=x.dtype), x)  # type: ignore[attr-defined]
