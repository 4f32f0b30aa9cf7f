"""The public ops a SparseTensor takes over (minitf/core/dispatch.py), as TensorFlow's does: the elementwise ops
that keep a zero zero (`tf.abs(sp)`, `tf.square(sp)`, `tf.cast(sp, tf.int32)`) run on the stored values and keep
the indices; `tf.identity` and `tf.stop_gradient` do the same. An op that would turn the zeros into something
else (`tf.exp`) or mix in another operand (`tf.add`) is not among them: the SparseTensor fails to convert, with
TensorFlow's error.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from minitf.composite.sparse import SparseTensor
from minitf.core.dispatch import APIS
from minitf.ops.array.shape_ops import identity, stop_gradient
from minitf.ops.math.cast import cast
from minitf.ops.math.special import bessel_i0e, bessel_i1e, erf
from minitf.ops.math.trigonometry import asin, asinh, atan, atanh, sin, tan
from minitf.ops.math.unary_math import abs, negative, sign, sqrt, square, tanh

# The list is TensorFlow 2.21's (tests/engine/differential/test_sparse_dispatch.py finds it in TensorFlow itself).
ON_VALUES: dict[str, Callable[..., Any]] = {
    "abs": abs,
    "asin": asin,
    "asinh": asinh,
    "atan": atan,
    "atanh": atanh,
    "bessel_i0e": bessel_i0e,
    "bessel_i1e": bessel_i1e,
    "cast": cast,
    "erf": erf,
    "identity": identity,
    "negative": negative,
    "sign": sign,
    "sin": sin,
    "sqrt": sqrt,
    "square": square,
    "stop_gradient": stop_gradient,
    "tan": tan,
    "tanh": tanh,
}


def _on_values(api: Callable[..., Any]) -> Callable[..., Any]:
    def handler(sp: SparseTensor, *args: Any, **kwargs: Any) -> SparseTensor:
        return SparseTensor(sp.indices, api(sp.values, *args, **kwargs), sp.dense_shape)

    return handler


for _api in ON_VALUES.values():
    APIS[(_api, SparseTensor)] = _on_values(_api)
