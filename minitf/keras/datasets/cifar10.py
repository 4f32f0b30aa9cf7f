"""`keras.datasets.cifar10`: 60,000 32x32 colour images in 10 classes (cifar-10-python.tar.gz, unpacked in
Keras's cache as datasets/cifar-10-batches-py-target/)."""

from typing import Any

import numpy as np

from minitf.keras.datasets._cache import get_archive
from minitf.keras.datasets._cifar import channels_last, load_batch


def load_data() -> tuple[tuple[Any, Any], tuple[Any, Any]]:
    """(x_train, y_train), (x_test, y_test): uint8 images (50000, 32, 32, 3) / (10000, 32, 32, 3), labels (N, 1)."""
    folder = get_archive("cifar-10-batches-py-target", "https://www.cs.toronto.edu/~kriz/cifar-10-python.tar.gz")
    folder = folder / "cifar-10-batches-py"
    parts = [load_batch(folder / f"data_batch_{i}") for i in range(1, 6)]
    x_train = np.concatenate([x for x, _ in parts]).astype("uint8")
    y_train = np.concatenate([np.asarray(y) for _, y in parts]).astype("uint8")
    x_test, test_labels = load_batch(folder / "test_batch")
    y_test = np.asarray(test_labels).astype("uint8")
    return (channels_last(x_train), y_train.reshape(-1, 1)), (
        channels_last(x_test.astype("uint8")),
        y_test.reshape(-1, 1),
    )
