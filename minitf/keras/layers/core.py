"""The everyday layers: Input, Dense, Flatten, Dropout, Activation, ReLU, Softmax, Embedding."""

from __future__ import annotations

import math
from typing import Any

from minitf.keras import activations, initializers, naming, regularizers
from minitf.keras.layers.input_spec import InputSpec
from minitf.keras.layers.keras_tensor import KerasTensor, Node
from minitf.keras.layers.layer import Layer
from minitf.keras.serialization import serialize
from minitf.ops.array.gather_scatter import gather
from minitf.ops.array.shape_ops import reshape, shape
from minitf.ops.linalg.linalg_ops import matmul, tensordot
from minitf.ops.math.cast import cast
from minitf.ops.nn import nn_ops
from minitf.ops.nn.dropout import dropout


class InputLayer(Layer):
    """The layer behind `keras.Input`: it only names the model's input and its shape."""

    def __init__(
        self,
        shape: Any = None,
        batch_size: int | None = None,
        dtype: Any = None,
        name: str | None = None,
        batch_shape: Any = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(name=name or naming.unique_name("input_layer"), dtype=dtype, **kwargs)
        self.batch_shape = tuple(batch_shape) if batch_shape is not None else (batch_size, *tuple(shape or ()))
        self.built = True
        self.output = KerasTensor(self.batch_shape, self.dtype, history=(self, 0, 0))
        self._inbound_nodes.append(Node(self, [], [self.output], ((), ()), {}))  # the node that makes the input

    def get_config(self) -> dict[str, Any]:
        return {
            "batch_shape": list(self.batch_shape),
            "dtype": self.dtype,
            "sparse": False,
            "ragged": False,
            "name": self.name,
        }

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> InputLayer:
        return cls(batch_shape=config["batch_shape"], dtype=config.get("dtype"), name=config.get("name"))


def Input(
    shape: Any = None,
    batch_size: int | None = None,
    dtype: Any = None,
    name: str | None = None,
    batch_shape: Any = None,
) -> KerasTensor:
    """`keras.Input((4,))`: a symbolic batch of inputs of that shape, to build a functional model on."""
    return InputLayer(shape, batch_size, dtype, name, batch_shape).output


class Dense(Layer):
    """`activation(inputs @ kernel + bias)`."""

    def __init__(
        self,
        units: int,
        activation: Any = None,
        use_bias: bool = True,
        kernel_initializer: Any = "glorot_uniform",
        bias_initializer: Any = "zeros",
        kernel_regularizer: Any = None,
        bias_regularizer: Any = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.units = int(units)
        self.activation = activations.get(activation)
        self.use_bias = use_bias
        self.kernel_initializer = initializers.get(kernel_initializer)
        self.bias_initializer = initializers.get(bias_initializer)
        self.kernel_regularizer = regularizers.get(kernel_regularizer)
        self.bias_regularizer = regularizers.get(bias_regularizer)
        self.input_spec = InputSpec(min_ndim=2)

    def build(self, input_shape: Any) -> None:
        input_dim = input_shape[-1]
        self.kernel = self.add_weight(
            (input_dim, self.units), self.kernel_initializer, regularizer=self.kernel_regularizer, name="kernel"
        )
        self.bias = (
            self.add_weight((self.units,), self.bias_initializer, regularizer=self.bias_regularizer, name="bias")
            if self.use_bias
            else None
        )
        self.input_spec = InputSpec(min_ndim=2, axes={-1: input_dim})

    def call(self, inputs: Any) -> Any:
        if inputs.shape.rank == 2:
            x = matmul(inputs, self.kernel)
        else:
            x = tensordot(inputs, self.kernel, [[inputs.shape.rank - 1], [0]])
        if self.bias is not None:
            x = x + self.bias
        return self.activation(x)

    def get_config(self) -> dict[str, Any]:
        return {
            **super().get_config(),
            "units": self.units,
            "activation": activations.serialize(self.activation),
            "use_bias": self.use_bias,
            "kernel_initializer": serialize(self.kernel_initializer, "keras.initializers"),
            "bias_initializer": serialize(self.bias_initializer, "keras.initializers"),
            "kernel_regularizer": serialize(self.kernel_regularizer, "keras.regularizers"),
            "bias_regularizer": serialize(self.bias_regularizer, "keras.regularizers"),
            "kernel_constraint": None,
            "bias_constraint": None,
        }


class Flatten(Layer):
    """(batch, ...) -> (batch, product of the rest)."""

    def call(self, inputs: Any) -> Any:
        rest = inputs.shape.as_list()[1:]
        if all(d is not None for d in rest):
            return reshape(inputs, [-1, math.prod(rest)])
        return reshape(inputs, [shape(inputs)[0], -1])

    def get_config(self) -> dict[str, Any]:
        return {**super().get_config(), "data_format": "channels_last"}


class Dropout(Layer):
    """While training, zero a fraction `rate` of the values and scale the rest by 1 / (1 - rate)."""

    def __init__(self, rate: float, noise_shape: Any = None, seed: int | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        if not 0 <= rate <= 1:
            raise ValueError(
                f"Invalid value received for argument `rate`. Expected a float value between 0 and "
                f"1. Received: rate={rate}"
            )
        self.rate, self.noise_shape, self.seed = rate, noise_shape, seed
        self.built = True

    def call(self, inputs: Any, training: bool | None = None) -> Any:
        if training and self.rate > 0:
            return dropout(inputs, rate=self.rate, noise_shape=self.noise_shape, seed=self.seed)
        return inputs

    def get_config(self) -> dict[str, Any]:
        return {**super().get_config(), "rate": self.rate, "seed": self.seed, "noise_shape": self.noise_shape}


class Activation(Layer):
    def __init__(self, activation: Any, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.activation = activations.get(activation)
        self.built = True

    def call(self, inputs: Any) -> Any:
        return self.activation(inputs)

    def get_config(self) -> dict[str, Any]:
        return {**super().get_config(), "activation": activations.serialize(self.activation)}


class ReLU(Layer):
    def __init__(
        self, max_value: float | None = None, negative_slope: float = 0.0, threshold: float = 0.0, **kwargs: Any
    ) -> None:
        super().__init__(**kwargs)
        self.max_value, self.negative_slope, self.threshold = max_value, negative_slope, threshold
        self.built = True

    def call(self, inputs: Any) -> Any:
        if self.negative_slope or self.threshold:
            raise NotImplementedError("minitf's ReLU layer has no negative_slope or threshold")
        x = nn_ops.relu(inputs)
        if self.max_value is not None:
            x = nn_ops.relu(x) - nn_ops.relu(x - self.max_value)
        return x

    def get_config(self) -> dict[str, Any]:
        return {
            **super().get_config(),
            "max_value": self.max_value,
            "negative_slope": self.negative_slope,
            "threshold": self.threshold,
        }


class Softmax(Layer):
    def __init__(self, axis: int = -1, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.axis = axis
        self.built = True

    def call(self, inputs: Any) -> Any:
        return nn_ops.softmax(inputs, axis=self.axis)

    def get_config(self) -> dict[str, Any]:
        return {**super().get_config(), "axis": self.axis}


class Embedding(Layer):
    """Integer ids -> rows of a trainable table of shape (input_dim, output_dim)."""

    def __init__(
        self,
        input_dim: int,
        output_dim: int,
        embeddings_initializer: Any = "uniform",
        embeddings_regularizer: Any = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.input_dim, self.output_dim = int(input_dim), int(output_dim)
        self.embeddings_initializer = initializers.get(embeddings_initializer)
        self.embeddings_regularizer = regularizers.get(embeddings_regularizer)

    def build(self, input_shape: Any = None) -> None:
        self.embeddings = self.add_weight(
            (self.input_dim, self.output_dim),
            self.embeddings_initializer,
            regularizer=self.embeddings_regularizer,
            name="embeddings",
        )

    def call(self, inputs: Any) -> Any:
        if inputs.dtype.name not in ("int32", "int64"):
            inputs = cast(inputs, "int32")
        return gather(self.embeddings, inputs)

    def get_config(self) -> dict[str, Any]:
        return {
            **super().get_config(),
            "input_dim": self.input_dim,
            "output_dim": self.output_dim,
            "embeddings_initializer": serialize(self.embeddings_initializer, "keras.initializers"),
            "embeddings_regularizer": serialize(self.embeddings_regularizer, "keras.regularizers"),
            "activity_regularizer": None,
            "embeddings_constraint": None,
            "mask_zero": False,
        }
