"""`keras.datasets.mnist`: 70,000 handwritten digits, 28x28 grayscale (mnist.npz in Keras's cache)."""

from typing import Any

import numpy as np

from minitf.keras.datasets._cache import KERAS_DATASETS, get_file


def load_data(path: str = "mnist.npz") -> tuple[tuple[Any, Any], tuple[Any, Any]]:
    """(x_train, y_train), (x_test, y_test): uint8 images (60000, 28, 28) / (10000, 28, 28) and labels 0-9."""
    with np.load(get_file(path, f"{KERAS_DATASETS}mnist.npz"), allow_pickle=False) as f:
        return (f["x_train"], f["y_train"]), (f["x_test"], f["y_test"])
