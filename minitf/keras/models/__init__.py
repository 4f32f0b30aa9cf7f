"""`keras.models`: Model, Sequential, and loading a saved model."""

from minitf.keras.models.model import Functional, Model
from minitf.keras.models.sequential import Sequential

__all__ = ["Functional", "Model", "Sequential", "load_model"]


def load_model(filepath: str, custom_objects: object = None, compile: bool = True, safe_mode: bool = True) -> Model:
    """`keras.models.load_model("x.keras")` (reads Keras's zip format, see loading.py and saving.py)."""
    from minitf.keras.models import loading  # loading needs h5py: loaded when a model is loaded

    return loading.load_model(filepath, custom_objects, compile, safe_mode)
