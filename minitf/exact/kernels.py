"""The kernels of TensorFlow-exact numerics: for each op whose float results TensorFlow computes in its own way,
a kernel that takes TensorFlow's path for the dtypes it models and the op's NumPy kernel for the rest, and the
C library's functions for the random ops' Box-Muller transform.

`overrides()` is the whole table; `minitf.numerics` installs it (and takes it out again).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from minitf.core.op import Op
from minitf.exact import exp_log, libm, reciprocal, summation, tanh
from minitf.ops.math import reductions, special, unary_math
from minitf.ops.nn import nn_ops
from minitf.ops.random import philox

Kernel = Callable[..., Any]


def _float32(exact: Callable[[np.ndarray], np.ndarray], default: Kernel) -> Kernel:
    """float32 through TensorFlow's own kernel, other dtypes through the op's NumPy kernel."""

    def kernel(x: Any) -> Any:
        if np.asarray(x).dtype == np.float32:
            return exact(np.asarray(x))[()]
        return default(x)

    return kernel


def _tanh(x: Any) -> Any:
    """float32, float64 and float16 as TensorFlow's Eigen kernel computes them (`tanh.py`); complex: NumPy."""
    x = np.asarray(x)
    exact = {
        np.dtype(np.float32): tanh.tanh32,
        np.dtype(np.float64): tanh.tanh64,
        np.dtype(np.float16): tanh.tanh16,
    }.get(x.dtype)
    return (np.tanh(x) if exact is None else exact(x))[()]


def _in_order(x: Any) -> bool:
    """float32 and float64 sums follow TensorFlow's order (summation.py)."""
    return isinstance(x, np.ndarray) and x.ndim > 0 and x.dtype in (np.float32, np.float64)


def _keep_dims(total: np.ndarray | np.generic, x: np.ndarray, axis: tuple | None, keepdims: bool) -> Any:
    if keepdims:
        axes = range(x.ndim) if axis is None else axis
        total = total.reshape([1 if i in axes else d for i, d in enumerate(x.shape)])
    return np.asarray(total)[()]


def _sum(x: np.ndarray, axis: tuple | None, keepdims: bool) -> Any:
    if _in_order(x):
        return _keep_dims(summation.tf_sum(x, axis), x, axis, keepdims)
    return reductions.sum_kernel(x, axis, keepdims)


def _mean(x: np.ndarray, axis: tuple | None, keepdims: bool) -> Any:
    """TensorFlow's mean: the ordered sum, divided by the count in the same precision."""
    if not _in_order(x):
        return reductions.mean_kernel(x, axis, keepdims)
    total = summation.tf_sum(x, axis)
    count = x.dtype.type(x.size // total.size if total.size else 0)
    if not keepdims and type(total) is not np.ndarray:  # a whole tensor: NumPy scalars divide in a tenth of
        return total / count  # the time of arrays (the same float division)
    return _keep_dims(total / count, x, axis, keepdims)


# Softmax on rows (the class axis last): the sum adds in TensorFlow's order, softmax multiplies by the sum's
# reciprocal. float32 exp and log are TensorFlow's own (`exp_log`): softmax takes the exp of the whole tensor
# of shifted logits (packets, then the C library for the last n % 8 values); log_softmax takes the exp inside
# the sum, row by row (packets, then the C library for the last k % 8 values of each row), and the log of the
# row sums as a tensor of its own. float64 exp and log are NumPy's.


def _along_last_axis(rows_kernel: Callable[[np.ndarray], np.ndarray], default: Kernel) -> Kernel:
    """`rows_kernel` on the rows of `x` with `axis` swapped to the end, as `tf.nn.softmax(axis=...)` swaps it
    (the order of the rows decides which values the float32 exp computes in a packet)."""

    def kernel(x: np.ndarray, axis: int) -> np.ndarray:
        if x.size == 0 or x.dtype not in (np.float32, np.float64):
            return default(x, axis)
        swapped = np.swapaxes(x, axis, -1)
        rows = np.ascontiguousarray(swapped).reshape(-1, swapped.shape[-1])
        return np.swapaxes(rows_kernel(rows).reshape(swapped.shape), -1, axis)

    return kernel


def _softmax_rows(rows: np.ndarray) -> np.ndarray:
    shifted = rows - rows.max(axis=1, keepdims=True)
    if rows.dtype == np.float32:  # Eigen's packet reciprocal (the processor's rcpps) for whole packets of sums
        e = exp_log.exp(shifted)
        return e * reciprocal.reciprocal(summation.row_sums(e))[:, None]
    e = np.exp(shifted)
    return e * (rows.dtype.type(1) / summation.row_sums(e))[:, None]


def _log_softmax_rows(rows: np.ndarray) -> np.ndarray:
    shifted = rows - rows.max(axis=1, keepdims=True)
    if rows.dtype == np.float32:
        sums = summation.row_sums(exp_log.along_rows(shifted, exp_log.exp_packet, exp_log.exp_scalar))
        return shifted - exp_log.log(sums)[:, None]
    return shifted - np.log(summation.row_sums(np.exp(shifted)))[:, None]


def _xlogy(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    return special.xlogy_values(x, y, lambda v: exp_log.log(v) if v.dtype == np.float32 else np.log(v))


Override = tuple[object, str, Any]  # (owner, attribute, TensorFlow-exact value)


def _softplus(x: np.ndarray) -> np.ndarray:
    return nn_ops.softplus_kernel(x, lambda v: exp_log.exp(v) if v.dtype == np.float32 else np.exp(v))


def overrides() -> list[Override]:
    """What TensorFlow-exact numerics replace: each op's kernel, and Box-Muller's log, sin and cos."""
    kernels: dict[Op, Kernel] = {
        unary_math.Exp: _float32(exp_log.exp, np.exp),
        unary_math.Log: _float32(exp_log.log, np.log),
        unary_math.Tanh: _tanh,
        unary_math.Sigmoid: _float32(exp_log.sigmoid, unary_math.Sigmoid.kernel),
        unary_math.Reciprocal: _float32(reciprocal.reciprocal, unary_math.Reciprocal.kernel),
        reductions.Sum: _sum,
        reductions.Mean: _mean,
        nn_ops.Softmax: _along_last_axis(_softmax_rows, nn_ops.softmax_kernel),
        nn_ops.LogSoftmax: _along_last_axis(_log_softmax_rows, nn_ops.log_softmax_kernel),
        nn_ops.Softplus: _softplus,
        special.Xlogy: special.zero_where_x_is_zero(_xlogy),
    }
    box_muller = {name: libm.c_library(name) for name in philox.BOX_MULLER_MATH}
    return [(op, "kernel", kernel) for op, kernel in kernels.items()] + [(philox, "BOX_MULLER_MATH", box_muller)]
