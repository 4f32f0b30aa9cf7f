"""`keras.models`: Model, Sequential, and loading a saved model."""

from minitf.keras.models.functional import Functional
from minitf.keras.models.model import Model
from minitf.keras.models.sequential import Sequential

__all__ = ["Functional", "Model", "Sequential"]
