"""`tf.keras.backend`: the global settings the numbers depend on, clearing the session, and the helpers of Keras 2's
backend that learners' code still calls (`get_value`/`set_value` on a learning rate, `int_shape`, `floatx`).

Keras 2's backend math (`K.sum`, `K.mean`, `K.conv2d`, ...) is left out: each has a `tf` function that does the same
(`tf.reduce_sum`, `tf.reduce_mean`, `tf.nn.conv2d`), and LEFT_OUT says so when a program reaches for it."""

from typing import Any

import numpy as np

import minitf.keras.layers.keras_tensor as keras_tensor
import minitf.keras.naming as naming
import minitf.left_out as left_out
from minitf.core.tensor import Tensor

_EPSILON = 1e-7


def epsilon() -> float:
    """The small number Keras adds or clips with (1e-7), so no loss takes the log of 0."""
    return _EPSILON


def set_epsilon(value: float) -> None:
    global _EPSILON
    _EPSILON = float(value)


def clear_session() -> None:
    """Forget the names handed out so far: the next Dense is `dense` again (what Keras's clear_session does to
    names; minitf keeps no other global Keras state)."""
    naming.reset()


def backend() -> str:
    """The engine Keras runs on; minitf stands in for TensorFlow."""
    return "tensorflow"


def floatx() -> str:
    """The float type layers create their weights in: minitf keeps Keras's default, float32."""
    return "float32"


def image_data_format() -> str:
    """Where the channels of an image batch are: minitf's convolutions take them last, Keras's default."""
    return "channels_last"


def get_value(x: Any) -> Any:
    """The value of a tensor or variable as NumPy (a learning rate read in a callback); anything else as given."""
    return x.numpy() if isinstance(x, Tensor) or hasattr(x, "assign") else x


def batch_get_value(tensors: list[Any]) -> list[Any]:
    return [get_value(x) for x in tensors]


def set_value(x: Any, value: Any) -> None:
    """Assign `value` to the variable `x` in the variable's dtype."""
    x.assign(np.asarray(value, dtype=np.dtype(x.dtype.name)))


def batch_set_value(pairs: list[tuple[Any, Any]]) -> None:
    for x, value in pairs:
        set_value(x, value)


def int_shape(x: Any) -> tuple[Any, ...]:
    """A tensor's shape as a tuple of ints (None where unknown)."""
    shape = x.shape
    return tuple(shape.as_list()) if hasattr(shape, "as_list") else tuple(shape)


def count_params(x: Any) -> int:
    """How many numbers a variable holds."""
    return int(np.prod(int_shape(x)))


def is_keras_tensor(x: Any) -> bool:
    """Whether `x` is a symbolic tensor of a functional model (what `keras.Input` makes)."""
    return isinstance(x, keras_tensor.KerasTensor)


def cast_to_floatx(x: Any) -> np.ndarray:
    """`x` as a NumPy array of floatx (float32)."""
    return np.asarray(x, dtype=floatx())


_MATH = (
    "Keras 2's backend math; the tf function of the same idea does it (tf.reduce_sum for sum, tf.nn.conv2d for conv2d)"
)
_GRAPH = (
    "one of Keras 2's backend helpers; a tf function or the tensor's own attribute does it (tf.shape, x.dtype, "
    "tf.Variable, tf.stop_gradient)"
)
LEFT_OUT = dict.fromkeys(
    [
        "abs",
        "all",
        "any",
        "arange",
        "argmax",
        "argmin",
        "batch_dot",
        "batch_flatten",
        "batch_normalization",
        "bias_add",
        "binary_crossentropy",
        "binary_focal_crossentropy",
        "cast",
        "categorical_crossentropy",
        "categorical_focal_crossentropy",
        "clip",
        "concatenate",
        "constant",
        "conv1d",
        "conv2d",
        "conv2d_transpose",
        "conv3d",
        "cos",
        "ctc_batch_cost",
        "ctc_decode",
        "ctc_label_dense_to_sparse",
        "cumprod",
        "cumsum",
        "depthwise_conv2d",
        "dot",
        "dropout",
        "elu",
        "equal",
        "exp",
        "expand_dims",
        "eye",
        "flatten",
        "foldl",
        "foldr",
        "gather",
        "greater",
        "greater_equal",
        "hard_sigmoid",
        "in_top_k",
        "l2_normalize",
        "less",
        "less_equal",
        "log",
        "map_fn",
        "max",
        "maximum",
        "mean",
        "min",
        "minimum",
        "not_equal",
        "one_hot",
        "ones",
        "ones_like",
        "permute_dimensions",
        "pool2d",
        "pool3d",
        "pow",
        "prod",
        "random_bernoulli",
        "random_normal",
        "random_uniform",
        "relu",
        "repeat",
        "repeat_elements",
        "reshape",
        "resize_images",
        "resize_volumes",
        "reverse",
        "round",
        "separable_conv2d",
        "sigmoid",
        "sign",
        "sin",
        "softmax",
        "softplus",
        "softsign",
        "sparse_categorical_crossentropy",
        "spatial_2d_padding",
        "spatial_3d_padding",
        "sqrt",
        "square",
        "squeeze",
        "stack",
        "std",
        "sum",
        "switch",
        "tanh",
        "temporal_padding",
        "tile",
        "transpose",
        "truncated_normal",
        "var",
        "zeros",
        "zeros_like",
    ],
    _MATH,
)
LEFT_OUT.update(
    dict.fromkeys(
        [
            "dtype",
            "eval",
            "get_uid",
            "gradients",
            "is_float_dtype",
            "is_int_dtype",
            "is_sparse",
            "moving_average_update",
            "name_scope",
            "ndim",
            "random_normal_variable",
            "random_uniform_variable",
            "result_type",
            "rnn",
            "set_floatx",
            "set_image_data_format",
            "shape",
            "standardize_dtype",
            "stop_gradient",
            "to_dense",
            "update",
            "update_add",
            "update_sub",
            "variable",
        ],
        _GRAPH,
    )
)
__getattr__ = left_out.module_getattr("tf.keras.backend", LEFT_OUT)
