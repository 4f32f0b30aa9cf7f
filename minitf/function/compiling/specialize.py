"""Nodes written as NumPy expressions in the generated code, with what their kernels decide on every call
(checks, axes, counts) decided once from the graph's known shapes and dtypes.

A traced graph knows its shapes and dtypes: a call can only run it with inputs of those shapes and dtypes
(the cache key sees to that). So where a kernel checks ranks and dtypes, works out the axes a broadcast
gradient is summed over, or dispatches on the dtype, the generated line can call NumPy directly:

    MatMul = np.matmul(a, b)                              # instead of ops.MatMul(a, b, transpose_a=False, ...)
    SumToShape = np.add.reduce(sub_fused, axis=(0,))      # the bias gradient: axes known when tracing
    ReadVariableOp = resource._value._value

Each expression computes exactly what the kernel computes (the same NumPy calls on the same values), so
results are bit for bit the same. A node whose shapes are not all known keeps its kernel call.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from minitf.core import dtypes
from minitf.function.tracing.graph import Operation
from minitf.ops.math.reductions import mean_kernel

Args = Sequence[str]  # the names of the inputs in the generated code
_FLOATS = (dtypes.float32, dtypes.float64)


def _known(op: Operation) -> bool:
    return all(t.shape.is_fully_defined() for t in (*op.inputs, *op.outputs))


def _matmul(op: Operation, args: Args) -> str | None:
    """Two matrices of a float dtype whose inner sizes agree: the kernel's checks all pass, so np.matmul."""
    a, b = op.inputs
    if a.dtype not in _FLOATS or b.dtype is not a.dtype or a.shape.rank != 2 or b.shape.rank != 2:
        return None
    inner_a = a.shape[0] if op.attrs["transpose_a"] else a.shape[1]
    inner_b = b.shape[1] if op.attrs["transpose_b"] else b.shape[0]
    if inner_a is None or inner_a != inner_b:
        return None
    left = f"{args[0]}.T" if op.attrs["transpose_a"] else args[0]
    right = f"{args[1]}.T" if op.attrs["transpose_b"] else args[1]
    return f"np.matmul({left}, {right})"


def _sum_to_shape(op: Operation, args: Args) -> str | None:
    """A broadcast gradient summed back to its input's shape over axes known now (the kernel's np.sum)."""
    g, like = op.inputs
    if not _known(op) or g.dtype not in _FLOATS:
        return None
    target = like.shape.as_list()
    shape = g.shape.as_list()
    extra = len(shape) - len(target)
    axes = tuple(range(extra)) + tuple(i + extra for i, d in enumerate(target) if d == 1 and shape[i + extra] != 1)
    if not axes:
        return None
    kept = [d for i, d in enumerate(shape) if i not in axes]
    text = f"np.add.reduce({args[0]}, axis={axes!r})"
    return text if kept == target else f"{text}.reshape({tuple(target)!r})"


def _mean(op: Operation, args: Args) -> str | None:
    """The float mean of a whole non-empty tensor as np.mean computes it, without its Python layer (a few
    microseconds): NumPy's pairwise sum, divided by the count, which is known. np.mean divides the float32 sum
    in float64 and rounds; one float32 division rounds to the same number. (Where another kernel computes the
    mean, as in TensorFlow-exact numerics, the kernel is called.)"""
    x = op.inputs[0]
    count = x.shape.num_elements()  # None while a dimension is unknown
    if (
        op.op_def.kernel is not mean_kernel
        or op.attrs["axis"] is not None
        or op.attrs["keepdims"]
        or x.dtype not in _FLOATS
        or not _known(op)
        or x.shape.rank == 0
        or not count
    ):
        return None
    return f"np.add.reduce({args[0]}, axis=None) / {float(count)!r}"


def _read(op: Operation, args: Args) -> str | None:
    return f"{args[0]}._value._value"


SPECIALIZED: dict[str, Callable[[Operation, Args], str | None]] = {
    "MatMul": _matmul,
    "SumToShape": _sum_to_shape,
    "Mean": _mean,
    "ReadVariableOp": _read,
}


def expression(op: Operation, args: Args) -> str | None:
    """The NumPy expression for `op` reading the inputs named `args`, or None to call its kernel."""
    rule = SPECIALIZED.get(op.type)
    return None if rule is None or "_kernel" in op.attrs else rule(op, args)
