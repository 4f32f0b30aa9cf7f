"""The everyday layers: Input, Dense, Flatten, Dropout, Embedding."""

from __future__ import annotations

import math
from typing import Any

import minitf.keras.activations as activations
import minitf.keras.naming as naming
from minitf.keras.layers.input_spec import InputSpec
from minitf.keras.layers.keras_tensor import KerasTensor, Node
from minitf.keras.layers.layer import Layer
from minitf.keras.layers.options import WeightOptions, add_weight
from minitf.keras.serialization import serialize
from minitf.ops.array.gather_scatter import gather
from minitf.ops.array.shape_ops import reshape, shape
from minitf.ops.linalg.linalg_ops import matmul
from minitf.ops.math import reductions, unary_math
from minitf.ops.math.cast import cast
from minitf.ops.math.comparisons import not_equal
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
        tensor = KerasTensor(self.batch_shape, self.dtype, name=name, history=(self, 0, 0))
        self._inbound_nodes.append(Node(self, [], [tensor], ((), ()), {}))  # the node that makes the input

    def get_config(self) -> dict[str, Any]:
        return {
            "batch_shape": self.batch_shape,
            "dtype": self.dtype,
            "sparse": False,
            "ragged": False,
            "name": self.name,
            "optional": False,
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

    passes_masks = True

    def __init__(
        self,
        units: int,
        activation: Any = None,
        use_bias: bool = True,
        kernel_initializer: Any = "glorot_uniform",
        bias_initializer: Any = "zeros",
        kernel_regularizer: Any = None,
        bias_regularizer: Any = None,
        kernel_constraint: Any = None,
        bias_constraint: Any = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.units = int(units)
        self.activation = activations.get(activation)
        self.use_bias = use_bias
        self.kernel_options = WeightOptions(kernel_initializer, kernel_regularizer, kernel_constraint)
        self.bias_options = WeightOptions(bias_initializer, bias_regularizer, bias_constraint)
        self.kernel_initializer = self.kernel_options.initializer
        self.input_spec = InputSpec(min_ndim=2)

    def build(self, input_shape: Any) -> None:
        input_dim = input_shape[-1]
        self.kernel = add_weight(self, "kernel", (input_dim, self.units), self.kernel_options)
        self.bias = add_weight(self, "bias", (self.units,), self.bias_options) if self.use_bias else None
        self.input_spec = InputSpec(min_ndim=2, axes={-1: input_dim})

    def call(self, inputs: Any) -> Any:
        inner = inputs.shape.as_list()[1:-1]
        if inputs.shape.rank == 2 or None in inner:
            # a matrix, or a sequence of unknown length: matmul broadcasts the kernel over the leading axes
            x = matmul(inputs, self.kernel)
        else:  # the last axis of a (batch, ..., features) input: as a matrix product over the rows it holds
            rows = matmul(reshape(inputs, [-1, self.kernel.shape[0]]), self.kernel)
            x = reshape(rows, [-1, *inner, self.units])  # a static shape, which a traced function needs
        if self.bias is not None:
            x = x + self.bias
        return self.activation(x)

    def get_config(self) -> dict[str, Any]:
        return {
            **super().get_config(),
            "units": self.units,
            "activation": activations.serialize(self.activation),
            "use_bias": self.use_bias,
            **_paired_config(self.kernel_options.config("kernel"), self.bias_options.config("bias")),
            "quantization_config": None,
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

    passes_masks = True

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
            return dropout(inputs, rate=self.rate, noise_shape=self._noise_shape(inputs), seed=self.seed)
        return inputs

    def _noise_shape(self, inputs: Any) -> Any:
        return self.noise_shape

    def get_config(self) -> dict[str, Any]:
        return {**super().get_config(), "rate": self.rate, "seed": self.seed, "noise_shape": self.noise_shape}


class Embedding(Layer):
    """Integer ids -> rows of a trainable table of shape (input_dim, output_dim)."""

    def __init__(
        self,
        input_dim: int,
        output_dim: int,
        embeddings_initializer: Any = "uniform",
        embeddings_regularizer: Any = None,
        embeddings_constraint: Any = None,
        mask_zero: bool = False,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.input_dim, self.output_dim = int(input_dim), int(output_dim)
        self.options = WeightOptions(embeddings_initializer, embeddings_regularizer, embeddings_constraint)
        self.mask_zero = bool(mask_zero)

    def build(self, input_shape: Any = None) -> None:
        self.embeddings = add_weight(self, "embeddings", (self.input_dim, self.output_dim), self.options)

    def call(self, inputs: Any) -> Any:
        if inputs.dtype.name not in ("int32", "int64"):
            inputs = cast(inputs, "int32")
        return gather(self.embeddings, inputs)

    def compute_mask(self, inputs: Any, mask: Any = None) -> Any:
        """With `mask_zero=True`, id 0 is padding: the steps holding it are masked."""
        return not_equal(inputs, 0) if self.mask_zero else None

    def get_config(self) -> dict[str, Any]:
        return {
            **super().get_config(),
            "input_dim": self.input_dim,
            "output_dim": self.output_dim,
            "embeddings_initializer": serialize(self.options.initializer, "keras.initializers"),
            "embeddings_regularizer": serialize(self.options.regularizer, "keras.regularizers"),
            "activity_regularizer": None,
            "embeddings_constraint": self.options.config("embeddings")["embeddings_constraint"],
            "mask_zero": self.mask_zero,
            "quantization_config": None,
        }


def _paired_config(first: dict[str, Any], second: dict[str, Any]) -> dict[str, Any]:
    """Keras lists weight options by kind, then by weight: initializers, regularizers, then constraints."""
    entries = {**first, **second}
    order = ["initializer", "regularizer", "constraint"]
    return dict(sorted(entries.items(), key=lambda item: order.index(item[0].rsplit("_", 1)[1])))


class Identity(Layer):
    """Returns its input unchanged (a placeholder in a model's structure)."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.built = True

    def call(self, inputs: Any) -> Any:
        return inputs


class ActivityRegularization(Layer):
    """Passes its input through and adds `l1 * sum(|x|) + l2 * sum(x**2)` to the model's losses."""

    def __init__(self, l1: float = 0.0, l2: float = 0.0, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.l1, self.l2 = l1, l2
        self.built = True

    def call(self, inputs: Any) -> Any:
        penalty: Any = 0.0
        if self.l1:
            penalty = penalty + self.l1 * reductions.reduce_sum(unary_math.abs(inputs))
        if self.l2:
            penalty = penalty + self.l2 * reductions.reduce_sum(unary_math.square(inputs))
        if self.l1 or self.l2:
            self.add_loss(penalty)
        return inputs

    def get_config(self) -> dict[str, Any]:
        return {**super().get_config(), "l1": self.l1, "l2": self.l2}
