"""Elementwise arithmetic of two tensors: add, subtract, multiply, divide, pow, maximum, floordiv, mod, ...;
realdiv, accumulate_n (add_n's older name) and nextafter (NumPy's, no gradient, as in TensorFlow).

No implicit promotion: both operands must have the same dtype (a Python number is converted to the tensor's
dtype first). Gradients are summed back over broadcast dimensions (`unbroadcast`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from minitf.core import dtypes
from minitf.core.conversion import convert_to_tensor
from minitf.core.dispatch import elementwise_handler
from minitf.core.errors import InternalError, InvalidArgumentError, dims_text, no_kernel, op_error, static_error
from minitf.core.op import GradContext, bind
from minitf.core.tensor import Tensor
from minitf.ops.array.where import where
from minitf.ops.math.cast import cast
from minitf.ops.math.elementwise import (
    FC,
    FLOATS_AND_WIDE_INTS,
    NUM,
    REAL,
    SIGNED,
    binary_call,
    binary_op,
    ones_like_,
    unbroadcast,
    zeros_like_,
)
from minitf.ops.math.unary_math import _conj_if_complex, log, negative


def _add_grad(c: GradContext, g: Tensor) -> list:
    x, y = c.inputs
    return [unbroadcast(g, x) if c.needs[0] else None, unbroadcast(g, y) if c.needs[1] else None]


def _sub_grad(c: GradContext, g: Tensor) -> list:
    return [unbroadcast(g, c.x) if c.needs[0] else None, unbroadcast(negative(g), c.y) if c.needs[1] else None]


def _mul_grad(c: GradContext, g: Tensor) -> list:
    x, y = c.inputs
    return [
        unbroadcast(g * _conj_if_complex(y), x) if c.needs[0] else None,
        unbroadcast(_conj_if_complex(x) * g, y) if c.needs[1] else None,
    ]


def _div_grad(c: GradContext, g: Tensor) -> list:
    x, y = c.x, c.y
    # TensorFlow's order of operations, g * ((-x / y) / y), so that infinities come out the same at y = 0.
    return [
        unbroadcast(g / y, x) if c.needs[0] else None,
        unbroadcast(g * (negative(x) / y / y), y) if c.needs[1] else None,
    ]


def _pow_grad(c: GradContext, g: Tensor) -> list:
    x, y, z = c.x, c.y, c.out
    dx = g * y * pow(x, y - 1)
    if not c.needs[1]:  # `x ** 2` of a watched x: the exponent's gradient (a log and selects) is not wanted
        return [unbroadcast(dx, x), None]
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
        raise op_error(
            InvalidArgumentError,
            "FloorDiv",
            "Integer division by zero",
            hint="an integer tensor has a 0 where you divide; check the divisor.",
        )
    if x.dtype.kind == "f":
        return np.floor(np.true_divide(x, y))  # TensorFlow's floor(x / y): inf // 1 is inf (NumPy says nan)
    return np.floor_divide(x, y)


def _mod_kernel(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    if x.dtype.kind in "iu":
        if np.any(np.asarray(y) == 0) and np.broadcast(x, y).size:
            raise op_error(
                InvalidArgumentError,
                "FloorMod",
                "Integer division by zero",
                hint="an integer tensor has a 0 where you take the remainder.",
            )
        return np.mod(x, y)
    # TensorFlow's float rule: C's fmod, moved by one divisor when the signs differ (keeps fmod's zero sign).
    remainder = np.fmod(x, y)
    return np.where((remainder != 0) & ((y < 0) != (remainder < 0)), remainder + y, remainder)


def _squared_difference(d: np.ndarray) -> np.ndarray:
    return d * np.conj(d) if d.dtype.kind == "c" else np.square(d)  # |x - y|^2 for complex numbers


def _pow_kernel(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    if x.dtype.kind in "iu" and np.any(np.asarray(y) < 0) and np.broadcast(x, y).size:
        raise InvalidArgumentError(
            None,
            None,
            "Integers to negative integer powers are not allowed [Op:Pow] "
            "name: \nHint: cast to a float dtype first, e.g. tf.cast(x, tf.float32).",
        )
    return np.power(x, y)


def _maxmin_grad(first_wins: Callable) -> Callable:
    """Gradient of maximum/minimum: where the two tie, TensorFlow gives it all to the first argument."""

    def grad(c: GradContext, g: Tensor) -> list:
        x, y = c.x, c.y
        mask = first_wins(x, y)
        zeros = zeros_like_(g)
        return [unbroadcast(where(mask, g, zeros), x), unbroadcast(where(mask, zeros, g), y)]

    return grad


def _true_divide(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """x / y; a complex number divided by 0 is nan+nanj, as Eigen's scaled complex division gives (it divides
    by max(|re|, |im|) of the divisor first), where NumPy gives inf+infj."""
    out = np.true_divide(x, y)
    if out.dtype.kind == "c":
        by_zero = np.broadcast_to(np.asarray(y) == 0, out.shape)
        if by_zero.any():
            out = np.where(by_zero, out.dtype.type(complex(np.nan, np.nan)), out)
    return out


def _realdiv_kernel(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """RealDiv's op accepts integers, but TensorFlow registers CPU kernels only for floats and complex numbers."""
    if x.dtype.kind in "iu":
        raise no_kernel("RealDiv", dtypes.from_numpy(x.dtype))
    return _true_divide(x, y)


Add = binary_op("AddV2", np.add, NUM | {dtypes.string}, _add_grad)
Sub = binary_op("Sub", np.subtract, NUM, _sub_grad)
Mul = binary_op("Mul", np.multiply, NUM, _mul_grad)
RealDiv = binary_op("RealDiv", _realdiv_kernel, NUM, _div_grad)
Div = binary_op("Div", _true_divide, FC, _div_grad)
FloorDiv = binary_op("FloorDiv", _floordiv_kernel, NUM)
FloorMod = binary_op(
    "FloorMod",
    _mod_kernel,
    REAL,
    lambda c, g: [unbroadcast(g, c.x), unbroadcast(negative(g) * floordiv(c.x, c.y), c.y)],
)
Pow = binary_op("Pow", _pow_kernel, SIGNED, _pow_grad)
Maximum = binary_op("Maximum", np.maximum, REAL, _maxmin_grad(lambda x, y: x >= y))
Minimum = binary_op("Minimum", np.minimum, REAL, _maxmin_grad(lambda x, y: x <= y))
SquaredDifference = binary_op(
    "SquaredDifference",
    lambda x, y: _squared_difference(x - y),
    FLOATS_AND_WIDE_INTS | FC,
    lambda c, g: [unbroadcast(2.0 * g * (c.x - c.y), c.x), unbroadcast(-2.0 * g * (c.x - c.y), c.y)],
)


def _truncate_kernel(name: str, np_fn: Callable) -> Callable:
    """TruncateDiv/TruncateMod: C semantics (round toward zero); integer division by zero is an InternalError."""

    def kernel(x: np.ndarray, y: np.ndarray) -> np.ndarray:
        if x.dtype.kind == "c" or (name == "TruncateMod" and x.dtype == np.float16):
            raise no_kernel(name, dtypes.from_numpy(x.dtype))
        if x.dtype.kind in "iu" and np.any(np.asarray(y) == 0) and np.broadcast(x, y).size:
            raise op_error(
                InternalError,
                name,
                "Unexpected error in binary operator (only integer div and mod should have errors)",
                hint="an integer tensor has a 0 where you divide.",
            )
        return np_fn(x, y)

    return kernel


def _truncated_quotient(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    if x.dtype.kind in "iu":
        quotient = np.floor_divide(x, y)
        return quotient + ((quotient < 0) & (quotient * y != x))
    return np.trunc(x / y)


TruncateDiv = binary_op("TruncateDiv", _truncate_kernel("TruncateDiv", _truncated_quotient), NUM)
TruncateMod = binary_op(
    "TruncateMod",
    _truncate_kernel("TruncateMod", np.fmod),
    FLOATS_AND_WIDE_INTS,
    grad=lambda c, g: _no_gradient_registered("TruncateMod"),
)


def _no_gradient_registered(name: str) -> list:
    """TensorFlow has no gradient for some ops at all (not even None): asking for one is a LookupError."""
    raise LookupError(
        f"gradient registry has no entry for: {name}\nHint: {name} cannot be differentiated; "
        "compute the value under tape.stop_recording() or use a differentiable op."
    )


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


def pow(x: Any, y: Any, name: str | None = None) -> Tensor:  # TensorFlow's name
    return binary_call(Pow, x, y)


def maximum(x: Any, y: Any, name: str | None = None) -> Tensor:
    return binary_call(Maximum, x, y)


def minimum(x: Any, y: Any, name: str | None = None) -> Tensor:
    return binary_call(Minimum, x, y)


def squared_difference(x: Any, y: Any, name: str | None = None) -> Tensor:
    return binary_call(SquaredDifference, x, y)


_TRUEDIV = {
    dtypes.uint8: dtypes.float32,
    dtypes.int8: dtypes.float32,
    dtypes.uint16: dtypes.float32,
    dtypes.int16: dtypes.float32,
    dtypes.uint32: dtypes.float64,
    dtypes.int32: dtypes.float64,
    dtypes.uint64: dtypes.float64,
    dtypes.int64: dtypes.float64,
    dtypes.float16: None,
    dtypes.float32: None,
    dtypes.float64: None,
    dtypes.complex64: None,
    dtypes.complex128: None,
}


def truediv(x: Any, y: Any, name: str | None = None) -> Tensor:
    """`/`: integers are first cast to a float (int32 / int32 gives float64), as TensorFlow's table says."""
    if not (isinstance(x, Tensor) and isinstance(y, Tensor)) and (handler := elementwise_handler(x, y)) is not None:
        return handler(truediv, x, y)
    x = convert_to_tensor(x)
    y = convert_to_tensor(y, dtype_hint=x.dtype)
    return _truediv(x, y)


def _truediv(x: Tensor, y: Tensor) -> Tensor:
    if x.dtype is not y.dtype:
        raise TypeError(
            f"`x` and `y` must have the same dtype, got {x.dtype!r} != {y.dtype!r}.\n"
            f"Hint: use tf.cast so both sides of `/` have the same dtype."
        )
    if x.dtype not in _TRUEDIV:
        raise TypeError(
            f"Invalid dtype {x.dtype!r} in __truediv__. Expected one of {{{', '.join(repr(d) for d in _TRUEDIV)}}}."
        )
    target = _TRUEDIV[x.dtype]
    if target is not None:
        x, y = cast(x, target), cast(y, target)
    return bind(RealDiv, x, y)


def divide(x: Any, y: Any, name: str | None = None) -> Tensor:
    """`tf.divide` (= `tf.math.truediv` for tensors): `tf.divide(7, 2)` is 3.5 as a float64."""
    return truediv(x, y)


def divide_no_nan(x: Any, y: Any, name: str | None = None) -> Tensor:
    """x / y, but 0 where y is 0; integers are first cast to a float, as for `/`."""
    x = convert_to_tensor(x)
    y = convert_to_tensor(y, dtype=x.dtype)
    if x.dtype not in _TRUEDIV:
        raise TypeError(
            f"Invalid dtype {x.dtype!r} in tf.math.divide_no_nan. Expected one of "
            f"{{{', '.join(repr(d) for d in _TRUEDIV)}}}."
        )
    target = _TRUEDIV[x.dtype]
    if target is not None:
        x, y = cast(x, target), cast(y, target)
    zero = y == 0
    return where(zero, zeros_like_(x * y), x / where(zero, ones_like_(y), y))


def saturate_cast(value: Any, dtype: Any, name: str | None = None) -> Tensor:
    dtype = dtypes.as_dtype(dtype)
    value = convert_to_tensor(value)
    if dtype.is_integer or dtype.is_floating:
        lo = np.maximum(dtype.min, value.dtype.min) if not value.dtype.is_bool else 0
        hi = np.minimum(dtype.max, value.dtype.max) if not value.dtype.is_bool else 1
        value = clip_by_value(value, cast(lo, value.dtype), cast(hi, value.dtype))
    return cast(value, dtype)


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
        raise ValueError(
            f"Shapes {t.shape} and {clipped.shape} are incompatible\nHint: the bounds of "
            f"clip_by_value may broadcast to the clipped tensor's shape {t.shape}, not beyond it."
        )


def add_n(inputs: Sequence[Any], name: str | None = None) -> Tensor:
    """The sum of tensors of one shape (no broadcasting, unlike `+`)."""
    tensors = [convert_to_tensor(x) for x in inputs]
    for i, x in enumerate(tensors[1:], start=1):
        first, other = tensors[0].shape, x.shape
        if first.is_fully_defined() and other.is_fully_defined() and first != other:
            raise static_error(
                f"Inputs to operation AddN of type AddN must have the same size and shape.  Input 0: "
                f"{dims_text(first)} != input {i}: {dims_text(other)}",
                "AddN",
                "tf.add_n adds tensors of one shape; it does not broadcast.",
                kernel=f"AddN_N_{len(tensors)}",
            )
    total = tensors[0]
    for x in tensors[1:]:
        total = add(total, x)
    return total


def scalar_mul(scalar: Any, x: Any, name: str | None = None) -> Tensor:
    x = convert_to_tensor(x)
    return multiply(convert_to_tensor(scalar, dtype=x.dtype), x)


def realdiv(x: Any, y: Any, name: str | None = None) -> Tensor:
    """x / y for real floats (TensorFlow's RealDiv op)."""
    return binary_call(RealDiv, x, y)


def accumulate_n(inputs: Any, shape: Any = None, tensor_dtype: Any = None, name: str | None = None) -> Tensor:
    """The sum of a list of tensors of one shape (TensorFlow's older name for add_n)."""
    return add_n(inputs)


NextAfter = binary_op("NextAfter", np.nextafter, frozenset({dtypes.float32, dtypes.float64}))


def nextafter(x1: Any, x2: Any, name: str | None = None) -> Tensor:
    """The next representable float after x1 in the direction of x2."""
    return binary_call(NextAfter, x1, x2)
