"""`keras.datasets.reuters`: 11,228 Reuters newswires as sequences of word indices, labelled with one of 46
topics (reuters.npz and reuters_word_index.json in Keras's cache)."""

import json
from typing import Any

import numpy as np

from minitf.keras.datasets._arrays import limit_words, load_npz, shorter_than, shuffled, word_sequences
from minitf.keras.datasets._cache import KERAS_DATASETS, get_file

_TOPICS = (
    "cocoa grain veg-oil earn acq wheat copper housing money-supply coffee sugar trade reserves ship cotton carcass "
    "crude nat-gas cpi money-fx interest gnp meal-feed alum oilseed gold tin strategic-metal livestock retail ipi "
    "iron-steel rubber heat jobs lei bop zinc orange pet-chem dlr gas silver wpi hog lead"
)


def load_data(
    path: str = "reuters.npz",
    num_words: int | None = None,
    skip_top: int = 0,
    maxlen: int | None = None,
    test_split: float = 0.2,
    seed: int = 113,
    start_char: int | None = 1,
    oov_char: int | None = 2,
    index_from: int = 3,
) -> tuple[Any, Any]:
    """(x_train, y_train), (x_test, y_test): object arrays of word-index lists and topic labels, shuffled with
    `seed`, the last `test_split` of them for testing."""
    arrays = load_npz(get_file(path, f"{KERAS_DATASETS}reuters.npz"))
    x, labels = shuffled(seed, arrays["x"], arrays["y"])
    xs = word_sequences(x, start_char, index_from)
    if maxlen:
        xs, labels = shorter_than(maxlen, xs, labels)
    xs = limit_words(xs, num_words, skip_top, oov_char)
    cut = int(len(xs) * (1 - test_split))
    return (
        (np.array(xs[:cut], dtype="object"), np.array(labels[:cut])),
        (np.array(xs[cut:], dtype="object"), np.array(labels[cut:])),
    )


def get_word_index(path: str = "reuters_word_index.json") -> dict[str, int]:
    """Words to their indices (before the `index_from` shift)."""
    with open(get_file(path, f"{KERAS_DATASETS}reuters_word_index.json")) as f:
        return json.load(f)


def get_label_names() -> tuple[str, ...]:
    """The 46 topics, in label order."""
    return tuple(_TOPICS.split())
