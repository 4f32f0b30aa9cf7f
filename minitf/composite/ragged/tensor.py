"""`tf.RaggedTensor`: rows of different lengths, as `values` cut into rows by `row_splits`.

The class holds two ordinary tensors and builds everything else from them with ops that already exist: its
shape, its rows (`rt[i]`), its arithmetic (`rt + 1` runs on the flat values). Factories check the row splits
(minitf/composite/ragged/splits.py); `to_tensor` pads with an op of its own (minitf/composite/ragged/to_dense.py).
"""

from __future__ import annotations

import operator
import typing
from collections.abc import Callable
from typing import Any

import numpy as np

from minitf.composite.ragged.splits import check_splits, lengths_without_padding, take_lengths, to_int64
from minitf.composite.ragged.to_dense import RaggedToTensor
from minitf.composite.specs import VALUE_TYPES, RaggedTensorSpec
from minitf.core import dtypes
from minitf.core.context import state
from minitf.core.conversion import convert_to_tensor
from minitf.core.errors import InvalidArgumentError
from minitf.core.op import bind
from minitf.core.provided import Provided
from minitf.core.tensor import EagerTensor, Tensor
from minitf.core.tensor_shape import TensorShape
from minitf.ops.array.join_split import concat, stack
from minitf.ops.array.shape_ops import reshape, shape
from minitf.ops.checks.check_ops import assert_equal
from minitf.ops.math.cast import cast
from minitf.ops.math.comparisons import equal, not_equal
from minitf.ops.math.reductions import cumsum, reduce_max
from minitf.ops.math.segment_ops import row_splits_to_segment_ids


class RaggedParts(Provided):
    """What RaggedTensor's methods use from modules that import this one (minitf/core/provided.py): factories.py's
    row partitions and to_sparse; dispatch.py's operand of an operator (ragged, or dense repeated per row)."""

    from_value_rowids: Callable[..., Any]
    from_row_starts: Callable[..., Any]
    from_row_limits: Callable[..., Any]
    from_nested_row_splits: Callable[..., Any]
    from_nested_row_lengths: Callable[..., Any]
    from_nested_value_rowids: Callable[..., Any]
    from_uniform_row_length: Callable[..., Any]
    from_sparse: Callable[..., Any]
    to_sparse: Callable[..., Any]
    getitem: Callable[..., Any]
    operand: Callable[[RaggedTensor, Any], Any]


RAGGED = RaggedParts()


def _elementwise(op: Callable[[Any, Any], Any], reflected: bool = False) -> Callable[[RaggedTensor, Any], Any]:
    """`rt + 1`, `rt * rt`, `rt < [[2], [3]]`, `1 - rt`: the operator on the flat values."""

    def method(self: RaggedTensor, other: Any) -> Any:
        other = RAGGED.operand(self, other)
        return self.with_flat_values(op(other, self.flat_values) if reflected else op(self.flat_values, other))

    return method


class RaggedTensor:
    """Rows of different lengths: `values` cut into rows by `row_splits`."""

    def __init__(
        self, values: Any, row_splits: Tensor, internal: bool = False, uniform_row_length: int | None = None
    ) -> None:
        if not internal:
            raise ValueError(
                "RaggedTensor constructor is private; please use one of the factory methods "
                "instead (e.g., RaggedTensor.from_row_lengths())"
            )
        self._values = values
        self._row_splits = row_splits
        # Rows of one known length (a dense dimension kept as ragged structure): the shape shows the length.
        self._uniform_row_length = uniform_row_length

    # --- factories ---
    @classmethod
    def from_row_splits(
        cls, values: Any, row_splits: Any, name: str | None = None, validate: bool = True
    ) -> RaggedTensor:
        values = _as_values(values)
        splits = convert_to_tensor(row_splits, dtype_hint=dtypes.int64)
        splits = to_int64(splits)
        if validate:
            check_splits(splits, _nrows_of(values), "from_row_splits")
        return cls(values, splits, internal=True)

    @classmethod
    def from_row_lengths(
        cls, values: Any, row_lengths: Any, name: str | None = None, validate: bool = True
    ) -> RaggedTensor:
        values = _as_values(values)
        lengths = to_int64(convert_to_tensor(row_lengths, dtype_hint=dtypes.int64))
        splits = concat([convert_to_tensor([0], dtype=dtypes.int64), cumsum(lengths)], axis=0)
        if validate:
            check_splits(splits, _nrows_of(values), "_from_row_partition")
        return cls(values, splits, internal=True)

    @classmethod
    def from_tensor(cls, tensor: Any, lengths: Any = None, padding: Any = None) -> RaggedTensor:
        """The rows of a dense [rows, cols, ...] tensor: whole, cut to `lengths`, or without trailing `padding`."""
        t = convert_to_tensor(tensor)
        rows, cols = t.shape[0], t.shape[1]
        if rows is None or cols is None:
            raise ValueError(
                "minitf's RaggedTensor.from_tensor needs the first two dimensions of the tensor known."
                "\nHint: call it outside tf.function, or give the function an input_signature with "
                "those dimensions."
            )
        if padding is not None:
            lengths = lengths_without_padding(t, padding)
        if lengths is not None:
            return cls.from_row_lengths(take_lengths(t, lengths), lengths)
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

    def value_rowids(self, name: str | None = None) -> Tensor:
        """The row of each value: [0, 0, 2] for rows of lengths 2, 0 and 1."""
        return row_splits_to_segment_ids(self._row_splits)

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
        raise ValueError(
            f"axis={axis} is not a ragged dimension of this RaggedTensor (ragged_rank "
            f"{self.ragged_rank}).\nHint: row_lengths(axis=1) gives the length of every row."
        )

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
        """A dense tensor, every row padded with `default_value` (zero, or b'' for strings) to the longest, or
        padded and cut to `shape` (None entries: as long as needed)."""
        flat = self.flat_values
        zero = b"" if flat.dtype is dtypes.string else flat.dtype._np.type(0)
        default = convert_to_tensor(zero if default_value is None else default_value, dtype=flat.dtype)
        wanted = None
        if shape is not None:
            wanted = tuple(TensorShape(shape).as_list())
            rank = self.ragged_rank + flat.shape.rank if flat.shape.rank is not None else len(wanted)
            if len(wanted) != rank:
                raise ValueError(
                    f"Shape {TensorShape(shape)} must have rank {rank}\nHint: give one size (or None) "
                    "per dimension of the padded tensor."
                )
        return bind(RaggedToTensor, flat, default, *self.nested_row_splits, shape=wanted)

    def numpy(self) -> Any:
        """NumPy rows: a 2-D array when every row has one length, else an object array of row arrays."""
        values = self._values.numpy()
        splits = np.asarray(typing.cast(EagerTensor, self._row_splits)._value)
        rows = [values[splits[i] : splits[i + 1]] for i in range(len(splits) - 1)]
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
        inner = (
            self._values.to_list()
            if isinstance(self._values, RaggedTensor)
            else np.asarray(self._values._value).tolist()
        )
        return [inner[splits[i] : splits[i + 1]] for i in range(len(splits) - 1)]

    def _is_eager(self) -> bool:
        return all(isinstance(s, EagerTensor) for s in self.nested_row_splits) and isinstance(
            self.flat_values, EagerTensor
        )

    def __repr__(self) -> str:
        if self._is_eager():
            with np.printoptions(formatter={"all": _element_text}):
                return f"<tf.RaggedTensor {_element_text(self.numpy())}>"
        return f"tf.RaggedTensor(values={self._values!s}, row_splits={self._row_splits!s})"

    __str__ = __repr__

    # --- indexing, iterating, unary operators ---
    def __getitem__(self, key: Any) -> Any:
        return RAGGED.getitem(self, key)  # rows, slices of rows, slices in every row: indexing.py

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

    # --- the other row partitions (factories.py); then the binary operators, on the flat values ---
    @classmethod
    def from_value_rowids(cls, *args: Any, **kwargs: Any) -> RaggedTensor:
        return RAGGED.from_value_rowids(cls, *args, **kwargs)

    @classmethod
    def from_row_starts(cls, *args: Any, **kwargs: Any) -> RaggedTensor:
        return RAGGED.from_row_starts(cls, *args, **kwargs)

    @classmethod
    def from_row_limits(cls, *args: Any, **kwargs: Any) -> RaggedTensor:
        return RAGGED.from_row_limits(cls, *args, **kwargs)

    @classmethod
    def from_nested_row_splits(cls, *args: Any, **kwargs: Any) -> RaggedTensor:
        return RAGGED.from_nested_row_splits(cls, *args, **kwargs)

    @classmethod
    def from_nested_row_lengths(cls, *args: Any, **kwargs: Any) -> RaggedTensor:
        return RAGGED.from_nested_row_lengths(cls, *args, **kwargs)

    @classmethod
    def from_nested_value_rowids(cls, *args: Any, **kwargs: Any) -> RaggedTensor:
        return RAGGED.from_nested_value_rowids(cls, *args, **kwargs)

    @classmethod
    def from_uniform_row_length(cls, *args: Any, **kwargs: Any) -> RaggedTensor:
        return RAGGED.from_uniform_row_length(cls, *args, **kwargs)

    @classmethod
    def from_sparse(cls, *args: Any, **kwargs: Any) -> RaggedTensor:
        return RAGGED.from_sparse(cls, *args, **kwargs)

    def to_sparse(self, name: str | None = None) -> Any:
        return RAGGED.to_sparse(self)

    # --- binary operators: on the flat values, with the same rows (the other operand: dispatch.py) ---
    __add__ = _elementwise(operator.add)
    __radd__ = _elementwise(operator.add, reflected=True)
    __sub__ = _elementwise(operator.sub)
    __rsub__ = _elementwise(operator.sub, reflected=True)
    __mul__ = _elementwise(operator.mul)
    __rmul__ = _elementwise(operator.mul, reflected=True)
    __truediv__ = _elementwise(operator.truediv)
    __rtruediv__ = _elementwise(operator.truediv, reflected=True)
    __floordiv__ = _elementwise(operator.floordiv)
    __rfloordiv__ = _elementwise(operator.floordiv, reflected=True)
    __mod__ = _elementwise(operator.mod)
    __rmod__ = _elementwise(operator.mod, reflected=True)
    __pow__ = _elementwise(operator.pow)
    __rpow__ = _elementwise(operator.pow, reflected=True)
    __and__ = _elementwise(operator.and_)
    __rand__ = _elementwise(operator.and_, reflected=True)
    __or__ = _elementwise(operator.or_)
    __ror__ = _elementwise(operator.or_, reflected=True)
    __xor__ = _elementwise(operator.xor)
    __rxor__ = _elementwise(operator.xor, reflected=True)
    __lt__ = _elementwise(operator.lt)
    __le__ = _elementwise(operator.le)
    __gt__ = _elementwise(operator.gt)
    __ge__ = _elementwise(operator.ge)
    __eq__ = _elementwise(equal)
    __ne__ = _elementwise(not_equal)


def _element_text(x: Any) -> str:
    """How TensorFlow prints a ragged value: NumPy's layout with ", " between items, rows via recursion."""
    if isinstance(x, np.ndarray):
        return np.array2string(x, separator=", ") if x.size else repr(x.tolist())
    return str(x)


def slice_rows(values: Any, start: Any, limit: Any) -> Any:
    """values[start:limit] along the first axis (for ragged values, with their splits shifted to start at 0)."""
    if isinstance(values, RaggedTensor):
        splits = values._row_splits[start : limit + 1]
        first = splits[0]
        return RaggedTensor(slice_rows(values._values, first, splits[-1]), splits - first, internal=True)
    return values[start:limit]


def _as_values(values: Any) -> Any:
    return values if isinstance(values, RaggedTensor) else convert_to_tensor(values)


def _nrows_of(values: Any) -> Any:
    if isinstance(values, RaggedTensor):
        return values.nrows()
    return values.shape[0]


def same_splits(a: RaggedTensor, b: RaggedTensor) -> None:
    """Two RaggedTensors combined elementwise need the same rows: checked now when the splits are eager values,
    else (as TensorFlow) by an assertion that runs with the traced function."""
    for x, y in zip(a.nested_row_splits, b.nested_row_splits):
        if isinstance(x, EagerTensor) and isinstance(y, EagerTensor) and not np.array_equal(x._value, y._value):
            try:  # TensorFlow's message, which lists where the splits differ
                assert_equal(x, y)
            except InvalidArgumentError as error:
                raise InvalidArgumentError(
                    None,
                    None,
                    f"{error.message}\nHint: elementwise ops on two RaggedTensors need rows of the same lengths.",
                ) from None
        if state.graph is not None and not (isinstance(x, EagerTensor) and isinstance(y, EagerTensor)):
            if None not in (x.shape[0], y.shape[0]) and x.shape[0] != y.shape[0]:
                raise InvalidArgumentError(
                    None,
                    None,
                    "Condition x == y did not hold.\nHint: elementwise ops on "
                    "two RaggedTensors need the same number of rows.",
                )
            assert_equal(
                x,
                y,
                message="Inputs must have identical ragged splits.\nHint: elementwise ops on two "
                "RaggedTensors need rows of the same lengths.",
            )
    if a.ragged_rank != b.ragged_rank:
        raise ValueError("RaggedTensors of different ragged_rank cannot be combined elementwise.")


VALUE_TYPES.provide(ragged=RaggedTensor)  # the spec builds RaggedTensors while tracing (composite/specs.py)
