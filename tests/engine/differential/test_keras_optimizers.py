"""Every optimizer and learning-rate schedule of the installed Keras against minitf's: several update steps on
the same weights and gradients (with clipping, weight decay, EMA and schedules), the optimizer's variables,
configs, and the names `compile` accepts."""

from __future__ import annotations

from typing import Any

import keras
import numpy as np
import pytest
import tensorflow as real_tf

import minitf
from tests.engine.differential import keras_families

RTOL, ATOL = 2e-5, 2e-6
ours = minitf.keras.optimizers
OPTIMIZERS = [n for n in keras_families.public_names("optimizers") if n not in ours.LEFT_OUT and n != "Optimizer"]
SCHEDULES = [n for n in keras_families.public_names("optimizers.schedules") if n != "LearningRateSchedule"]
OPTIONS: list[dict[str, Any]] = [
    {},
    {"clipnorm": 0.5},
    {"clipvalue": 0.1},
    {"global_clipnorm": 0.3},
    {"weight_decay": 0.05},
    {"use_ema": True, "ema_momentum": 0.9},
]
EXTRA: dict[str, list[dict[str, Any]]] = {
    "SGD": [{"momentum": 0.9}, {"momentum": 0.9, "nesterov": True}],
    "Adam": [{"amsgrad": True}],
    "RMSprop": [{"momentum": 0.5, "centered": True}],
    "Ftrl": [{"l1_regularization_strength": 0.01, "l2_regularization_strength": 0.1, "beta": 0.2}],
    "Adafactor": [{"relative_step": False}],
}


def _weights_and_gradients(steps: int = 4) -> tuple[list[np.ndarray], list[list[np.ndarray]]]:
    rng = np.random.default_rng(3)
    weights = [rng.normal(size=(3, 2)).astype("float32"), rng.normal(size=(2,)).astype("float32")]
    grads = [[rng.normal(size=w.shape).astype("float32") for w in weights] for _ in range(steps)]
    return weights, grads


def _run(library: Any, name: str, options: dict[str, Any], learning_rate: Any = None) -> tuple[Any, list, list]:
    """`name`'s updates on a Dense layer's kernel and bias (so weights and slots have Keras's names)."""
    weights, grads = _weights_and_gradients()
    layer = library.layers.Dense(2)
    layer.build((None, 3))
    layer.set_weights(weights)
    variables = layer.trainable_weights
    rate = {} if learning_rate is None else {"learning_rate": learning_rate}
    optimizer = getattr(library.optimizers, name)(**rate, **options)
    engine = real_tf if library is keras else minitf
    for step in grads:
        optimizer.apply([engine.constant(g) for g in step], variables)
    if options.get("use_ema"):
        optimizer.finalize_variable_values(variables)
    return optimizer, [np.asarray(v.numpy()) for v in variables], [np.asarray(v.numpy()) for v in optimizer.variables]


def test_every_keras_optimizer_name_is_implemented_or_left_out() -> None:
    assert keras_families.unaccounted_names("optimizers", ours) == []
    assert keras_families.unaccounted_names("optimizers.schedules", ours.schedules) == []
    assert keras_families.left_out_names_raise(ours, "tf.keras.optimizers") == []


def test_every_optimizer_identifier_keras_accepts_resolves_or_is_refused_as_left_out() -> None:
    assert keras_families.unaccounted_identifiers("optimizers", ours.get) == []
    for name in keras_families.identifiers("optimizers"):
        if name not in {n.lower() for n in ours.LEFT_OUT} and name != "optimizer":
            assert type(ours.get(name)).__name__ == type(keras.optimizers.get(name)).__name__


@pytest.mark.slow
@pytest.mark.parametrize("name", OPTIMIZERS)
def test_optimizer_updates_variables_and_config_match(name: str) -> None:
    for options in OPTIONS + EXTRA.get(name, []):
        if name == "AdamW" and "weight_decay" in options:
            continue
        keras.backend.clear_session()
        minitf.keras.backend.clear_session()
        theirs, their_weights, their_variables = _run(keras, name, options, 0.05)
        mine, my_weights, my_variables = _run(minitf.keras, name, options, 0.05)
        for actual, expected in zip(my_weights, their_weights, strict=True):
            np.testing.assert_allclose(actual, expected, RTOL, ATOL, err_msg=f"{name} {options}")
        assert [v.shape for v in my_variables] == [v.shape for v in their_variables]
        for actual, expected in zip(my_variables, their_variables, strict=True):
            np.testing.assert_allclose(actual, expected, 1e-4, 1e-5, err_msg=f"{name} {options} variables")
        assert [v.name for v in mine.variables] == [v.name for v in theirs.variables]
        assert mine.get_config() == theirs.get_config()
        assert ours.serialize(mine) == keras.optimizers.serialize(theirs)
        assert ours.deserialize(ours.serialize(mine)).get_config() == mine.get_config()


@pytest.mark.parametrize("name", SCHEDULES)
def test_schedule_values_and_configs_match(name: str) -> None:
    arguments: dict[str, Any] = {
        "ExponentialDecay": {"initial_learning_rate": 0.1, "decay_steps": 3, "decay_rate": 0.5, "staircase": True},
        "InverseTimeDecay": {"initial_learning_rate": 0.1, "decay_steps": 3, "decay_rate": 0.5},
        "PiecewiseConstantDecay": {"boundaries": [2, 5], "values": [0.1, 0.05, 0.01]},
        "PolynomialDecay": {"initial_learning_rate": 0.1, "decay_steps": 4, "power": 2.0, "cycle": True},
        "CosineDecay": {"initial_learning_rate": 0.1, "decay_steps": 6, "alpha": 0.1},
        "CosineDecayRestarts": {"initial_learning_rate": 0.1, "first_decay_steps": 3},
    }[name]
    variants = [arguments]
    if name == "CosineDecay":
        variants.append({**arguments, "warmup_target": 0.2, "warmup_steps": 3})
    if name == "CosineDecayRestarts":
        variants.append({**arguments, "t_mul": 1.0, "m_mul": 0.5})
    for given in variants:
        theirs = getattr(keras.optimizers.schedules, name)(**given)
        mine = getattr(ours.schedules, name)(**given)
        for step in range(12):
            np.testing.assert_allclose(float(mine(step)), float(theirs(step)), RTOL, ATOL, err_msg=f"{name} {step}")
        assert mine.get_config() == theirs.get_config()
        assert ours.schedules.serialize(mine) == keras.optimizers.schedules.serialize(theirs)
    keras.backend.clear_session()
    minitf.keras.backend.clear_session()
    _, their_weights, _ = _run(keras, "SGD", {}, getattr(keras.optimizers.schedules, name)(**arguments))
    _, my_weights, _ = _run(minitf.keras, "SGD", {}, getattr(ours.schedules, name)(**arguments))
    for actual, expected in zip(my_weights, their_weights, strict=True):
        np.testing.assert_allclose(actual, expected, RTOL, ATOL)


@pytest.mark.slow
def test_a_model_compiled_with_optimizer_names_trains_as_in_keras() -> None:
    rng = np.random.default_rng(2)
    x, y = rng.normal(size=(16, 3)).astype("float32"), rng.normal(size=(16, 1)).astype("float32")
    for optimizer in ("nadam", "adagrad", "adamax", "adadelta", "ftrl", "lion", "adamw", "Adam"):
        results = []
        for library in (keras, minitf.keras):
            library.backend.clear_session()
            model = library.Sequential([library.Input((3,)), library.layers.Dense(1)])
            model.set_weights([np.full((3, 1), 0.5, "float32"), np.zeros(1, "float32")])
            model.compile(optimizer=optimizer, loss="mae")
            history = model.fit(x, y, batch_size=4, epochs=2, verbose=0, shuffle=False)
            results.append((history.history["loss"], model.get_weights()))
        np.testing.assert_allclose(results[1][0], results[0][0], 1e-4, 1e-5, err_msg=optimizer)
        for actual, expected in zip(results[1][1], results[0][1], strict=True):
            np.testing.assert_allclose(actual, expected, 1e-4, 1e-5, err_msg=optimizer)


def test_setting_the_rate_of_a_scheduled_optimizer_raises_kerass_type_error() -> None:
    schedule = ours.schedules.InverseTimeDecay(0.1, 10, 0.5)
    optimizer = ours.SGD(schedule)
    with pytest.raises(TypeError, match="created with a `LearningRateSchedule`"):
        optimizer.learning_rate = 0.2
    with pytest.raises(ValueError, match="Only one of `clipnorm`, `clipvalue` and `global_clipnorm` can be set"):
        ours.Adam(clipnorm=1.0, clipvalue=1.0)
