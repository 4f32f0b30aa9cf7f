"""`tf.keras.preprocessing` (Keras 2's data preparation that TensorFlow's tf.keras still exports) against minitf's:
every name implemented or left out with a reason, and `pad_sequences` pads, cuts and refuses as TensorFlow's does."""

from __future__ import annotations

import inspect
from typing import Any

import numpy as np
import pytest
import tensorflow as real_tf

import minitf
from tests.engine.differential import keras_families

pytestmark = pytest.mark.tf


def _public(module: Any) -> list[str]:
    return sorted(n for n in dir(module) if not n.startswith("_") and not inspect.ismodule(getattr(module, n)))


@pytest.mark.parametrize("path", ["", "image", "sequence", "text"])
def test_every_name_of_tf_keras_preprocessing_is_implemented_or_left_out(path: str) -> None:
    theirs, ours = real_tf.keras.preprocessing, minitf.keras.preprocessing
    if path:
        theirs, ours = getattr(theirs, path), getattr(ours, path)
    namespace = "tf.keras.preprocessing" + (f".{path}" if path else "")
    assert [n for n in _public(theirs) if n not in ours.LEFT_OUT and n not in vars(ours)] == []
    assert keras_families.left_out_names_raise(ours, namespace) == []


SEQUENCES = [[711, 632, 71], [73, 8, 3215, 55, 927], [], [83, 91, 1, 645, 1253, 927]]


@pytest.mark.parametrize(
    "options",
    [
        {},
        {"padding": "post"},
        {"maxlen": 4},
        {"maxlen": 4, "truncating": "post", "padding": "post"},
        {"maxlen": 8, "value": -1},
        {"dtype": "float32", "value": 0.5},
        {"padding": "middle"},
        {"truncating": "middle"},
        {"value": "x"},
    ],
)
def test_pad_sequences_gives_what_tensorflows_gives(options: dict[str, Any]) -> None:
    results = []
    for tf in (real_tf, minitf):
        try:
            padded = tf.keras.preprocessing.sequence.pad_sequences(SEQUENCES, **options)
            results.append((padded.dtype, padded.tolist()))
        except ValueError as error:
            results.append((ValueError, str(error)))
    assert results[1] == results[0]
    assert minitf.keras.utils.pad_sequences is minitf.keras.preprocessing.sequence.pad_sequences


def test_pad_sequences_of_vectors_keeps_each_steps_shape_and_refuses_a_different_one() -> None:
    steps = [np.ones((2, 3)), np.zeros((1, 3))]
    np.testing.assert_array_equal(
        minitf.keras.utils.pad_sequences(steps, padding="post"),
        real_tf.keras.utils.pad_sequences(steps, padding="post"),
    )
    errors = []
    for tf in (real_tf, minitf):
        with pytest.raises(ValueError) as caught:
            tf.keras.utils.pad_sequences([np.ones((2, 3)), np.ones((1, 2))])
        errors.append(str(caught.value))
    assert errors[1] == errors[0]
