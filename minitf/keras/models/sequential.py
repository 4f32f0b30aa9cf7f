"""`keras.Sequential`: layers applied one after the other. Built as soon as the input shape is known."""

from __future__ import annotations

from typing import Any

import minitf.keras.naming as naming
import minitf.keras.saving.objects as objects
from minitf.core.tensor import Tensor
from minitf.keras.layers.core import InputLayer
from minitf.keras.layers.keras_tensor import KerasTensor, history_of
from minitf.keras.layers.layer import Layer
from minitf.keras.models.model import Model


class Sequential(Model):
    _saved_as = ("keras", "Sequential")

    def _stored_layers(self) -> list[Any]:
        """The layers a Keras file lists: `layers` (a Sequential model files no input layer)."""
        return list(self.layers)

    def __init__(self, layers: list[Any] | None = None, trainable: bool = True, name: str | None = None) -> None:
        super().__init__(name=name or naming.unique_name("sequential"), trainable=trainable)
        self._input_layer: InputLayer | None = None
        self._graph_output: Any = None  # the KerasTensor the last build made: the model's output
        for layer in layers or []:
            self.add(layer, rebuild=False)
        if self._input_layer is not None and self._layers:
            self.build(self._input_layer.batch_shape)
        elif len(self._layers) > 1 and hasattr(self._layers[0], "input_shape"):
            # a built model first (`Sequential([model, Softmax()])`): Keras builds on its input shape
            self.build(self._layers[0].input_shape)

    @property
    def input_shape(self) -> Any:
        if self._input_layer is None or not self.built:
            raise AttributeError(f"Sequential model '{self.name}' has no defined input shape yet.")
        return self._input_layer.batch_shape

    @property
    def output_shape(self) -> Any:
        return tuple(self._built_graph("output shape")[1].shape)

    @property
    def inputs(self) -> list[KerasTensor]:
        return [self._built_graph("inputs")[0]]

    @property
    def outputs(self) -> list[KerasTensor]:
        return [self._built_graph("outputs")[1]]

    def _built_graph(self, what: str) -> tuple[KerasTensor, KerasTensor]:
        """The input and output KerasTensors of the last build; Keras's AttributeError before the first one."""
        if self._input_layer is None or not self.built or self._graph_output is None:
            raise AttributeError(f"Sequential model '{self.name}' has no defined {what} yet.")
        return self._input_layer.output, self._graph_output

    def add(self, layer: Any, rebuild: bool = True) -> None:
        """Append a layer; `keras.Input(...)` (or an InputLayer) first fixes the input shape."""
        if isinstance(layer, KerasTensor) and isinstance(history_of(layer)[0], InputLayer):
            layer = history_of(layer)[0]
        if isinstance(layer, InputLayer):
            self._input_layer = layer
        elif isinstance(layer, Layer):
            given_shape = getattr(layer, "_batch_input_shape", None)
            if not self._layers and self._input_layer is None and given_shape is not None:
                # `Dense(16, input_shape=(8,))` first: Keras puts an input layer of that shape in front
                self._input_layer = InputLayer(batch_shape=tuple(given_shape))
            self._layers.append(layer)
        else:
            raise ValueError(
                f"Only instances of `keras.Layer` can be added to a Sequential model. Received: "
                f"{layer} (of type {type(layer)})"
            )
        if rebuild and self._input_layer is not None and self._layers:  # Keras builds once a layer follows the input
            self.built = False
            self.build(self._input_layer.batch_shape)

    def pop(self) -> Layer:
        """Remove the last layer; a model whose input shape is known is built again on what is left, as Keras does."""
        layer = self._layers.pop()
        self.built = False
        if self._input_layer is not None and self._layers:
            self.build(self._input_layer.batch_shape)
        return layer

    def build(self, input_shape: Any = None) -> None:
        """Run the layers once on a KerasTensor of `input_shape`: weights appear, output shapes are known."""
        if self._input_layer is None:
            self._input_layer = InputLayer(batch_shape=tuple(input_shape))
        x: Any = self._input_layer.output
        naming.unique_name("functional")  # Keras builds a Sequential model as a Functional one, which takes a name
        with naming.path_scope(self.name):
            for layer in self._layers:
                x = layer(x)
        self._graph_output = x
        self.built = True

    def _maybe_build(self, inputs: Any) -> None:
        if not self.built:
            # Keras builds on the shape of the first call, batch size included (fit builds with `None` first)
            self.build(tuple(inputs.shape.as_list()) if isinstance(inputs, Tensor) else tuple(inputs.shape))

    def call(self, inputs: Any, training: bool | None = None, mask: Any = None, **kwargs: Any) -> Any:
        x = inputs
        for layer in self._layers:
            x = layer(x, training=training)
        return x

    def _summary_rows(self) -> tuple[list[Any], None]:
        return self.layers, None

    def get_config(self) -> dict[str, Any]:
        layer_configs = []
        if self._input_layer is not None:
            layer_configs.append(
                {
                    "module": "keras.layers",
                    "class_name": "InputLayer",
                    "config": self._input_layer.get_config(),
                    "registered_name": None,
                }
            )
        for layer in self._layers:
            entry = objects.serialize_layer(layer)  # a custom layer under its own name
            entry["build_config"] = {"input_shape": _list_shape(layer._build_input_shape)}
            layer_configs.append(entry)
        return {
            "name": self.name,
            "trainable": self.trainable,
            "dtype": {
                "module": "keras",
                "class_name": "DTypePolicy",
                "config": {"name": "float32"},
                "registered_name": None,
            },
            "layers": layer_configs,
        }


def _list_shape(shape: Any) -> Any:
    return None if shape is None else list(shape)
