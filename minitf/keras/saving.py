"""Keras's own file formats, so models move between minitf and real Keras in both directions.

* `model.save_weights("x.weights.h5")`: an HDF5 file with one group per layer, `layers/<name>/vars/<i>` holding
  the layer's weights in `layer.weights` order, and `optimizer/vars/<i>` for the optimizer's variables.
* `model.save("x.keras")`: a zip of `metadata.json`, `config.json` (the model's architecture as
  `get_config()` gives it) and `model.weights.h5` (the file above).
"""

from __future__ import annotations

import datetime
import io
import json
import zipfile
from typing import Any

import h5py  # type: ignore[import-untyped]
import numpy as np

from minitf.keras import layers as layers_module
from minitf.keras import naming
from minitf.keras.layers.keras_tensor import KerasTensor
from minitf.keras.models.functional import Functional
from minitf.keras.models.sequential import Sequential

KERAS_VERSION = "3.15.1"


def stored_names(model: Any) -> list[tuple[str, Any]]:
    """Keras files a model's layers under their class name, made unique within the model in order (`dense`,
    `dense_1`, ...), whatever the layers are called; a functional model's inputs have (empty) groups too."""
    used: dict[str, int] = {}
    named = []
    layers = model.layers if isinstance(model, Sequential) else model._layers
    for layer in layers:
        base = naming.snake_case(type(layer).__name__)
        used[base] = used[base] + 1 if base in used else 0
        named.append((base if used[base] == 0 else f"{base}_{used[base]}", layer))
    return named


def _write_weights(model: Any, file: h5py.File) -> None:
    group = file.create_group("layers")
    for stored_name, layer in stored_names(model):
        variables = group.create_group(stored_name).create_group("vars")
        variables.attrs["name"] = layer.name
        for index, weight in enumerate(layer.weights):
            variables.create_dataset(str(index), data=np.asarray(weight.numpy()))
    file.create_group("vars").attrs["name"] = model.name
    optimizer = getattr(model, "optimizer", None)
    if optimizer is not None and optimizer.built:
        variables = file.create_group("optimizer").create_group("vars")
        variables.attrs["name"] = optimizer.name
        for index, variable in enumerate(optimizer.variables):
            variables.create_dataset(str(index), data=np.asarray(variable.numpy()))


def _read_weights(model: Any, file: h5py.File) -> None:
    for stored_name, layer in stored_names(model):
        if not layer.weights:
            continue
        stored = file["layers"][stored_name]["vars"]
        if len(stored) != len(layer.weights):
            raise ValueError(f"Layer '{layer.name}' expected {len(layer.weights)} variables, but received "
                             f"{len(stored)} variables during loading. Expected: {[w.name for w in layer.weights]}")
        layer.set_weights([np.asarray(stored[str(i)]) for i in range(len(stored))])


def save_weights(model: Any, filepath: str) -> None:
    if not str(filepath).endswith(".weights.h5"):
        raise ValueError(f"The filename must end in `.weights.h5`. Received: filepath={filepath}")
    with h5py.File(filepath, "w") as file:
        _write_weights(model, file)


def load_weights(model: Any, filepath: str) -> None:
    with h5py.File(filepath, "r") as file:
        _read_weights(model, file)


def model_config(model: Any) -> dict[str, Any]:
    functional = not isinstance(model, Sequential)
    return {"module": "keras.src.models.functional" if functional else "keras",
            "class_name": "Functional" if functional else "Sequential",
            "config": model.get_config(), "registered_name": None}


def save_model(model: Any, filepath: str) -> None:
    """The `.keras` zip: metadata, architecture, weights."""
    if not str(filepath).endswith(".keras"):
        raise ValueError(f"Invalid filepath extension for saving. Please add a `.keras` extension. "
                         f"Received: filepath={filepath}")
    if not isinstance(model, Sequential | Functional):
        raise NotImplementedError("minitf saves Sequential and functional models; save a subclassed model's "
                                  "weights with save_weights.")
    weights = io.BytesIO()
    with h5py.File(weights, "w") as file:
        _write_weights(model, file)
    metadata = {"keras_version": KERAS_VERSION, "date_saved": datetime.datetime.now().strftime("%Y-%m-%d@%H:%M:%S")}
    with zipfile.ZipFile(filepath, "w") as archive:
        archive.writestr("metadata.json", json.dumps(metadata))
        archive.writestr("config.json", json.dumps(model_config(model)))
        archive.writestr("model.weights.h5", weights.getvalue())


def _layer_from_config(entry: dict[str, Any]) -> Any:
    cls = getattr(layers_module, entry["class_name"], None)
    if cls is None:
        raise ValueError(f"Unknown layer: '{entry['class_name']}'. minitf.keras has no such layer.")
    return cls.from_config(entry["config"])


def model_from_config(config: dict[str, Any]) -> Any:
    """Rebuild Sequential and functional models from the architecture Keras writes."""
    inner = config["config"]
    if config["class_name"] == "Sequential":
        model = Sequential(name=inner["name"])
        for entry in inner["layers"]:
            model.add(_layer_from_config(entry), rebuild=False)
        if model._input_layer is not None:
            model.build(model._input_layer.batch_shape)
        return model
    made: dict[str, Any] = {}
    outputs: dict[tuple[str, int], list[KerasTensor]] = {}
    pending: list[tuple[Any, list[dict[str, Any]]]] = []
    for entry in inner["layers"]:
        layer = _layer_from_config(entry)
        made[layer.name] = layer
        if isinstance(layer, layers_module.InputLayer):
            outputs[(layer.name, 0)] = [layer.output]
        pending.append((layer, list(entry.get("inbound_nodes", []))))
    # A layer's calls are replayed in their order, each once every tensor it reads exists (a shared layer may
    # be listed before the input its second call reads).
    while any(nodes for _, nodes in pending):
        progressed = False
        for layer, nodes in pending:
            while nodes and all(tuple(a["config"]["keras_history"][:2]) in outputs for a in nodes[0]["args"]):
                node = nodes.pop(0)
                args = [outputs[(a["config"]["keras_history"][0], a["config"]["keras_history"][1])]
                        [a["config"]["keras_history"][2]] for a in node["args"]]
                result = layer(args[0] if len(args) == 1 else args)
                index = sum(1 for key in outputs if key[0] == layer.name)
                outputs[(layer.name, index)] = result if isinstance(result, list) else [result]
                progressed = True
        if not progressed:
            raise ValueError("The saved model's layer calls read tensors no layer makes; the file is damaged.")

    def tensors(where: Any) -> Any:
        if isinstance(where[0], str):
            return outputs[(where[0], 0 if isinstance(made[where[0]], layers_module.InputLayer) else where[1])][
                where[2]]
        return [tensors(item) for item in where]

    return Functional(tensors(inner["input_layers"]), tensors(inner["output_layers"]), name=inner["name"])


def load_model(filepath: str, custom_objects: Any = None, compile: bool = True, safe_mode: bool = True) -> Any:
    """A model saved with `model.save("x.keras")`, by minitf or by Keras (uncompiled: compile it again)."""
    with zipfile.ZipFile(filepath) as archive:
        config = json.loads(archive.read("config.json"))
        model = model_from_config(config)
        with h5py.File(io.BytesIO(archive.read("model.weights.h5")), "r") as file:
            _read_weights(model, file)
    return model
