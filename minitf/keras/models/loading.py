"""`keras.models.load_model("x.keras")`: a saved model rebuilt from the architecture Keras writes (`config.json`),
then given its weights (saving.py reads them). Works for files saved by minitf or by Keras.
"""

from __future__ import annotations

import io
import json
import zipfile
from typing import Any

import h5py  # type: ignore[import-untyped]

import minitf.keras.layers as layers_module  # the public keras.layers: classes looked up by name
import minitf.keras.saving.registry as registry
from minitf.keras.layers.core import InputLayer
from minitf.keras.layers.keras_tensor import KerasTensor
from minitf.keras.models.model import Functional
from minitf.keras.models.sequential import Sequential
from minitf.keras.saving.compile_config import compile_from_config
from minitf.keras.saving.files import read_weights
from minitf.keras.saving.objects import is_builtin
from minitf.ops.array.creation import zeros


def layer_class(entry: dict[str, Any]) -> Any:
    """The class a saved entry names: a built-in layer or model, else a registered or passed custom class."""
    name, module = entry["class_name"], entry.get("module") or ""
    if module == "keras" or module.startswith("keras."):
        found = {"Sequential": Sequential, "Functional": Functional}.get(name) or getattr(layers_module, name, None)
        if found is not None:
            return found
    found = registry.get_registered_object(entry.get("registered_name") or name)
    if found is None:
        raise registry.not_found("class", name, entry)
    return found


def build_from_config(layer: Any, config: dict[str, Any] | None) -> None:
    """Create a custom layer's or model's weights by running it once on zeros of the saved input shape."""
    if not config or "input_shape" not in config or layer.built and layer.weights:
        return

    def zeros_like_input(shape: Any) -> Any:
        if isinstance(shape, dict):
            return {key: zeros_like_input(value) for key, value in shape.items()}
        if shape and isinstance(shape[0], list | tuple | dict):
            return [zeros_like_input(s) for s in shape]
        return zeros([1 if d is None else d for d in shape])

    layer(zeros_like_input(config["input_shape"]))


def layer_from_config(entry: dict[str, Any]) -> Any:
    """A layer from its entry: built-in ones by class name, custom ones by registered name (built as saved
    when no model around them builds them)."""
    cls = layer_class(entry)
    if cls in (Sequential, Functional):
        return model_from_config(entry)
    layer = cls.from_config(entry["config"])
    if not is_builtin(cls):
        build_from_config(layer, entry.get("build_config"))
    return layer


def model_from_config(config: dict[str, Any]) -> Any:
    """Rebuild Sequential and functional models from the architecture Keras writes; a subclassed model from
    its class's `from_config`, then run once to build it."""
    inner = config["config"]
    if config["class_name"] not in ("Sequential", "Functional"):
        return layer_from_config(config)
    if config["class_name"] == "Sequential":
        model = Sequential(name=inner["name"])
        for entry in inner["layers"]:
            model.add(layer_from_config(entry), rebuild=False)
        if model._input_layer is not None:
            model.build(model._input_layer.batch_shape)
        return model
    made: dict[str, Any] = {}
    outputs: dict[tuple[str, int], list[KerasTensor]] = {}
    pending: list[tuple[Any, list[dict[str, Any]]]] = []
    for entry in inner["layers"]:
        layer = layer_from_config(entry)
        made[layer.name] = layer
        if isinstance(layer, InputLayer):
            outputs[(layer.name, 0)] = [layer.output]
        pending.append((layer, list(entry.get("inbound_nodes", []))))
    # A layer's calls are replayed in their order, each once every tensor it reads exists (a shared layer may
    # be listed before the input its second call reads).
    while any(nodes for _, nodes in pending):
        progressed = False
        for layer, nodes in pending:
            while nodes and all(tuple(a["config"]["keras_history"][:2]) in outputs for a in nodes[0]["args"]):
                node = nodes.pop(0)
                args = [
                    outputs[(a["config"]["keras_history"][0], a["config"]["keras_history"][1])][
                        a["config"]["keras_history"][2]
                    ]
                    for a in node["args"]
                ]
                result = layer(args[0] if len(args) == 1 else args)
                index = sum(1 for key in outputs if key[0] == layer.name)
                outputs[(layer.name, index)] = result if isinstance(result, list) else [result]
                progressed = True
        if not progressed:
            raise ValueError("The saved model's layer calls read tensors no layer makes; the file is damaged.")

    def tensors(where: Any) -> Any:
        if isinstance(where[0], str):
            return outputs[(where[0], 0 if isinstance(made[where[0]], InputLayer) else where[1])][where[2]]
        return [tensors(item) for item in where]

    return Functional(tensors(inner["input_layers"]), tensors(inner["output_layers"]), name=inner["name"])


def load_model(filepath: str, custom_objects: Any = None, compile: bool = True, safe_mode: bool = True) -> Any:
    """A model saved with `model.save("x.keras")`, by minitf or by Keras, compiled as it was saved (with
    `compile=True`). Custom classes and functions are found by name in `custom_objects` or among the
    registered ones."""
    with zipfile.ZipFile(filepath) as archive, registry.custom_object_scope(custom_objects):
        config = json.loads(archive.read("config.json"))
        model = model_from_config(config)
        if compile and config.get("compile_config"):
            compile_from_config(model, config["compile_config"])
        with h5py.File(io.BytesIO(archive.read("model.weights.h5")), "r") as file:
            read_weights(model, file)
    return model
