"""`keras.utils`: seeding, one-hot labels, the (x, y, sample_weight) tuples a custom train_step unpacks, and
custom objects by name (the same as keras.saving's, which `tf.keras` reaches only from here)."""

from __future__ import annotations

import random
from typing import Any

import numpy as np

import minitf.keras.saving.api as api
import minitf.keras.saving.registry as registry
from minitf.keras.data_adapter import pack_x_y_sample_weight as pack_x_y_sample_weight
from minitf.keras.data_adapter import unpack_x_y_sample_weight as unpack_x_y_sample_weight
from minitf.keras.preprocessing.sequence import pad_sequences as pad_sequences
from minitf.ops.random.random_ops import set_seed

# tf.keras has these only here (Keras 3 also in keras.saving).
CustomObjectScope = registry.CustomObjectScope
custom_object_scope = registry.custom_object_scope
get_custom_objects = registry.get_custom_objects
get_registered_name = registry.get_registered_name
get_registered_object = registry.get_registered_object
register_keras_serializable = registry.register_keras_serializable
serialize_keras_object = api.serialize_keras_object
deserialize_keras_object = api.deserialize_keras_object


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
