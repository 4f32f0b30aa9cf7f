"""What CIFAR-10 and CIFAR-100 share: batches pickled by Python 2 (a dict with `data`, N x 3072 uint8 rows, and
the labels), read without running anything but the construction of NumPy arrays and built-in containers."""

from pathlib import Path

import numpy as np

from minitf.keras.datasets._arrays import ArraysOnly


def load_batch(path: Path, label_key: str = "labels") -> tuple[np.ndarray, list[int]]:
    """Images (N, 3, 32, 32) and labels of one batch file."""
    with open(path, "rb") as f:
        batch = {k.decode("utf8"): v for k, v in ArraysOnly(f, encoding="bytes").load().items()}
    data = batch["data"]
    return data.reshape(data.shape[0], 3, 32, 32), batch[label_key]


def channels_last(x: np.ndarray) -> np.ndarray:
    return x.transpose(0, 2, 3, 1)
