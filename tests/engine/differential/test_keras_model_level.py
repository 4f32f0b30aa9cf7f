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


def _subclassed(library: Any) -> Any:
    class Inner(library.Model):
        def __init__(self) -> None:
            super().__init__()
            self.dense = library.layers.Dense(3)

        def call(self, x: Any) -> Any:
            return self.dense(x)

    return Inner()


def _nested_summaries(library: Any) -> list[str]:
    """Models inside models and models built by a call or by fit: each summary's output shapes."""
    library.backend.clear_session()
    layers, x, y = library.layers, np.ones((5, 4), "float32"), np.ones((5, 3), "float32")
    inner = _subclassed(library)
    inner(x[:2])
    outer = library.Sequential([library.Input((4,)), inner, layers.Dense(2)])
    called = library.Sequential([layers.Dense(3)])
    called(x[:2])
    wrapping = library.Sequential([library.Sequential([layers.Dense(3)]), layers.Softmax()])
    wrapping(x[:2])
    fitted = [library.Sequential([layers.Dense(3)]), _subclassed(library), library.Sequential([_subclassed(library)])]
    for model in fitted:
        model.compile("sgd", "mse")
        model.fit(x, y, batch_size=2, verbose=0)
    predicted = library.Sequential([library.Sequential([layers.Dense(3)]), layers.Softmax()])
    predicted.predict(x, verbose=0)
    return [_summary(model) for model in [outer, inner, called, wrapping, *fitted, predicted]]


@pytest.mark.slow
@pytest.mark.filterwarnings("ignore::UserWarning")
def test_summaries_show_output_shapes_of_nested_models_and_of_models_built_by_a_call_or_by_fit() -> None:
    """A model called on data is built with that batch size; fit and predict build on an unknown batch size; a
    model inside
    another shows its output shape, as Keras shows them."""
    assert _nested_summaries(minitf.keras) == _nested_summaries(keras)


def _sequential_graph(library: Any) -> list[str]:
    """What a Sequential model says of its inputs and outputs: before any build, once built by keras.Input or by a
    call, and after `pop` (which builds the model again on the layers left)."""
    library.backend.clear_session()
    layers, seen = library.layers, []

    def look(model: Any) -> None:
        for name in ("inputs", "outputs", "input_shape", "output_shape", "built"):
            try:
                value = getattr(model, name)
                seen.append(f"{name}: {[tuple(t.shape) for t in value] if name.endswith('puts') else value}")
            except AttributeError as error:
                seen.append(f"{name}: AttributeError {error}")
        seen.append(f"weights: {len(model.weights)}")

    unbuilt = library.Sequential([layers.Dense(2)])
    look(unbuilt)
    unbuilt(np.ones((3, 4), "float32"))
    look(unbuilt)
    given = library.Sequential([library.Input((4,)), layers.Dense(2), layers.Dense(3)])
    look(given)
    given.pop()
    look(given)
    return seen


def test_a_sequential_model_gives_its_inputs_outputs_and_shapes_as_keras_does_also_after_pop() -> None:
    assert _sequential_graph(minitf.keras) == _sequential_graph(keras)


def _encoder_decoder(library: Any) -> tuple[str, Any, list[str]]:
    """Sequential models built as layers are added (each build takes a `functional` name in Keras), then an
    encoder whose LSTM states are the decoder's `initial_state`: the summary links them, and the model runs."""
    library.backend.clear_session()
    layers, names = library.layers, []
    for with_input in (False, True):
        model = library.Sequential()
        if with_input:
            model.add(library.Input((None,)))
        model.add(layers.Embedding(50, 4))
        model.add(layers.GRU(3))
        names.append(model.name)
    encoder_input, decoder_input = library.Input((None,)), library.Input((None,))
    _, state_h, state_c = layers.LSTM(3, return_state=True, name="encoder")(layers.Embedding(50, 4)(encoder_input))
    decoded = layers.LSTM(3, name="decoder")(layers.Embedding(60, 4)(decoder_input), initial_state=[state_h, state_c])
    model = library.Model([encoder_input, decoder_input], layers.Dense(2)(decoded))
    names.append(model.name)
    rng = np.random.default_rng(0)
    model.set_weights([rng.normal(0, 0.3, w.shape).astype("float32") for w in model.get_weights()])
    tokens = [rng.integers(50, size=(2, 5)), rng.integers(60, size=(2, 4))]
    return _summary(model), model.predict(tokens, verbose=0), names


def test_a_functional_model_follows_keras_tensors_given_as_initial_state_and_is_named_as_in_keras() -> None:
    mine, theirs = _encoder_decoder(minitf.keras), _encoder_decoder(keras)
    assert mine[0] == theirs[0] and "encoder[0][1]" in mine[0]
    np.testing.assert_allclose(mine[1], theirs[1], rtol=1e-5, atol=1e-6)
    assert mine[2] == theirs[2]


def _frozen_base(library: Any) -> tuple[list[str], Any]:
    """A base model frozen, then unfrozen, under a new head: summaries with `show_trainable=True` (Sequential and
    functional), and the base's BatchNormalization statistics after a fit in which the model's `training=True`
    reaches the base although the graph called it with `training=False` (Keras 3's rule)."""
    library.backend.clear_session()
    layers = library.layers
    base = library.Sequential([library.Input((3,)), layers.Dense(4), layers.BatchNormalization()], name="base")
    inputs = library.Input((3,))
    model = library.Model(inputs, layers.Dense(1)(layers.Flatten()(base(inputs, training=False))))
    rng = np.random.default_rng(0)
    model.set_weights([rng.normal(0, 0.3, w.shape).astype("float32") for w in model.get_weights()])
    texts = []
    for trainable in (False, True):
        base.trainable = trainable
        texts += [_summary_trainable(base), _summary_trainable(model)]
    model.compile("sgd", "mse")
    model.fit(rng.random((8, 3)), rng.random((8, 1)), batch_size=4, verbose=0, shuffle=False)
    return texts, base.layers[1].get_weights()


def _summary_trainable(model: Any) -> str:
    out = io.StringIO()
    with redirect_stdout(out):
        model.summary(show_trainable=True)
    return out.getvalue()


def test_show_trainable_and_the_training_flag_of_a_frozen_then_unfrozen_base_as_in_keras() -> None:
    (mine, my_weights), (theirs, their_weights) = _frozen_base(minitf.keras), _frozen_base(keras)
    assert mine == theirs
    for a, b in zip(my_weights, their_weights, strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
    assert not np.allclose(their_weights[2], 0)  # the moving mean moved: the base ran in training mode
