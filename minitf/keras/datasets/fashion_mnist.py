"""`keras.datasets.fashion_mnist`: 70,000 28x28 grayscale images of clothes in 10 classes, four gzipped IDX files
in Keras's cache (datasets/fashion-mnist/)."""

import gzip
from typing import Any

import numpy as np

from minitf.keras.datasets._cache import KERAS_DATASETS, get_file


def _idx(name: str, header: int) -> np.ndarray:
    """The bytes of an IDX file after its header (8 bytes for labels, 16 for images)."""
    with gzip.open(get_file(name, KERAS_DATASETS + name, cache_subdir="fashion-mnist"), "rb") as f:
        return np.frombuffer(f.read(), np.uint8, offset=header)


def load_data() -> tuple[tuple[Any, Any], tuple[Any, Any]]:
    """(x_train, y_train), (x_test, y_test): uint8 images (60000, 28, 28) / (10000, 28, 28) and labels 0-9."""
    y_train = _idx("train-labels-idx1-ubyte.gz", 8)
    x_train = _idx("train-images-idx3-ubyte.gz", 16).reshape(len(y_train), 28, 28)
    y_test = _idx("t10k-labels-idx1-ubyte.gz", 8)
    x_test = _idx("t10k-images-idx3-ubyte.gz", 16).reshape(len(y_test), 28, 28)
    return (x_train, y_train), (x_test, y_test)
