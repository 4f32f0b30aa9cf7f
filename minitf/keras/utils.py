"""`keras.utils`: seeding and one-hot labels."""

from __future__ import annotations

import random
from typing import Any

import numpy as np

from minitf.ops.random.random_ops import set_seed


def set_random_seed(seed: int) -> None:
    """Seed Python's, NumPy's and minitf's random numbers at once (weights, shuffling, dropout)."""
    random.seed(seed)
    np.random.seed(seed)
    set_seed(seed)


def to_categorical(x: Any, num_classes: int | None = None) -> np.ndarray:
    """One-hot rows of float64, as Keras returns them; a trailing axis of size 1 in the labels is dropped."""
    labels = np.asarray(x, dtype="int64")
    shape = labels.shape[:-1] if labels.ndim > 1 and labels.shape[-1] == 1 else labels.shape
    labels = labels.reshape(-1)
    num_classes = int(labels.max()) + 1 if num_classes is None else num_classes
    return np.eye(num_classes, dtype="float64")[labels].reshape(*shape, num_classes)
