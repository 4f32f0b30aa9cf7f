"""`tf.RaggedTensor` and `tf.ragged`: rows of different lengths, stored as TensorFlow stores them.

A RaggedTensor is not a new kind of tensor but a Python object over two ordinary ones: `values` (every
row's items, one after another) and `row_splits` (int64; row i is `values[row_splits[i]:row_splits[i+1]]`).
`values` may itself be ragged (ragged_rank > 1). Because the parts are plain tensors, ragged tensors work
eagerly, inside `tf.function` and under a tape with the ops that already exist; only padding to a dense
tensor and the per-row reductions need ops of their own.
"""

from __future__ import annotations

import functools
import operator
import typing
from collections.abc import Callable
from typing import Any

import numpy as np

from minitf import dtypes
from minitf.composite_specs import RaggedTensorSpec
from minitf.context import state
from minitf.conversion import convert_to_tensor, to_numpy
from minitf.core import Op, bind
from minitf.errors import InvalidArgumentError
from minitf.ops import shapes
from minitf.ops.binary_math import truediv
from minitf.ops.cast_where import cast
from minitf.ops.check_ops import assert_equal
from minitf.ops.comparisons import equal, greater_equal, not_equal
from minitf.ops.creation import constant as dense_constant
from minitf.ops.creation import range as tf_range
from minitf.ops.gather_scatter import boolean_mask, gather
from minitf.ops.join_split import concat, stack
from minitf.ops.reductions import cumsum, reduce_all, reduce_max, reduce_sum
from minitf.ops.shape_ops import reshape, shape, size
from minitf.tensor import EagerTensor, Tensor, make
from minitf.tensor_shape import TensorShape


class RaggedTensor:
    """Rows of different lengths: `values` cut into rows by `row_splits`."""

    def __init__(self, values: Any, row_splits: Tensor, internal: bool = False,
                 uniform_row_length: int | None = None) -> None:
        if not internal:
            raise ValueError("RaggedTensor constructor is private; please use one of the factory methods "
                             "instead (e.g., RaggedTensor.from_row_lengths())")
        self._values = values
        self._row_splits = row_splits
        # Rows of one known length (a dense dimension kept as ragged structure): the shape shows the length.
        self._uniform_row_length = uniform_row_length

    # --- factories ---
    @classmethod
    def from_row_splits(cls, values: Any, row_splits: Any, name: str | None = None,
                        validate: bool = True) -> RaggedTensor:
        values = _as_values(values)
        splits = convert_to_tensor(row_splits, dtype_hint=dtypes.int64)
        splits = _to_int64(splits)
        if validate:
            _check_splits(splits, _nrows_of(values), "from_row_splits")
        return cls(values, splits, internal=True)

    @classmethod
    def from_row_lengths(cls, values: Any, row_lengths: Any, name: str | None = None,
                         validate: bool = True) -> RaggedTensor:
        values = _as_values(values)
        lengths = _to_int64(convert_to_tensor(row_lengths, dtype_hint=dtypes.int64))
        splits = concat([convert_to_tensor([0], dtype=dtypes.int64), cumsum(lengths)], axis=0)
        if validate:
            _check_splits(splits, _nrows_of(values), "_from_row_partition")
        return cls(values, splits, internal=True)

    @classmethod
    def from_tensor(cls, tensor: Any, lengths: Any = None, padding: Any = None) -> RaggedTensor:
        """The rows of a dense [rows, cols, ...] tensor: whole, cut to `lengths`, or without trailing `padding`."""
        t = convert_to_tensor(tensor)
        rows, cols = t.shape[0], t.shape[1]
        if rows is None or cols is None:
            raise ValueError("minitf's RaggedTensor.from_tensor needs the first two dimensions of the tensor known."
                             "\nHint: call it outside tf.function, or give the function an input_signature with "
                             "those dimensions.")
        if padding is not None:
            lengths = _lengths_without_padding(t, padding)
        if lengths is not None:
            return cls.from_row_lengths(_take_lengths(t, lengths), lengths)
        flat = reshape(t, [-1] + list(t.shape[2:]))
        splits = convert_to_tensor(np.arange(rows + 1, dtype=np.int64) * cols)
        return cls(flat, splits, internal=True, uniform_row_length=cols)

    # --- what it is made of ---
    @property
    def values(self) -> Any:
        return self._values

    @property
    def row_splits(self) -> Tensor:
        return self._row_splits

    @property
    def flat_values(self) -> Tensor:
        values = self._values
        while isinstance(values, RaggedTensor):
            values = values._values
        return values

    @property
    def nested_row_splits(self) -> tuple[Tensor, ...]:
        splits = [self._row_splits]
        values = self._values
        while isinstance(values, RaggedTensor):
            splits.append(values._row_splits)
            values = values._values
        return tuple(splits)

    @property
    def ragged_rank(self) -> int:
        return 1 + (self._values.ragged_rank if isinstance(self._values, RaggedTensor) else 0)

    @property
    def dtype(self) -> dtypes.DType:
        return self.flat_values.dtype

    @property
    def row_splits_dtype(self) -> dtypes.DType:
        return self._row_splits.dtype

    @property
    def shape(self) -> TensorShape:
        """[rows, None, ...]: the ragged dimensions are None even when every row happens to have one length."""
        splits = self._row_splits.shape[0]
        nrows = None if splits is None else splits - 1
        inner = list(self._values.shape[1:])
        return TensorShape([nrows, self._uniform_row_length] + inner)

    def get_shape(self) -> TensorShape:
        return self.shape

    @property
    def ndim(self) -> int | None:
        return self.shape.rank

    def nrows(self, out_type: Any = dtypes.int64, name: str | None = None) -> Tensor:
        return cast(shape(self._row_splits, out_type=dtypes.int64)[0] - 1, out_type)

    def row_starts(self, name: str | None = None) -> Tensor:
        return self._row_splits[:-1]

    def row_limits(self, name: str | None = None) -> Tensor:
        return self._row_splits[1:]

    def row_lengths(self, axis: int = 1, name: str | None = None) -> Any:
        """Length of each row (axis=1), or of each row of the inner ragged dimension (axis=2, ...)."""
        if axis == 1:
            return self._row_splits[1:] - self._row_splits[:-1]
        if axis > 1 and isinstance(self._values, RaggedTensor):
            return self.with_values(self._values.row_lengths(axis - 1))
        raise ValueError(f"axis={axis} is not a ragged dimension of this RaggedTensor (ragged_rank "
                         f"{self.ragged_rank}).\nHint: row_lengths(axis=1) gives the length of every row.")

    # --- as components (tf.nest with expand_composites=True; tf.function arguments and outputs) ---
    def _trace_spec(self) -> Any:
        return RaggedTensorSpec.from_value(self)

    def _components(self) -> list[Tensor]:
        return [self.flat_values, *self.nested_row_splits]

    def _with_components(self, components: list[Any]) -> RaggedTensor:
        flat, splits = components[0], components[1:]
        levels: list[RaggedTensor] = []
        node: Any = self
        while isinstance(node, RaggedTensor):
            levels.append(node)
            node = node._values
        values: Any = flat
        for level, row_splits in zip(reversed(levels), reversed(splits)):
            values = RaggedTensor(values, row_splits, internal=True, uniform_row_length=level._uniform_row_length)
        return values

    def with_values(self, new_values: Any) -> RaggedTensor:
        return RaggedTensor(new_values, self._row_splits, internal=True, uniform_row_length=self._uniform_row_length)

    def with_flat_values(self, new_values: Any) -> RaggedTensor:
        if isinstance(self._values, RaggedTensor):
            return self.with_values(self._values.with_flat_values(new_values))
        return self.with_values(new_values)

    def bounding_shape(self, axis: Any = None, name: str | None = None, out_type: Any = dtypes.int64) -> Tensor:
        dims = [self.nrows()]
        ragged: Any = self
        while isinstance(ragged, RaggedTensor):
            lengths = ragged.row_lengths()
            dims.append(reduce_max(lengths) if lengths.shape[0] != 0 else convert_to_tensor(0, dtypes.int64))
            ragged = ragged._values
        inner = [shape(ragged, out_type=dtypes.int64)[i] for i in range(1, len(ragged.shape))]
        result = cast(stack(dims + inner), out_type)
        return result if axis is None else result[axis]

    # --- to dense, to Python ---
    def to_tensor(self, default_value: Any = None, name: str | None = None, shape: Any = None) -> Tensor:
        """A dense tensor, every row padded with `default_value` (zero, or b'' for strings) to the longest."""
        flat = self.flat_values
        default = convert_to_tensor(default_value if default_value is not None else _zero(flat.dtype),
                                    dtype=flat.dtype)
        if shape is not None:
            raise ValueError("minitf's RaggedTensor.to_tensor pads to the longest row; it does not take `shape`."
                             "\nHint: pad or slice the dense result with tf.pad / indexing.")
        return bind(RaggedToTensor, flat, default, *self.nested_row_splits)

    def numpy(self) -> Any:
        """NumPy rows: a 2-D array when every row has one length, else an object array of row arrays."""
        values = self._values.numpy()
        splits = np.asarray(typing.cast(EagerTensor, self._row_splits)._value)
        rows = [values[splits[i]:splits[i + 1]] for i in range(len(splits) - 1)]
        if not rows:
            return np.zeros((0, 0) + values.shape[1:], dtype=values.dtype)
        if any(len(row) != len(rows[0]) for row in rows):
            out = np.empty(len(rows), dtype=object)
            out[:] = rows
            return out
        return np.array(rows)

    def to_list(self) -> list:
        if not self._is_eager():
            raise ValueError("to_list can only be used in eager mode.")
        splits = np.asarray(typing.cast(EagerTensor, self._row_splits)._value).tolist()
        inner = self._values.to_list() if isinstance(self._values, RaggedTensor) else \
            np.asarray(self._values._value).tolist()
        return [inner[splits[i]:splits[i + 1]] for i in range(len(splits) - 1)]

    def _is_eager(self) -> bool:
        return all(isinstance(s, EagerTensor) for s in self.nested_row_splits) and isinstance(self.flat_values,
                                                                                           EagerTensor)

    def __repr__(self) -> str:
        if self._is_eager():
            with np.printoptions(formatter={"all": _element_text}):
                return f"<tf.RaggedTensor {_element_text(self.numpy())}>"
        return f"tf.RaggedTensor(values={self._values!s}, row_splits={self._row_splits!s})"

    __str__ = __repr__

    # --- indexing and operators ---
    def __getitem__(self, key: Any) -> Any:
        """`r[i]` is row i (a tensor, or a RaggedTensor when ragged_rank > 1); `r[a:b]` keeps the rows a..b-1."""
        nrows = self.shape[0]
        if isinstance(key, slice) and key.step in (None, 1):
            if nrows is None:
                raise ValueError("minitf slices the rows of a RaggedTensor only when the number of rows is known."
                                 "\nHint: slice rt.to_tensor(), or index single rows.")
            start, stop, _ = key.indices(nrows)
            splits = self._row_splits[start:max(start, stop) + 1]
            first = splits[0]
            values = _slice_rows(self._values, first, splits[-1])
            return RaggedTensor(values, splits - first, internal=True)
        if isinstance(key, int | np.integer):
            if nrows is not None and not -nrows <= key < nrows and not self._is_eager():
                # TensorFlow slices row_splits: while tracing, its shape function finds the bad index
                raise ValueError(f"slice index {key} of dimension 0 out of bounds.\nHint: this RaggedTensor has "
                                 f"{nrows} rows.")
            if nrows is not None and not -nrows <= key < nrows:
                raise IndexError(f"Row key {key} out of bounds\nHint: this RaggedTensor has {nrows} rows.")
            index = int(key) + nrows if key < 0 else int(key)
            return _slice_rows(self._values, self._row_splits[index], self._row_splits[index + 1])
        if isinstance(key, Tensor):
            return _slice_rows(self._values, self._row_splits[key], self._row_splits[key + 1])
        raise TypeError(f"minitf's RaggedTensor supports r[i] and r[a:b] on rows, not {key!r}.\nHint: "
                        f"r.to_tensor() gives a dense tensor that accepts every index.")

    def __iter__(self) -> Any:
        if not self._is_eager() and self.shape[0] is not None:
            return self._rows_until_out_of_bounds()
        if not self._is_eager():
            raise TypeError("Iterating over a symbolic RaggedTensor is not allowed.")
        return (self[i] for i in range(int(self._row_splits.shape[0]) - 1))

    def _rows_until_out_of_bounds(self) -> Any:
        """Traced, TensorFlow iterates by indexing row 0, 1, ... (a RaggedTensor has no __iter__ of its own):
        the row past the end is the graph-building ValueError of its slice, so the loop never ends normally."""
        i = 0
        while True:
            yield self[i]
            i += 1

    def __bool__(self) -> bool:
        raise TypeError("RaggedTensor may not be used as a boolean.")

    def __hash__(self) -> int:
        raise TypeError("RaggedTensor is unhashable.")

    def __neg__(self) -> RaggedTensor:
        return self.with_flat_values(-self.flat_values)

    def __abs__(self) -> RaggedTensor:
        return self.with_flat_values(abs(self.flat_values))

    def __invert__(self) -> RaggedTensor:
        return self.with_flat_values(~self.flat_values)


def map_flat_values(op: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """`op` applied to the flat values of the ragged arguments; the result has their row structure."""
    ragged = [a for a in list(args) + list(kwargs.values()) if isinstance(a, RaggedTensor)]
    if not ragged:
        return op(*args, **kwargs)
    for other in ragged[1:]:
        _same_splits(ragged[0], other)

    def flat(a: Any) -> Any:
        return a.flat_values if isinstance(a, RaggedTensor) else a

    return ragged[0].with_flat_values(op(*[flat(a) for a in args], **{k: flat(v) for k, v in kwargs.items()}))


def _element_text(x: Any) -> str:
    """How TensorFlow prints a ragged value: NumPy's layout with ", " between items, rows via recursion."""
    if isinstance(x, np.ndarray):
        return np.array2string(x, separator=", ") if x.size else repr(x.tolist())
    return str(x)


def _zero(dtype: dtypes.DType) -> Any:
    return b"" if dtype is dtypes.string else dtype._np.type(0)


def _slice_rows(values: Any, start: Tensor, limit: Tensor) -> Any:
    if isinstance(values, RaggedTensor):
        splits = values._row_splits[start:limit + 1]
        first = splits[0]
        return RaggedTensor(_slice_rows(values._values, first, splits[-1]), splits - first, internal=True)
    return values[start:limit]


def _lengths_without_padding(t: Tensor, padding: Any) -> list[int]:
    """Each row's length once its trailing `padding` items are dropped (eager tensors only)."""
    if not isinstance(t, EagerTensor):
        raise ValueError("minitf's RaggedTensor.from_tensor(padding=...) works on eager tensors.\nHint: pass "
                         "lengths=... inside a tf.function.")
    value = np.asarray(t._value)
    kept = value != np.asarray(getattr(padding, "_value", padding))
    kept = kept.reshape(kept.shape[:2] + (-1,)).any(axis=2)
    return [int(np.flatnonzero(row)[-1]) + 1 if row.any() else 0 for row in kept]


def _take_lengths(t: Tensor, lengths: Any) -> Tensor:
    lengths = _to_int64(convert_to_tensor(lengths, dtype_hint=dtypes.int64))
    cols = t.shape[1]
    mask = tf_range(cols, dtype=dtypes.int64)[None, :] < lengths[:, None]
    return boolean_mask(t, mask)


def _to_int64(t: Tensor) -> Tensor:
    if t.dtype is dtypes.int64:
        return t
    if t.dtype is not dtypes.int32:
        raise ValueError(f"Expected row_splits to have dtype int32 or int64; got {t.dtype.name}.\nHint: row "
                         f"splits and row lengths are integers.")
    return cast(t, dtypes.int64)


def _as_values(values: Any) -> Any:
    return values if isinstance(values, RaggedTensor) else convert_to_tensor(values)


def _nrows_of(values: Any) -> Any:
    if isinstance(values, RaggedTensor):
        return values.nrows()
    return values.shape[0]


def _assert_splits(splits: Tensor, nvalues: Any, where: str) -> None:
    """The checks of `_check_splits` as assertions in the graph being traced."""
    if splits.shape[0] == 0:
        raise ValueError(f"row_splits must be a non-empty vector; got shape {splits.shape}.")
    bad = f"Arguments to {where} do not form a valid RaggedTensor"
    zero = convert_to_tensor(0, dtype=dtypes.int64)
    assert_equal(splits[0], zero, message=f"{bad}:zero")
    rising = reduce_all(greater_equal(splits[1:], splits[:-1]))
    assert_equal(rising, convert_to_tensor(True), message=f"{bad}:monotonic")
    if nvalues is not None:
        assert_equal(splits[-1], convert_to_tensor(nvalues, dtype=dtypes.int64)
                     if not isinstance(nvalues, Tensor) else _to_int64(nvalues), message=bad)


def _check_splits(splits: Tensor, nvalues: Any, where: str) -> None:
    """TensorFlow's checks on row_splits: start at 0, never decrease, end at the number of values.

    Eagerly they run now; while tracing, the rank is checked at once (TensorFlow's ValueError) and the values
    by assertions that run with the function (TensorFlow's InvalidArgumentError when the graph runs)."""
    if not isinstance(splits, EagerTensor):
        if splits.shape.rank is not None and splits.shape.rank != 1:
            raise ValueError(f"Shape {splits.shape} must have rank 1\nHint: row_splits is a vector: [0, end of row "
                             "0, end of row 1, ...].")
        if state.graph is not None:
            _assert_splits(splits, nvalues, where)
        return
    s = np.asarray(splits._value)
    if s.ndim != 1 or s.size == 0:
        raise ValueError(f"row_splits must be a non-empty vector; got shape {splits.shape}.")
    n = int(nvalues._value) if isinstance(nvalues, EagerTensor) else nvalues
    if s[0] != 0:
        raise InvalidArgumentError(None, None, f"Arguments to {where} do not form a valid RaggedTensor:zero\n"
                                   f"Condition x == y did not hold.\nFirst 1 elements of x:\n[{s[0]}]\nFirst 1 "
                                   f"elements of y:\n[0]\nHint: row_splits start at 0.")
    if np.any(np.diff(s) < 0):
        raise InvalidArgumentError(None, None, f"Arguments to {where} do not form a valid RaggedTensor:monotonic\n"
                                   f"Condition x >= 0 did not hold element-wise.\nHint: row_splits never decrease "
                                   f"(row lengths are never negative).")
    if n is not None and s[-1] != n:
        raise InvalidArgumentError(None, None, f"Arguments to {where} do not form a valid RaggedTensor\nCondition "
                                   f"x == y did not hold.\nFirst 1 elements of x:\n[{s[-1]}]\nFirst 1 elements of "
                                   f"y:\n[{n}]\nHint: the row lengths must add up to the number of values "
                                   f"({n}).")


# ---------------------------------------------------------------------------------------------------
# Padding to a dense tensor
# ---------------------------------------------------------------------------------------------------

def _to_tensor_kernel(flat: Any, default: Any, *splits: Any) -> np.ndarray:
    """Pad nested rows to the longest at every ragged level, filling gaps with `default`."""
    flat = np.asarray(flat)
    sizes = [len(splits[0]) - 1]
    for level_splits in splits:
        lengths = np.diff(level_splits)
        sizes.append(int(lengths.max()) if lengths.size else 0)
    out = np.full(sizes + list(flat.shape[1:]), default, dtype=flat.dtype)

    def fill(level: int, row: int, index: tuple) -> None:
        s = splits[level]
        for j, k in enumerate(range(int(s[row]), int(s[row + 1]))):
            if level + 1 == len(splits):
                out[index + (j,)] = flat[k]
            else:
                fill(level + 1, k, index + (j,))

    for row in range(len(splits[0]) - 1):
        fill(0, row, (row,))
    return out


def _to_tensor_shape(shapes_: Any, types: Any, attrs: dict) -> list[shapes.Spec]:
    flat, splits = shapes_[0], shapes_[2:]
    rows = splits[0][0] - 1 if splits[0].rank is not None and splits[0][0] is not None else None
    if flat.rank is None:
        return [(TensorShape(None), types[0])]
    return [(TensorShape([rows] + [None] * len(splits) + list(flat[1:])), types[0])]


def _positions(splits: Any) -> list[tuple]:
    """Where each flat value lands in the padded tensor, in flat-value order."""
    out: list[tuple] = []

    def walk(level: int, row: int, index: tuple) -> None:
        s = splits[level]
        for j, k in enumerate(range(int(s[row]), int(s[row + 1]))):
            if level + 1 == len(splits):
                out.append(index + (j,))
            else:
                walk(level + 1, k, index + (j,))

    for row in range(len(splits[0]) - 1):
        walk(0, row, (row,))
    return out


def _to_tensor_grad_kernel(g: Any, *splits: Any) -> np.ndarray:
    g = np.asarray(g)
    positions = _positions(splits)
    if not positions:
        return np.zeros((0,) + g.shape[len(splits) + 1:], dtype=g.dtype)
    return np.stack([g[p] for p in positions])


def _to_tensor_grad(ctx: Any, g: Tensor) -> list[Any]:
    """Each flat value's gradient is the gradient at its place; padding's gradient goes to default_value."""
    flat_grad = bind(RaggedToTensorGrad, g, *ctx.inputs[2:])
    default_grad = reduce_sum(g) - reduce_sum(flat_grad) if ctx.inputs[1].dtype.is_floating else None
    return [flat_grad, default_grad] + [None] * (len(ctx.inputs) - 2)


RaggedToTensorGrad = Op("RaggedTensorToTensorGrad", _to_tensor_grad_kernel,
                        shape=lambda s, t, a: [(TensorShape(None if s[0].rank is None else
                                                             [None] + list(s[0][len(s):])), t[0])])
RaggedToTensor = Op("RaggedTensorToTensor", _to_tensor_kernel, shape=_to_tensor_shape, grad=_to_tensor_grad)


# ---------------------------------------------------------------------------------------------------
# tf.ragged.constant
# ---------------------------------------------------------------------------------------------------

def constant(pylist: Any, dtype: Any = None, ragged_rank: int | None = None, inner_shape: Any = None,
             name: str | None = None, row_splits_dtype: Any = dtypes.int64) -> Any:
    """A RaggedTensor from nested Python lists of different lengths (a plain tensor for a flat list)."""
    depth = _depth(pylist)
    if depth == 0:
        return convert_to_tensor(pylist, dtype=dtype)
    rank = depth - 1 if ragged_rank is None else ragged_rank
    if inner_shape is not None:
        rank = depth - 1 - len(inner_shape)
    if rank >= depth:
        raise ValueError(f"pylist has scalar values depth {depth}, but ragged_rank={rank} requires scalar value "
                         f"depth greater than {rank}")
    splits_dtype = dtypes.as_dtype(row_splits_dtype)
    if rank == 0:
        return dense_constant(pylist, dtype=dtype)
    levels: list[list[int]] = []
    items: list[Any] = list(pylist)
    for _ in range(rank):
        splits = [0]
        nxt: list[Any] = []
        for item in items:
            nxt.extend(item)
            splits.append(len(nxt))
        levels.append(splits)
        items = nxt
    if not items:  # no values at all: float32 unless a dtype is given, as in TensorFlow
        dt = dtypes.float32 if dtype is None else dtypes.as_dtype(dtype)
        array = np.zeros((0,) + tuple(inner_shape or ()), dtype=dt._np)
    else:
        array, dt = to_numpy(items, None if dtype is None else dtypes.as_dtype(dtype))
    values: Any = _constant_tensor(array, dt)
    for splits in reversed(levels):
        values = RaggedTensor(values, _constant_tensor(np.array(splits, dtype=splits_dtype._np), splits_dtype),
                              internal=True)
    return values


def _constant_tensor(array: Any, dt: dtypes.DType) -> Tensor:
    if state.graph is not None:
        return state.graph.constant(array, dt)
    return make(array, dt)


def _depth(value: Any) -> int:
    """How deep the lists nest, with TensorFlow's error when scalars sit at different depths."""
    if not isinstance(value, list | tuple):
        return 0
    found = {d for d in (_scalar_depth(v) for v in value) if d is not None}
    if len(found) > 1:
        raise ValueError("all scalar values must have the same nesting depth")
    if found:
        return 1 + found.pop()
    return 1 + max((_depth(v) for v in value), default=0)


def _scalar_depth(value: Any) -> int | None:
    """How deep the scalars inside `value` sit (None: no scalar, only empty lists)."""
    if not isinstance(value, list | tuple):
        return 0
    found = {d for d in (_scalar_depth(v) for v in value) if d is not None}
    if len(found) > 1:
        raise ValueError("all scalar values must have the same nesting depth")
    return 1 + found.pop() if found else None


# ---------------------------------------------------------------------------------------------------
# Elementwise ops and reductions (tf.add(r, 1), tf.reduce_sum(r, axis=1), ...)
# ---------------------------------------------------------------------------------------------------

def _same_splits(a: RaggedTensor, b: RaggedTensor) -> None:
    for x, y in zip(a.nested_row_splits, b.nested_row_splits):
        if isinstance(x, EagerTensor) and isinstance(y, EagerTensor) and not np.array_equal(x._value, y._value):
            raise InvalidArgumentError(None, None, "Condition x == y did not hold.\nHint: elementwise ops on "
                                       "two RaggedTensors need rows of the same lengths.")
        if state.graph is not None and not (isinstance(x, EagerTensor) and isinstance(y, EagerTensor)):
            from minitf.ops.check_ops import assert_equal  # as TensorFlow: checked when the function runs
            if None not in (x.shape[0], y.shape[0]) and x.shape[0] != y.shape[0]:
                raise InvalidArgumentError(None, None, "Condition x == y did not hold.\nHint: elementwise ops on "
                                           "two RaggedTensors need the same number of rows.")
            assert_equal(x, y, message="Inputs must have identical ragged splits.\nHint: elementwise ops on two "
                         "RaggedTensors need rows of the same lengths.")
    if a.ragged_rank != b.ragged_rank:
        raise ValueError("RaggedTensors of different ragged_rank cannot be combined elementwise.")


def elementwise(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """Apply a dense elementwise function to the flat values of ragged arguments (scalars broadcast)."""
    ragged = [a for a in args if isinstance(a, RaggedTensor)]
    first = ragged[0]
    for other in ragged[1:]:
        _same_splits(first, other)
    flat = [a.flat_values if isinstance(a, RaggedTensor) else a for a in args]
    return first.with_flat_values(fn(*flat, **kwargs))


def _segment_reduce_kernel(values: Any, splits: Any, reducer: str) -> np.ndarray:
    values = np.asarray(values)
    out_shape = (len(splits) - 1,) + values.shape[1:]
    if reducer == "sum":
        out = np.zeros(out_shape, dtype=values.dtype)
    elif reducer == "prod":
        out = np.ones(out_shape, dtype=values.dtype)
    elif reducer in ("max", "min"):
        out = np.full(out_shape, _identity(values.dtype, reducer), dtype=values.dtype)
    else:
        raise ValueError(f"Unknown reducer {reducer!r}")
    reducers: dict[str, Callable[..., Any]] = {"sum": np.sum, "prod": np.prod, "max": np.max, "min": np.min}
    func = reducers[reducer]
    for i in range(len(splits) - 1):
        rows = values[int(splits[i]):int(splits[i + 1])]
        if len(rows):
            out[i] = func(rows, axis=0).astype(values.dtype)
    return out


def _identity(dtype: np.dtype, reducer: str) -> Any:
    if dtype.kind == "f":  # TensorFlow's segment reductions start from the lowest finite value, not -inf
        floats = np.finfo(dtype)
        return floats.min if reducer == "max" else floats.max
    if dtype.kind == "b":
        return reducer == "min"
    ints = np.iinfo(dtype)
    return ints.min if reducer == "max" else ints.max


def _segment_shape(shapes_: Any, types: Any, attrs: dict) -> list[shapes.Spec]:
    splits, values_ = shapes_[1], shapes_[0]
    rows = splits[0] - 1 if splits.rank is not None and splits[0] is not None else None
    if values_.rank is None:
        return [(TensorShape(None), types[0])]
    return [(TensorShape([rows] + list(values_[1:])), types[0])]


def _segment_grad(ctx: Any, g: Tensor) -> list[Any]:
    """Sum: every value of row i gets g[i] (max, min and prod have no gradient here)."""
    if ctx.attrs["reducer"] != "sum":
        return [None, None]
    return [gather(g, bind(RowIds, ctx.inputs[1])), None]


RaggedSegmentReduce = Op("RaggedSegmentReduce", _segment_reduce_kernel, shape=_segment_shape, grad=_segment_grad)
RowIds = Op("RaggedRowIds", lambda splits: np.repeat(np.arange(len(splits) - 1, dtype=np.int64), np.diff(splits)),
            shape=lambda s, t, a, values=None: [(TensorShape([None]), dtypes.int64)])

_REDUCERS = {"reduce_sum": "sum", "reduce_prod": "prod", "reduce_max": "max", "reduce_min": "min"}


def reduce(name: str, dense_fn: Callable[..., Any], rt: RaggedTensor, axis: Any = None, keepdims: bool = False,
           **kwargs: Any) -> Any:
    """A reduction of a 2-D ragged tensor: over everything, over rows (axis=0) or within each row (axis=1).

    A mean is a sum divided by a count, as in TensorFlow: so the mean of int32 values is float64.
    """
    if isinstance(axis, list | tuple):
        if len(axis) == 1:
            axis = axis[0]
        elif sorted(int(a) % typing.cast(int, rt.shape.rank) for a in axis) == list(
                range(typing.cast(int, rt.shape.rank))):
            axis = None
        else:
            return _unsupported(name, axis)
    if axis is None:
        if name != "reduce_mean":
            return dense_fn(rt.flat_values, **kwargs)
        total = reduce_sum(rt.flat_values)
        return truediv(total, cast(size(rt.flat_values), total.dtype))
    rank = typing.cast(int, rt.shape.rank)  # reductions over an axis need a known rank
    axis = int(axis) + rank if int(axis) < 0 else int(axis)
    if rt.ragged_rank != 1 or axis not in (0, 1) or keepdims:
        return _unsupported(name, axis)
    if axis == 1:
        values, splits = rt.values, rt.row_splits
    else:  # axis 0: column j reduces the j-th item of every row that has one
        values = gather(rt.values, bind(ColumnOrder, rt.row_splits))
        splits = bind(ColumnSplits, rt.row_splits)
    if name != "reduce_mean":
        return bind(RaggedSegmentReduce, values, splits, reducer=_REDUCERS[name])
    total = bind(RaggedSegmentReduce, values, splits, reducer="sum")
    counts = splits[1:] - splits[:-1]
    return truediv(total, cast(counts, total.dtype))


def _column_splits(splits: Any) -> np.ndarray:
    lengths = np.diff(splits)
    width = int(lengths.max()) if lengths.size else 0
    counts = [(lengths > j).sum() for j in range(width)]
    return np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)


def _column_order(splits: Any) -> np.ndarray:
    lengths = np.diff(splits)
    width = int(lengths.max()) if lengths.size else 0
    return np.array([splits[i] + j for j in range(width) for i in range(len(lengths)) if lengths[i] > j],
                    dtype=np.int64)


def _int64_vector(shapes_: Any, types: Any, attrs: dict, values: Any = None) -> list:
    return [(TensorShape([None]), dtypes.int64)]


ColumnSplits = Op("RaggedColumnSplits", _column_splits, shape=_int64_vector, value_dependent=True)
ColumnOrder = Op("RaggedColumnOrder", _column_order, shape=_int64_vector, value_dependent=True)


def _unsupported(name: str, axis: Any) -> Any:
    raise ValueError(f"minitf's tf.{name} on a RaggedTensor supports axis=None, 0 or 1 of a 2-D ragged tensor, "
                     f"not axis={axis}.\nHint: use rt.to_tensor() first, or reduce rt.flat_values.")


def dispatching(fn: Callable[..., Any], kind: str) -> Callable[..., Any]:
    """`fn` that also accepts RaggedTensors, as TensorFlow's ops do (`tf.add(rt, 1)`, `tf.reduce_sum(rt, 1)`)."""

    if kind == "reduce":
        @functools.wraps(fn)
        def reduce_wrapper(input_tensor: Any, *args: Any, **kwargs: Any) -> Any:
            if isinstance(input_tensor, RaggedTensor):
                return reduce(fn.__name__, fn, input_tensor, *args, **kwargs)
            return fn(input_tensor, *args, **kwargs)
        return reduce_wrapper

    @functools.wraps(fn)
    def elementwise_wrapper(*args: Any, **kwargs: Any) -> Any:
        for a in args:  # (a plain loop: this runs on every eager call of the everyday ops)
            if isinstance(a, RaggedTensor):
                return elementwise(fn, *args, **kwargs)
        return fn(*args, **kwargs)
    return elementwise_wrapper


def _binary(op: Callable[[Any, Any], Any], reflected: bool = False) -> Callable[[RaggedTensor, Any], Any]:
    def method(self: RaggedTensor, other: Any) -> Any:
        if isinstance(other, RaggedTensor):
            _same_splits(self, other)
            other_values: Any = other.flat_values
        else:
            other_values = other
        a, b = (other_values, self.flat_values) if reflected else (self.flat_values, other_values)
        return self.with_flat_values(op(a, b))
    return method


def _install_operators() -> None:
    for name in ("add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "and_", "or_", "xor"):
        fn = getattr(operator, name)
        dunder = name.rstrip("_")
        setattr(RaggedTensor, f"__{dunder}__", _binary(fn))
        setattr(RaggedTensor, f"__r{dunder}__", _binary(fn, reflected=True))
    for name in ("lt", "le", "gt", "ge"):
        setattr(RaggedTensor, f"__{name}__", _binary(getattr(operator, name)))
    RaggedTensor.__eq__ = _binary(equal)  # type: ignore[method-assign,assignment]
    RaggedTensor.__ne__ = _binary(not_equal)  # type: ignore[method-assign,assignment]


_install_operators()
