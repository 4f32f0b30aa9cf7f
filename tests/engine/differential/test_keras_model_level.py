"""Model-level behaviour learners meet right after the first lessons, against Keras: a Sequential model given
`input_shape=` is built (its summary shows shapes and parameters), the summary after `fit` counts the
optimizer's variables, `to_categorical` returns float64, and label mismatches in `fit` raise Keras's errors."""

from __future__ import annotations

import io
from contextlib import redirect_stdout
from typing import Any

import keras
import numpy as np
import pytest
import tensorflow as real_tf

import minitf


def _summary(model: Any) -> str:
    out = io.StringIO()
    with redirect_stdout(out):
        model.summary()
    return out.getvalue()


def _model(library: Any) -> Any:
    library.backend.clear_session()
    layers = library.layers
    return library.Sequential([layers.Dense(16, activation="relu", input_shape=(8,)), layers.Dense(1)])


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_a_sequential_model_given_input_shape_is_built_and_summarised_as_in_keras() -> None:
    theirs, mine = _model(keras), _model(minitf.keras)
    assert mine.built and theirs.built
    assert _summary(mine) == _summary(theirs)
    assert "Total params: 161" in _summary(mine)


@pytest.mark.slow
@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("optimizer", ["sgd", "adam", "nadam", "adagrad"])
def test_the_summary_after_fit_counts_the_optimizers_variables_as_keras_does(optimizer: str) -> None:
    x = np.random.default_rng(0).random((16, 8), dtype=np.float32)
    y = np.random.default_rng(1).random((16, 1), dtype=np.float32)
    texts = []
    for library in (keras, minitf.keras):
        model = _model(library)
        model.compile(optimizer, "mse")
        model.fit(x, y, verbose=0)
        texts.append(_summary(model))
    assert texts[1] == texts[0]


def test_to_categorical_returns_float64_one_hot_rows_as_keras_does() -> None:
    for labels in ([0, 2, 1], np.array([[1], [0]]), np.array([[1, 2], [0, 1]])):
        expected = keras.utils.to_categorical(labels)
        actual = minitf.keras.utils.to_categorical(labels)
        assert actual.dtype == expected.dtype == np.float64
        np.testing.assert_array_equal(actual, expected)
    np.testing.assert_array_equal(minitf.keras.utils.to_categorical([1], 4), keras.utils.to_categorical([1], 4))


@pytest.mark.parametrize(
    ("loss", "labels"),
    [
        ("mse", np.ones((16, 2), "float32")),
        ("categorical_crossentropy", np.ones((16, 2), "float32")),
        ("sparse_categorical_crossentropy", np.full(16, 5)),
    ],
)
def test_labels_that_do_not_fit_the_outputs_raise_the_error_class_tensorflow_raises(loss: str, labels: Any) -> None:
    x = np.random.default_rng(0).random((16, 8), dtype=np.float32)
    raised = []
    for library in (keras, minitf.keras):
        library.backend.clear_session()
        model = library.Sequential([library.Input((8,)), library.layers.Dense(3)])
        model.compile("sgd", loss)
        with pytest.raises(Exception) as caught:
            model.fit(x, labels, verbose=0, batch_size=8)
        raised.append(caught.value)
    their_class = type(raised[0]).__name__
    assert type(raised[1]).__name__ == their_class
    if their_class == "InvalidArgumentError":
        assert isinstance(raised[1], minitf.errors.InvalidArgumentError)
        assert isinstance(raised[0], real_tf.errors.InvalidArgumentError)
        assert "outside the valid range of [0, 3)" in str(raised[1])
