"""`keras.models`: Model, Sequential, and loading a saved model."""

from minitf.keras.models.functional import Functional
from minitf.keras.models.model import Model
from minitf.keras.models.sequential import Sequential

__all__ = ["Functional", "Model", "Sequential", "load_model"]


def load_model(filepath: str, custom_objects: object = None, compile: bool = True, safe_mode: bool = True) -> Model:
    """`keras.models.load_model("x.keras")` (reads Keras's zip format, see saving.py)."""
    from minitf.keras import saving  # saving.py needs h5py and these model classes; load it only when used

    return saving.load_model(filepath, custom_objects, compile, safe_mode)
