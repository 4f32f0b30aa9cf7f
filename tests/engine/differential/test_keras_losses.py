"""Every loss of the installed Keras, class and function, against minitf's: the same values (with sample weights
and each reduction), configs and serialized forms; names minitf leaves out say so."""

from __future__ import annotations

import inspect
from typing import Any

import keras
import numpy as np
import pytest

import minitf
from tests.engine.differential import keras_families

RTOL, ATOL = 2e-5, 2e-6
ours = minitf.keras.losses


def _inputs(name: str) -> tuple[np.ndarray, np.ndarray]:
    """Labels and predictions a loss of this name expects: class indices for the sparse and generalized ones,
    one-hot rows for categorical ones, probabilities otherwise."""
    rng = np.random.default_rng(len(name))
    logits = rng.normal(size=(6, 4)).astype("float32")
    probabilities = np.exp(logits) / np.exp(logits).sum(-1, keepdims=True)
    classes = rng.integers(0, 4, 6)
    if "sparse" in name.lower() or "generalized" in name.lower():
        return classes.astype("float32"), probabilities
    if "categorical" in name.lower() or "hinge" in name.lower():
        return np.eye(4, dtype="float32")[classes], probabilities
    return rng.integers(0, 2, (6, 4)).astype("float32"), probabilities


def _options(name: str) -> list[dict[str, Any]]:
    """Constructor options to try besides the defaults."""
    if "rossentropy" in name:
        extra = [{"from_logits": True}] if "Sparse" in name else [{"from_logits": True}, {"label_smoothing": 0.1}]
        return [{}, *extra]
    return [{}, {"delta": 0.3}] if name == "Huber" else [{}]


CLASSES = [
    n for n in keras_families.public_names("losses") if n[0].isupper() and n != "Loss" and n not in ours.LEFT_OUT
]
FUNCTIONS = [n for n in keras_families.public_names("losses") if n[0].islower() and n not in ours.LEFT_OUT]


def test_every_keras_loss_name_is_implemented_or_left_out() -> None:
    assert keras_families.unaccounted_names("losses", ours) == []
    assert keras_families.left_out_names_raise(ours, "tf.keras.losses") == []


def test_every_loss_identifier_keras_accepts_resolves_or_is_refused_as_left_out() -> None:
    assert keras_families.unaccounted_identifiers("losses", ours.get) == []


def test_identifiers_resolve_to_the_same_kind_of_thing_as_in_keras() -> None:
    for name in keras_families.identifiers("losses"):
        if name in ours.LEFT_OUT or name in ("Loss", "LossFunctionWrapper"):
            continue
        theirs, mine = keras.losses.get(name), ours.get(name)
        assert type(mine).__name__ == type(theirs).__name__, name
        assert getattr(mine, "__name__", None) == getattr(theirs, "__name__", None), name


@pytest.mark.parametrize("name", CLASSES)
def test_loss_object_values_configs_and_serialization_match(name: str) -> None:
    y_true, y_pred = _inputs(name)
    weights = np.linspace(0.0, 2.0, 6).astype("float32")
    for options in _options(name):
        predictions = np.log(y_pred) if options.get("from_logits") else y_pred
        for reduction in ("sum_over_batch_size", "sum", "none", "mean_with_sample_weight"):
            theirs = getattr(keras.losses, name)(reduction=reduction, **options)
            mine = getattr(ours, name)(reduction=reduction, **options)
            for sample_weight in (None, weights):
                expected = np.asarray(theirs(y_true, predictions, sample_weight=sample_weight))
                actual = mine(y_true, predictions, sample_weight=sample_weight)
                assert actual.dtype.name == "float32"
                np.testing.assert_allclose(actual.numpy(), expected, RTOL, ATOL, err_msg=f"{name} {options}")
            assert mine.get_config() == theirs.get_config()
            assert ours.serialize(mine) == keras.losses.serialize(theirs)
            copy = ours.deserialize(ours.serialize(mine))
            assert type(copy) is type(mine) and copy.get_config() == mine.get_config()


@pytest.mark.parametrize("name", FUNCTIONS)
def test_loss_function_values_match(name: str) -> None:
    y_true, y_pred = _inputs(name)
    theirs, mine = getattr(keras.losses, name), getattr(ours, name)
    arguments = {"q": 0.7} if "generalized" in name else {}
    expected = np.asarray(theirs(y_true, y_pred, **arguments))
    actual = mine(minitf.constant(y_true), minitf.constant(y_pred), **arguments)
    np.testing.assert_allclose(actual.numpy(), expected, RTOL, ATOL, err_msg=name)
    assert list(inspect.signature(mine).parameters) == list(inspect.signature(theirs).parameters)


def test_hinge_keeps_signed_labels_and_converts_zero_one_labels() -> None:
    y_pred = np.array([[0.3, -0.8], [1.5, 0.2]], "float32")
    for labels in ([[1.0, -1.0], [-1.0, 1.0]], [[1.0, 0.0], [0.0, 1.0]]):
        y_true = np.array(labels, "float32")
        expected = keras.losses.Hinge()(y_true, y_pred)
        np.testing.assert_allclose(ours.Hinge()(y_true, y_pred).numpy(), np.asarray(expected), RTOL, ATOL)


@pytest.mark.slow
def test_compile_accepts_loss_names_and_functions_as_keras_does() -> None:
    rng = np.random.default_rng(1)
    x, y = rng.normal(size=(8, 3)).astype("float32"), rng.normal(size=(8, 1)).astype("float32")
    for loss in ("mae", "huber", "log_cosh", "mean_squared_logarithmic_error", ours.huber, "Huber"):
        results = []
        for library in (keras, minitf.keras):
            library.backend.clear_session()
            model = library.Sequential([library.Input((3,)), library.layers.Dense(1)])
            model.set_weights([np.full((3, 1), 0.5, "float32"), np.zeros(1, "float32")])
            chosen = getattr(keras.losses, loss.__name__) if callable(loss) and library is keras else loss
            model.compile("sgd", loss=chosen)
            results.append(model.evaluate(x, y, verbose=0))
        np.testing.assert_allclose(results[1], results[0], RTOL, ATOL, err_msg=str(loss))


def test_an_unknown_loss_name_raises_kerass_error() -> None:
    with pytest.raises(ValueError, match="Could not interpret loss identifier: nope"):
        ours.get("nope")
    with pytest.raises(ValueError, match="Could not interpret loss identifier: nope"):
        keras.losses.get("nope")
