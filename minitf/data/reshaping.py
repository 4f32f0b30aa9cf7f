"""Dataset steps that regroup elements: `window` (elements in overlapping groups, each a small dataset),
`flat_map` and `interleave` (a dataset per element, read one after another or in turns), `concatenate`,
`padded_batch` (batches of elements of different shapes, padded to a common one) and `rebatch`.

`flat_map` and `interleave` call their function on each element as it arrives, eagerly (the function returns a
dataset, which minitf builds from the element's values); TensorFlow traces it once.
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from minitf.core import dtypes, nest
from minitf.core.conversion import convert_to_tensor
from minitf.core.errors import InvalidArgumentError, op_error
from minitf.core.tensor_shape import TensorShape
from minitf.data.dataset import DATASETS, INFINITE, UNKNOWN, DatasetV2
from minitf.data.structure import batched_cardinality, leaves_of, python_int, row_groups
from minitf.function.cache_keys import TensorSpec
from minitf.ops.array.join_split import concat, stack
from minitf.ops.array.tile_pad import pad
from minitf.ops.random.random_ops import peeking


class DatasetSpec:
    """The spec of an element that is itself a dataset (what `window` makes)."""

    def __init__(self, element_spec: Any, dataset_shape: Any = ()) -> None:
        self.element_spec, self.dataset_shape = element_spec, TensorShape(dataset_shape)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, DatasetSpec) and repr(self) == repr(other)

    def __repr__(self) -> str:
        return f"DatasetSpec({self.element_spec!r}, {self.dataset_shape!r})"


class _VariantDataset(DatasetV2):
    """A dataset of elements already computed: one window."""

    def __init__(self, elements: list[Any], spec: Any) -> None:
        self._items = elements
        super().__init__(spec, len(elements))

    def _elements(self) -> Iterator[Any]:
        return iter(self._items)


class _WindowDataset(DatasetV2):
    def __init__(self, source: DatasetV2, size: int, shift: int, stride: int, drop_remainder: bool) -> None:
        for what, value in (("size", size), ("shift", shift), ("stride", stride)):
            if value <= 0:
                raise op_error(
                    InvalidArgumentError, "WindowDataset", f"Window {what} must be greater than zero, but got {value}."
                )
        self._source, self._size, self._shift, self._stride, self._drop = source, size, shift, stride, drop_remainder
        card = source._cardinality
        if card >= 0:
            span = (size - 1) * stride + 1
            card = (max(0, card - span) // shift + 1 if card >= span else 0) if drop_remainder else -(-card // shift)
        spec = nest.map_structure(lambda s: DatasetSpec(s, TensorShape([])), source.element_spec)
        super().__init__(spec, card)

    def _elements(self) -> Iterator[Any]:
        source, spec = self._source._elements(), self._source.element_spec
        span = (self._size - 1) * self._stride + 1  # how many elements one window reaches over
        buffer: list[Any] = []
        exhausted, to_skip = False, 0
        while True:
            while not exhausted and len(buffer) < span:
                element = next(source, _END)
                if element is _END:
                    exhausted = True
                elif to_skip:
                    to_skip -= 1
                else:
                    buffer.append(element)
            if not buffer or (self._drop and len(buffer) < span):
                return
            yield self._split(buffer[: span : self._stride], spec)
            to_skip = max(0, self._shift - len(buffer))
            buffer = buffer[self._shift :]

    @staticmethod
    def _split(window: list[Any], spec: Any) -> Any:
        """A window of elements as the element's structure with one dataset per component."""
        columns = list(zip(*[leaves_of(e) for e in window]))
        datasets = [_VariantDataset(list(c), s) for c, s in zip(columns, leaves_of(spec))]
        return nest.pack_sequence_as(spec, datasets)


class _FlatMapDataset(DatasetV2):
    def __init__(self, source: DatasetV2, fn: Callable[..., Any]) -> None:
        self._source, self._fn = source, fn
        super().__init__(_mapped_spec(source, fn), UNKNOWN)

    def _elements(self) -> Iterator[Any]:
        for element in self._source._elements():
            yield from _call(self._fn, element)._elements()


def _call(fn: Callable[..., Any], element: Any) -> DatasetV2:
    dataset = fn(*element) if isinstance(element, tuple) else fn(element)
    if not isinstance(dataset, DatasetV2):
        raise TypeError(f"The function must return a `tf.data.Dataset` object; it returned {dataset!r}.")
    return dataset


def _mapped_spec(source: DatasetV2, fn: Callable[..., Any]) -> Any:
    """The element spec of the datasets `fn` makes: read from the dataset it makes for the first element."""
    with peeking():  # TensorFlow traces instead: looking must not use up a shuffle's epoch
        first = next(iter(source._elements()), None)
    if first is None:
        raise ValueError(
            "minitf learns what a flat_map or interleave function returns from the first element; "
            "the dataset is empty.\nHint: apply it to a dataset with elements."
        )
    return _call(fn, first).element_spec


class _InterleaveDataset(DatasetV2):
    """`cycle_length` datasets open at once, `block_length` elements from each in turn; an exhausted one is
    replaced by the next element's dataset when its turn comes round (TensorFlow's order)."""

    def __init__(self, source: DatasetV2, fn: Callable[..., Any], cycle_length: int, block_length: int) -> None:
        self._source, self._fn, self._cycle, self._block = source, fn, cycle_length, block_length
        super().__init__(_mapped_spec(source, fn), UNKNOWN)

    def _elements(self) -> Iterator[Any]:
        inputs = self._source._elements()
        slots: list[Iterator[Any] | None] = [None] * self._cycle
        open_count, index, taken, inputs_done = 0, 0, 0, False
        while not inputs_done or open_count:
            current = slots[index]
            if current is not None:
                element = next(current, _END)
                if element is not _END:
                    yield element
                    taken += 1
                    if taken < self._block:
                        continue
                else:
                    slots[index] = None
                    open_count -= 1
            elif not inputs_done:
                element = next(inputs, _END)
                if element is _END:
                    inputs_done = True
                else:
                    slots[index] = _call(self._fn, element)._elements()
                    open_count += 1
                continue
            index, taken = (index + 1) % self._cycle, 0


_END = object()


def _common_spec(a: Any, b: Any) -> Any:
    if a.dtype is not b.dtype:
        raise TypeError(
            f"Incompatible dataset elements:\n  {a} vs.   {b}\nHint: tf.cast one dataset's elements "
            f"(with map) to the other's dtype."
        )
    return TensorSpec(a.shape.most_specific_compatible_shape(b.shape), a.dtype)


class _ConcatenateDataset(DatasetV2):
    def __init__(self, first: DatasetV2, second: DatasetV2) -> None:
        self._first, self._second = first, second
        if nest.map_structure(lambda s: None, first.element_spec) != nest.map_structure(
            lambda s: None, second.element_spec
        ):
            raise TypeError(f"Incompatible dataset elements:\n  {first.element_spec} vs.   {second.element_spec}")
        spec = nest.map_structure(_common_spec, first.element_spec, second.element_spec)
        cards = (first._cardinality, second._cardinality)
        card = INFINITE if INFINITE in cards else UNKNOWN if UNKNOWN in cards else sum(cards)
        super().__init__(spec, card)

    def _elements(self) -> Iterator[Any]:
        yield from self._first._elements()
        yield from self._second._elements()


def _padding_value(dtype: dtypes.DType) -> Any:
    return b"" if dtype is dtypes.string else dtype._np.type(0)


def _up_to(spec: Any, other: Any, fn: Callable[[Any, Any], Any]) -> Any:
    """`fn(leaf spec, part of other)` over the element's structure; below it, `other` is one value (a shape
    given as a list stays one shape)."""
    if isinstance(spec, tuple):
        return tuple(_up_to(s, o, fn) for s, o in zip(spec, other))
    if isinstance(spec, dict):
        return {k: _up_to(s, other[k], fn) for k, s in spec.items()}
    return fn(spec, other)


class _PaddedBatchDataset(DatasetV2):
    def __init__(
        self, source: DatasetV2, batch_size: int, padded_shapes: Any, padding_values: Any, drop_remainder: bool
    ) -> None:
        self._source, self._size, self._drop = source, batch_size, drop_remainder
        spec = source.element_spec
        if padded_shapes is None:  # pad every dimension to the longest in the batch
            padded_shapes = nest.map_structure(lambda s: TensorShape([None] * (s.shape.rank or 0)), spec)
        self._shapes = _up_to(spec, padded_shapes, lambda s, p: TensorShape(p))
        if padding_values is None:
            padding_values = nest.map_structure(lambda s: _padding_value(s.dtype), spec)
        self._values = _up_to(spec, padding_values, lambda s, v: convert_to_tensor(v, dtype=s.dtype))
        outer = TensorShape([batch_size if drop_remainder else None])
        padded = _up_to(spec, self._shapes, lambda s, p: TensorSpec(outer.concatenate(p), s.dtype))
        super().__init__(padded, batched_cardinality(source._cardinality, batch_size, drop_remainder))

    def _elements(self) -> Iterator[Any]:
        for rows in row_groups(self._source._elements(), self._size, self._drop):
            columns = zip(*[leaves_of(r) for r in rows])
            batched = [
                self._pad_stack(list(c), shape, value)
                for c, shape, value in zip(columns, leaves_of(self._shapes), leaves_of(self._values))
            ]
            yield nest.pack_sequence_as(rows[0], batched)

    @staticmethod
    def _pad_stack(tensors: list[Any], shape: TensorShape, value: Any) -> Any:
        longest = [max(int(t.shape[d]) for t in tensors) for d in range(len(tensors[0].shape))]
        target = [longest[d] if shape[d] is None else int(shape[d]) for d in range(len(longest))]
        padded = []
        for t in tensors:
            gaps = [[0, want - int(have)] for want, have in zip(target, t.shape)]
            if any(g[1] < 0 for g in gaps):
                raise op_error(
                    InvalidArgumentError,
                    "IteratorGetNext",
                    "Attempted to pad to a smaller size than the input element.",
                    "make padded_shapes at least as large as every element.",
                )
            padded.append(pad(t, gaps, constant_values=value) if any(g[1] for g in gaps) else t)
        return stack(padded)


class _RebatchDataset(DatasetV2):
    """The rows of the source's batches, regrouped into batches of the given sizes (taken in turn)."""

    def __init__(self, source: DatasetV2, sizes: list[int], drop_remainder: bool) -> None:
        self._source, self._sizes, self._drop = source, sizes, drop_remainder
        outer = sizes[0] if drop_remainder and len(set(sizes)) == 1 else None
        spec = nest.map_structure(
            lambda s: TensorSpec(TensorShape([outer]).concatenate(s.shape[1:]), s.dtype), source.element_spec
        )
        super().__init__(spec, UNKNOWN)

    def _elements(self) -> Iterator[Any]:
        pending: list[Any] = []  # pieces of rows not yet handed out, one structure each
        count = 0
        sizes = itertools.cycle(self._sizes)
        want = next(sizes)
        for batch in self._source._elements():
            pending.append(batch)
            count += int(leaves_of(batch)[0].shape[0])
            while count >= want:
                yield self._take(pending, want)
                count -= want
                want = next(sizes)
        if count and not self._drop:
            yield self._take(pending, count)

    @staticmethod
    def _take(pending: list[Any], n: int) -> Any:
        pieces, needed = [], n
        while needed:
            head = pending[0]
            rows = int(leaves_of(head)[0].shape[0])
            if rows <= needed:
                pieces.append(pending.pop(0))
                needed -= rows
            else:
                pieces.append(nest.map_structure(lambda t, n=needed: t[:n], head))
                pending[0] = nest.map_structure(lambda t, n=needed: t[n:], head)
                needed = 0
        if len(pieces) == 1:
            return pieces[0]
        return nest.map_structure(lambda *parts: concat(list(parts), axis=0), *pieces)


class _UnbatchDataset(DatasetV2):
    """Each row of the source's elements as an element of its own (`batch`, undone)."""

    def __init__(self, source: DatasetV2) -> None:
        self._source = source
        specs = leaves_of(source.element_spec)
        if any(spec.shape.rank == 0 for spec in specs):
            raise ValueError("Cannot unbatch an input with scalar components.")
        spec = nest.map_structure(lambda s: TensorSpec(s.shape[1:], s.dtype), source.element_spec)
        super().__init__(spec, UNKNOWN)

    def _elements(self) -> Iterator[Any]:
        for batch in self._source._elements():
            for row in range(int(leaves_of(batch)[0].shape[0])):
                yield nest.map_structure(lambda t, row=row: t[row], batch)


def unbatch(self: DatasetV2, name: str | None = None) -> DatasetV2:
    return _UnbatchDataset(self)


def window(
    self: DatasetV2,
    size: Any,
    shift: Any = None,
    stride: Any = 1,
    drop_remainder: bool = False,
    name: str | None = None,
) -> DatasetV2:
    size = python_int(size, "size")
    return _WindowDataset(
        self,
        size,
        size if shift is None else python_int(shift, "shift"),
        python_int(stride, "stride"),
        bool(drop_remainder),
    )


def flat_map(self: DatasetV2, map_func: Callable[..., Any], name: str | None = None) -> DatasetV2:
    return _FlatMapDataset(self, map_func)


def interleave(
    self: DatasetV2,
    map_func: Callable[..., Any],
    cycle_length: Any = None,
    block_length: Any = None,
    num_parallel_calls: Any = None,
    deterministic: Any = None,
    name: str | None = None,
) -> DatasetV2:
    cycle = os.cpu_count() or 1 if cycle_length is None or cycle_length == -1 else python_int(cycle_length, "cycle")
    return _InterleaveDataset(self, map_func, cycle, 1 if block_length is None else python_int(block_length, "block"))


def concatenate(self: DatasetV2, dataset: DatasetV2, name: str | None = None) -> DatasetV2:
    return _ConcatenateDataset(self, dataset)


def padded_batch(
    self: DatasetV2,
    batch_size: Any,
    padded_shapes: Any = None,
    padding_values: Any = None,
    drop_remainder: bool = False,
    name: str | None = None,
) -> DatasetV2:
    return _PaddedBatchDataset(
        self, python_int(batch_size, "batch_size"), padded_shapes, padding_values, bool(drop_remainder)
    )


def rebatch(self: DatasetV2, batch_size: Any, drop_remainder: bool = False, name: str | None = None) -> DatasetV2:
    sizes = [int(s) for s in np.asarray(convert_to_tensor(batch_size)).reshape(-1)]
    return _RebatchDataset(self, sizes, bool(drop_remainder))


DATASETS.provide(
    window=window,
    flat_map=flat_map,
    interleave=interleave,
    concatenate=concatenate,
    padded_batch=padded_batch,
    rebatch=rebatch,
    unbatch=unbatch,
)
