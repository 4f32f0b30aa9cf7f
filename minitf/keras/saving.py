"""Keras's own file formats, so models move between minitf and real Keras in both directions.

* `model.save_weights("x.weights.h5")`: an HDF5 file with one group per layer, `layers/<name>/vars/<i>` holding
  the layer's weights in `layer.weights` order, and `optimizer/vars/<i>` for the optimizer's variables.
* `model.save("x.keras")`: a zip of `metadata.json`, `config.json` (the model's architecture as
  `get_config()` gives it) and `model.weights.h5` (the file above).

Each model class says how Keras files it (`Model._saved_as`, `Model._stored_layers`), so this module needs no
model class; loading, which rebuilds models, is models/loading.py.
"""

from __future__ import annotations

import datetime
import io
import json
import zipfile
from typing import Any

import h5py  # type: ignore[import-untyped]
import numpy as np

import minitf.keras.naming as naming

KERAS_VERSION = "3.15.1"


def stored_names(model: Any) -> list[tuple[str, Any]]:
    """Keras files a model's layers under their class name, made unique within the model in order (`dense`,
    `dense_1`, ...), whatever the layers are called; a functional model's inputs have (empty) groups too."""
    used: dict[str, int] = {}
    named = []
    for layer in model._stored_layers():
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


def read_weights(model: Any, file: h5py.File) -> None:
    for stored_name, layer in stored_names(model):
        if not layer.weights:
            continue
        stored = file["layers"][stored_name]["vars"]
        if len(stored) != len(layer.weights):
            raise ValueError(
                f"Layer '{layer.name}' expected {len(layer.weights)} variables, but received "
                f"{len(stored)} variables during loading. Expected: {[w.name for w in layer.weights]}"
            )
        layer.set_weights([np.asarray(stored[str(i)]) for i in range(len(stored))])


def save_weights(model: Any, filepath: str) -> None:
    if not str(filepath).endswith(".weights.h5"):
        raise ValueError(f"The filename must end in `.weights.h5`. Received: filepath={filepath}")
    with h5py.File(filepath, "w") as file:
        _write_weights(model, file)


def load_weights(model: Any, filepath: str) -> None:
    with h5py.File(filepath, "r") as file:
        read_weights(model, file)


def model_config(model: Any) -> dict[str, Any]:
    module, class_name = model._saved_as
    return {"module": module, "class_name": class_name, "config": model.get_config(), "registered_name": None}


def save_model(model: Any, filepath: str) -> None:
    """The `.keras` zip: metadata, architecture, weights."""
    if not str(filepath).endswith(".keras"):
        raise ValueError(
            f"Invalid filepath extension for saving. Please add a `.keras` extension. Received: filepath={filepath}"
        )
    if model._saved_as is None:
        raise NotImplementedError(
            "minitf saves Sequential and functional models; save a subclassed model's weights with save_weights."
        )
    weights = io.BytesIO()
    with h5py.File(weights, "w") as file:
        _write_weights(model, file)
    metadata = {"keras_version": KERAS_VERSION, "date_saved": datetime.datetime.now().strftime("%Y-%m-%d@%H:%M:%S")}
    with zipfile.ZipFile(filepath, "w") as archive:
        archive.writestr("metadata.json", json.dumps(metadata))
        archive.writestr("config.json", json.dumps(model_config(model)))
        archive.writestr("model.weights.h5", weights.getvalue())
