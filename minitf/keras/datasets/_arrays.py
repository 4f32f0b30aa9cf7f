"""What several of Keras's loaders do to the arrays they read: shuffle with a seed and split off a test part,
and turn word-index sequences into the form `imdb` and `reuters` return."""

from __future__ import annotations

import io
import pickle
import zipfile
from pathlib import Path
from typing import Any

import numpy as np


def shuffled(seed: int, *arrays: Any) -> list[Any]:
    """The arrays in one random order, as Keras draws it (NumPy's RandomState(seed).shuffle of the indices)."""
    order = np.arange(len(arrays[0]))
    np.random.RandomState(seed).shuffle(order)
    return [a[order] for a in arrays]


def split(x: np.ndarray, y: np.ndarray, test_split: float) -> tuple:
    """The first (1 - test_split) of the rows for training, the rest for testing."""
    if not 0 <= test_split < 1:
        raise ValueError(f"Invalid `test_split` argument: {test_split}. It must be between 0 and 1 (exclusive of 1).")
    cut = int(len(x) * (1 - test_split))
    return (np.array(x[:cut]), np.array(y[:cut])), (np.array(x[cut:]), np.array(y[cut:]))


# What rebuilding a pickled NumPy array needs, and all an unpickler here may build: a tampered dataset file
# cannot run code through a pickle.
_ARRAY_PARTS = {
    ("numpy", "ndarray"),
    ("numpy", "dtype"),
    ("numpy.core.multiarray", "_reconstruct"),
    ("numpy._core.multiarray", "_reconstruct"),
}


class ArraysOnly(pickle.Unpickler):
    """An unpickler that builds NumPy arrays and Python's own containers, and refuses anything else."""

    def find_class(self, module: str, name: str) -> Any:
        if (module, name) in _ARRAY_PARTS:
            return super().find_class(module, name)
        raise pickle.UnpicklingError(
            f"Refusing to deserialize `{module}.{name}` while loading a Keras dataset. The file may be corrupted or "
            "malicious."
        )


def load_npz(path: Path) -> dict[str, np.ndarray]:
    """An .npz file's arrays, its ragged object arrays included (those unpickled by ArraysOnly)."""
    arrays = {}
    with zipfile.ZipFile(path) as archive:
        for member in archive.namelist():
            if member.endswith(".npy"):
                arrays[member[: -len(".npy")]] = _npy(io.BytesIO(archive.read(member)))
    return arrays


def _npy(stream: io.BytesIO) -> np.ndarray:
    try:
        return np.lib.format.read_array(stream, allow_pickle=False)
    except ValueError:  # an object array: its body is a pickle
        stream.seek(0)
        major, _ = np.lib.format.read_magic(stream)
        if major == 1:
            np.lib.format.read_array_header_1_0(stream)
        else:  # versions 2 and 3 share the header's layout (3 only reads its text as UTF-8)
            np.lib.format.read_array_header_2_0(stream)
        return ArraysOnly(stream).load()


def word_sequences(xs: Any, start_char: int | None, index_from: int) -> list[list[int]]:
    """Each word index shifted by `index_from`, each sequence started with `start_char` (unless None)."""
    start = [] if start_char is None else [start_char]
    return [start + [int(w) + index_from for w in x] for x in xs]


def limit_words(xs: list[list[int]], num_words: int | None, skip_top: int, oov_char: Any) -> list[list[int]]:
    """Every index outside [skip_top, num_words) becomes `oov_char` (or is dropped when oov_char is None);
    num_words defaults to the largest index plus none."""
    limit = num_words or max(max(x) for x in xs)
    if oov_char is not None:
        return [[w if skip_top <= w < limit else oov_char for w in x] for x in xs]
    return [[w for w in x if skip_top <= w < limit] for x in xs]


def shorter_than(maxlen: int, xs: list, labels: Any) -> tuple[list, list]:
    """Only the sequences shorter than `maxlen`, with their labels."""
    kept = [(x, y) for x, y in zip(xs, labels) if len(x) < maxlen]
    return [x for x, _ in kept], [y for _, y in kept]
