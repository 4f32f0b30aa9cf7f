"""Every activation of the installed Keras against minitf's: the same values (and gradients) on the same inputs;
names minitf leaves out say so."""

from __future__ import annotations

import inspect

import keras
import numpy as np
import pytest
import tensorflow as real_tf

import minitf
from tests.engine.differential import keras_families

RTOL, ATOL = 2e-5, 2e-6
ours = minitf.keras.activations
NAMES = [n for n in keras_families.public_names("activations") if n not in ours.LEFT_OUT]
ARGUMENTS = {"threshold": {"threshold": 0.3, "default_value": -1.0}}
VARIANTS = {
    "relu": [
        {"negative_slope": 0.1},
        {"max_value": 1.5},
        {"threshold": 0.5},
        {"negative_slope": 0.2, "threshold": 0.4},
    ],
    "elu": [{"alpha": 0.5}],
    "celu": [{"alpha": 2.0}],
    "gelu": [{"approximate": True}],
    "leaky_relu": [{"negative_slope": 0.05}],
    "squareplus": [{"b": 1.0}],
    "soft_shrink": [{"threshold": 1.0}],
    "hard_shrink": [{"threshold": 1.0}],
}


def test_every_keras_activation_is_implemented_or_left_out() -> None:
    assert keras_families.unaccounted_names("activations", ours) == []
    assert keras_families.left_out_names_raise(ours, "tf.keras.activations") == []
    assert keras_families.unaccounted_identifiers("activations", ours.get) == []


@pytest.mark.parametrize("name", NAMES)
def test_activation_values_and_gradients_match(name: str) -> None:
    x = np.linspace(-3.0, 3.0, 24, dtype="float32").reshape(4, 6)
    for options in [ARGUMENTS.get(name, {}), *VARIANTS.get(name, [])]:
        theirs, mine = getattr(keras.activations, name), getattr(ours, name)
        expected = np.asarray(theirs(x, **options))
        np.testing.assert_allclose(
            np.asarray(mine(minitf.constant(x), **options)), expected, RTOL, ATOL, err_msg=f"{name} {options}"
        )
        their_x, my_x = real_tf.constant(x), minitf.constant(x)
        with real_tf.GradientTape() as their_tape:
            their_tape.watch(their_x)
            their_out = real_tf.reduce_sum(theirs(their_x, **options))
        with minitf.GradientTape() as my_tape:
            my_tape.watch(my_x)
            my_out = minitf.reduce_sum(mine(my_x, **options))
        np.testing.assert_allclose(
            my_tape.gradient(my_out, my_x).numpy(), their_tape.gradient(their_out, their_x).numpy(), 1e-4, 1e-5
        )
    assert list(inspect.signature(mine).parameters) == list(inspect.signature(theirs).parameters)
    assert ours.serialize(ours.get(name)) == keras.activations.serialize(keras.activations.get(name))


def test_an_unknown_activation_name_raises_kerass_error() -> None:
    with pytest.raises(ValueError, match="Could not interpret activation function identifier: nope"):
        ours.get("nope")
