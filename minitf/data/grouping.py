"""Elements grouped by a key: `group_by_window` (windows of one key, each turned into a dataset by `reduce_func`)
and `bucket_by_sequence_length` (TensorFlow's composition of it: sequences of similar length batched together,
padded to the longest of their batch).

`key_func` is traced once, as `map`'s function is; `reduce_func` is called on each full window, in Python, with
the key as an int64 tensor and the window as a dataset. Windows still open when the input ends are reduced in
the order of their keys, as TensorFlow does.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from minitf.core import dtypes, nest
from minitf.core.errors import InvalidArgumentError, op_error
from minitf.core.tensor import make
from minitf.core.tensor_shape import TensorShape
from minitf.data.dataset import DATASETS, UNKNOWN, DatasetV2
from minitf.data.structure import python_int
from minitf.data.traced import TracedFunction
from minitf.function.cache_keys import TensorSpec
from minitf.ops.array.where import where
from minitf.ops.math.comparisons import less, less_equal, logical_and
from minitf.ops.math.reductions import reduce_min

INT32_MIN, INT32_MAX = int(np.iinfo(np.int32).min), int(np.iinfo(np.int32).max)


class _WindowDataset(DatasetV2):
    """One window's elements, as the dataset `reduce_func` receives."""

    def __init__(self, elements: list[Any], element_spec: Any) -> None:
        self._list = elements
        super().__init__(element_spec, len(elements))

    def _elements(self) -> Iterator[Any]:
        yield from self._list


class _GroupByWindowDataset(DatasetV2):
    def __init__(
        self,
        source: DatasetV2,
        key_func: Callable[..., Any],
        reduce_func: Callable[[Any, DatasetV2], DatasetV2],
        window_size: Any = None,
        window_size_func: Callable[[Any], Any] | None = None,
        element_spec: Any = None,
    ) -> None:
        if (window_size is None) == (window_size_func is None):
            raise ValueError("Either the `window_size` argument or the `window_size_func` argument must be specified.")
        self._source, self._reduce_func = source, reduce_func
        self._key = TracedFunction(key_func, source.element_spec, "key_func")
        key_spec = self._key.output_spec
        if not isinstance(key_spec, TensorSpec) or key_spec.dtype is not dtypes.int64 or key_spec.shape.rank != 0:
            dtype = getattr(getattr(key_spec, "dtype", None), "name", "?")
            raise ValueError(
                f"Tensor conversion requested dtype int64 for Tensor with dtype {dtype}: "
                f"{key_spec}\nHint: key_func must return one tf.int64 scalar (tf.cast the key)."
            )
        if window_size_func is None:
            fixed = python_int(window_size, "window_size")
            window_size_func = lambda key: fixed  # noqa: E731 - the same size for every key
        self._size_of = window_size_func
        if element_spec is None:
            element_spec = self._reduce(0, []).element_spec
        super().__init__(element_spec, UNKNOWN)

    def _reduce(self, key: int, window: list[Any]) -> DatasetV2:
        dataset = self._reduce_func(
            make(np.int64(key), dtypes.int64), _WindowDataset(window, self._source.element_spec)
        )
        if not isinstance(dataset, DatasetV2):
            raise TypeError(f"`reduce_func` must return a `tf.data.Dataset` object. Got {type(dataset)}.")
        return dataset

    def _elements(self) -> Iterator[Any]:
        windows: dict[int, list[Any]] = {}
        sizes: dict[int, int] = {}
        for element in self._source._elements():
            key = int(self._key(element)._value)
            if key not in windows:
                windows[key] = []
                sizes[key] = python_int(self._size_of(make(np.int64(key), dtypes.int64)), "window_size")
            windows[key].append(element)
            if len(windows[key]) >= sizes[key]:
                yield from self._reduce(key, windows.pop(key))._elements()
        for key in sorted(windows):
            yield from self._reduce(key, windows[key])._elements()


def bucket_by_sequence_length(
    source: DatasetV2,
    element_length_func: Callable[..., Any],
    bucket_boundaries: list[int],
    bucket_batch_sizes: list[int],
    padded_shapes: Any = None,
    padding_values: Any = None,
    pad_to_bucket_boundary: bool = False,
    no_padding: bool = False,
    drop_remainder: bool = False,
    name: str | None = None,
) -> DatasetV2:
    """Each element goes to the bucket its length falls in (boundaries split the lengths); a bucket's elements
    are batched `bucket_batch_sizes[bucket]` at a time, padded to the longest of the batch (or to the bucket's
    boundary minus one with `pad_to_bucket_boundary`)."""
    boundaries, batch_sizes = list(bucket_boundaries), list(bucket_batch_sizes)
    if len(batch_sizes) != len(boundaries) + 1:
        raise ValueError(
            f"`len(bucket_batch_sizes)` must equal `len(bucket_boundaries) + 1` but `len(bucket_batch_sizes)="
            f"{len(batch_sizes)}` and `len(bucket_boundaries)={len(boundaries)}`."
        )

    def bucket_of(*element: Any) -> Any:
        length = element_length_func(*element)
        fits = logical_and(less_equal([INT32_MIN, *boundaries], length), less(length, [*boundaries, INT32_MAX]))
        return reduce_min(where(fits))

    def batches(bucket: Any, window: DatasetV2, for_spec: bool = False) -> DatasetV2:
        size = batch_sizes[int(bucket)]
        if no_padding:
            return window.batch(size, drop_remainder=drop_remainder)
        filler = None
        if pad_to_bucket_boundary and not for_spec:
            if int(bucket) == len(batch_sizes) - 1:
                raise op_error(
                    InvalidArgumentError,
                    "IteratorGetNext",
                    "When pad_to_bucket_boundary=True, elements must have length < max(bucket_boundaries).",
                    "add a larger boundary, or leave pad_to_bucket_boundary off.",
                    kernel=True,
                )
            filler = boundaries[int(bucket)] - 1
        shapes = padded_shapes or nest.map_structure(lambda s: s.shape, window.element_spec)
        shapes = nest.map_structure(lambda d: _filled(d, filler), shapes)
        return window.padded_batch(size, shapes, padding_values, drop_remainder=drop_remainder)

    # TensorFlow traces the batching once for every bucket: the batch size and padded lengths are unknown
    spec = batches(0, _WindowDataset([], source.element_spec), for_spec=True).element_spec
    spec = nest.map_structure(lambda s: TensorSpec([None, *s.shape[1:]], s.dtype), spec)
    return _GroupByWindowDataset(
        source, bucket_of, batches, window_size_func=lambda bucket: batch_sizes[int(bucket)], element_spec=spec
    )


def _filled(dims: Any, filler: int | None) -> Any:
    """A padded shape (or one size of it) with its unknown sizes set to `filler`."""
    if isinstance(dims, TensorShape):
        return TensorShape(None if dims.rank is None else [filler if d is None else d for d in dims])
    return filler if dims is None else dims


DATASETS.provide(group_by_window=_GroupByWindowDataset, bucket_by_sequence_length=bucket_by_sequence_length)
