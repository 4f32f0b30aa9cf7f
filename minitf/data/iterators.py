"""Iterating a dataset: `iter(ds)` and `ds.as_numpy_iterator()`, each a walk over its element generator."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from minitf.core import nest

if TYPE_CHECKING:  # the dataset module makes iterators, so it imports this one (not the other way round)
    from minitf.data.dataset import DatasetV2


class OwnedIterator:
    """What `iter(dataset)` returns: `next(it)` gives the next element, StopIteration at the end."""

    def __init__(self, dataset: DatasetV2) -> None:
        self._dataset = dataset
        self._generator = dataset._elements()

    @property
    def element_spec(self) -> Any:
        return self._dataset.element_spec

    def __iter__(self) -> OwnedIterator:
        return self

    def __next__(self) -> Any:
        return next(self._generator)

    def get_next(self) -> Any:
        return next(self._generator)

    def __repr__(self) -> str:
        return f"<tensorflow.python.data.ops.iterator_ops.OwnedIterator object at {hex(id(self))}>"


class NumpyIterator:
    def __init__(self, dataset: DatasetV2) -> None:
        self._generator = dataset._elements()

    def __iter__(self) -> NumpyIterator:
        return self

    def __next__(self) -> Any:
        return nest.map_structure(lambda t: t.numpy(), next(self._generator))

    def __repr__(self) -> str:
        return f"<tensorflow.python.data.ops.dataset_ops._NumpyIterator object at {hex(id(self))}>"
