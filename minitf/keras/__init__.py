"""`tf.keras` on minitf: layers, models and the training loop of Keras 3 (the one in TensorFlow 2.21).

Read it in this order: layers/layer.py (what a layer is), layers/core.py (Dense and friends), models/ (Sequential,
functional, subclassed), training.py (compile, fit: the course's training loop written once), then losses/,
metrics/, optimizers/, callbacks/; initializers, regularizers, constraints and activations are a module each;
summary.py and progbar.py print what Keras prints; saving.py writes Keras's own file formats. Each namespace
lists what it leaves out of Keras, with the reason, in its LEFT_OUT table.
"""

import minitf.keras.activations as activations
import minitf.keras.backend as backend
import minitf.keras.callbacks as callbacks
import minitf.keras.constraints as constraints
import minitf.keras.datasets as datasets
import minitf.keras.initializers as initializers
import minitf.keras.layers as layers
import minitf.keras.losses as losses
import minitf.keras.metrics as metrics
import minitf.keras.models as models
import minitf.keras.optimizers as optimizers
import minitf.keras.preprocessing as preprocessing
import minitf.keras.regularizers as regularizers
import minitf.keras.saving as saving
import minitf.keras.utils as utils
from minitf.keras.layers import Input, Layer
from minitf.keras.models import Model, Sequential

__version__ = "3.15.1"

__all__ = [
    "Input",
    "Layer",
    "Model",
    "Sequential",
    "activations",
    "backend",
    "callbacks",
    "constraints",
    "datasets",
    "initializers",
    "layers",
    "losses",
    "metrics",
    "models",
    "optimizers",
    "preprocessing",
    "regularizers",
    "saving",
    "utils",
]
