"""Comparisons and logic: `tf.less`, `tf.equal`, `tf.logical_and` ... (bit operations are in bitwise_ops.py)

Comparisons give bool tensors and have no gradient (as in TensorFlow); all of them broadcast.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from minitf.core import dtypes
from minitf.core.conversion import convert_to_tensor
from minitf.core.dispatch import elementwise_handler
from minitf.core.op import bind
from minitf.core.tensor import Tensor
from minitf.ops.math.elementwise import ANY, BOOL, REAL, binary_call, binary_op, unary_op

Less = binary_op("Less", np.less, REAL, out_dtype=dtypes.bool)
LessEqual = binary_op("LessEqual", np.less_equal, REAL, out_dtype=dtypes.bool)
Greater = binary_op("Greater", np.greater, REAL, out_dtype=dtypes.bool)
GreaterEqual = binary_op("GreaterEqual", np.greater_equal, REAL, out_dtype=dtypes.bool)
Equal = binary_op("Equal", np.equal, ANY, out_dtype=dtypes.bool)
NotEqual = binary_op("NotEqual", np.not_equal, ANY, out_dtype=dtypes.bool)
LogicalAnd = binary_op("LogicalAnd", np.logical_and, BOOL, out_dtype=dtypes.bool)
LogicalOr = binary_op("LogicalOr", np.logical_or, BOOL, out_dtype=dtypes.bool)
LogicalNot = unary_op("LogicalNot", np.logical_not, BOOL)


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
    if not isinstance(x, Tensor) and (handler := elementwise_handler(x)) is not None:
        return handler(logical_not, x)
    return bind(LogicalNot, convert_to_tensor(x))


def logical_xor(x: Any, y: Any, name: str | None = None) -> Tensor:
    """(x or y) and not (x and y), composed as TensorFlow composes it."""
    return logical_and(logical_or(x, y), logical_not(logical_and(x, y)))
