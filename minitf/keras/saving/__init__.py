"""`keras.saving`: saving and loading models and weights in Keras's formats (files.py; models/loading.py rebuilds
a model), custom objects by name (registry.py), objects as a saved config writes them (objects.py,
compile_config.py) and the public (de)serialization of one object (api.py).

h5py is loaded when a file is written or read, not when minitf starts."""

from typing import Any

import minitf.left_out as left_out
from minitf.keras.models.loading import load_model as _load_model
from minitf.keras.saving.api import deserialize_keras_object, serialize_keras_object
from minitf.keras.saving.registry import (
    CustomObjectScope,
    custom_object_scope,
    get_custom_objects,
    get_registered_name,
    get_registered_object,
    register_keras_serializable,
)

LEFT_OUT: dict[str, str] = {
    "KerasFileEditor": "editing a saved file's weights in place is not implemented; load the model, change it, save it",
}
__getattr__ = left_out.module_getattr("tf.keras.saving", LEFT_OUT)


def save_model(model: Any, filepath: Any, overwrite: bool = True, zipped: Any = None, **kwargs: Any) -> None:
    """`model.save(filepath)`."""
    model.save(filepath, overwrite=overwrite)


def load_model(filepath: Any, custom_objects: Any = None, compile: bool = True, safe_mode: bool = True) -> Any:
    """`keras.models.load_model`."""
    return _load_model(filepath, custom_objects, compile, safe_mode)


def save_weights(model: Any, filepath: Any, overwrite: bool = True, **kwargs: Any) -> None:
    model.save_weights(filepath, overwrite=overwrite)


def load_weights(model: Any, filepath: Any, skip_mismatch: bool = False, **kwargs: Any) -> None:
    model.load_weights(filepath)


__all__ = [
    "CustomObjectScope",
    "custom_object_scope",
    "deserialize_keras_object",
    "get_custom_objects",
    "get_registered_name",
    "get_registered_object",
    "load_model",
    "load_weights",
    "register_keras_serializable",
    "save_model",
    "save_weights",
    "serialize_keras_object",
]
