"""Which elements, in which order and how often: `shuffle`, `repeat`, `take`, `skip`, `prefetch`, `cache`.

Each is a dataset step (a subclass of `DatasetV2` whose `_elements` generator is the step) that passes elements
on without computing on them; `Dataset`'s methods of these names make them (dataset.py).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from typing import Any

from minitf.core.errors import InvalidArgumentError, op_error
from minitf.core.tensor import EagerTensor
from minitf.data.dataset import DATASETS, INFINITE, UNKNOWN, DatasetV2
from minitf.data.structure import leaves_of
from minitf.ops.random.random_ops import DatasetShuffle


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


DATASETS.provide(
    shuffle=_ShuffleDataset,
    repeat=_RepeatDataset,
    take=_TakeDataset,
    skip=_SkipDataset,
    prefetch=_PrefetchDataset,
    cache=CacheDataset,
)
