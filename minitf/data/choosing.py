"""Elements drawn from several datasets in turn: `choose_from_datasets` (a dataset of indices says which, one
element at a time) and `sample_from_datasets` (random indices, with given weights). TensorFlow makes both a
`_DirectedInterleaveDataset`; so does minitf.

What happens when the chosen dataset has no elements left: with `stop_on_empty_dataset` the whole dataset ends
there; without it, that dataset drops out (its choices are skipped, and random draws go among the others).
Random draws are reproducible under `tf.random.set_seed` and a `seed`, but they are not TensorFlow's draws.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import numpy as np

from minitf.core import dtypes, nest
from minitf.core.errors import InvalidArgumentError, op_error
from minitf.core.tensor_shape import TensorShape
from minitf.data.dataset import DATASETS, INFINITE, UNKNOWN, DatasetV2
from minitf.data.structure import leaves_of
from minitf.function.cache_keys import TensorSpec
from minitf.ops.random import philox
from minitf.ops.random.random_ops import seeds


def _common_spec(datasets: Sequence[DatasetV2]) -> Any:
    """The element_spec all `datasets` share: the same structure and dtypes, sizes kept where they agree."""
    first = datasets[0].element_spec
    for i, d in enumerate(datasets[1:], start=1):
        other = d.element_spec
        try:
            nest.assert_same_structure(first, other)
            same = True
        except (ValueError, TypeError):
            same = False
        if not same or any(a.dtype is not b.dtype for a, b in zip(leaves_of(first), leaves_of(other))):
            raise TypeError(
                f"Invalid `datasets`. `datasets` must have compatible element specs.\n Dataset 0 element_spec="
                f"{first}.\nDataset {i} element_spec={other}.\nHint: tf.cast and reshape the datasets' elements alike."
            )

    def merged(*specs: TensorSpec) -> TensorSpec:
        shapes = [s.shape for s in specs]
        if any(s.rank != shapes[0].rank for s in shapes) or shapes[0].rank is None:
            return TensorSpec(TensorShape(None), specs[0].dtype)
        dims = [d if all(s[k] == d for s in shapes) else None for k, d in enumerate(shapes[0])]
        return TensorSpec(dims, specs[0].dtype)

    return nest.map_structure(merged, first, *[d.element_spec for d in datasets[1:]])


class _DirectedInterleaveDataset(DatasetV2):
    """The next element of `datasets[i]` for each index `i` that `indices(live)` gives (`live[i]`: dataset i
    has elements left)."""

    def __init__(
        self, indices: Callable[[list[bool]], Iterator[int]], datasets: Sequence[DatasetV2], stop_on_empty: bool
    ) -> None:
        if not datasets:
            raise ValueError("Invalid `datasets`. `datasets` should not be empty.")
        self._indices, self._datasets, self._stop = indices, list(datasets), stop_on_empty
        spec = _common_spec(self._datasets)
        super().__init__(spec, INFINITE if any(d._cardinality == INFINITE for d in datasets) else UNKNOWN)

    def _elements(self) -> Iterator[Any]:
        sources = [d._elements() for d in self._datasets]
        live = [True] * len(sources)
        for i in self._indices(live):
            if not 0 <= i < len(sources):
                raise op_error(
                    InvalidArgumentError,
                    "IteratorGetNext",
                    f"Selector index out of range: {i} >= {len(sources)}",
                    f"the choices are indices 0 ... {len(sources) - 1} into the list of datasets.",
                    kernel=f"IteratorGetNext_output_types_{len(leaves_of(self.element_spec))}",
                )
            if not live[i]:
                continue
            element = next(sources[i], None)
            if element is None:
                if self._stop:
                    return
                live[i] = False
                if not any(live):
                    return
                continue
            yield element


def choose_from_datasets(
    datasets: Sequence[DatasetV2], choice_dataset: DatasetV2, stop_on_empty_dataset: bool = True
) -> DatasetV2:
    spec = choice_dataset.element_spec
    if not isinstance(spec, TensorSpec) or spec.dtype is not dtypes.int64 or spec.shape.rank != 0:
        raise TypeError(
            f"Invalid `choice_dataset`. Elements of `choice_dataset` must be scalar `tf.int64` tensors but are "
            f"{spec}.\nHint: map the choices through tf.cast(choice, tf.int64)."
        )

    def indices(live: list[bool]) -> Iterator[int]:
        return (int(choice._value) for choice in choice_dataset._elements())

    return _DirectedInterleaveDataset(indices, datasets, bool(stop_on_empty_dataset))


def sample_from_datasets(
    datasets: Sequence[DatasetV2],
    weights: Any = None,
    seed: int | None = None,
    stop_on_empty_dataset: bool = False,
    rerandomize_each_iteration: bool | None = None,
) -> DatasetV2:
    n = len(datasets)
    w = np.full(n, 1.0 / max(n, 1)) if weights is None else np.asarray(getattr(weights, "_value", weights), float)
    if w.shape != (n,):
        raise ValueError(
            f"Invalid `weights`. `weights` should have the same length as `datasets` but got `len(weights)="
            f"{w.size}` vs. `len(datasets)={n}`."
        )
    s, s2 = seeds.seeds_for(seed)
    if s == 0 and s2 == 0:  # no seed at all: new draws each time the dataset is made
        s, s2 = (int.from_bytes(os.urandom(8), "little") for _ in range(2))

    def indices(live: list[bool]) -> Iterator[int]:
        """Random draws among the datasets with elements left, the same sequence on every pass."""
        words = philox.word_stream(philox.Philox.from_seeds(s, s2))
        while True:
            p = np.where(live, w, 0.0)
            if p.sum() <= 0:
                return
            u = next(words) / 2.0**32 * p.sum()
            yield int(min(np.searchsorted(np.cumsum(p), u, side="right"), len(p) - 1))

    return _DirectedInterleaveDataset(indices, datasets, bool(stop_on_empty_dataset))


DATASETS.provide(choose_from_datasets=choose_from_datasets, sample_from_datasets=sample_from_datasets)
