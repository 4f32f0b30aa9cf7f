"""`keras.datasets.cifar100`: 60,000 32x32 colour images in 100 fine classes grouped into 20 coarse ones
(cifar-100-python.tar.gz, unpacked in Keras's cache as datasets/cifar-100-python-target/)."""

from typing import Any

import numpy as np

from minitf.keras.datasets._cache import get_archive
from minitf.keras.datasets._cifar import channels_last, load_batch


def load_data(label_mode: str = "fine") -> tuple[tuple[Any, Any], tuple[Any, Any]]:
    """(x_train, y_train), (x_test, y_test): uint8 images (N, 32, 32, 3) and labels (N, 1), fine or coarse."""
    if label_mode not in ["fine", "coarse"]:
        raise ValueError(f'`label_mode` must be one of `"fine"`, `"coarse"`. Received: label_mode={label_mode}.')
    folder = get_archive("cifar-100-python-target", "https://www.cs.toronto.edu/~kriz/cifar-100-python.tar.gz")
    folder = folder / "cifar-100-python"
    x_train, y_train = load_batch(folder / "train", label_key=f"{label_mode}_labels")
    x_test, y_test = load_batch(folder / "test", label_key=f"{label_mode}_labels")
    return (
        (channels_last(x_train), np.reshape(y_train, (len(y_train), 1))),
        (channels_last(x_test), np.reshape(y_test, (len(y_test), 1))),
    )
