"""Iterating a dataset: `iter(ds)` and `ds.as_numpy_iterator()`, each a walk over its element generator."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, Protocol

from minitf.core import nest


class Elements(Protocol):
    """What an iterator needs of a dataset (dataset.py's `Dataset`, which makes the iterators): its elements,
    one after another, and their structure."""

    @property
    def element_spec(self) -> Any: ...

    def _elements(self) -> Iterator[Any]: ...


class OwnedIterator:
    """What `iter(dataset)` returns: `next(it)` gives the next element, StopIteration at the end."""

    def __init__(self, dataset: Elements) -> None:
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
    def __init__(self, dataset: Elements) -> None:
        self._generator = dataset._elements()

    def __iter__(self) -> NumpyIterator:
        return self

    def __next__(self) -> Any:
        return nest.map_structure(lambda t: t.numpy(), next(self._generator))

    def __repr__(self) -> str:
        return f"<tensorflow.python.data.ops.dataset_ops._NumpyIterator object at {hex(id(self))}>"
