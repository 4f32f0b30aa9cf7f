"""`keras.layers`: the layers minitf implements, and `LEFT_OUT` (left_out_layers.py), the ones it leaves out
with the reason, which a learner reaching for them reads in the error."""

from typing import Any

import minitf.left_out as left_out
from minitf.keras.layers.activation_layers import ELU, Activation, LeakyReLU, PReLU, ReLU, Softmax, ThresholdedReLU
from minitf.keras.layers.attention import AdditiveAttention, Attention, MultiHeadAttention
from minitf.keras.layers.conv_transpose import (
    Conv1DTranspose,
    Conv2DTranspose,
    Convolution1DTranspose,
    Convolution2DTranspose,
)
from minitf.keras.layers.convolutional import (
    Conv1D,
    Conv2D,
    Convolution1D,
    Convolution2D,
    DepthwiseConv1D,
    DepthwiseConv2D,
    SeparableConv1D,
    SeparableConv2D,
    SeparableConvolution1D,
    SeparableConvolution2D,
)
from minitf.keras.layers.core import (
    ActivityRegularization,
    Dense,
    Dropout,
    Embedding,
    Flatten,
    Identity,
    Input,
    InputLayer,
)
from minitf.keras.layers.input_spec import InputSpec
from minitf.keras.layers.lambda_layer import Lambda
from minitf.keras.layers.layer import Layer
from minitf.keras.layers.layer_normalization import (
    GroupNormalization,
    LayerNormalization,
    RMSNormalization,
    UnitNormalization,
)
from minitf.keras.layers.left_out_layers import LEFT_OUT
from minitf.keras.layers.lookups import IntegerLookup, StringLookup, TextVectorization
from minitf.keras.layers.merging import (
    Add,
    Average,
    Concatenate,
    Dot,
    Maximum,
    Minimum,
    Multiply,
    Subtract,
    add,
    average,
    concatenate,
    dot,
    maximum,
    minimum,
    multiply,
    subtract,
)
from minitf.keras.layers.noise import (
    AlphaDropout,
    GaussianDropout,
    GaussianNoise,
    SpatialDropout1D,
    SpatialDropout2D,
)
from minitf.keras.layers.normalization import BatchNormalization, Normalization
from minitf.keras.layers.pooling import (
    AveragePooling1D,
    AveragePooling2D,
    AvgPool1D,
    AvgPool2D,
    GlobalAveragePooling1D,
    GlobalAveragePooling2D,
    GlobalAvgPool1D,
    GlobalAvgPool2D,
    GlobalMaxPool1D,
    GlobalMaxPool2D,
    GlobalMaxPooling1D,
    GlobalMaxPooling2D,
    MaxPool1D,
    MaxPool2D,
    MaxPooling1D,
    MaxPooling2D,
)
from minitf.keras.layers.preprocessing import CategoryEncoding, CenterCrop, Discretization, Hashing, Rescaling
from minitf.keras.layers.reshaping import (
    Cropping1D,
    Cropping2D,
    Permute,
    RepeatVector,
    Reshape,
    UpSampling1D,
    UpSampling2D,
    ZeroPadding1D,
    ZeroPadding2D,
)
from minitf.keras.layers.rnn import GRU, LSTM, RNN, SimpleRNN, StackedRNNCells
from minitf.keras.layers.rnn_cells import GRUCell, LSTMCell, SimpleRNNCell
from minitf.keras.layers.wrappers import Bidirectional, TimeDistributed, Wrapper

__getattr__ = left_out.module_getattr("tf.keras.layers", LEFT_OUT)


def serialize(layer: Layer) -> dict[str, Any]:
    """A layer as Keras writes it into a model's config: class, config and the shape it was built for."""
    entry: dict[str, Any] = {
        "module": getattr(layer, "_keras_module", "keras.layers"),
        "class_name": type(layer).__name__,
        "config": layer.get_config(),
        "registered_name": None,
    }
    if layer.built and not getattr(layer, "_keeps_build_shape", True):
        entry["build_config"] = {"input_shape": None}
    elif layer.built and layer._build_input_shape is not None:
        entry["build_config"] = {"input_shape": layer._build_input_shape}
    return entry


def deserialize(config: dict[str, Any], custom_objects: dict[str, Any] | None = None) -> Layer:
    """The layer back from `serialize`'s dictionary (Keras's or minitf's), unbuilt."""
    name = config["class_name"]
    cls = (custom_objects or {}).get(name) or globals().get(name)
    if not (isinstance(cls, type) and issubclass(cls, Layer)):
        if name in LEFT_OUT:
            getattr(__import__(__name__, fromlist=["_"]), name)  # raises the left-out error, with its reason
        raise ValueError(f"Could not locate class '{name}'. Make sure custom classes are passed in `custom_objects`.")
    return cls.from_config(config["config"])


__all__ = [
    "Activation",
    "ActivityRegularization",
    "Add",
    "AdditiveAttention",
    "AlphaDropout",
    "Attention",
    "Average",
    "AveragePooling1D",
    "AveragePooling2D",
    "AvgPool1D",
    "AvgPool2D",
    "BatchNormalization",
    "Bidirectional",
    "CategoryEncoding",
    "CenterCrop",
    "Concatenate",
    "Conv1D",
    "Conv1DTranspose",
    "Conv2D",
    "Conv2DTranspose",
    "Convolution1D",
    "Convolution1DTranspose",
    "Convolution2D",
    "Convolution2DTranspose",
    "Cropping1D",
    "Cropping2D",
    "Dense",
    "DepthwiseConv1D",
    "DepthwiseConv2D",
    "Discretization",
    "Dot",
    "Dropout",
    "ELU",
    "Embedding",
    "Flatten",
    "GRU",
    "GRUCell",
    "GaussianDropout",
    "GaussianNoise",
    "GlobalAveragePooling1D",
    "GlobalAveragePooling2D",
    "GlobalAvgPool1D",
    "GlobalAvgPool2D",
    "GlobalMaxPool1D",
    "GlobalMaxPool2D",
    "GlobalMaxPooling1D",
    "GlobalMaxPooling2D",
    "GroupNormalization",
    "Hashing",
    "Identity",
    "Input",
    "InputLayer",
    "InputSpec",
    "IntegerLookup",
    "LEFT_OUT",
    "LSTM",
    "LSTMCell",
    "Lambda",
    "Layer",
    "LayerNormalization",
    "LeakyReLU",
    "MaxPool1D",
    "MaxPool2D",
    "MaxPooling1D",
    "MaxPooling2D",
    "Maximum",
    "Minimum",
    "MultiHeadAttention",
    "Multiply",
    "Normalization",
    "PReLU",
    "Permute",
    "RMSNormalization",
    "RNN",
    "ReLU",
    "RepeatVector",
    "Rescaling",
    "Reshape",
    "SeparableConv1D",
    "SeparableConv2D",
    "SeparableConvolution1D",
    "SeparableConvolution2D",
    "SimpleRNN",
    "SimpleRNNCell",
    "Softmax",
    "SpatialDropout1D",
    "SpatialDropout2D",
    "StackedRNNCells",
    "StringLookup",
    "Subtract",
    "TextVectorization",
    "ThresholdedReLU",
    "TimeDistributed",
    "UnitNormalization",
    "UpSampling1D",
    "UpSampling2D",
    "Wrapper",
    "ZeroPadding1D",
    "ZeroPadding2D",
    "add",
    "average",
    "concatenate",
    "deserialize",
    "dot",
    "maximum",
    "minimum",
    "multiply",
    "serialize",
    "subtract",
]
