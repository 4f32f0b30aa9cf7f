"""What a layer may be called with, positionally: tensors and arrays, never a Python number, list of numbers or
string (a learner's `Dense(2)([[1.0, 2.0]])` gets Keras's ValueError, which says to pass an array), except for
the preprocessing layers that Keras lets take plain values (lookups, hashing, normalization, image layers)."""

from __future__ import annotations

import inspect
from typing import Any

import keras
import numpy as np
import pytest

import minitf

KERAS_SWITCH = "_allow_non_tensor_positional_args = True"


def _keras_takes_plain_values(cls: type) -> bool:
    """Whether Keras's layer class (or a base of it) lets non-tensors be passed positionally."""
    return any(base.__module__.startswith("keras") and KERAS_SWITCH in inspect.getsource(base) for base in cls.__mro__)


def _shared_layer_classes() -> list[str]:
    names = []
    for name in sorted(dir(keras.layers)):
        theirs, ours = getattr(keras.layers, name), vars(minitf.keras.layers).get(name)
        if inspect.isclass(theirs) and issubclass(theirs, keras.layers.Layer) and inspect.isclass(ours):
            names.append(name)
    return names


def test_every_layer_takes_plain_values_positionally_exactly_where_keras_does() -> None:
    names = _shared_layer_classes()
    assert len(names) > 60  # the enumeration found the layers both have
    differ = {
        name: (getattr(getattr(minitf.keras.layers, name), "takes_plain_values", False), "keras:", keras_value)
        for name in names
        if getattr(getattr(minitf.keras.layers, name), "takes_plain_values", False)
        != (keras_value := _keras_takes_plain_values(getattr(keras.layers, name)))
    }
    assert differ == {}


def _outcome(call: Any) -> Any:
    try:
        return np.asarray(call()).tolist()
    except Exception as error:  # (the class and message are what is compared)
        return type(error).__name__, str(error)


CALLS = {
    "a nested list": lambda k: k.layers.Dense(2, kernel_initializer="ones")([[1.0, 2.0]]),
    "a Python number": lambda k: k.layers.Dense(2, kernel_initializer="ones")(3.0),
    "an option given positionally": lambda k: k.layers.Dropout(0.5)(np.ones((1, 2), "float32"), True),
    "a NumPy array": lambda k: k.layers.Dense(2, kernel_initializer="ones")(np.array([[1.0, 2.0]])),
    "a list of arrays to a merge layer": lambda k: k.layers.Add()([np.ones((1, 2)), np.ones((1, 2))]),
    "a string list to StringLookup": lambda k: k.layers.StringLookup(vocabulary=["a", "b"])(["b", "c", "a"]),
    "a number list to Hashing": lambda k: k.layers.Hashing(num_bins=3)([[1], [2]]),
    "a list to Rescaling": lambda k: k.layers.Rescaling(0.5)([[2.0, 4.0]]),
}


@pytest.mark.parametrize("case", CALLS)
def test_a_layer_called_positionally_accepts_and_refuses_what_keras_does(case: str) -> None:
    assert _outcome(lambda: CALLS[case](minitf.keras)) == _outcome(lambda: CALLS[case](keras))
