"""Shape and dtype rules: what an op produces, worked out from its inputs' shapes and dtypes alone.

The tracer needs these to build a graph without running anything: each rule takes the inputs' static
shapes (TensorShape, with None for unknown dimensions), their dtypes and the op's attrs, and returns one
(shape, dtype) pair per output. Eager execution never calls them: NumPy's result tells the shape.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from minitf import dtypes
from minitf.tensor_shape import TensorShape

Spec = tuple[TensorShape, dtypes.DType]


def same_as_first(shapes: Sequence[TensorShape], types: Sequence[dtypes.DType], attrs: dict) -> list[Spec]:
    return [(shapes[0], types[0])]


def same_as_second(shapes: Sequence[TensorShape], types: Sequence[dtypes.DType], attrs: dict) -> list[Spec]:
    return [(shapes[1], types[0])]


def broadcast_shapes(a: TensorShape, b: TensorShape) -> TensorShape:
    """NumPy's broadcasting on static shapes; an unknown dimension against 1 stays unknown."""
    if a.rank is None or b.rank is None:
        return TensorShape(None)
    da, db = list(a), list(b)
    n = max(len(da), len(db))
    da = [1] * (n - len(da)) + da
    db = [1] * (n - len(db)) + db
    out: list[int | None] = []
    for x, y in zip(da, db):
        if x == 1:
            out.append(y)
        elif y == 1 or x == y:
            out.append(x)
        elif x is None or y is None:
            out.append(x if y is None else y)
        else:
            raise ValueError(f"Dimensions must be equal, but are {x} and {y} for shapes {a} and {b}.")
    return TensorShape(out)


def broadcast_rule(out_dtype: dtypes.DType | None) -> Callable[..., list[Spec]]:
    def rule(shapes: Sequence[TensorShape], types: Sequence[dtypes.DType], attrs: dict) -> list[Spec]:
        return [(broadcast_shapes(shapes[0], shapes[1]), out_dtype or types[0])]
    return rule


def select_rule(shapes: Sequence[TensorShape], types: Sequence[dtypes.DType], attrs: dict) -> list[Spec]:
    return [(broadcast_shapes(broadcast_shapes(shapes[0], shapes[1]), shapes[2]), types[1])]


def where_rule(shapes: Sequence[TensorShape], types: Sequence[dtypes.DType], attrs: dict) -> list[Spec]:
    return [(TensorShape([None, shapes[0].rank]), dtypes.int64)]


def cast_rule(shapes: Sequence[TensorShape], types: Sequence[dtypes.DType], attrs: dict) -> list[Spec]:
    return [(shapes[0], attrs["DstT"])]


def _reduced(shape: TensorShape, axis: Any, keepdims: bool) -> TensorShape:
    if shape.rank is None:
        return TensorShape(None)
    dims = list(shape)
    if axis is None:
        return TensorShape([1] * len(dims) if keepdims else [])
    if keepdims:
        return TensorShape([1 if i in axis else d for i, d in enumerate(dims)])
    return TensorShape([d for i, d in enumerate(dims) if i not in axis])


def reduce_rule(shapes: Sequence[TensorShape], types: Sequence[dtypes.DType], attrs: dict) -> list[Spec]:
    return [(_reduced(shapes[0], attrs["axis"], attrs["keepdims"]), types[0])]


def keepdims_rule(shapes: Sequence[TensorShape], types: Sequence[dtypes.DType], attrs: dict) -> list[Spec]:
    return [(_reduced(shapes[1], attrs["axis"], True), types[0])]


def arg_rule(shapes: Sequence[TensorShape], types: Sequence[dtypes.DType], attrs: dict) -> list[Spec]:
    return [(_reduced(shapes[0], (attrs["axis"],), False), attrs["output_type"])]


def attr_shape_rule(shapes: Sequence[TensorShape], types: Sequence[dtypes.DType], attrs: dict) -> list[Spec]:
    """Ops that make a tensor of the shape given in their `shape` attr (random sampling): tracing must not run
    them just to learn the shape, since running draws numbers."""
    return [(TensorShape(attrs["shape"]), types[0])]
