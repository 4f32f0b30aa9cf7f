"""Keras's own file formats, so models move between minitf and real Keras in both directions.

* `model.save_weights("x.weights.h5")`: an HDF5 file with a group per layer, named by the path Keras walks to it
  (`layers/dense/vars/<i>` in a Sequential model; `hidden/vars/<i>` for a subclassed model's `self.hidden`),
  holding the layer's own weights, and `optimizer/vars/<i>` for the optimizer's variables.
* `model.save("x.keras")`: a zip of `metadata.json`, `config.json` (the model's architecture as
  `get_config()` gives it, see objects.py) and `model.weights.h5` (the file above).

Each model class says how Keras files it (`Model._saved_as`, `Model._stored_layers`), so this module needs no
model class; loading, which rebuilds models, is models/loading.py.
"""

from __future__ import annotations

import datetime
import io
import json
import warnings
import zipfile
from typing import Any

import h5py  # type: ignore[import-untyped]
import numpy as np

import minitf.keras.naming as naming
import minitf.keras.saving.objects as objects
from minitf.keras.saving.compile_config import compile_config

KERAS_VERSION = "3.15.1"


def _name_key(name: str) -> str:
    """Keras visits attributes by name, private ones (`_x`) last."""
    return f"~{name}" if name.startswith("_") else name


# minitf's own bookkeeping attributes that hold layers (Keras skips a plain Layer's attributes the same way).
_BOOKKEEPING = {"_layers", "_input_layer", "_nodes", "_inbound_nodes"}


def _children(saveable: Any) -> list[tuple[str, Any]]:
    """What Keras walks below an object: a Sequential's or functional model's `layers` first; then every
    attribute in name order (a model's `layers` and `optimizer` among them)."""
    if getattr(saveable, "_saved_as", None) is not None:
        return [("layers", saveable._stored_layers()), ("optimizer", getattr(saveable, "optimizer", None))]
    attributes = {name: value for name, value in vars(saveable).items() if name not in _BOOKKEEPING}
    if hasattr(saveable, "_stored_layers"):  # a subclassed model
        attributes["layers"] = list(saveable._layers)
        attributes["optimizer"] = getattr(saveable, "optimizer", None)
    return sorted(attributes.items(), key=lambda item: _name_key(item[0]))


def saveables(model: Any) -> list[tuple[str, Any]]:
    """Every layer and optimizer of `model` with the path Keras's weights file gives it (its `vars` group
    holds the object's own variables): attributes by name, the items of a list or dict by class name made
    unique within it (`dense`, `dense_1`), each object once, at the first path that reaches it."""
    from minitf.keras.layers.layer import Layer  # (layers import models, which import this module lazily)
    from minitf.keras.optimizers.optimizer import Optimizer  # (the same)

    found: list[tuple[str, Any]] = []
    visited: set[int] = set()

    def visit(obj: Any, path: str) -> None:
        if isinstance(obj, Layer | Optimizer):
            if id(obj) in visited:
                return
            visited.add(id(obj))
            found.append((path, obj))
            if isinstance(obj, Layer):
                for name, child in _children(obj):
                    visit(child, f"{path}/{name}".lstrip("/"))
        elif isinstance(obj, list | tuple | dict) and id(obj) not in visited:
            visited.add(id(obj))
            used: dict[str, int] = {}
            for item in obj.values() if isinstance(obj, dict) else obj:
                base = naming.snake_case(type(item).__name__) if isinstance(item, Layer | Optimizer) else "container"
                if isinstance(item, Layer | Optimizer | list | tuple | dict):
                    used[base] = used[base] + 1 if base in used else 0
                    visit(item, f"{path}/{base if used[base] == 0 else f'{base}_{used[base]}'}".lstrip("/"))

    visit(model, "")
    return found


def _own_variables(saveable: Any) -> list[Any]:
    """The variables an object writes itself (an optimizer all of its own; a layer not its inner layers')."""
    if hasattr(saveable, "_own_weights"):
        own = saveable._own_weights
        return [w for w in own if w.trainable] + [w for w in own if not w.trainable]
    return list(saveable.variables) if saveable.built else []


def _write_weights(model: Any, file: h5py.File) -> None:
    for path, saveable in saveables(model):
        variables = file.create_group(f"{path}/vars" if path else "vars")
        variables.attrs["name"] = saveable.name
        for index, weight in enumerate(_own_variables(saveable)):
            variables.create_dataset(str(index), data=np.asarray(weight.numpy()))


def read_weights(model: Any, file: h5py.File) -> None:
    for path, saveable in saveables(model):
        if path == "optimizer":
            _read_optimizer(model, saveable, file.get("optimizer/vars", {}))
            continue
        expected = _own_variables(saveable)
        stored = file.get(f"{path}/vars" if path else "vars", {})
        if len(stored) != len(expected):
            raise ValueError(
                f"Layer '{saveable.name}' expected {len(expected)} variables, but received "
                f"{len(stored)} variables during loading. Expected: {[w.name for w in expected]}"
            )
        for index, variable in enumerate(expected):
            variable.assign(np.asarray(stored[str(index)]))


def _read_optimizer(model: Any, optimizer: Any, stored: Any) -> None:
    """A compiled model's optimizer state (step count, moments), so training resumes where it stopped; a file
    without it (or for other weights) leaves the optimizer fresh, as Keras does (with a warning)."""
    if not len(stored):
        return
    if not optimizer.built:
        optimizer.build(model.trainable_weights)
    variables = optimizer.variables
    if len(variables) != len(stored):
        warnings.warn(
            f"Skipping variable loading for optimizer '{optimizer.name}', because it has {len(variables)} "
            f"variables whereas the saved optimizer has {len(stored)} variables.",
            stacklevel=3,
        )
        return
    for index, variable in enumerate(variables):
        variable.assign(np.asarray(stored[str(index)]))


def save_weights(model: Any, filepath: str) -> None:
    if not str(filepath).endswith(".weights.h5"):
        raise ValueError(f"The filename must end in `.weights.h5`. Received: filepath={filepath}")
    with h5py.File(filepath, "w") as file:
        _write_weights(model, file)


def load_weights(model: Any, filepath: str) -> None:
    with h5py.File(filepath, "r") as file:
        read_weights(model, file)


def model_config(model: Any) -> dict[str, Any]:
    """The model's entry in config.json: Sequential and functional models as Keras files them, a subclassed
    model (or any custom class) under its registered name, with its input shape and `compile()` arguments."""
    if model._saved_as is None:
        config = objects.serialize_layer(model)
    else:
        module, class_name = model._saved_as
        config = {"module": module, "class_name": class_name, "config": model.get_config(), "registered_name": None}
        built = objects.build_config(model)
        if built is not None and class_name == "Sequential":
            config["build_config"] = built
    compiled = compile_config(model)
    if compiled is not None:
        config["compile_config"] = compiled
    return config


def save_model(model: Any, filepath: str) -> None:
    """The `.keras` zip: metadata, architecture, weights."""
    if not str(filepath).endswith(".keras"):
        raise ValueError(
            f"Invalid filepath extension for saving. Please add a `.keras` extension. Received: filepath={filepath}"
        )
    config = json.dumps(model_config(model))
    weights = io.BytesIO()
    with h5py.File(weights, "w") as file:
        _write_weights(model, file)
    metadata = {"keras_version": KERAS_VERSION, "date_saved": datetime.datetime.now().strftime("%Y-%m-%d@%H:%M:%S")}
    with zipfile.ZipFile(filepath, "w") as archive:
        archive.writestr("metadata.json", json.dumps(metadata))
        archive.writestr("config.json", config)
        archive.writestr("model.weights.h5", weights.getvalue())
