"""Shape and dtype rules: what an op produces, worked out from its inputs' shapes and dtypes alone.

The tracer needs these to build a graph without running anything: each rule takes the inputs' static
shapes (TensorShape, with None for unknown dimensions), their dtypes and the op's attrs, and returns one
(shape, dtype) pair per output. Eager execution never calls them: NumPy's result tells the shape.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from minitf.core import dtypes
from minitf.core.tensor_shape import TensorShape

Spec = tuple[TensorShape, dtypes.DType]


def same_as_first(shapes: Sequence[TensorShape], types: Sequence[dtypes.DType], attrs: dict) -> list[Spec]:
    return [(shapes[0], types[0])]


def bool_rule(shapes: Sequence[TensorShape], types: Sequence[dtypes.DType], attrs: dict) -> list[Spec]:
    """Elementwise tests (IsNan, ...): the input's shape, bools."""
    return [(shapes[0], dtypes.bool)]


def real_part_rule(shapes: Sequence[TensorShape], types: Sequence[dtypes.DType], attrs: dict) -> list[Spec]:
    """Real, Imag and ComplexAbs: complex64 gives float32, complex128 float64."""
    return [(shapes[0], dtypes.float64 if types[0] is dtypes.complex128 else dtypes.float32)]


def same_as_second(shapes: Sequence[TensorShape], types: Sequence[dtypes.DType], attrs: dict) -> list[Spec]:
    return [(shapes[1], types[0])]


def broadcast_shapes(a: TensorShape, b: TensorShape) -> TensorShape:
    """NumPy's broadcasting on static shapes; an unknown dimension against 1 stays unknown."""
    if a.rank is None or b.rank is None:
        return TensorShape(None)
    da, db = list(a), list(b)
    n = max(len(da), len(db))
    one: list[int | None] = [1]
    da = one * (n - len(da)) + da
    db = one * (n - len(db)) + db
    out: list[int | None] = []
    for x, y in zip(da, db):
        if x == 1:
            out.append(y)
        elif y == 1 or x == y:
            out.append(x)
        elif x is None or y is None:
            out.append(x if y is None else y)
        else:
            raise ValueError(f"Dimensions must be equal, but are {x} and {y}")
    return TensorShape(out)


def broadcast_rule(out_dtype: dtypes.DType | None) -> Callable[..., list[Spec]]:
    def rule(shapes: Sequence[TensorShape], types: Sequence[dtypes.DType], attrs: dict) -> list[Spec]:
        return [(broadcast_shapes(shapes[0], shapes[1]), out_dtype or types[0])]

    return rule


def reduced_shape(shape: TensorShape, axis: Any, keepdims: bool) -> TensorShape:
    if axis is None and not keepdims:
        return TensorShape([])  # all axes, whatever the rank
    if shape.rank is None:
        return TensorShape(None)
    dims = list(shape)
    if axis is None:
        return TensorShape([1] * len(dims) if keepdims else [])
    if keepdims:
        return TensorShape([1 if i in axis else d for i, d in enumerate(dims)])
    return TensorShape([d for i, d in enumerate(dims) if i not in axis])


# ---------------------------------------------------------------------------------------------------
# Helpers: dimensions that may be unknown (None), and TensorFlow's graph-building errors
# ---------------------------------------------------------------------------------------------------
# A rule raises ValueError when the shapes alone make the op impossible; the tracer adds TensorFlow's
# "for '{{node ...}}' with input shapes: ..." to the message, as TensorFlow does while building a graph.


def shape_text(shape: TensorShape) -> str:
    """A shape as TensorFlow writes it in messages: [2,?,3], or ? for an unknown rank."""
    if shape.rank is None:
        return "?"
    return "[" + ",".join("?" if d is None else str(d) for d in shape) + "]"


def merge_dims(a: int | None, b: int | None, what: str) -> int | None:
    """Two sizes that must be equal: the known one wins, two different known ones are an error."""
    if a is None:
        return b
    if b is not None and a != b:
        raise ValueError(f"Dimensions must be equal, but are {a} and {b}{what}")
    return a


def need_rank(shape: TensorShape, rank: int, at_least: bool = False) -> None:
    if shape.rank is None:
        return
    if shape.rank < rank if at_least else shape.rank != rank:
        raise ValueError(f"Shape must be {'at least ' if at_least else ''}rank {rank} but is rank {shape.rank}")


# ---------------------------------------------------------------------------------------------------
# Creation and shape queries
# ---------------------------------------------------------------------------------------------------


def same_as_second_with_first_dtype(
    shapes: Sequence[TensorShape], types: Sequence[dtypes.DType], attrs: dict
) -> list[Spec]:
    """Gradient ops that give back a gradient (dtype of input 0) shaped like the forward input (input 1)."""
    return [(shapes[1], types[0])]


def same_as_third(shapes: Sequence[TensorShape], types: Sequence[dtypes.DType], attrs: dict) -> list[Spec]:
    return [(shapes[2], types[0])]


# ---------------------------------------------------------------------------------------------------
# Reshaping
# ---------------------------------------------------------------------------------------------------


# ---------------------------------------------------------------------------------------------------
# Joining and splitting
# ---------------------------------------------------------------------------------------------------


# ---------------------------------------------------------------------------------------------------
# Gathering and slicing
# ---------------------------------------------------------------------------------------------------


# ---------------------------------------------------------------------------------------------------
# Linear algebra
# ---------------------------------------------------------------------------------------------------


def add_sizes(a: int | None, b: int | None) -> int | None:
    """The sum of two dimension sizes, unknown (None) if either is."""
    return None if a is None or b is None else a + b
