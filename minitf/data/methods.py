"""The Dataset methods and functions of sources.py and reshaping.py, added to `Dataset` here.

dataset.py defines the class with its first sources and transformations; the later ones live in modules of
their own (each subclasses `DatasetV2`, so dataset.py cannot import them) and are attached to the class once,
when `tf.data` is built.
"""

from __future__ import annotations

from typing import Any

from minitf.data import reshaping, sources
from minitf.data.dataset import DatasetV2


def _apply(self: DatasetV2, transformation_func: Any) -> DatasetV2:
    """`dataset.apply(f)` is `f(dataset)`: for transformations written as functions of a whole dataset."""
    dataset = transformation_func(self)
    if not isinstance(dataset, DatasetV2):
        raise TypeError(f"`transformation_func` must return a `tf.data.Dataset` object. Got {type(dataset)}.")
    return dataset


def _with_options(self: DatasetV2, options: sources.Options, name: str | None = None) -> DatasetV2:
    return sources._OptionsDataset(self, options)


def install() -> None:
    for name, function in (
        ("window", reshaping.window),
        ("flat_map", reshaping.flat_map),
        ("interleave", reshaping.interleave),
        ("concatenate", reshaping.concatenate),
        ("padded_batch", reshaping.padded_batch),
        ("rebatch", reshaping.rebatch),
        ("apply", _apply),
        ("with_options", _with_options),
        ("options", sources.options_of),
    ):
        if not hasattr(DatasetV2, name):
            setattr(DatasetV2, name, function)
    for name, static in (
        ("from_generator", sources.from_generator),
        ("counter", sources.counter),
        ("random", sources.random),
    ):
        setattr(DatasetV2, name, staticmethod(static))
