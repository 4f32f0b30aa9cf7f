"""Saving and loading custom Keras objects on both engines, as Keras 3 does it: a subclassed `keras.Model` with
`get_config`, custom layers registered with `@keras.saving.register_keras_serializable(package=...)`, custom
losses, metrics and activations as functions, `save_weights`/`load_weights` of a subclassed model; each engine
loads its own files and the other engine's (the same config.json entries and weights-file layout), and both raise
the same error for a custom class or function the loader does not know."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path
from typing import Any

import h5py
import keras as real_keras  # Keras 3 itself: tf.keras does not show `keras.saving`
import numpy as np
import pytest
from harness import assert_same_error, real_tf

import minitf

pytestmark = [pytest.mark.tf, pytest.mark.usefixtures("fresh_keras_names")]

ENGINES = {"minitf": minitf.keras, "keras": real_keras}


RTOL, ATOL = 1e-5, 1e-6
X = np.linspace(-1.0, 1.0, 24, dtype="float32").reshape(8, 3)
Y = np.linspace(0.0, 1.0, 8, dtype="float32").reshape(8, 1)


def custom_objects(keras: Any) -> dict[str, Any]:
    """The classes and functions a learner writes, defined against one engine's Keras."""
    register = keras.saving.register_keras_serializable
    tf = minitf if keras is minitf.keras else real_tf  # the functions' ops (minitf has no keras.ops)

    @register(package="course")
    class Scale(keras.layers.Layer):
        def __init__(self, factor: float = 2.0, **kwargs: Any) -> None:
            super().__init__(**kwargs)
            self.factor = factor

        def build(self, input_shape: Any) -> None:
            self.w = self.add_weight(shape=(input_shape[-1],), initializer="ones", name="w")

        def call(self, x: Any) -> Any:
            return x * self.w * self.factor

        def get_config(self) -> dict[str, Any]:
            return {**super().get_config(), "factor": self.factor}

    @register(package="course")
    class Regressor(keras.Model):
        def __init__(self, units: int = 4, **kwargs: Any) -> None:
            super().__init__(**kwargs)
            self.units = units
            self.hidden = keras.layers.Dense(units, activation="relu", kernel_initializer="ones")
            self.scale = Scale(0.5)
            self.out = keras.layers.Dense(1, kernel_initializer="ones")
            self.blocks = [keras.layers.Dense(units, kernel_initializer="identity") for _ in range(2)]

        def call(self, x: Any) -> Any:
            h = self.hidden(x)
            for block in self.blocks:
                h = block(h)
            return self.out(self.scale(h))

        def get_config(self) -> dict[str, Any]:
            return {**super().get_config(), "units": self.units}

    def squared_error(y_true: Any, y_pred: Any) -> Any:
        return tf.reduce_mean(tf.square(y_true - y_pred), axis=-1)

    def doubled_relu(x: Any) -> Any:
        return tf.nn.relu(x) * 2.0

    @register(package="course")
    def tripled(x: Any) -> Any:
        return x * 3.0

    return {"Scale": Scale, "Regressor": Regressor, "squared_error": squared_error, "doubled_relu": doubled_relu}


def trained_regressor(keras: Any) -> Any:
    made = custom_objects(keras)
    model = made["Regressor"](4)
    model.compile(optimizer="sgd", loss=made["squared_error"], metrics=["mae"])
    model.fit(X, Y, epochs=2, batch_size=4, verbose=0)
    return model


def sequential_with_custom_parts(keras: Any) -> Any:
    made = custom_objects(keras)
    return keras.Sequential(
        [
            keras.Input((3,)),
            keras.layers.Dense(4, activation=made["doubled_relu"], kernel_initializer="ones"),
            made["Scale"](1.5),
            keras.layers.Dense(2, activation=keras.saving.get_registered_object("course>tripled")),
        ]
    )


def config_of(path: Path) -> dict[str, Any]:
    with zipfile.ZipFile(path) as archive:
        return json.loads(archive.read("config.json"))


def weights_layout(path: Path) -> dict[str, tuple]:
    """Every dataset of a weights file by its path, with its shape (the layout Keras reads)."""
    found: dict[str, tuple] = {}
    with h5py.File(path) as file:
        file.visititems(lambda name, item: found.update({name: item.shape}) if isinstance(item, h5py.Dataset) else None)
    return found


def keras_weights_layout(path: Path, tmp_path: Path) -> dict[str, tuple]:
    with zipfile.ZipFile(path) as archive:
        archive.extract("model.weights.h5", tmp_path)
    return weights_layout(tmp_path / "model.weights.h5")


@pytest.mark.parametrize("engine", list(ENGINES))
def test_subclassed_model_loads_back_compiled_and_predicts_the_same(engine: str, tmp_path: Path) -> None:
    keras = ENGINES[engine]
    model = trained_regressor(keras)
    model.save(tmp_path / "regressor.keras")
    made = custom_objects(keras)
    loaded = keras.models.load_model(
        tmp_path / "regressor.keras", custom_objects={"squared_error": made["squared_error"]}
    )
    assert type(loaded).__name__ == "Regressor" and loaded.units == 4
    np.testing.assert_allclose(np.asarray(loaded(X)), np.asarray(model(X)), rtol=RTOL, atol=ATOL)
    np.testing.assert_allclose(
        loaded.evaluate(X, Y, verbose=0), model.evaluate(X, Y, verbose=0), rtol=RTOL, atol=ATOL
    )  # compiled again with the same loss and metrics


def test_subclassed_model_file_has_keras_entries_and_layout(tmp_path: Path) -> None:
    files = {}
    for engine, keras in ENGINES.items():
        trained_regressor(keras).save(tmp_path / f"{engine}.keras")
        files[engine] = tmp_path / f"{engine}.keras"
    ours, theirs = config_of(files["minitf"]), config_of(files["keras"])
    for key in ("module", "class_name", "registered_name", "build_config"):
        assert ours[key] == theirs[key], key
    assert ours["config"]["units"] == theirs["config"]["units"]
    for key in ("loss", "metrics"):
        assert ours["compile_config"][key] == theirs["compile_config"][key], key
    assert ours["compile_config"]["optimizer"]["class_name"] == theirs["compile_config"]["optimizer"]["class_name"]
    assert keras_weights_layout(files["minitf"], tmp_path / "m") == keras_weights_layout(files["keras"], tmp_path / "k")


@pytest.mark.parametrize("direction", ["minitf_to_keras", "keras_to_minitf"])
def test_subclassed_model_saved_by_one_engine_loads_in_the_other(direction: str, tmp_path: Path) -> None:
    source, target = (ENGINES["minitf"], ENGINES["keras"])[:: 1 if direction == "minitf_to_keras" else -1]
    model = trained_regressor(source)
    model.save(tmp_path / "regressor.keras")
    made = custom_objects(target)
    loaded = target.models.load_model(
        tmp_path / "regressor.keras", custom_objects={"squared_error": made["squared_error"]}
    )
    np.testing.assert_allclose(np.asarray(loaded(X)), np.asarray(model(X)), rtol=RTOL, atol=ATOL)


@pytest.mark.parametrize("direction", ["minitf_to_minitf", "minitf_to_keras", "keras_to_minitf", "keras_to_keras"])
def test_subclassed_model_weights_move_between_engines(direction: str, tmp_path: Path) -> None:
    source, target = (ENGINES[name.replace("keras", "keras")] for name in direction.split("_to_"))
    model = trained_regressor(source)
    model.save_weights(tmp_path / "regressor.weights.h5")
    fresh = custom_objects(target)["Regressor"](4)
    fresh(X[:1])  # built, so its weights exist to be loaded into
    fresh.load_weights(tmp_path / "regressor.weights.h5")
    np.testing.assert_allclose(np.asarray(fresh(X)), np.asarray(model(X)), rtol=RTOL, atol=ATOL)


def test_subclassed_model_weights_file_has_keras_layout(tmp_path: Path) -> None:
    layouts = []
    for engine, keras in ENGINES.items():
        trained_regressor(keras).save_weights(tmp_path / f"{engine}.weights.h5")
        layouts.append(weights_layout(tmp_path / f"{engine}.weights.h5"))
    assert layouts[0] == layouts[1]
    assert "blocks/dense_1/vars/0" in layouts[0] and "layers/scale/vars/0" in layouts[0]


@pytest.mark.parametrize("direction", ["minitf_to_minitf", "minitf_to_keras", "keras_to_minitf", "keras_to_keras"])
def test_custom_layer_and_activations_in_a_sequential_model_load_back(direction: str, tmp_path: Path) -> None:
    source, target = (ENGINES[name] for name in direction.split("_to_"))
    model = sequential_with_custom_parts(source)
    model.save(tmp_path / "model.keras")
    made = custom_objects(target)
    loaded = target.models.load_model(tmp_path / "model.keras", custom_objects={"doubled_relu": made["doubled_relu"]})
    assert [type(layer).__name__ for layer in loaded.layers] == ["Dense", "Scale", "Dense"]
    np.testing.assert_allclose(np.asarray(loaded(X)), np.asarray(model(X)), rtol=RTOL, atol=ATOL)


def test_sequential_entries_for_custom_parts_match_keras(tmp_path: Path) -> None:
    entries = []
    for engine, keras in ENGINES.items():
        sequential_with_custom_parts(keras).save(tmp_path / f"{engine}.keras")
        layers = config_of(tmp_path / f"{engine}.keras")["config"]["layers"]
        entries.append(
            [
                (
                    e["module"],
                    e["class_name"],
                    e["registered_name"],
                    e["config"].get("activation"),
                    e.get("build_config"),
                )
                for e in layers
            ]
        )
    assert entries[0] == entries[1]


def load_error(keras: Any, path: Path, **kwargs: Any) -> BaseException:
    try:
        keras.models.load_model(path, **kwargs)
    except Exception as error:  # the error is what is compared
        return error
    raise AssertionError(f"{keras.__name__} loaded {path} without the custom objects")


@pytest.mark.parametrize(
    ("saved", "passed", "fragment"),
    [
        ("regressor", {}, "Could not locate class 'Regressor'. Make sure custom classes and functions are decorated"),
        ("regressor", "registered", "Could not locate function 'squared_error'. Make sure custom classes"),
        ("sequential", {}, "Could not locate function 'doubled_relu'."),
    ],
)
def test_loading_without_a_custom_object_raises_keras_error(
    saved: str, passed: Any, fragment: str, tmp_path: Path
) -> None:
    """The classes are registered under "course>..." once a file is saved; the loader here is told nothing
    (`{}`: the registration is removed) or only the registered classes."""
    errors = []
    for engine, keras in ENGINES.items():
        model = trained_regressor(keras) if saved == "regressor" else sequential_with_custom_parts(keras)
        model.save(tmp_path / f"{engine}.keras")
        registered = keras.saving.get_custom_objects()
        kept = dict(registered)
        if passed == {}:
            for name in [name for name in registered if name.startswith("course>")]:
                del registered[name]
        try:
            errors.append(load_error(keras, tmp_path / f"{engine}.keras"))
        finally:
            registered.update(kept)
    assert_same_error(errors[0], errors[1], fragment=fragment)
    assert "Hint:" in str(errors[0])


def test_registered_names_and_scopes_match_keras() -> None:
    seen = []
    for keras in ENGINES.values():
        made = custom_objects(keras)
        with keras.saving.custom_object_scope({"doubled_relu": made["doubled_relu"]}):
            in_scope = keras.saving.get_registered_object("doubled_relu") is made["doubled_relu"]
        seen.append(
            (
                keras.saving.get_registered_name(made["Scale"]),
                keras.saving.get_registered_name(made["doubled_relu"]),
                keras.saving.get_registered_object("course>Scale") is made["Scale"],
                in_scope,
                keras.saving.get_registered_object("doubled_relu"),
                keras.saving.serialize_keras_object(made["Scale"](3.0))["registered_name"],
            )
        )
    assert seen[0] == seen[1]


def test_a_custom_layer_without_get_config_needs_one_to_be_saved(tmp_path: Path) -> None:
    errors = []
    for engine, keras in ENGINES.items():

        class Wrapper(keras.Model):
            def __init__(self, layer: Any) -> None:
                super().__init__()
                self.layer = layer

            def call(self, x: Any) -> Any:
                return self.layer(x)

        model = Wrapper(keras.layers.Dense(2))
        model(X)
        try:
            model.save(tmp_path / f"{engine}.keras")
        except NotImplementedError as error:
            errors.append(error)
    assert len(errors) == 2
    assert_same_error(errors[0], errors[1], fragment="must override `get_config()`")


def recurrent_with_a_model_inside(keras: Any) -> Any:
    inner = keras.Sequential([keras.Input((4,)), keras.layers.Dense(2)])
    return keras.Sequential([keras.Input((5, 3)), keras.layers.LSTM(4), keras.layers.BatchNormalization(), inner])


@pytest.mark.parametrize("direction", ["minitf_to_keras", "keras_to_minitf"])
def test_inner_layers_are_filed_where_keras_files_them(direction: str, tmp_path: Path) -> None:
    """An LSTM's weights belong to its cell, a model inside a model keeps its own `layers` group."""
    source, target = (ENGINES[name] for name in direction.split("_to_"))
    sequences = np.linspace(-1.0, 1.0, 30, dtype="float32").reshape(2, 5, 3)
    model = recurrent_with_a_model_inside(source)
    model.save(tmp_path / "model.keras")
    loaded = target.models.load_model(tmp_path / "model.keras")
    np.testing.assert_allclose(np.asarray(loaded(sequences)), np.asarray(model(sequences)), rtol=RTOL, atol=ATOL)
    recurrent_with_a_model_inside(target).save(tmp_path / "target.keras")
    layout = keras_weights_layout(tmp_path / "model.keras", tmp_path / "a")
    assert layout == keras_weights_layout(tmp_path / "target.keras", tmp_path / "b")
    assert "layers/lstm/cell/vars/0" in layout and "layers/sequential/layers/dense/vars/0" in layout


@pytest.mark.parametrize("direction", ["minitf_to_minitf", "keras_to_minitf", "minitf_to_keras"])
def test_a_loaded_model_resumes_training_with_the_saved_optimizer_state(direction: str, tmp_path: Path) -> None:
    """Adam's step count and moments come back with the model: one more epoch after loading gives the weights
    one more epoch of the original gives."""
    source, target = (ENGINES[name] for name in direction.split("_to_"))
    model = source.Sequential(
        [source.Input((3,)), source.layers.Dense(2, kernel_initializer="ones"), source.layers.Dense(1)]
    )
    model.compile(optimizer=source.optimizers.Adam(0.05), loss="mse")
    model.fit(X, Y, epochs=2, batch_size=4, shuffle=False, verbose=0)
    model.save(tmp_path / "model.keras")
    loaded = target.models.load_model(tmp_path / "model.keras")
    for trained in (model, loaded):
        trained.fit(X, Y, epochs=1, batch_size=4, shuffle=False, verbose=0)
    for ours, theirs in zip(loaded.get_weights(), model.get_weights(), strict=True):
        np.testing.assert_allclose(ours, theirs, rtol=1e-5, atol=1e-6)
