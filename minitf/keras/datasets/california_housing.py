"""`keras.datasets.california_housing`: 20,640 Californian block groups of 1990, 8 features each, and their
median house value (california_housing.npz in Keras's cache; version="small" keeps the first 600)."""

from typing import Any

import numpy as np

from minitf.keras.datasets._arrays import shuffled, split
from minitf.keras.datasets._cache import KERAS_DATASETS, get_file


def load_data(
    version: str = "large", path: str = "california_housing.npz", test_split: float = 0.2, seed: int = 113
) -> tuple[Any, Any]:
    """(x_train, y_train), (x_test, y_test): float32 features (N, 8) and targets (N,)."""
    if not 0 <= test_split < 1:
        split(np.zeros(0), np.zeros(0), test_split)  # raises Keras's error before any download
    with np.load(get_file(path, f"{KERAS_DATASETS}california_housing.npz"), allow_pickle=False) as f:
        x, y = f["x"], f["y"]
    if version == "small":
        x, y = x[:600], y[:600]
    elif version != "large":
        raise ValueError(f"Argument `version` must be one of 'small', 'large'. Received: version={version}")
    x, y = shuffled(seed, x, y)
    return split(x, y, test_split)
