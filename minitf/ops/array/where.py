"""Choosing values by a condition: `tf.where(c, x, y)` (`SelectV2`, elementwise with broadcasting) and
`tf.where(c)` (`Where`: the coordinates of the true entries).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from minitf.core import dtypes
from minitf.core.context import state
from minitf.core.conversion import convert_to_tensor
from minitf.core.errors import InvalidArgumentError, UnimplementedError, dims_text, op_error, same_dtype
from minitf.core.op import GradContext, Op, bind
from minitf.core.shape_rules import Spec, broadcast_shapes
from minitf.core.tensor import Tensor
from minitf.core.tensor_shape import TensorShape
from minitf.ops.math.comparisons import not_equal
from minitf.ops.math.elementwise import unbroadcast, zeros_like_


def _select_check(inputs: Sequence[Tensor], attrs: dict) -> None:
    c, x, y = inputs
    if c.dtype is not dtypes.bool:
        error = op_error(
            InvalidArgumentError,
            "SelectV2",
            f"condition must be a bool tensor, got {c.dtype.name}",
            "build the condition with a comparison such as x > 0.",
        )
        raise TypeError(error.message) if state.graph is not None else error
    if x.dtype is not y.dtype:
        same_dtype("SelectV2", [x, y])


def _select_grad(c: GradContext, g: Tensor) -> list:
    cond, x, y = c.inputs
    zeros = zeros_like_(g)
    needs = c.needs
    return [
        None,
        unbroadcast(bind(SelectV2, cond, g, zeros), x) if needs[1] else None,
        unbroadcast(bind(SelectV2, cond, zeros, g), y) if needs[2] else None,
    ]


def select_rule(shapes: Sequence[TensorShape], types: Sequence[dtypes.DType], attrs: dict) -> list[Spec]:
    return [(broadcast_shapes(broadcast_shapes(shapes[0], shapes[1]), shapes[2]), types[1])]


SelectV2 = Op(
    "SelectV2",
    np.where,
    check=_select_check,
    shape=select_rule,
    grad=_select_grad,
    explain=lambda inputs, attrs, exc: (
        "condition {}, then {}, and else {} must be broadcastable".format(
            *(dims_text(np.shape(t._value)) for t in inputs)
        )
        + "\nHint: condition, x and y broadcast together: aligned from the right, sizes must be equal or 1."
    ),
)


def _where_kernel(c: np.ndarray) -> np.ndarray:
    if np.ndim(c) == 0:
        raise op_error(
            InvalidArgumentError,
            "Where",
            "WhereOp : Unhandled input dimensions: 0",
            hint="tf.where(condition) needs a condition of rank >= 1.",
        )
    return np.argwhere(c).astype(np.int64)


def where_rule(
    shapes: Sequence[TensorShape], types: Sequence[dtypes.DType], attrs: dict, values: Sequence[Any] = ()
) -> list[Spec]:
    """tf.where(condition): one row per true entry, so the count is unknown even for a constant (as in
    TensorFlow, which does not evaluate it while building the graph)."""
    return [(TensorShape([None, shapes[0].rank]), dtypes.int64)]


Where = Op("Where", _where_kernel, shape=where_rule, value_dependent=True)


def where(condition: Any, x: Any = None, y: Any = None, name: str | None = None) -> Tensor:
    """Three arguments: pick from x where condition holds, else from y. One argument: coordinates of the
    true (non-zero) entries as an int64 [N, rank] tensor."""
    condition = convert_to_tensor(condition)
    if x is None and y is None:
        if condition.dtype is dtypes.float16:
            raise op_error(
                UnimplementedError,
                "Where",
                "No WhereOp available for float16/half type on CPU; dying in CPU "
                "WhereOp to avoid silently creating costly copies from device.",
            )
        if condition.dtype is not dtypes.bool:
            condition = not_equal(condition, 0)
        return bind(Where, condition)
    if x is None or y is None:
        raise ValueError("x and y must both be non-None or both be None.")
    if isinstance(x, Tensor) or not isinstance(y, Tensor):
        x = convert_to_tensor(x)
        y = convert_to_tensor(y, dtype=x.dtype)
    else:
        y = convert_to_tensor(y)
        x = convert_to_tensor(x, dtype=y.dtype)
    return bind(SelectV2, condition, x, y)
