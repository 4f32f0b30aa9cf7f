"""`tf.TensorShape`: a shape whose dimensions may be unknown (None), as tracing needs."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any, cast


class TensorShape:
    """A tuple of dimensions (ints, or None where unknown); `dims is None` when even the rank is unknown."""

    __slots__ = ("_dims",)
    _dims: tuple[int | None, ...] | None

    def __init__(self, dims: Iterable[Any] | TensorShape | None) -> None:
        if isinstance(dims, TensorShape):
            self._dims = dims._dims
        elif dims is None:
            self._dims = None
        else:
            self._dims = tuple(None if d is None else int(d) for d in dims)

    # --- the tuple-like interface students use ---
    @property
    def rank(self) -> int | None:
        return None if self._dims is None else len(self._dims)

    @property
    def ndims(self) -> int | None:
        return self.rank

    @property
    def dims(self) -> list[int | None] | None:
        return None if self._dims is None else list(self._dims)

    def as_list(self) -> list[int | None]:
        if self._dims is None:
            raise ValueError("as_list() is not defined on an unknown TensorShape.")
        return list(self._dims)

    def num_elements(self) -> int | None:
        if not self.is_fully_defined():
            return None
        n = 1
        for d in cast("tuple[int, ...]", self._dims):  # fully defined: every dimension is an int
            n *= d
        return n

    def is_fully_defined(self) -> bool:
        return self._dims is not None and None not in self._dims

    def is_compatible_with(self, other: Any) -> bool:
        other = as_shape(other)
        if self._dims is None or other._dims is None or self._dims == other._dims:
            return True  # (equal shapes, every eager update of a variable, need no walk through their dimensions)
        if len(self._dims) != len(other._dims):
            return False
        return all(a is None or b is None or a == b for a, b in zip(self._dims, other._dims))

    def most_specific_compatible_shape(self, other: TensorShape) -> TensorShape:
        """The shape that keeps what two shapes agree on: how `reduce_retracing` generalises."""
        if self._dims is None or other._dims is None or len(self._dims) != len(other._dims):
            return TensorShape(None)
        return TensorShape(a if a == b else None for a, b in zip(self._dims, other._dims))

    def merge_with(self, other: Any) -> TensorShape:
        other = as_shape(other)
        if not self.is_compatible_with(other):
            raise ValueError(f"Shapes {self} and {other} are not compatible")
        if self._dims is None:
            return other
        if other._dims is None:
            return self
        return TensorShape(a if a is not None else b for a, b in zip(self._dims, other._dims))

    def assert_is_compatible_with(self, other: Any) -> None:
        if not self.is_compatible_with(other):
            raise ValueError(f"Shapes {self} and {as_shape(other)} are incompatible")

    # Assertions on what is known statically (they raise only when the known part contradicts them)
    def assert_is_fully_defined(self) -> None:
        if not self.is_fully_defined():
            raise ValueError(f"Shape {self} is not fully defined")

    def assert_has_rank(self, rank: int) -> None:
        if self.rank not in (None, rank):
            raise ValueError(f"Shape {self} must have rank {rank}")

    def assert_same_rank(self, other: Any) -> None:
        other = as_shape(other)
        if self.rank is not None and other.rank is not None and self.rank != other.rank:
            raise ValueError(f"Shapes {self} and {other} must have the same rank")

    def with_rank(self, rank: int) -> TensorShape:
        """This shape, with `rank` dimensions (unknown ones if the rank was unknown)."""
        if self.rank is None:
            return TensorShape([None] * rank)
        self.assert_has_rank(rank)
        return self

    def with_rank_at_least(self, rank: int) -> TensorShape:
        if self.rank is not None and self.rank < rank:
            raise ValueError(f"Shape {self} must have rank at least {rank}")
        return self

    def with_rank_at_most(self, rank: int) -> TensorShape:
        if self.rank is not None and self.rank > rank:
            raise ValueError(f"Shape {self} must have rank at most {rank}")
        return self

    def __len__(self) -> int:
        if self._dims is None:
            raise ValueError("Cannot take the length of shape with unknown rank.")
        return len(self._dims)

    def __iter__(self) -> Iterator[int | None]:
        if self._dims is None:
            raise ValueError("Cannot iterate over a shape with unknown rank.")
        return iter(self._dims)

    def __getitem__(self, key: int | slice) -> Any:
        if self._dims is None:
            return TensorShape(None) if isinstance(key, slice) else None
        if isinstance(key, slice):
            return TensorShape(self._dims[key])
        return self._dims[key]

    def __bool__(self) -> bool:
        return self._dims is not None

    def __eq__(self, other: object) -> bool:
        try:
            other_shape = as_shape(other)
        except (TypeError, ValueError):
            return NotImplemented
        return self._dims == other_shape._dims

    def __ne__(self, other: object) -> bool:
        eq = self.__eq__(other)
        return eq if eq is NotImplemented else not eq

    def __hash__(self) -> int:
        return hash(self._dims)

    def __add__(self, other: Any) -> TensorShape:
        return self.concatenate(other)

    def concatenate(self, other: Any) -> TensorShape:
        other = as_shape(other)
        if self._dims is None or other._dims is None:
            return TensorShape(None)
        return TensorShape(self._dims + other._dims)

    def __str__(self) -> str:
        if self._dims is None:
            return "<unknown>"
        if len(self._dims) == 1:
            return f"({self._dims[0]},)"
        return "(" + ", ".join(str(d) for d in self._dims) + ")"

    def __repr__(self) -> str:
        if self._dims is None:
            return "TensorShape(None)"
        return f"TensorShape({list(self._dims)})"

    def __reduce__(self) -> tuple:
        return TensorShape, (self._dims,)


def as_shape(shape: Any) -> TensorShape:
    return shape if isinstance(shape, TensorShape) else TensorShape(shape)


def shape_of(value: Any) -> TensorShape:
    """The TensorShape of an eager tensor's value (a NumPy array or scalar, or a Python bytes for a string scalar),
    made without converting each dimension again: tensors are asked for their shape on every gradient."""
    shape = _new(TensorShape)
    try:
        shape._dims = value.shape  # a tuple of Python ints
    except AttributeError:
        shape._dims = ()
    return shape


_new = object.__new__
