"""`keras.Model`: a Layer that can be trained (`compile`/`fit`, from training.py), summarised and saved, and the
functional model `keras.Model(inputs, outputs)` makes (`Functional`, below: the model knows its functional form).

A subclass of `keras.Model` defines its layers in `__init__` and its computation in `call`, and is built on its
first call. A functional model is the graph of layer calls between its inputs and outputs, replayed: building it
walks back from the outputs through each KerasTensor's history to the inputs and keeps the layer calls (Nodes) in
an order where every call comes after the calls it reads from.
"""

from __future__ import annotations

from typing import Any

import minitf.keras.naming as naming
import minitf.keras.saving.objects as objects
import minitf.keras.summary as summary
from minitf.core.tensor import Tensor
from minitf.keras.layers.core import InputLayer
from minitf.keras.layers.keras_tensor import KerasTensor, Node, flatten, history_of, map_structure
from minitf.keras.layers.layer import Layer
from minitf.keras.training import Trainer


class Model(Trainer, Layer):
    # How Keras files a Sequential or functional model in a .keras file ((module, class_name)); None: a subclassed
    # model, filed under its own class and registered name (saving/objects.py).
    _saved_as: tuple[str, str] | None = None

    def __new__(cls, *args: Any, **kwargs: Any) -> Any:
        if cls is Model and (args or "inputs" in kwargs):
            return Functional(*args, **kwargs)
        if _functional_arguments(args, kwargs) and not issubclass(cls, Functional):
            # `CustomModel(inputs, outputs)` (a subclass that overrides train_step, say): as Keras does, the
            # subclass gets the functional model's __init__ and call by having Functional as a base too
            return super().__new__(type(cls.__name__, (cls, Functional), {"__module__": cls.__module__}))
        return super().__new__(cls)  # arguments not passed on, as in Keras: an automatic config records defaults

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        Layer.__init__(self, name=kwargs.pop("name", None), trainable=kwargs.pop("trainable", True))

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        """An input that does not fit the layers' shapes is reported as Keras reports it (call_errors.py), with a
        hint on what to check."""
        try:
            return super().__call__(*args, **kwargs)
        except ValueError as error:
            message = str(error)
            if "is incompatible with the layer" not in message or "\nHint:" in message:
                raise
            hint = (
                "\nHint: the model's input does not fit the shape its layers were built for: check the shape of the "
                "array you pass (model.summary() shows the expected one)."
            )
            hinted = ValueError(message + hint)
            hinted._keras_call_info_injected = True  # type: ignore[attr-defined]
            raise hinted.with_traceback(error.__traceback__) from None

    def _maybe_build(self, inputs: Any) -> None:
        """A subclassed model is built by running it: its layers build themselves on first use."""
        if not self.built:
            if isinstance(inputs, Tensor | KerasTensor):  # (fit builds a model on KerasTensors of its batches)
                self._build_input_shape = tuple(inputs.shape.as_list() if isinstance(inputs, Tensor) else inputs.shape)
            self.built = True

    def _summary_rows(self) -> tuple[list[Any], list[str] | None]:
        return self.layers, None

    def summary(
        self,
        line_length: int | None = None,
        positions: list[float] | None = None,
        print_fn: Any = None,
        expand_nested: bool = False,
        show_trainable: bool = False,
        layer_range: Any = None,
    ) -> None:
        summary.print_summary(self, line_length, positions, print_fn, show_trainable)

    def get_layer(self, name: str | None = None, index: int | None = None) -> Layer:
        if index is not None:
            return self.layers[index]
        for layer in self.layers:
            if layer.name == name:
                return layer
        raise ValueError(f"No such layer: {name}. Existing layers are: {[layer.name for layer in self.layers]}.")

    def _stored_layers(self) -> list[Any]:
        """The layers a Keras file lists, in order (a functional model's inputs included)."""
        return list(self._layers)

    def save(self, filepath: str, overwrite: bool = True) -> None:
        import minitf.keras.saving.files as files  # files.py needs h5py: loaded when a model is saved or loaded

        files.save_model(self, filepath)

    def save_weights(self, filepath: str, overwrite: bool = True) -> None:
        import minitf.keras.saving.files as files  # files.py needs h5py: loaded when a model is saved or loaded

        files.save_weights(self, filepath)

    def load_weights(self, filepath: str) -> None:
        import minitf.keras.saving.files as files  # files.py needs h5py: loaded when a model is saved or loaded

        files.load_weights(self, filepath)


def nodes_in_order(outputs: list[KerasTensor]) -> list[Node]:
    """Every Node the outputs depend on, each after its parents (depth-first, parents first)."""
    ordered: list[Node] = []
    seen: set[int] = set()

    def visit(node: Node) -> None:
        if id(node) in seen:
            return
        seen.add(id(node))
        for parent in node.parent_nodes:
            visit(parent)
        ordered.append(node)

    for tensor in outputs:
        layer, node_index, _ = history_of(tensor)
        visit(layer._inbound_nodes[node_index])
    return ordered


def layers_by_depth(nodes: list[Node]) -> list[Any]:
    """The model's layers as Keras lists them (and orders their weights): farthest from the outputs first.

    A call that makes an output has depth 0, a call that feeds one of depth d has at least depth d + 1; a layer
    is as deep as its deepest call. Layers of equal depth keep the order in which the calls were found."""
    depth: dict[int, int] = {}
    for node in reversed(nodes):  # children before parents
        depth.setdefault(id(node), 0)
        for parent in node.parent_nodes:
            depth[id(parent)] = max(depth.get(id(parent), 0), depth[id(node)] + 1)
    layers: list[Any] = []
    layer_depth: dict[int, int] = {}
    for node in nodes:
        if not any(node.layer is known for known in layers):
            layers.append(node.layer)
        layer_depth[id(node.layer)] = max(layer_depth.get(id(node.layer), 0), depth[id(node)])
    order = {id(layer): index for index, layer in enumerate(layers)}
    return sorted(layers, key=lambda layer: (-layer_depth[id(layer)], order[id(layer)]))


def _functional_arguments(args: tuple, kwargs: dict[str, Any]) -> bool:
    """Keras's test for a functional model's arguments: (inputs, outputs), positional or named."""
    return len(args) == 2 or (len(args) == 1 and "outputs" in kwargs) or ("inputs" in kwargs and "outputs" in kwargs)


class Functional(Model):
    """A model defined by its inputs and outputs (KerasTensors); `model(x)` replays the layer calls on `x`."""

    _saved_as = ("keras.src.models.functional", "Functional")

    def __init__(self, inputs: Any, outputs: Any, name: str | None = None, trainable: bool = True) -> None:
        if getattr(self, "_nodes", None) is not None:
            return  # `keras.Model(inputs, outputs)` made this object in Model.__new__; Python calls __init__ again
        super().__init__(name=name or naming.unique_name("functional"), trainable=trainable)
        self._inputs_struct, self._outputs_struct = inputs, outputs
        self.inputs, self.outputs = flatten(inputs), flatten(outputs)
        self._nodes = nodes_in_order(self.outputs)
        self._layers = layers_by_depth(self._nodes)
        self.built = True

    @property
    def input_shape(self) -> Any:
        """The shape of the model's input (a list of shapes for several inputs), as Keras gives it."""
        shapes = [tensor.shape for tensor in self.inputs]
        return shapes[0] if len(shapes) == 1 else shapes

    @property
    def output_shape(self) -> Any:
        """The shape of the model's output (a list of shapes for several outputs), as Keras gives it."""
        shapes = [tensor.shape for tensor in self.outputs]
        return shapes[0] if len(shapes) == 1 else shapes

    @property
    def input(self) -> Any:
        """The model's keras.Input tensor(s), as it was given them."""
        return self._inputs_struct

    @property
    def output(self) -> Any:
        """The model's output tensor(s), as it was given them."""
        return self._outputs_struct

    @property
    def output_names(self) -> list[str]:
        """The names of the layers that make the outputs: what per-output losses and logs are named after."""
        return [history_of(tensor)[0].name for tensor in self.outputs]

    def _inputs_in_order(self, inputs: Any) -> list[Any]:
        """The values for `self.inputs`, in order: a dict of inputs is matched by the keras.Input names."""
        if isinstance(inputs, dict) and not isinstance(self._inputs_struct, dict):
            return [inputs[history_of(tensor)[0].name] for tensor in self.inputs]
        return flatten(inputs)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        """Inputs are checked against the shapes of the model's `keras.Input`s first, with Keras's message."""
        inputs = args[0] if args else kwargs.get("inputs")
        for index, (spec, value) in enumerate(zip(self.inputs, self._inputs_in_order(inputs), strict=False)):
            if not isinstance(value, KerasTensor):
                self._check_input(index, spec, tuple(getattr(value, "shape", ())))
        return super().__call__(*args, **kwargs)

    def _check_input(self, index: int, spec: KerasTensor, found: tuple) -> None:
        fits = len(found) == len(spec.shape) and all(
            a is None or a == b for a, b in zip(spec.shape, found, strict=True)
        )
        if not fits:
            raise ValueError(
                f"Input {index} with name '{history_of(spec)[0].name}' of layer '{self.name}' is "
                f"incompatible with the layer: expected shape={spec.shape}, found shape={found}\n"
                "Hint: pass an array shaped like the model's keras.Input (batch first)."
            )

    def call(self, inputs: Any, training: bool | None = None, mask: Any = None, **kwargs: Any) -> Any:
        values: dict[int, Any] = {}
        for tensor, value in zip(self.inputs, self._inputs_in_order(inputs), strict=True):
            values[id(tensor)] = value
        for node in self._nodes:
            if isinstance(node.layer, InputLayer):
                continue
            # KerasTensors may stand in the other arguments too (an RNN's `initial_state=` from another layer)
            real, args, kwargs = map_structure(
                lambda t: values[id(t)] if isinstance(t, KerasTensor) else t, (*node.arguments, node.kwargs)
            )
            if training is not None and node.layer._call_has_training:
                kwargs["training"] = training  # Keras 3 lets the model's flag win over one fixed in the graph
            result = node.layer(real, *args, **kwargs)
            for tensor, value in zip(node.output_tensors, flatten(result), strict=True):
                values[id(tensor)] = value
        return map_structure(lambda t: values[id(t)], self._outputs_struct)

    def _summary_rows(self) -> tuple[list[Any], list[str] | None]:
        linear = (
            all(len(node.input_tensors) <= 1 for node in self._nodes)
            and sum(1 for node in self._nodes if not node.input_tensors) == 1
            and len({id(node.input_tensors[0]) for node in self._nodes if node.input_tensors}) == len(self._nodes) - 1
        )
        if linear:
            return self.layers, None
        connections = []
        for layer in self.layers:
            links = []
            for node in layer._inbound_nodes:
                if node not in self._nodes:
                    continue
                for tensor in node.input_tensors:
                    source, node_index, tensor_index = history_of(tensor)
                    links.append(f"{source.name}[{node_index}][{tensor_index}]")
            connections.append(", ".join(links) or "-")
        return self.layers, connections

    def get_config(self) -> dict[str, Any]:
        def where(tensor: KerasTensor) -> list[Any]:
            layer, node_index, tensor_index = history_of(tensor)
            return [layer.name, node_index, tensor_index]

        layer_configs = []
        for layer in self.layers:
            inbound = []
            for node in layer._inbound_nodes:
                if node in self._nodes and node.input_tensors:
                    inbound.append({"args": [_history_config(t) for t in node.input_tensors], "kwargs": {}})
            layer_configs.append({**objects.serialize_layer(layer), "name": layer.name, "inbound_nodes": inbound})
        return {
            "name": self.name,
            "trainable": self.trainable,
            "layers": layer_configs,
            "input_layers": where(self.inputs[0]) if len(self.inputs) == 1 else [where(t) for t in self.inputs],
            "output_layers": (where(self.outputs[0]) if len(self.outputs) == 1 else [where(t) for t in self.outputs]),
        }


def _history_config(tensor: KerasTensor) -> dict[str, Any]:
    layer, node_index, tensor_index = history_of(tensor)
    return {
        "class_name": "__keras_tensor__",
        "config": {
            "shape": list(tensor.shape),
            "dtype": tensor.dtype,
            "keras_history": [layer.name, node_index, tensor_index],
        },
    }
