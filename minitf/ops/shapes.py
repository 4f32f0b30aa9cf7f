"""Shape and dtype rules: what an op produces, worked out from its inputs' shapes and dtypes alone.

The tracer needs these to build a graph without running anything: each rule takes the inputs' static
shapes (TensorShape, with None for unknown dimensions), their dtypes and the op's attrs, and returns one
(shape, dtype) pair per output. Eager execution never calls them: NumPy's result tells the shape.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

from minitf import dtypes
from minitf.tensor_shape import TensorShape

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
            raise ValueError(f"Dimensions must be equal, but are {x} and {y}")
    return TensorShape(out)


def broadcast_rule(out_dtype: dtypes.DType | None) -> Callable[..., list[Spec]]:
    def rule(shapes: Sequence[TensorShape], types: Sequence[dtypes.DType], attrs: dict) -> list[Spec]:
        return [(broadcast_shapes(shapes[0], shapes[1]), out_dtype or types[0])]
    return rule


def select_rule(shapes: Sequence[TensorShape], types: Sequence[dtypes.DType], attrs: dict) -> list[Spec]:
    return [(broadcast_shapes(broadcast_shapes(shapes[0], shapes[1]), shapes[2]), types[1])]


def where_rule(shapes: Sequence[TensorShape], types: Sequence[dtypes.DType], attrs: dict,
               values: Sequence[Any] = ()) -> list[Spec]:
    """tf.where(condition): one row per true entry, so the count is unknown even for a constant (as in
    TensorFlow, which does not evaluate it while building the graph)."""
    return [(TensorShape([None, shapes[0].rank]), dtypes.int64)]


def cast_rule(shapes: Sequence[TensorShape], types: Sequence[dtypes.DType], attrs: dict) -> list[Spec]:
    return [(shapes[0], attrs["DstT"])]


def _reduced(shape: TensorShape, axis: Any, keepdims: bool) -> TensorShape:
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


def _add(a: int | None, b: int | None) -> int | None:
    return None if a is None or b is None else a + b


def _times(size: int | None, factor: int) -> int | None:
    """An unknown size times 0 is known: 0 (TensorFlow's rule)."""
    if factor == 0:
        return 0
    return None if size is None else size * factor


# ---------------------------------------------------------------------------------------------------
# Creation and shape queries
# ---------------------------------------------------------------------------------------------------

def fill_rule(shapes: Sequence[TensorShape], types: Sequence[dtypes.DType], attrs: dict) -> list[Spec]:
    return [(TensorShape(attrs["dims"]), types[0])]


def range_rule(shapes: Sequence[TensorShape], types: Sequence[dtypes.DType], attrs: dict,
               values: Sequence[Any] = ()) -> list[Spec]:
    """tf.range: the length is known when start, limit and delta are constants (TensorFlow evaluates them)."""
    start, limit, delta = (list(values) + [None] * 3)[:3]
    if start is None or limit is None or delta is None:
        return [(TensorShape([None]), types[0])]
    if delta == 0:
        raise ValueError("Requires delta != 0")
    if delta > 0 and start > limit:
        raise ValueError(f"Requires start <= limit when delta > 0: {start}/{limit}")
    if delta < 0 and start < limit:
        raise ValueError(f"Requires start >= limit when delta < 0: {start}/{limit}")
    if types[0].is_integer:
        length = (abs(int(limit) - int(start)) + abs(int(delta)) - 1) // abs(int(delta))
    else:
        length = int(math.ceil(abs((float(limit) - float(start)) / float(delta))))
    return [(TensorShape([length]), types[0])]


def linspace_rule(shapes: Sequence[TensorShape], types: Sequence[dtypes.DType], attrs: dict,
                  values: Sequence[Any] = ()) -> list[Spec]:
    num = values[2] if len(values) > 2 else None
    batch = broadcast_shapes(shapes[0], shapes[1])  # start and stop broadcast: (num, *batch)
    if batch.rank is None:
        return [(TensorShape(None), types[0])]
    return [(TensorShape([None if num is None else int(num), *batch.as_list()]), types[0])]


def shape_rule(shapes: Sequence[TensorShape], types: Sequence[dtypes.DType], attrs: dict) -> list[Spec]:
    return [(TensorShape([shapes[0].rank]), attrs["out_type"])]


def rank_rule(shapes: Sequence[TensorShape], types: Sequence[dtypes.DType], attrs: dict) -> list[Spec]:
    return [(TensorShape([]), dtypes.int32)]


def size_rule(shapes: Sequence[TensorShape], types: Sequence[dtypes.DType], attrs: dict) -> list[Spec]:
    return [(TensorShape([]), attrs["out_type"])]


def same_as_second_with_first_dtype(shapes: Sequence[TensorShape], types: Sequence[dtypes.DType],
                                    attrs: dict) -> list[Spec]:
    """Gradient ops that give back a gradient (dtype of input 0) shaped like the forward input (input 1)."""
    return [(shapes[1], types[0])]


def same_as_third(shapes: Sequence[TensorShape], types: Sequence[dtypes.DType], attrs: dict) -> list[Spec]:
    return [(shapes[2], types[0])]


# ---------------------------------------------------------------------------------------------------
# Reshaping
# ---------------------------------------------------------------------------------------------------

def reshape_rule(shapes: Sequence[TensorShape], types: Sequence[dtypes.DType], attrs: dict) -> list[Spec]:
    """The requested shape; -1 is worked out when the input's size is known, and sizes must fit."""
    dims = list(attrs["shape"])
    wanted = [d for d in dims if d != -1]
    product = math.prod(wanted)
    source = shapes[0]
    known_in = [d for d in source] if source.rank is not None else []
    if source.is_fully_defined():
        n = source.num_elements()
        if -1 in dims:
            if product == 0 or n % product:
                if product:
                    raise ValueError(f"Dimension size must be evenly divisible by {product} but is {n}")
            else:
                dims[dims.index(-1)] = n // product
        elif product != n:
            raise ValueError(f"Cannot reshape a tensor with {n} elements to shape {shape_text(TensorShape(dims))} "
                             f"({product} elements)")
    elif -1 not in dims and known_in and 0 not in known_in:
        known_product = math.prod(d for d in known_in if d is not None)
        if product % known_product:
            raise ValueError(f"Dimension size must be evenly divisible by {known_product} but is {product}")
    return [(TensorShape([None if d == -1 else d for d in dims]), types[0])]


def expand_dims_rule(shapes: Sequence[TensorShape], types: Sequence[dtypes.DType], attrs: dict) -> list[Spec]:
    source = shapes[0]
    if source.rank is None:
        return [(TensorShape(None), types[0])]
    dims = list(source)
    axis = attrs["axis"]
    if not -len(dims) - 1 <= axis <= len(dims):
        raise ValueError(f"dim {axis} not in the interval [{-len(dims) - 1}, {len(dims)}].")
    dims.insert(axis % (len(dims) + 1), 1)
    return [(TensorShape(dims), types[0])]


def squeeze_rule(shapes: Sequence[TensorShape], types: Sequence[dtypes.DType], attrs: dict) -> list[Spec]:
    """Without axes every size-1 dimension goes, so one unknown dimension makes even the rank unknown."""
    source, axes = shapes[0], attrs["axis"]
    if source.rank is None:
        return [(TensorShape(None), types[0])]
    dims = list(source)
    if not axes:
        if None in dims:
            return [(TensorShape(None), types[0])]
        return [(TensorShape([d for d in dims if d != 1]), types[0])]
    for axis in axes:
        if dims[axis] not in (None, 1):
            raise ValueError(f"Can not squeeze dim[{axis}], expected a dimension of 1, got {dims[axis]}")
    return [(TensorShape([d for i, d in enumerate(dims) if i not in axes]), types[0])]


def transpose_rule(shapes: Sequence[TensorShape], types: Sequence[dtypes.DType], attrs: dict) -> list[Spec]:
    perm, source = attrs["perm"], shapes[0]
    if source.rank is None:
        return [(TensorShape([None] * len(perm)), types[0])]
    need_rank(source, len(perm))
    return [(TensorShape([source[p] for p in perm]), types[0])]


def broadcast_to_rule(shapes: Sequence[TensorShape], types: Sequence[dtypes.DType], attrs: dict) -> list[Spec]:
    target = TensorShape(attrs["shape"])
    source = shapes[0]
    if source.rank is not None:
        if source.rank > target.rank:  # type: ignore[operator]
            raise ValueError(f"Rank of input ({source.rank}) must be no greater than rank of output shape "
                             f"({target.rank}).")
        for have, want in zip(reversed(list(source)), reversed(list(target))):
            if have not in (None, 1) and have != want:
                raise ValueError(f"Dimensions must be equal, but are {have} and {want}")
    return [(target, types[0])]


def tile_rule(shapes: Sequence[TensorShape], types: Sequence[dtypes.DType], attrs: dict) -> list[Spec]:
    multiples, source = attrs["multiples"], shapes[0]
    need_rank(source, len(multiples))
    dims = list(source) if source.rank is not None else [None] * len(multiples)
    return [(TensorShape([_times(d, m) for d, m in zip(dims, multiples)]), types[0])]


def pad_rule(shapes: Sequence[TensorShape], types: Sequence[dtypes.DType], attrs: dict) -> list[Spec]:
    paddings, source = attrs["paddings"], shapes[0]
    need_rank(source, len(paddings))
    dims = list(source) if source.rank is not None else [None] * len(paddings)
    return [(TensorShape([_add(d, before + after) for d, (before, after) in zip(dims, paddings)]), types[0])]


# ---------------------------------------------------------------------------------------------------
# Joining and splitting
# ---------------------------------------------------------------------------------------------------

def concat_rule(shapes: Sequence[TensorShape], types: Sequence[dtypes.DType], attrs: dict) -> list[Spec]:
    """Every size but the axis's must agree; the axis's sizes add up (unknown if one of them is)."""
    axis = attrs["axis"]
    known = [s for s in shapes if s.rank is not None]
    if not known:
        return [(TensorShape(None), types[0])]
    rank = known[0].rank
    for s in known[1:]:
        if s.rank != rank:
            raise ValueError(f"Shape must be rank {rank} but is rank {s.rank}")
    others: list[int | None] = [None] * (rank - 1)  # type: ignore[operator]
    first_others = None
    for s in known:
        rest = [d for i, d in enumerate(s) if i != axis]
        for i, d in enumerate(rest):
            if others[i] is not None and d is not None and others[i] != d:
                first, this = shape_text(TensorShape(first_others)), shape_text(TensorShape(rest))
                raise ValueError(f"Dimension {i} in both shapes must be equal, but are {others[i]} and {d}. "
                                 f"Shapes are {first} and {this}.")
            others[i] = others[i] if others[i] is not None else d
        first_others = first_others if first_others is not None else rest
    along: int | None = 0
    for s in shapes:
        along = _add(along, s[axis] if s.rank is not None else None)
    dims = others[:axis] + [along] + others[axis:]
    return [(TensorShape(dims), types[0])]


def _merge_all(shapes: Sequence[TensorShape]) -> TensorShape:
    merged = TensorShape(None)
    for i, s in enumerate(shapes):
        if not merged.is_compatible_with(s):
            detail = next(((k, a, b) for k, (a, b) in enumerate(zip(merged, s)) if a is not None and b is not None
                           and a != b), None) if merged.rank == s.rank else None
            if detail is None:
                raise ValueError(f"Shapes must be equal rank, but are {merged.rank} and {s.rank}\n\tFrom merging "
                                 f"shape {i - 1 if i else 0} with other shapes.")
            k, a, b = detail
            raise ValueError(f"Dimension {k} in both shapes must be equal, but are {a} and {b}. Shapes are "
                             f"{shape_text(merged)} and {shape_text(s)}.\n\tFrom merging shape 0 with other shapes.")
        merged = merged.merge_with(s)
    return merged


def pack_rule(shapes: Sequence[TensorShape], types: Sequence[dtypes.DType], attrs: dict) -> list[Spec]:
    merged = _merge_all(shapes)
    if merged.rank is None:
        return [(TensorShape(None), types[0])]
    dims = list(merged)
    dims.insert(attrs["axis"], len(shapes))
    return [(TensorShape(dims), types[0])]


def unpack_rule(shapes: Sequence[TensorShape], types: Sequence[dtypes.DType], attrs: dict) -> list[Spec]:
    source, axis, num = shapes[0], attrs["axis"], attrs["num"]
    if source.rank is None:
        return [(TensorShape(None), types[0])] * num
    dims = list(source)
    merge_dims(dims[axis], num, "")
    return [(TensorShape(dims[:axis] + dims[axis + 1:]), types[0])] * num


def split_rule(shapes: Sequence[TensorShape], types: Sequence[dtypes.DType], attrs: dict) -> list[Spec]:
    source, axis = shapes[0], attrs["axis"]
    if source.rank is None:
        return [(TensorShape(None), types[0])] * len(attrs["sizes"])
    dims = list(source)
    return [(TensorShape(dims[:axis] + [None if size in (None, -1) else size] + dims[axis + 1:]), types[0])
            for size in attrs["sizes"]]


def split_like_rule(shapes: Sequence[TensorShape], types: Sequence[dtypes.DType], attrs: dict) -> list[Spec]:
    return [(s, types[0]) for s in shapes[1:]]


# ---------------------------------------------------------------------------------------------------
# Gathering and slicing
# ---------------------------------------------------------------------------------------------------

def gather_rule(shapes: Sequence[TensorShape], types: Sequence[dtypes.DType], attrs: dict) -> list[Spec]:
    params, indices, axis = shapes[0], shapes[1], attrs["axis"]
    if params.rank is None or indices.rank is None:
        return [(TensorShape(None), types[0])]
    dims = list(params)
    return [(TensorShape(dims[:axis] + list(indices) + dims[axis + 1:]), types[0])]


def one_hot_rule(shapes: Sequence[TensorShape], types: Sequence[dtypes.DType], attrs: dict) -> list[Spec]:
    dtype = dtypes.from_numpy(attrs["on"].dtype)
    if shapes[0].rank is None:
        return [(TensorShape(None), dtype)]
    dims = list(shapes[0])
    axis = attrs["axis"]
    dims.insert(len(dims) if axis == -1 else axis, attrs["depth"])
    return [(TensorShape(dims), dtype)]


def strided_slice_rule(shapes: Sequence[TensorShape], types: Sequence[dtypes.DType], attrs: dict,
                       values: Sequence[Any] = ()) -> list[Spec]:
    """`x[spec]`: each int removes a dimension, each slice keeps one (its length known when the dimension and
    the bounds are), `tf.newaxis` adds a 1 and `...` stands for the dimensions nobody names.

    Bounds given as tensors (`("input", k)` in the spec) count as known when they are constants."""
    source = shapes[0]
    if source.rank is None:
        return [(TensorShape(None), types[0])]

    def known(v: Any) -> Any:
        return values[1 + v[1]] if len(values) > 1 + v[1] else None

    spec = attrs["spec"]
    bounds = [v for item in spec if isinstance(item, tuple) for v in (item[1:] if item and item[0] == "slice" else ())]
    # TensorFlow packs the given bounds into one begin, one end and one strides tensor: one bound that is not
    # a constant makes every given bound unknown (omitted ones, `x[:, 1:]`, are masks and stay known).
    refs = [v for v in bounds + list(spec) if isinstance(v, tuple) and v and v[0] == "input"]
    packed_unknown = any(known(v) is None for v in refs)

    def bound(v: Any) -> Any:
        """A bound's value: an int, None where omitted (`x[1:]`), UNKNOWN for a non-constant tensor."""
        if v is None:
            return None
        if packed_unknown:
            return UNKNOWN
        return int(known(v)) if isinstance(v, tuple) else v

    named = sum(1 for item in spec if item is not None and item is not Ellipsis)
    dims = list(source)
    out: list[int | None] = []
    dim = 0
    for item in spec:
        if item is Ellipsis:
            take = max(len(dims) - named, 0)
            out.extend(dims[dim:dim + take])
            dim += take
            continue
        if item is None:
            out.append(1)
            continue
        if dim >= len(dims):
            raise ValueError(f"Index out of range using input dim {dim}; input has only {len(dims)} dims")
        size = dims[dim]
        if isinstance(item, tuple) and item and item[0] == "slice":
            out.append(_slice_length(size, bound(item[1]), bound(item[2]), bound(item[3]), dim))
        else:
            index = bound(item)
            if index is not UNKNOWN and size is not None and not -size <= index < size:
                raise ValueError(f"slice index {index} of dimension {dim} out of bounds.")
        dim += 1
    out.extend(dims[dim:])
    return [(TensorShape(out), types[0])]


UNKNOWN = object()  # a slice bound given as a tensor whose value is not known while tracing


def _slice_length(size: int | None, start: Any, stop: Any, step: Any, dim: int) -> int | None:
    if step == 0:
        raise ValueError(f"strides[{dim}] must be non-zero")
    if size is None or UNKNOWN in (start, stop, step):
        return None
    return len(range(*slice(start, stop, step).indices(size)))


# ---------------------------------------------------------------------------------------------------
# Linear algebra
# ---------------------------------------------------------------------------------------------------

def matmul_rule(shapes: Sequence[TensorShape], types: Sequence[dtypes.DType], attrs: dict) -> list[Spec]:
    """MatMul: two matrices (an unknown rank is taken to be 2); the inner sizes must agree."""
    a, b = (s if s.rank is not None else TensorShape([None, None]) for s in shapes[:2])
    need_rank(a, 2)
    need_rank(b, 2)
    rows, inner_a = (a[1], a[0]) if attrs["transpose_a"] else (a[0], a[1])
    inner_b, cols = (b[1], b[0]) if attrs["transpose_b"] else (b[0], b[1])
    merge_dims(inner_a, inner_b, "")
    return [(TensorShape([rows, cols]), types[0])]


def batch_matmul_rule(shapes: Sequence[TensorShape], types: Sequence[dtypes.DType], attrs: dict) -> list[Spec]:
    """BatchMatMulV2: the leading (batch) dimensions broadcast, the last two multiply as matrices."""
    a, b = shapes[:2]
    if a.rank is None or b.rank is None:
        return [(TensorShape(None), types[0])]
    need_rank(a, 2, at_least=True)
    need_rank(b, 2, at_least=True)
    matrix = matmul_rule([a[-2:], b[-2:]], types, attrs)[0][0]
    return [(broadcast_shapes(a[:-2], b[:-2]) + matrix, types[0])]


def _square_matrices(shape: TensorShape) -> TensorShape:
    need_rank(shape, 2, at_least=True)
    if shape.rank is None:
        return shape
    size = merge_dims(shape[-2], shape[-1], "")
    return shape[:-2] + TensorShape([size, size])


def square_matrix_rule(shapes: Sequence[TensorShape], types: Sequence[dtypes.DType], attrs: dict) -> list[Spec]:
    """MatrixInverse: square matrices in, the same shape out."""
    return [(_square_matrices(shapes[0]), types[0])]


def determinant_rule(shapes: Sequence[TensorShape], types: Sequence[dtypes.DType], attrs: dict) -> list[Spec]:
    square = _square_matrices(shapes[0])
    return [(square[:-2] if square.rank is not None else TensorShape(None), types[0])]


def solve_rule(shapes: Sequence[TensorShape], types: Sequence[dtypes.DType], attrs: dict) -> list[Spec]:
    """MatrixSolve: [..., M, M] and [..., M, K] give [..., M, K]."""
    matrix, rhs = _square_matrices(shapes[0]), shapes[1]
    need_rank(rhs, 2, at_least=True)
    if matrix.rank is None or rhs.rank is None:
        return [(rhs if matrix.rank is None else matrix[:-1] + TensorShape([None]), types[0])]
    if matrix.rank != rhs.rank:
        raise ValueError(f"Shapes must be equal rank, but are {matrix.rank} and {rhs.rank}")
    batch = [merge_dims(x, y, "") for x, y in zip(matrix[:-2], rhs[:-2])]
    rows = merge_dims(matrix[-1], rhs[-2], "")
    return [(TensorShape(batch + [rows, rhs[-1]]), types[0])]
