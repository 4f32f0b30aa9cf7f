"""Complex numbers: `tf.complex` builds them from real and imaginary parts, `tf.math.angle` takes their
argument; `tf.math.real` / `imag` / `conj` (in unary_math.py) take them apart and get their gradients here,
because each is the other's: the gradient of Complex is the real and imaginary part of the incoming one, and
the gradient of Real or Imag is a complex number with the incoming gradient as that part.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from minitf.core import dtypes, shape_rules
from minitf.core.conversion import convert_to_tensor
from minitf.core.errors import allowed_dtypes, same_dtype
from minitf.core.op import GradContext, Op, bind
from minitf.core.tensor import Tensor
from minitf.ops.array.where import where
from minitf.ops.math import unary_math
from minitf.ops.math.binary_math import multiply
from minitf.ops.math.comparisons import less
from minitf.ops.math.elementwise import ones_like_, unbroadcast, zeros_like_

_COMPLEX_OF = {dtypes.float32: dtypes.complex64, dtypes.float64: dtypes.complex128}


def _complex_kernel(re: np.ndarray, im: np.ndarray, Tout: dtypes.DType) -> np.ndarray:
    out = np.empty(np.broadcast_shapes(np.shape(re), np.shape(im)), dtype=Tout._np)
    out.real, out.imag = re, im
    return out


def _complex_grad(c: GradContext, g: Tensor) -> list:
    return [
        unbroadcast(bind(unary_math.Real, g), c.x) if c.needs[0] else None,
        unbroadcast(bind(unary_math.Imag, g), c.y) if c.needs[1] else None,
    ]


def _complex_check(inputs: Sequence[Tensor], attrs: dict) -> None:
    re, im = inputs
    if re.dtype is not im.dtype:
        same_dtype("Complex", inputs)


Complex = Op(
    "Complex",
    _complex_kernel,
    check=_complex_check,
    shape=lambda s, t, a: [(shape_rules.broadcast_shapes(s[0], s[1]), a["Tout"])],
    grad=_complex_grad,
    elementwise=True,
)


def complex(real: Any, imag: Any, name: str | None = None) -> Tensor:
    """real + imag * 1j, elementwise (float32 parts give complex64, float64 parts complex128)."""
    re, im = convert_to_tensor(real), convert_to_tensor(imag)
    if re.dtype is not im.dtype or re.dtype not in _COMPLEX_OF:
        raise TypeError(
            f"The `real` and `imag` components have incorrect types: {re.dtype.name} "
            f"{im.dtype.name}. They must be consistent, and one of [tf.float32, tf.float64]\nHint: "
            "float32 parts give complex64, float64 parts complex128; tf.cast them first."
        )
    return bind(Complex, re, im, Tout=_COMPLEX_OF[re.dtype])


def _zero_like_real(g: Tensor) -> Tensor:
    return zeros_like_(g)


def _real_grad(c: GradContext, g: Tensor) -> list:
    return [complex(g, _zero_like_real(g))]


def _imag_grad(c: GradContext, g: Tensor) -> list:
    return [complex(_zero_like_real(g), g)]


unary_math.Real.grad = _real_grad
unary_math.Imag.grad = _imag_grad


def _angle_grad(c: GradContext, g: Tensor) -> list:
    # d angle / dz as TensorFlow writes it: -g / (imag + real * 1j), with g made complex.
    x = c.x
    z = unary_math.reciprocal(complex(bind(unary_math.Imag, x), bind(unary_math.Real, x)))
    return [multiply(unary_math.negative(complex(g, _zero_like_real(g))), z)]


Angle = Op(
    "Angle",
    lambda x: np.angle(x).astype(np.real(np.zeros((), x.dtype)).dtype),
    check=lambda i, a: allowed_dtypes("Angle", frozenset(_COMPLEX_OF.values()), i[0].dtype),
    shape=shape_rules.real_part_rule,
    grad=_angle_grad,
    elementwise=True,
)


def angle(input: Any, name: str | None = None) -> Tensor:
    """The argument of a complex number (atan2(imag, real)); for real numbers pi where negative, else 0."""
    x = convert_to_tensor(input)
    if x.dtype.is_complex:
        return bind(Angle, x)
    return where(less(x, zeros_like_(x)), np.pi * ones_like_(x), zeros_like_(x))
