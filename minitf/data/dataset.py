"""`tf.data.Dataset`: a recipe for a stream of elements, built by chaining transformations.

Each dataset object describes one step (`range`, `map`, `batch`, ...) over the dataset before it and knows
its `element_spec` (the structure of TensorSpecs of one element) and its cardinality without producing any
element. Iterating runs the chain as plain Python generators: each step asks the step before it for
elements and computes with minitf ops, so the same code runs eagerly and while a `tf.function` is traced.

What differs from TensorFlow, on purpose (see docs/data.md):
* `map` and `filter` trace their function once, as TensorFlow does (a `print` in it runs once), but the
  traced graph then runs on each element in Python, one after another; there are no threads, so
  `num_parallel_calls`, `prefetch` and `deterministic` change nothing.
* Inside a `tf.function`, `for x in dataset` is unrolled while tracing: every element becomes part of the
  graph, computed at trace time (TensorFlow builds a loop that reads the dataset at run time). Fine for the
  small datasets of a lesson; a long dataset makes a long trace.

This file: the `Dataset` class, its sources and its transformations (each a subclass whose `_elements`
generator is the step). Element structures and specs: structure.py; the traced `map`/`filter`/`reduce`
functions: traced.py; iterators: iterators.py.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from minitf.core import dtypes, nest
from minitf.core.context import state
from minitf.core.conversion import convert_to_tensor
from minitf.core.errors import InvalidArgumentError, op_error
from minitf.core.tensor import EagerTensor, Tensor
from minitf.data.iterators import NumpyIterator, OwnedIterator
from minitf.data.structure import (
    batched_cardinality,
    batched_spec,
    check_same_state,
    leaves_of,
    normalize,
    python_int,
    ragged_batch,
    row_groups,
    row_of,
    row_spec,
    scalar,
    spec_of,
)
from minitf.data.traced import TracedFunction
from minitf.function.cache_keys import TensorSpec
from minitf.ops.array.join_split import stack
from minitf.ops.random.random_ops import DatasetShuffle

INFINITE = -1
UNKNOWN = -2
AUTOTUNE = -1


# ---------------------------------------------------------------------------------------------------
# The base class
# ---------------------------------------------------------------------------------------------------


class DatasetV2:
    """A dataset: iterate it (`for x in ds`), transform it (`ds.map(f).batch(32)`), or reduce it."""

    _cardinality: int = UNKNOWN

    def __init__(self, element_spec: Any, cardinality: int) -> None:
        self._element_spec = element_spec
        self._cardinality = cardinality

    # --- what every dataset implements ---
    def _elements(self) -> Iterator[Any]:
        raise NotImplementedError

    # --- looking at it ---
    @property
    def element_spec(self) -> Any:
        return self._element_spec

    def cardinality(self) -> Tensor:
        """Number of elements as an int64 tensor; tf.data.INFINITE_CARDINALITY (-1) or UNKNOWN (-2)."""
        return convert_to_tensor(self._cardinality, dtype=dtypes.int64)

    def __len__(self) -> int:
        if state.graph is not None:
            raise TypeError(
                "`tf.data.Dataset` only supports `len` in eager mode. Use `tf.data.Dataset.cardinality()` instead."
            )
        if self._cardinality == INFINITE:
            raise TypeError("The dataset is infinite.")
        if self._cardinality == UNKNOWN:
            raise TypeError("The dataset length is unknown.")
        return self._cardinality

    def __repr__(self) -> str:
        return f"<{type(self).__name__} element_spec={self._element_spec!r}>"

    def __bool__(self) -> bool:
        return True

    # --- iterating ---
    def __iter__(self) -> OwnedIterator:
        return OwnedIterator(self)

    def as_numpy_iterator(self) -> Iterator[Any]:
        """Elements as NumPy values (bytes for strings), same structure."""
        if state.graph is not None:
            raise RuntimeError("`tf.data.Dataset.as_numpy_iterator()` is only supported in eager mode.")
        return NumpyIterator(self)

    def reduce(self, initial_state: Any, reduce_func: Callable[..., Any], name: str | None = None) -> Any:
        """Fold every element into a state: state = reduce_func(state, element), traced once like `map`."""
        state_value = normalize(initial_state)
        step = TracedFunction(reduce_func, (spec_of(state_value), self.element_spec), "reduce")
        check_same_state(state_value, step.output_spec)
        for element in self._elements():
            state_value = step((state_value, element))
        return state_value

    # --- sources ---
    @staticmethod
    def from_tensor_slices(tensors: Any, name: str | None = None) -> DatasetV2:
        return _TensorSliceDataset(tensors)

    @staticmethod
    def from_tensors(tensors: Any, name: str | None = None) -> DatasetV2:
        return _TensorDataset(tensors)

    @staticmethod
    def range(*args: Any, **kwargs: Any) -> DatasetV2:
        return _RangeDataset(*args, **kwargs)

    @staticmethod
    def zip(*args: Any, datasets: Any = None, name: str | None = None) -> DatasetV2:
        if datasets is None:
            datasets = args[0] if len(args) == 1 else tuple(args)
        elif args:
            raise TypeError("Both `*args` and `datasets` cannot be set.")
        return _ZipDataset(datasets)

    # --- transformations ---
    def map(
        self,
        map_func: Callable[..., Any],
        num_parallel_calls: Any = None,
        deterministic: Any = None,
        synchronous: Any = None,
        use_unbounded_threadpool: bool = False,
        name: str | None = None,
    ) -> DatasetV2:
        return _MapDataset(self, map_func)

    def filter(self, predicate: Callable[..., Any], name: str | None = None) -> DatasetV2:
        return _FilterDataset(self, predicate)

    def batch(
        self,
        batch_size: Any,
        drop_remainder: bool = False,
        num_parallel_calls: Any = None,
        deterministic: Any = None,
        name: str | None = None,
    ) -> DatasetV2:
        return _BatchDataset(self, python_int(batch_size, "batch_size"), bool(drop_remainder))

    def shuffle(
        self, buffer_size: Any, seed: int | None = None, reshuffle_each_iteration: bool = True, name: str | None = None
    ) -> DatasetV2:
        return _ShuffleDataset(self, python_int(buffer_size, "buffer_size"), seed, reshuffle_each_iteration)

    def repeat(self, count: Any = None, name: str | None = None) -> DatasetV2:
        return _RepeatDataset(self, -1 if count is None else python_int(count, "count"))

    def take(self, count: Any, name: str | None = None) -> DatasetV2:
        return _TakeDataset(self, python_int(count, "count"))

    def skip(self, count: Any, name: str | None = None) -> DatasetV2:
        return _SkipDataset(self, python_int(count, "count"))

    def prefetch(self, buffer_size: Any, name: str | None = None) -> DatasetV2:
        return _PrefetchDataset(self)

    def cache(self, filename: str = "", name: str | None = None) -> DatasetV2:
        if filename:
            raise NotImplementedError("minitf caches datasets in memory only; call cache() without a filename.")
        return CacheDataset(self)

    def enumerate(self, start: Any = 0, name: str | None = None) -> DatasetV2:
        index = _RangeDataset(python_int(start, "start"), np.iinfo(np.int64).max)
        return _ZipDataset((index, self))


Dataset = DatasetV2


# ---------------------------------------------------------------------------------------------------
# Sources
# ---------------------------------------------------------------------------------------------------


class _TensorDataset(DatasetV2):
    """One element: the whole value."""

    def __init__(self, tensors: Any) -> None:
        self._value = normalize(tensors)
        super().__init__(spec_of(self._value), 1)

    def _elements(self) -> Iterator[Any]:
        yield self._value


class _TensorSliceDataset(DatasetV2):
    """One element per row of the first axis of every component."""

    def __init__(self, tensors: Any) -> None:
        self._value = normalize(tensors)
        sizes = set()
        for t in leaves_of(self._value):
            if t.shape.rank == 0:
                raise ValueError("Unbatching a tensor is only supported for rank >= 1")
            sizes.add(t.shape[0])
        known = sorted(s for s in sizes if s is not None)
        if len(known) > 1:
            raise ValueError(f"Dimensions {known[-1]} and {known[0]} are not compatible")
        self._size = known[0] if known and None not in sizes else None
        spec = nest.map_structure(row_spec, self._value)
        super().__init__(spec, self._size if self._size is not None else UNKNOWN)

    def _elements(self) -> Iterator[Any]:
        if self._size is None:
            raise TypeError(
                "minitf iterates a dataset of tensors whose length is unknown while tracing only "
                "when the length is known.\nHint: build the dataset from eager values."
            )
        for i in range(self._size):
            yield nest.map_structure(lambda t, i=i: row_of(t, i), self._value)


class _RangeDataset(DatasetV2):
    """start, start + step, ... up to (not including) stop."""

    def __init__(self, *args: Any, output_type: Any = dtypes.int64, name: str | None = None) -> None:
        if not 1 <= len(args) <= 3:
            raise ValueError(f"Invalid arguments to RangeDataset: {args}")
        ints = [python_int(a, "range argument") for a in args]
        start, stop, step = (0, ints[0], 1) if len(ints) == 1 else (ints[0], ints[1], ints[2] if len(ints) == 3 else 1)
        if step == 0:
            raise op_error(InvalidArgumentError, "RangeDataset", "step must be a non-zero integer.")
        self._range = range(start, stop, step)
        self._dtype = dtypes.as_dtype(output_type)
        super().__init__(TensorSpec([], self._dtype), len(self._range))

    def _elements(self) -> Iterator[Any]:
        np_type = self._dtype._np.type
        for i in self._range:
            yield scalar(np_type(i), self._dtype)


class _ZipDataset(DatasetV2):
    """Elements of several datasets side by side, as long as the shortest."""

    def __init__(self, datasets: Any) -> None:
        members = nest.flatten(datasets)
        for d in members:
            if not isinstance(d, DatasetV2):
                raise TypeError(
                    f"Invalid input to `zip`. Inputs are expected to be (nested) structures of "
                    f"`tf.data.Dataset` objects. Python `list` is not supported and you should use "
                    f"`tuple` instead.\nHint: got {type(d).__name__}."
                )
        self._datasets = datasets
        cards = [d._cardinality for d in members]
        if UNKNOWN in cards:
            card = UNKNOWN
        else:
            finite = [c for c in cards if c != INFINITE]
            card = min(finite) if finite else INFINITE
        super().__init__(nest.map_structure(lambda d: d.element_spec, datasets), card)

    def _elements(self) -> Iterator[Any]:
        members = nest.flatten(self._datasets)
        for items in zip(*[d._elements() for d in members]):
            yield nest.pack_sequence_as(self._datasets, items)


# ---------------------------------------------------------------------------------------------------
# Transformations
# ---------------------------------------------------------------------------------------------------


class _MapDataset(DatasetV2):
    def __init__(self, source: DatasetV2, map_func: Callable[..., Any]) -> None:
        self._source = source
        self._fn = TracedFunction(map_func, source.element_spec, "map")
        super().__init__(self._fn.output_spec, source._cardinality)

    def _elements(self) -> Iterator[Any]:
        for element in self._source._elements():
            yield self._fn(element)


class _FilterDataset(DatasetV2):
    def __init__(self, source: DatasetV2, predicate: Callable[..., Any]) -> None:
        self._source = source
        self._fn = TracedFunction(predicate, source.element_spec, "filter")
        spec = self._fn.output_spec
        if not isinstance(spec, TensorSpec) or spec.dtype is not dtypes.bool or spec.shape.rank != 0:
            raise ValueError(
                f"Invalid `predicate`. `predicate` must return a `tf.bool` scalar tensor, but its "
                f"return type is {spec!r}."
            )
        super().__init__(source.element_spec, UNKNOWN)

    def _elements(self) -> Iterator[Any]:
        for element in self._source._elements():
            keep = self._fn(element)
            if not isinstance(keep, EagerTensor):
                raise TypeError(
                    "minitf cannot filter a dataset inside a tf.function when the predicate "
                    "depends on traced values.\nHint: filter the dataset outside the tf.function."
                )
            if bool(keep._value):
                yield element


class _BatchDataset(DatasetV2):
    def __init__(self, source: DatasetV2, batch_size: int, drop_remainder: bool) -> None:
        if batch_size <= 0:
            raise InvalidArgumentError(None, None, "Batch size must be greater than zero. [Op:BatchDatasetV2] name: ")
        self._source, self._size, self._drop = source, batch_size, drop_remainder
        outer = batch_size if drop_remainder else None
        spec = nest.map_structure(lambda s: batched_spec(s, outer), source.element_spec)
        self._ragged = [getattr(s, "ragged_rank", None) == 0 for s in leaves_of(source.element_spec)]
        super().__init__(spec, batched_cardinality(source._cardinality, batch_size, drop_remainder))

    def _elements(self) -> Iterator[Any]:
        for rows in row_groups(self._source._elements(), self._size, self._drop):
            columns = zip(*[leaves_of(r) for r in rows])
            stacked = [
                ragged_batch(list(c)) if ragged else self._stack(stack, list(c))
                for c, ragged in zip(columns, self._ragged)
            ]
            yield nest.pack_sequence_as(rows[0], stacked)

    @staticmethod
    def _stack(stack: Callable[..., Any], tensors: list[Any]) -> Any:
        first = tensors[0].shape
        for t in tensors[1:]:
            if t.shape != first:
                raise op_error(
                    InvalidArgumentError,
                    "IteratorGetNext",
                    f"Cannot add tensor to the batch: number of "
                    f"elements does not match. Shapes are: [tensor]: {list(t.shape)}, [batch]: "
                    f"{list(first)}",
                    "elements of one batch must have the same shape; pad them first (or use ragged batches).",
                )
        return stack(tensors)


class _ShuffleDataset(DatasetV2):
    """TensorFlow's buffer shuffle, in TensorFlow's exact order (`random_ops.DatasetShuffle`): keep
    `buffer_size` elements, emit a random one, refill its place. The seeds are picked when the dataset is made,
    from the global seed and the op seed as for a random op; each pass draws new ones if `reshuffle`."""

    def __init__(self, source: DatasetV2, buffer_size: int, seed: int | None, reshuffle: bool) -> None:
        if buffer_size <= 0 and buffer_size != UNKNOWN:
            raise op_error(
                InvalidArgumentError, "ShuffleDatasetV3", "buffer_size must be greater than zero or UNKNOWN_CARDINALITY"
            )
        self._source, self._buffer_size = source, buffer_size
        self._shuffle = DatasetShuffle(seed, reshuffle_each_iteration=bool(reshuffle))
        super().__init__(source.element_spec, source._cardinality)

    def _elements(self) -> Iterator[Any]:
        return self._shuffle.epoch(self._source._elements(), self._buffer_size)


class _RepeatDataset(DatasetV2):
    def __init__(self, source: DatasetV2, count: int) -> None:
        self._source, self._count = source, count
        card = source._cardinality
        if count == 0 or card == 0:
            card = 0
        elif count < 0:
            card = INFINITE  # TensorFlow's rule, even for a source of unknown length (which may turn out empty)
        elif card >= 0:
            card = card * count
        super().__init__(source.element_spec, card)

    def _elements(self) -> Iterator[Any]:
        if isinstance(self._source, _ShuffleDataset) and (self._count == 0 or self._count < -1):
            # TensorFlow fuses shuffle followed by repeat into one ShuffleAndRepeatDataset (a default
            # optimisation), whose iterator refuses the counts that RepeatDataset accepts as "no elements".
            raise op_error(
                InvalidArgumentError,
                "MakeIterator",
                "count must be greater than zero or equal to -1.\n\t [[{{node ShuffleAndRepeatDataset}}]]",
            )
        epochs = itertools.count() if self._count < 0 else range(self._count)
        for _ in epochs:
            produced = False
            for element in self._source._elements():
                produced = True
                yield element
            if not produced:
                return


class _TakeDataset(DatasetV2):
    def __init__(self, source: DatasetV2, count: int) -> None:
        self._source, self._count = source, count
        card = source._cardinality
        if count >= 0:
            card = count if card == INFINITE else (min(card, count) if card >= 0 else UNKNOWN)
        super().__init__(source.element_spec, card)

    def _elements(self) -> Iterator[Any]:
        source = self._source._elements()
        return source if self._count < 0 else itertools.islice(source, self._count)


class _SkipDataset(DatasetV2):
    def __init__(self, source: DatasetV2, count: int) -> None:
        self._source, self._count = source, count
        card = source._cardinality
        if count < 0:
            card = 0 if card != INFINITE else INFINITE
        elif card >= 0:
            card = max(0, card - count)
        super().__init__(source.element_spec, card)

    def _elements(self) -> Iterator[Any]:
        if self._count < 0:
            for _ in self._source._elements():
                pass
            return iter(())
        return itertools.islice(self._source._elements(), self._count, None)


class _PrefetchDataset(DatasetV2):
    """Overlaps input and training in TensorFlow; here (one thread) it passes the elements through."""

    def __init__(self, source: DatasetV2) -> None:
        self._source = source
        super().__init__(source.element_spec, source._cardinality)

    def _elements(self) -> Iterator[Any]:
        return self._source._elements()


class CacheDataset(DatasetV2):
    """The first complete pass is kept in memory; later passes replay it (no recomputation, same order)."""

    def __init__(self, source: DatasetV2) -> None:
        self._source = source
        self._cache: list[Any] | None = None
        super().__init__(source.element_spec, source._cardinality)

    def _elements(self) -> Iterator[Any]:
        if self._cache is not None:
            yield from self._cache
            return
        seen: list[Any] = []
        all_eager = True
        for element in self._source._elements():
            all_eager = all_eager and all(isinstance(t, EagerTensor) for t in leaves_of(element))
            seen.append(element)
            yield element
        if all_eager:  # a pass read to the end: keep it (traced values belong to one graph, never kept)
            self._cache = seen
