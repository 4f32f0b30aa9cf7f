"""Trigonometry: sin, cos, tan, their inverses, the hyperbolic functions and atan2, each with its gradient."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from minitf.core.op import GradContext
from minitf.core.tensor import Tensor
from minitf.ops.array.creation import ones_like
from minitf.ops.math.binary_math import add, divide, multiply, subtract
from minitf.ops.math.elementwise import FC, F, binary_call, binary_op, unary_function, unary_op, unbroadcast
from minitf.ops.math.unary_math import conj, negative, reciprocal, rsqrt, square

Sin = unary_op("Sin", np.sin, FC, lambda c, g: [multiply(g, cos(c.x))])
Cos = unary_op("Cos", np.cos, FC, lambda c, g: [multiply(negative(g), sin(c.x))])
Tan = unary_op("Tan", np.tan, FC, lambda c, g: [g / square(cos(c.x))])


sin: Callable[..., Tensor] = unary_function(Sin, "Sine.")
cos: Callable[..., Tensor] = unary_function(Cos, "Cosine.")
tan = unary_function(Tan, "Tangent.")


def _one_minus_square(x: Tensor) -> Tensor:
    return subtract(ones_like(x), square(x))


Asin = unary_op("Asin", np.arcsin, FC, lambda c, g: [multiply(g, rsqrt(_one_minus_square(c.x)))])
Acos = unary_op("Acos", np.arccos, FC, lambda c, g: [negative(multiply(g, rsqrt(_one_minus_square(c.x))))])
Atan = unary_op("Atan", np.arctan, FC, lambda c, g: [divide(g, add(ones_like(c.x), square(c.x)))])
Sinh = unary_op("Sinh", np.sinh, FC, lambda c, g: [multiply(g, conj(cosh(c.x)))])
Cosh = unary_op("Cosh", np.cosh, FC, lambda c, g: [multiply(g, conj(sinh(c.x)))])
Asinh = unary_op("Asinh", np.arcsinh, FC, lambda c, g: [divide(g, conj(cosh(c.out)))])
Acosh = unary_op("Acosh", np.arccosh, FC, lambda c, g: [divide(g, conj(sinh(c.out)))])
Atanh = unary_op("Atanh", np.arctanh, FC, lambda c, g: [divide(g, _one_minus_square(c.x))])


def _atan2_grad(c: GradContext, g: Tensor) -> list:
    """d atan2(y, x) = (x dy - y dx) / (x^2 + y^2), each summed back to its input's shape."""
    y, x = c.inputs
    inverse = reciprocal(add(square(x), square(y)))
    return [
        unbroadcast(multiply(multiply(g, x), inverse), y),
        unbroadcast(negative(multiply(multiply(g, y), inverse)), x),
    ]


Atan2 = binary_op("Atan2", np.arctan2, F, _atan2_grad)

asin = unary_function(Asin, "The angle whose sine is x (nan outside [-1, 1]).")
acos = unary_function(Acos, "The angle whose cosine is x (nan outside [-1, 1]).")
atan = unary_function(Atan, "The angle whose tangent is x.")
sinh: Callable[..., Tensor] = unary_function(Sinh, "Hyperbolic sine.")
cosh: Callable[..., Tensor] = unary_function(Cosh, "Hyperbolic cosine.")
asinh = unary_function(Asinh, "Inverse hyperbolic sine.")
acosh = unary_function(Acosh, "Inverse hyperbolic cosine (nan below 1).")
atanh = unary_function(Atanh, "Inverse hyperbolic tangent (inf at +-1, nan beyond).")


def atan2(y: Any, x: Any, name: str | None = None) -> Tensor:
    """The angle of the point (x, y): arctan(y / x) in the right quadrant, in (-pi, pi]."""
    return binary_call(Atan2, y, x)
