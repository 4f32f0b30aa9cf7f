"""`keras.layers`."""

from minitf.keras.layers.core import Activation, Dense, Dropout, Embedding, Flatten, Input, InputLayer, ReLU, Softmax
from minitf.keras.layers.input_spec import InputSpec
from minitf.keras.layers.layer import Layer
from minitf.keras.layers.normalization import BatchNormalization, Normalization

__all__ = [
    "Activation",
    "BatchNormalization",
    "Dense",
    "Dropout",
    "Embedding",
    "Flatten",
    "Input",
    "InputLayer",
    "InputSpec",
    "Layer",
    "Normalization",
    "ReLU",
    "Softmax",
]
