"""`tf.sets`: each row (the last axis) of a tensor read as a set; union, intersection, difference and size.

A row of a dense tensor is the set of its entries; a row of a SparseTensor is the set of the values stored in it.
The result of a set operation is a SparseTensor whose rows hold the resulting sets in ascending order (as
TensorFlow's kernels write them), its last dimension as long as the largest set. One op per pair of input kinds, as
TensorFlow names them (`DenseToDenseSetOperation`, `DenseToSparseSetOperation`, `SparseToSparseSetOperation`,
`SetSize`), each computed by the kernels below from the rows' sets.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from minitf.composite.sparse import SparseTensor
from minitf.core import dtypes
from minitf.core.conversion import convert_to_tensor
from minitf.core.errors import invalid_argument
from minitf.core.op import Op, bind
from minitf.core.tensor_shape import TensorShape

# The dtypes TensorFlow's set kernels are registered for, in the order its message lists them (a frozenset of
# DTypes, which hash to their type numbers: int32 3, uint8 4, int16 5, int8 6, string 7, int64 9, uint16 17).
SUPPORTED = (dtypes.int32, dtypes.uint8, dtypes.int16, dtypes.int8, dtypes.string, dtypes.int64, dtypes.uint16)
_OPERATIONS = {"union": set.union, "intersection": set.intersection, "a-b": set.difference, "b-a": None}


def _dense_rows(op_name: str, values: np.ndarray) -> tuple[tuple[int, ...], list[set]]:
    """The row prefix shape and each row's set, rows in row-major order."""
    if values.ndim < 2:
        raise invalid_argument(
            op_name,
            f"Shape {list(values.shape)} has rank {values.ndim} < 2".replace(", ", ",")
            + "\nHint: tf.sets works on the last axis of a tensor of rank 2 or more; for one set, wrap it in a "
            "list ([values]).",
        )
    flat = values.reshape(-1, values.shape[-1])
    return values.shape[:-1], [set(row.tolist()) for row in flat]


def _sparse_rows(op_name: str, indices: np.ndarray, values: np.ndarray, shape: np.ndarray) -> tuple:
    prefix = tuple(int(d) for d in shape[:-1])
    if len(shape) < 2:
        raise invalid_argument(op_name, f"Shape [{','.join(str(int(d)) for d in shape)}] has rank {len(shape)} < 2")
    rows: list[set] = [set() for _ in range(int(np.prod(prefix)))]
    for index, value in zip(indices.tolist(), values.tolist()):
        rows[int(np.ravel_multi_index(index[:-1], prefix))].add(value)
    return prefix, rows


def _rows(op_name: str, kind: str, parts: list[np.ndarray]) -> tuple:
    if kind == "dense":
        return _dense_rows(op_name, np.asarray(parts.pop(0)))
    indices, values, shape = (np.asarray(parts.pop(0)) for _ in range(3))
    return _sparse_rows(op_name, indices, values, shape)


def _as_sparse_result(prefix: tuple, sets: list[set], dtype: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    ordered = [sorted(s) for s in sets]
    width = max((len(s) for s in ordered), default=0)
    indices = [
        [*np.unravel_index(r, prefix), j] if prefix else [j] for r, row in enumerate(ordered) for j in range(len(row))
    ]
    values = np.array([v for row in ordered for v in row], dtype=dtype)
    return (
        np.array(indices, dtype=np.int64).reshape(-1, len(prefix) + 1),
        values.reshape(-1),
        np.array([*prefix, width], dtype=np.int64),
    )


def _set_operation_kernel(*parts: Any, op_name: str, kinds: tuple[str, str], operation: str) -> tuple:
    inputs = list(parts)
    a_prefix, a_sets = _rows(op_name, kinds[0], inputs)
    values_dtype = np.asarray(parts[0 if kinds[0] == "dense" else 1]).dtype
    b_prefix, b_sets = _rows(op_name, kinds[1], inputs)
    if a_prefix != b_prefix:
        raise invalid_argument(
            op_name,
            f"Mismatched shapes [{','.join(map(str, a_prefix))}] vs [{','.join(map(str, b_prefix))}]"
            "\nHint: both arguments need the same shape but for the last axis (one set per row).",
        )
    combine = _OPERATIONS[operation] or (lambda a, b: b - a)
    return _as_sparse_result(a_prefix, [combine(a, b) for a, b in zip(a_sets, b_sets)], values_dtype)


def _set_operation_rule(shapes_: Any, types: Any, attrs: dict) -> list:
    rank = shapes_[0].rank if attrs["kinds"][0] == "dense" else shapes_[2].num_elements()
    return [
        (TensorShape([None, rank]), dtypes.int64),
        (TensorShape([None]), types[0] if attrs["kinds"][0] == "dense" else types[1]),
        (TensorShape([rank]), dtypes.int64),
    ]


def _op(name: str) -> Op:
    return Op(name, _set_operation_kernel, shape=_set_operation_rule, num_outputs=3)


_SET_OPS = {
    ("dense", "dense"): _op("DenseToDenseSetOperation"),
    ("dense", "sparse"): _op("DenseToSparseSetOperation"),
    ("sparse", "sparse"): _op("SparseToSparseSetOperation"),
}


def _set_size_kernel(indices: Any, values: Any, shape: Any) -> np.ndarray:
    prefix, sets = _sparse_rows("SetSize", np.asarray(indices), np.asarray(values), np.asarray(shape))
    return np.array([len(s) for s in sets], dtype=np.int32).reshape(prefix)


SetSize = Op(
    "SetSize",
    _set_size_kernel,
    shape=lambda s, t, a: [
        (
            TensorShape([None] * (s[2].num_elements() - 1)) if s[2].is_fully_defined() else TensorShape(None),
            dtypes.int32,
        )
    ],
)


def _checked(value: Any, what: str) -> Any:
    converted = value if isinstance(value, SparseTensor) else convert_to_tensor(value)
    if converted.dtype not in SUPPORTED:
        names = ", ".join(f"tf.{d.name}" for d in SUPPORTED)
        raise TypeError(
            f"'{what}' has invalid dtype `<dtype: '{converted.dtype.name}'>` not in supported dtypes: "
            f"`frozenset({{{names}}})`."
            "\nHint: sets hold integers or strings; cast floats with tf.cast first."
        )
    return converted


def _set_operation(a: Any, b: Any, operation: str) -> SparseTensor:
    a, b = _checked(a, "a"), _checked(b, "b")
    if a.dtype is not b.dtype:
        raise TypeError(f"Types don't match, <dtype: '{a.dtype.name}'> vs <dtype: '{b.dtype.name}'>.")
    if isinstance(a, SparseTensor) and not isinstance(b, SparseTensor):  # TensorFlow's kernels take dense first
        a, b = b, a
        operation = {"a-b": "b-a", "b-a": "a-b"}.get(operation, operation)
    kinds = ("sparse" if isinstance(a, SparseTensor) else "dense", "sparse" if isinstance(b, SparseTensor) else "dense")
    parts = [p for x in (a, b) for p in (x._components() if isinstance(x, SparseTensor) else [x])]
    op = _SET_OPS[kinds]
    indices, values, shape = bind(op, *parts, op_name=op.name, kinds=kinds, operation=operation)
    return SparseTensor(indices, values, shape)


def size(a: Any, validate_indices: bool = True) -> Any:
    """`tf.sets.size`: how many distinct values each row of a SparseTensor holds."""
    if not isinstance(a, SparseTensor):
        raise TypeError(f"Expected `SparseTensor`, got {convert_to_tensor(a)!s}.")
    _checked(a, "a")
    return bind(SetSize, *a._components())


def union(a: Any, b: Any, validate_indices: bool = True) -> SparseTensor:
    """`tf.sets.union`: per row, the values in `a` or `b`, ascending."""
    return _set_operation(a, b, "union")


def intersection(a: Any, b: Any, validate_indices: bool = True) -> SparseTensor:
    """`tf.sets.intersection`: per row, the values in both `a` and `b`, ascending."""
    return _set_operation(a, b, "intersection")


def difference(a: Any, b: Any, aminusb: bool = True, validate_indices: bool = True) -> SparseTensor:
    """`tf.sets.difference`: per row, the values of `a` not in `b` (with `aminusb=False`, of `b` not in `a`)."""
    return _set_operation(a, b, "a-b" if aminusb else "b-a")
