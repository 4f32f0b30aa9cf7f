"""`keras.datasets.imdb`: 50,000 film reviews as sequences of word indices, labelled positive or negative
(imdb.npz and imdb_word_index.json in Keras's cache)."""

import json
from typing import Any

import numpy as np

from minitf.keras.datasets._arrays import limit_words, load_npz, shorter_than, word_sequences
from minitf.keras.datasets._cache import KERAS_DATASETS, get_file


def load_data(
    path: str = "imdb.npz",
    num_words: int | None = None,
    skip_top: int = 0,
    maxlen: int | None = None,
    seed: int = 113,
    start_char: int | None = 1,
    oov_char: int | None = 2,
    index_from: int = 3,
    **kwargs: Any,
) -> tuple[Any, Any]:
    """(x_train, y_train), (x_test, y_test): object arrays of word-index lists and int labels, each part shuffled
    with `seed`; indices shifted by `index_from`, rare ones (>= num_words) replaced by `oov_char`."""
    arrays = load_npz(get_file(path, f"{KERAS_DATASETS}imdb.npz"))
    rng = np.random.RandomState(seed)
    parts: list[tuple[Any, Any]] = []
    for x, y in ((arrays["x_train"], arrays["y_train"]), (arrays["x_test"], arrays["y_test"])):
        order = np.arange(len(x))
        rng.shuffle(order)
        parts.append((word_sequences(x[order], start_char, index_from), y[order]))
    if maxlen:
        parts = [shorter_than(maxlen, x, y) for x, y in parts]
        if not parts[0][0] or not parts[1][0]:
            raise ValueError(
                f"After filtering for sequences shorter than maxlen={maxlen}, no sequence was kept. Increase maxlen."
            )
    xs = limit_words(parts[0][0] + parts[1][0], num_words, skip_top, oov_char)
    labels = np.concatenate([parts[0][1], parts[1][1]])
    cut = len(parts[0][0])
    return (np.array(xs[:cut], dtype="object"), labels[:cut]), (np.array(xs[cut:], dtype="object"), labels[cut:])


def get_word_index(path: str = "imdb_word_index.json") -> dict[str, int]:
    """Words to their indices (before the `index_from` shift)."""
    with open(get_file(path, f"{KERAS_DATASETS}imdb_word_index.json")) as f:
        return json.load(f)
