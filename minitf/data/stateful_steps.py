"""Steps that carry something from one element to the next: `scan` (a running state), `take_while` (stops at the
first element that fails), `unique` (remembers what it has seen) and `shard` (counts); and `get_single_element`.

Each is a dataset step (a subclass of `DatasetV2` whose `_elements` generator is the step) that `Dataset`'s
method of the same name makes (dataset.py). The user functions are traced once, as `map`'s are (traced.py).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator
from typing import Any

from minitf.core import dtypes
from minitf.core.errors import InvalidArgumentError, op_error
from minitf.data.dataset import DATASETS, UNKNOWN, DatasetV2
from minitf.data.structure import check_same_state, leaves_of, normalize, python_int, spec_of
from minitf.data.traced import TracedFunction, traced_predicate
from minitf.function.cache_keys import TensorSpec


class _ScanDataset(DatasetV2):
    """state, output = scan_func(state, element) for each element in turn; the outputs are the elements."""

    def __init__(self, source: DatasetV2, initial_state: Any, scan_func: Callable[..., Any]) -> None:
        self._source, self._initial = source, normalize(initial_state)
        self._fn = TracedFunction(scan_func, (spec_of(self._initial), source.element_spec), "scan")
        spec = self._fn.output_spec
        if not isinstance(spec, tuple) or len(spec) != 2:
            raise TypeError(
                f"The scan function must return a pair (new_state, output_element); it returned {spec}.\n"
                "Hint: return new_state, output."
            )
        check_same_state(self._initial, spec[0])
        super().__init__(spec[1], source._cardinality)

    def _elements(self) -> Iterator[Any]:
        state_value = self._initial
        for element in self._source._elements():
            state_value, output = self._fn((state_value, element))
            yield output


class _TakeWhileDataset(DatasetV2):
    def __init__(self, source: DatasetV2, predicate: Callable[..., Any]) -> None:
        self._source = source
        message = "Invalid `predicate`. `predicate` must return a `tf.bool` scalar tensor but its return type is{spec}."
        self._fn = traced_predicate(predicate, source.element_spec, "take_while", message)
        super().__init__(source.element_spec, UNKNOWN)

    def _elements(self) -> Iterator[Any]:
        for element in self._source._elements():
            if not bool(self._fn(element)._value):
                return
            yield element


class _UniqueDataset(DatasetV2):
    """Each element the first time it comes; elements are single int32, int64 or string tensors."""

    def __init__(self, source: DatasetV2) -> None:
        spec = source.element_spec
        if isinstance(spec, TensorSpec) and spec.dtype not in (dtypes.int32, dtypes.int64, dtypes.string):
            raise TypeError(
                f"`tf.data.Dataset.unique` does not support type {spec.dtype} -- only `tf.int32`, `tf.int64`, "
                "and `tf.string` are supported.\nHint: tf.cast the elements to an integer dtype first."
            )
        if not isinstance(spec, TensorSpec):
            raise op_error(
                InvalidArgumentError,
                "UniqueDataset",
                "UniqueDataset only supports inputs with a single component.",
                "make each element one tensor (map to the component you want unique).",
                kernel=True,
            )
        self._source = source
        super().__init__(spec, UNKNOWN)

    def _elements(self) -> Iterator[Any]:
        seen: set[Any] = set()
        for element in self._source._elements():
            value = element._value
            key = value if isinstance(value, bytes) else (value.shape, value.tobytes())
            if key not in seen:
                seen.add(key)
                yield element


class _ShardDataset(DatasetV2):
    """Every `num_shards`-th element, starting with element `index`: one worker's part of the data."""

    def __init__(self, source: DatasetV2, num_shards: int, index: int) -> None:
        if num_shards <= 0:
            raise _shard_error(f"Number of shards must be greater than zero (currently num_shards = {num_shards}).")
        if not 0 <= index < num_shards:
            raise _shard_error(f"Index must be between 0 and {num_shards - 1} (currently index = {index}).")
        self._source, self._num, self._index = source, num_shards, index
        n = source._cardinality
        card = n if n < 0 else n // num_shards + (1 if index < n % num_shards else 0)
        super().__init__(source.element_spec, card)

    def _elements(self) -> Iterator[Any]:
        return itertools.islice(self._source._elements(), self._index, None, self._num)


def _shard_error(message: str) -> Exception:
    hint = "num_shards is how many parts; index (0 ... num_shards - 1) says which part this is."
    return op_error(InvalidArgumentError, "ShardDataset", message, hint, kernel=True)


def get_single_element(dataset: DatasetV2) -> Any:
    """The one element of a dataset of one element (an error for none or more)."""
    elements = dataset._elements()
    first = next(elements, None)
    if first is None or next(elements, None) is not None:
        node = f"DatasetToSingleElement_output_types_{len(leaves_of(dataset.element_spec))}"
        message = "Dataset was empty." if first is None else "Dataset had more than one element."
        hint = "take(1) keeps the first element; batch() makes the whole dataset one element."
        raise op_error(InvalidArgumentError, "DatasetToSingleElement", message, hint, kernel=node)
    return first


def shard(source: DatasetV2, num_shards: Any, index: Any) -> DatasetV2:
    return _ShardDataset(source, python_int(num_shards, "num_shards"), python_int(index, "index"))


DATASETS.provide(
    scan=_ScanDataset,
    take_while=_TakeWhileDataset,
    unique=_UniqueDataset,
    shard=shard,
    get_single_element=get_single_element,
)
