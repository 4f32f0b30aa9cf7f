"""Which buffers generated code may write into, decided once from the graph (never by looking at a value).

A NumPy ufunc can write its result into an array it is given (`np.add(a, b, out=a)`) instead of making a new
one: for large tensors that saves memory traffic and allocations. It is only safe when nothing else can see
the buffer. The graph says when that is so, before any code runs:

* the buffer was allocated by the code being generated: the result of a ufunc node or of a matrix product
  (`allocates`), never an input of the function, a constant or a variable's value (someone else holds those);
* exactly one node reads it, the one about to overwrite it, and the function does not return it (`readers`);
* it has the shape and dtype of the result written into it, and at least `REUSE_MIN_ELEMENTS` elements (below
  that a fresh array costs less than passing `out=`).

The graph's code and every fused kernel ask the same question (`free_buffer`), and so does the SGD update
`v.assign_sub(lr * g)`: where `lr * g` is such a buffer, the new value is computed into it and becomes the
variable's value (`assign_sub_into_delta`), so the update allocates nothing and no one holding the old value
(a tensor read before, a NumPy array) sees it change.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from typing import Any

import numpy as np

from minitf.core.tensor import make
from minitf.function.tracing.graph import Operation, SymbolicTensor

REUSE_MIN_ELEMENTS = 4096  # below this, a fresh array costs less than passing `out=` (measured on NumPy 2)
Readers = dict[int, list[Operation | None]]


def readers(ops: Iterable[Operation], returned: Iterable[SymbolicTensor] = ()) -> Readers:
    """id(tensor) -> what reads it: each op that takes it as an input (once per input), in program order, and
    None for each time it is returned."""
    found: Readers = {}
    for op in ops:
        for t in op.inputs:
            found.setdefault(id(t), []).append(op)
    for t in returned:
        found.setdefault(id(t), []).append(None)
    return found


def only_reader(t: SymbolicTensor, found: Readers) -> Operation | None:
    """The one op that reads `t`, if exactly one does and `t` is not returned."""
    reading = found.get(id(t), [])
    return reading[0] if len(reading) == 1 else None


def takes_out(op: Operation) -> bool:
    """A node whose kernel is a NumPy ufunc called with inputs only: it accepts `out=`."""
    return isinstance(op.op_def.kernel, np.ufunc) and not op.attrs and len(op.outputs) == 1


def allocates(op: Operation) -> bool:
    """The node's result is always a new array: a ufunc's (or the buffer it was given, new itself) or a product's."""
    return takes_out(op) or op.type == "MatMul"


def free_buffer(t: SymbolicTensor, writer: Operation, found: Readers, made_here: Collection[int]) -> bool:
    """May `writer` overwrite `t`'s buffer? Only a large buffer the code allocated (its producer is among the ops
    of `made_here`, by id) that `writer` alone reads."""
    return (
        id(t.op) in made_here
        and allocates(t.op)
        and only_reader(t, found) is writer
        and t.shape.is_fully_defined()
        and (t.shape.num_elements() or 0) >= REUSE_MIN_ELEMENTS
    )


def reusable_input(op: Operation, found: Readers, made_here: Collection[int]) -> SymbolicTensor | None:
    """The input a ufunc node may write its result into (`out=`): a free buffer of the result's shape and dtype."""
    if not takes_out(op):
        return None
    out = op.outputs[0]
    for t in op.inputs:
        if free_buffer(t, op, found, made_here) and t.dtype is out.dtype and t.shape.as_list() == out.shape.as_list():
            return t
    return None


def reusable_delta(op: Operation, found: Readers, made_here: Collection[int]) -> bool:
    """`AssignSubVariableOp(v, delta)` may compute the new value into `delta`'s buffer (a free one of v's dtype)."""
    return (
        op.type == "AssignSubVariableOp"
        and free_buffer(op.inputs[1], op, found, made_here)
        and op.inputs[1].dtype is op.attrs["dtype"]
    )


def assign_sub_into_delta(variable: Any, delta: np.ndarray) -> tuple:
    """`variable.assign_sub(delta)` where the graph proved `delta`'s buffer free: the difference is written into
    it and stored as the new value. (A variable assigned another shape since tracing takes the kernel's way.)"""
    value = variable._value._value
    if type(value) is np.ndarray and value.shape == delta.shape and value.dtype == delta.dtype:
        variable._value = make(np.subtract(value, delta, out=delta), variable.dtype)
    else:
        variable._value = make(np.asarray(value - delta, dtype=variable.dtype._np)[()], variable.dtype)
    return ()
