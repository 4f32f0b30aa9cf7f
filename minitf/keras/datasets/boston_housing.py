"""`keras.datasets.boston_housing`: 506 Boston districts of the 1970s, 13 features each, and their median house
value (boston_housing.npz in Keras's cache), shuffled with `seed` and split as Keras splits it."""

from typing import Any

import numpy as np

from minitf.keras.datasets._arrays import shuffled, split
from minitf.keras.datasets._cache import KERAS_DATASETS, get_file


def load_data(path: str = "boston_housing.npz", test_split: float = 0.2, seed: int = 113) -> tuple[Any, Any]:
    """(x_train, y_train), (x_test, y_test): float64 features (N, 13) and targets (N,)."""
    if not 0 <= test_split < 1:
        split(np.zeros(0), np.zeros(0), test_split)  # raises Keras's error before any download
    with np.load(get_file(path, f"{KERAS_DATASETS}boston_housing.npz"), allow_pickle=False) as f:
        x, y = f["x"], f["y"]
    x, y = shuffled(seed, x, y)
    return split(x, y, test_split)
