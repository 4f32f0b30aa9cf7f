"""`tf.keras` on minitf: layers, models and the training loop of Keras 3 (the one in TensorFlow 2.21).

Read it in this order: layers/layer.py (what a layer is), layers/core.py (Dense and friends), models/ (Sequential,
functional, subclassed), training.py (compile, fit: the course's training loop written once), then losses.py,
metrics.py, optimizers.py, callbacks.py; summary.py and progbar.py print what Keras prints; saving.py writes
Keras's own file formats.
"""

from minitf.keras import (
    activations,
    backend,
    callbacks,
    initializers,
    layers,
    losses,
    metrics,
    models,
    optimizers,
    regularizers,
    utils,
)
from minitf.keras.layers import Input, Layer
from minitf.keras.models import Model, Sequential
from minitf.keras.optimizers import ExponentialDecay

optimizers.schedules = type(optimizers)("minitf.keras.optimizers.schedules")  # type: ignore[attr-defined]
optimizers.schedules.ExponentialDecay = ExponentialDecay  # type: ignore[attr-defined]

__version__ = "3.15.1"

__all__ = [
    "Input",
    "Layer",
    "Model",
    "Sequential",
    "activations",
    "backend",
    "callbacks",
    "initializers",
    "layers",
    "losses",
    "metrics",
    "models",
    "optimizers",
    "regularizers",
    "utils",
]
