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

This file: the `Dataset` class, with every method, and the transformations map, filter and batch (each a
subclass whose `_elements` generator is the step). The sources are in sources.py; shuffle, repeat, take, skip,
prefetch and cache in selection.py; window, flat_map, padded_batch... in reshaping.py. Element structures and
specs: structure.py; the traced `map`/`filter`/`reduce` functions: traced.py; iterators: iterators.py.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

import minitf.left_out as left_out
from minitf.core import dtypes, nest
from minitf.core.context import state
from minitf.core.conversion import convert_to_tensor
from minitf.core.errors import InvalidArgumentError, op_error
from minitf.core.provided import Provided
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
    spec_of,
)
from minitf.data.traced import TracedFunction, traced_predicate
from minitf.ops.array.join_split import stack

INFINITE = -1
UNKNOWN = -2
AUTOTUNE = -1

LEFT_OUT_METHODS = {
    "save": "minitf does not write TensorFlow's dataset snapshot format; keep the data as arrays or TFRecord files",
    "load": "minitf does not read TensorFlow's dataset snapshot format; load arrays or TFRecord files instead",
    "snapshot": "minitf's pipelines have no on-disk snapshots; use cache() to keep elements in memory",
    "fingerprint": "an internal hash of TensorFlow's dataset graph, which minitf does not build",
    "rejection_resample": "not implemented; filter() or sample_from_datasets() rebalance classes instead",
    "sparse_batch": "minitf's tf.data does not batch SparseTensors; batch dense tensors or use ragged_batch()",
    "ignore_errors": "minitf's pipelines stop at the first error; filter() out the elements that would fail",
}


# ---------------------------------------------------------------------------------------------------
# The base class
# ---------------------------------------------------------------------------------------------------


class Datasets(Provided):
    """The kinds of dataset defined in modules of their own (each subclasses `DatasetV2`), provided when
    sources.py, file_sources.py, selection.py, reshaping.py and ragged_batching.py are imported
    (minitf/core/provided.py)."""

    from_tensor_slices: Callable[..., DatasetV2]
    from_tensors: Callable[..., DatasetV2]
    range: Callable[..., DatasetV2]
    zip: Callable[..., DatasetV2]
    from_generator: Callable[..., DatasetV2]
    counter: Callable[..., DatasetV2]
    random: Callable[..., DatasetV2]
    list_files: Callable[..., DatasetV2]
    with_options: Callable[..., DatasetV2]
    options: Callable[..., Any]
    window: Callable[..., DatasetV2]
    flat_map: Callable[..., DatasetV2]
    interleave: Callable[..., DatasetV2]
    concatenate: Callable[..., DatasetV2]
    padded_batch: Callable[..., DatasetV2]
    rebatch: Callable[..., DatasetV2]
    unbatch: Callable[..., DatasetV2]
    ragged_batch: Callable[..., DatasetV2]
    shuffle: Callable[..., DatasetV2]
    repeat: Callable[..., DatasetV2]
    take: Callable[..., DatasetV2]
    skip: Callable[..., DatasetV2]
    prefetch: Callable[..., DatasetV2]
    cache: Callable[..., DatasetV2]
    # stateful_steps.py, grouping.py, choosing.py
    scan: Callable[..., DatasetV2]
    take_while: Callable[..., DatasetV2]
    unique: Callable[..., DatasetV2]
    shard: Callable[..., DatasetV2]
    get_single_element: Callable[..., Any]
    group_by_window: Callable[..., DatasetV2]
    bucket_by_sequence_length: Callable[..., DatasetV2]
    choose_from_datasets: Callable[..., DatasetV2]
    sample_from_datasets: Callable[..., DatasetV2]


DATASETS = Datasets()


class DatasetV2:
    """A dataset: iterate it (`for x in ds`), transform it (`ds.map(f).batch(32)`), or reduce it."""

    _cardinality: int = UNKNOWN
    LEFT_OUT = LEFT_OUT_METHODS  # TensorFlow's methods that minitf does not have, with the reason

    def __getattr__(self, name: str) -> Any:
        if name in LEFT_OUT_METHODS:
            raise left_out.LeftOutError(left_out.message(f"tf.data.Dataset.{name}", LEFT_OUT_METHODS[name]))
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

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

    # --- sources (sources.py) ---
    @staticmethod
    def from_tensor_slices(tensors: Any, name: str | None = None) -> DatasetV2:
        """One element per row of the first axis of every component."""
        return DATASETS.from_tensor_slices(tensors)

    @staticmethod
    def from_tensors(tensors: Any, name: str | None = None) -> DatasetV2:
        """One element: the whole value."""
        return DATASETS.from_tensors(tensors)

    @staticmethod
    def range(*args: Any, output_type: Any = dtypes.int64, name: str | None = None) -> DatasetV2:
        """start, start + step, ... up to (not including) stop."""
        return DATASETS.range(*args, output_type=output_type)

    @staticmethod
    def zip(*args: Any, datasets: Any = None, name: str | None = None) -> DatasetV2:
        """Elements of several datasets side by side, as long as the shortest."""
        if datasets is None:
            datasets = args[0] if len(args) == 1 else tuple(args)
        elif args:
            raise TypeError("Both `*args` and `datasets` cannot be set.")
        return DATASETS.zip(datasets)

    @staticmethod
    def from_generator(*args: Any, **kwargs: Any) -> DatasetV2:
        """Elements a Python generator yields, described by `output_signature`."""
        return DATASETS.from_generator(*args, **kwargs)

    @staticmethod
    def counter(start: int = 0, step: int = 1, dtype: Any = dtypes.int64, name: str | None = None) -> DatasetV2:
        """start, start + step, ... forever."""
        return DATASETS.counter(start, step, dtype)

    @staticmethod
    def random(
        seed: int | None = None, rerandomize_each_iteration: bool | None = None, name: str | None = None
    ) -> DatasetV2:
        """Random int64 numbers, as TensorFlow's random ops draw them."""
        return DATASETS.random(seed, rerandomize_each_iteration)

    @staticmethod
    def choose_from_datasets(datasets: Any, choice_dataset: Any, stop_on_empty_dataset: bool = True) -> DatasetV2:
        """The next element of `datasets[i]` for each index i that `choice_dataset` gives (choosing.py)."""
        return DATASETS.choose_from_datasets(datasets, choice_dataset, stop_on_empty_dataset)

    @staticmethod
    def sample_from_datasets(
        datasets: Any, weights: Any = None, seed: int | None = None, stop_on_empty_dataset: bool = False, **_: Any
    ) -> DatasetV2:
        """Elements of `datasets` drawn at random, each dataset with its weight."""
        return DATASETS.sample_from_datasets(datasets, weights, seed, stop_on_empty_dataset)

    @staticmethod
    def list_files(file_pattern: Any, shuffle: bool | None = None, seed: int | None = None, name: Any = None) -> Any:
        """The files matching one or more glob patterns, sorted, then shuffled unless `shuffle=False`."""
        return DATASETS.list_files(file_pattern, shuffle, seed)

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
        if num_parallel_calls is not None:  # computed one element after the other all the same
            return _ParallelMapDataset(self, map_func)
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
        return DATASETS.shuffle(self, python_int(buffer_size, "buffer_size"), seed, reshuffle_each_iteration)

    def repeat(self, count: Any = None, name: str | None = None) -> DatasetV2:
        return DATASETS.repeat(self, -1 if count is None else python_int(count, "count"))

    def take(self, count: Any, name: str | None = None) -> DatasetV2:
        return DATASETS.take(self, python_int(count, "count"))

    def skip(self, count: Any, name: str | None = None) -> DatasetV2:
        return DATASETS.skip(self, python_int(count, "count"))

    def prefetch(self, buffer_size: Any, name: str | None = None) -> DatasetV2:
        return DATASETS.prefetch(self)

    def cache(self, filename: str = "", name: str | None = None) -> DatasetV2:
        if filename:
            raise NotImplementedError("minitf caches datasets in memory only; call cache() without a filename.")
        return DATASETS.cache(self)

    # --- running state, early stops, groups (stateful_steps.py, grouping.py) ---
    def scan(self, initial_state: Any, scan_func: Callable[..., Any], name: str | None = None) -> DatasetV2:
        """state, output = scan_func(state, element) element by element; the outputs are the elements."""
        return DATASETS.scan(self, initial_state, scan_func)

    def take_while(self, predicate: Callable[..., Any], name: str | None = None) -> DatasetV2:
        return DATASETS.take_while(self, predicate)

    def unique(self, name: str | None = None) -> DatasetV2:
        return DATASETS.unique(self)

    def shard(self, num_shards: Any, index: Any, name: str | None = None) -> DatasetV2:
        return DATASETS.shard(self, num_shards, index)

    def get_single_element(self, name: str | None = None) -> Any:
        return DATASETS.get_single_element(self)

    def group_by_window(self, key_func: Any, reduce_func: Any, *args: Any, **kw: Any) -> DatasetV2:
        """Windows of elements of one key (`window_size` of them), each made a dataset by `reduce_func`."""
        kw.pop("name", None)
        return DATASETS.group_by_window(self, key_func, reduce_func, *args, **kw)

    def bucket_by_sequence_length(self, *args: Any, **kwargs: Any) -> DatasetV2:
        """Batches of elements of similar length, padded to the longest of each batch."""
        return DATASETS.bucket_by_sequence_length(self, *args, **kwargs)

    def enumerate(self, start: Any = 0, name: str | None = None) -> DatasetV2:
        index = DATASETS.range(python_int(start, "start"), np.iinfo(np.int64).max)
        return DATASETS.zip((index, self))

    # --- reshaping (reshaping.py) ---
    def window(self, *args: Any, **kwargs: Any) -> DatasetV2:
        """Datasets of `size` consecutive elements, every `shift` elements."""
        return DATASETS.window(self, *args, **kwargs)

    def flat_map(self, map_func: Callable[..., Any], name: str | None = None) -> DatasetV2:
        """The elements of the dataset `map_func` makes of each element, one dataset after another."""
        return DATASETS.flat_map(self, map_func)

    def interleave(self, *args: Any, **kwargs: Any) -> DatasetV2:
        """Like flat_map, taking `block_length` elements from `cycle_length` datasets in turn."""
        return DATASETS.interleave(self, *args, **kwargs)

    def concatenate(self, dataset: DatasetV2, name: str | None = None) -> DatasetV2:
        """This dataset's elements, then `dataset`'s."""
        return DATASETS.concatenate(self, dataset)

    def padded_batch(self, *args: Any, **kwargs: Any) -> DatasetV2:
        """Batches of elements padded to one shape."""
        return DATASETS.padded_batch(self, *args, **kwargs)

    def rebatch(self, batch_size: Any, drop_remainder: bool = False, name: str | None = None) -> DatasetV2:
        """The same elements in batches of other sizes."""
        return DATASETS.rebatch(self, batch_size, drop_remainder)

    def unbatch(self, name: str | None = None) -> DatasetV2:
        """Each row of every batch as an element of its own."""
        return DATASETS.unbatch(self)

    def ragged_batch(self, *args: Any, **kwargs: Any) -> DatasetV2:
        """Batches whose components of different shapes become RaggedTensors (ragged_batching.py)."""
        return DATASETS.ragged_batch(self, *args, **kwargs)

    # --- settings and whole-dataset functions (sources.py) ---
    def apply(self, transformation_func: Callable[[DatasetV2], DatasetV2]) -> DatasetV2:
        """`dataset.apply(f)` is `f(dataset)`: for transformations written as functions of a whole dataset."""
        dataset = transformation_func(self)
        if not isinstance(dataset, DatasetV2):
            raise TypeError(f"`transformation_func` must return a `tf.data.Dataset` object. Got {type(dataset)}.")
        return dataset

    def with_options(self, options: Any, name: str | None = None) -> DatasetV2:
        return DATASETS.with_options(self, options)

    def options(self) -> Any:
        return DATASETS.options(self)


Dataset = DatasetV2


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


class _ParallelMapDataset(_MapDataset):
    """What `map(..., num_parallel_calls=...)` makes in TensorFlow (and prints as)."""


class _FilterDataset(DatasetV2):
    def __init__(self, source: DatasetV2, predicate: Callable[..., Any]) -> None:
        self._source = source
        message = (
            "Invalid `predicate`. `predicate` must return a `tf.bool` scalar tensor, but its return type is {spec}."
        )
        self._fn = traced_predicate(predicate, source.element_spec, "filter", message)
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
