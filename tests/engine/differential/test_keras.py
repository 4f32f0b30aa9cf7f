"""`minitf.keras` against real `tf.keras` (Keras 3.15): the same model code runs on both and what it prints,
computes and raises must agree. Both sides start from the same weights (minitf's, copied with `set_weights`),
since the two engines draw different random numbers; values are compared to float32 tolerance."""

from __future__ import annotations

import io
import re
from contextlib import redirect_stdout
from typing import Any

import numpy as np
import pytest
import tensorflow as real_tf

import minitf

RTOL, ATOL = 1e-5, 1e-6


def _digits_like(n: int = 96) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(0)
    return rng.random((n, 8, 8), dtype=np.float32), rng.integers(0, 10, n).astype("int64")


def _sequential(keras: Any) -> Any:
    return keras.Sequential(
        [
            keras.Input((8, 8)),
            keras.layers.Flatten(),
            keras.layers.Dense(16, activation="relu"),
            keras.layers.BatchNormalization(),
            keras.layers.Dropout(0.0),
            keras.layers.Dense(10, activation="softmax"),
        ]
    )


def _mlp(keras: Any) -> Any:
    """The digits network of the course: no BatchNormalization, whose zero-in-theory bias gradients Adam would
    blow up from float noise into different steps on the two engines."""
    return keras.Sequential(
        [
            keras.Input((8, 8)),
            keras.layers.Flatten(),
            keras.layers.Dense(16, activation="relu"),
            keras.layers.Dense(10, activation="softmax"),
        ]
    )


def _functional(keras: Any) -> Any:
    inputs = keras.Input((4,))
    hidden = keras.layers.Dense(8, activation="relu")(inputs)
    return keras.Model(inputs, keras.layers.Dense(3)(keras.layers.ReLU()(hidden)))


def _two_inputs(keras: Any) -> Any:
    """A shared layer, two inputs, two outputs: the summary gets a "Connected to" column."""
    first, second = keras.Input((4,)), keras.Input((4,))
    shared = keras.layers.Dense(3)
    hidden = shared(first)
    return keras.Model([first, second], [keras.layers.Dense(2)(keras.layers.ReLU()(hidden)), shared(second)])


def _printed(function: Any) -> str:
    out = io.StringIO()
    with redirect_stdout(out):
        function()
    return out.getvalue()


def _mask_times(text: str) -> str:
    return re.sub(r"\d+(ms|us|s)(/step)?", "T", text)


def _fresh(build: Any, keras: Any) -> Any:
    """`build(keras)` with names counted from zero, so both engines name their layers `dense`, `dense_1`, ..."""
    keras.backend.clear_session()
    return build(keras)


def _paired(build: Any) -> tuple[Any, Any]:
    """The same model on both engines, with minitf's initial weights copied to Keras's."""
    ours, theirs = _fresh(build, minitf.keras), _fresh(build, real_tf.keras)
    theirs.set_weights(ours.get_weights())
    return ours, theirs


@pytest.mark.parametrize(
    "build", [_sequential, _functional, _two_inputs], ids=["sequential", "functional", "two_inputs"]
)
def test_summary_prints_the_table_keras_prints(build: Any) -> None:
    ours, theirs = _paired(build)
    assert _printed(ours.summary) == _printed(theirs.summary)


def test_summary_of_a_subclassed_model_lists_its_layers_after_a_call() -> None:
    def printed(keras: Any) -> str:
        keras.backend.clear_session()

        class TwoLayers(keras.Model):
            def __init__(self) -> None:
                super().__init__(name="two_layers")
                self.hidden, self.out = keras.layers.Dense(8, activation="relu"), keras.layers.Dense(3)

            def call(self, inputs: Any) -> Any:
                return self.out(self.hidden(inputs))

        model = TwoLayers()
        model(np.ones((2, 4), "float32"))
        return _printed(model.summary)

    assert printed(minitf.keras) == printed(real_tf.keras)


def test_summary_of_an_unbuilt_model_shows_question_marks_and_unbuilt_layers() -> None:
    def printed(keras: Any) -> str:
        return _printed(_fresh(lambda keras: keras.Sequential([keras.layers.Dense(4)]), keras).summary)

    assert printed(minitf.keras) == printed(real_tf.keras)


def test_forward_pass_output_shape_and_values_match() -> None:
    ours, theirs = _paired(_sequential)
    x, _ = _digits_like(5)
    mine, real = np.asarray(ours(x)), np.asarray(theirs(x))
    assert mine.shape == real.shape == (5, 10)
    np.testing.assert_allclose(mine, real, rtol=RTOL, atol=ATOL)


@pytest.mark.slow
@pytest.mark.parametrize("optimizer", ["sgd_momentum", "sgd_nesterov", "adam", "rmsprop", "sgd_decay", "adam_decay"])
def test_fit_reaches_the_same_weights_and_history(optimizer: str) -> None:
    def make(keras: Any) -> Any:
        return {
            "sgd_momentum": lambda: keras.optimizers.SGD(0.1, momentum=0.9),
            "sgd_nesterov": lambda: keras.optimizers.SGD(0.1, momentum=0.9, nesterov=True),
            "adam": lambda: "adam",
            "rmsprop": lambda: keras.optimizers.RMSprop(),
            "sgd_decay": lambda: keras.optimizers.SGD(
                keras.optimizers.schedules.ExponentialDecay(0.1, 2, 0.5), momentum=0.9
            ),
            "adam_decay": lambda: keras.optimizers.Adam(keras.optimizers.schedules.ExponentialDecay(0.01, 2, 0.5)),
        }[optimizer]()

    minitf.keras.utils.set_random_seed(0)
    ours, theirs = _paired(_mlp if optimizer.startswith("adam") else _sequential)
    x, y = _digits_like()
    histories = []
    for model, keras in ((ours, minitf.keras), (theirs, real_tf.keras)):
        model.compile(make(keras), "sparse_categorical_crossentropy", metrics=["accuracy"])
        histories.append(
            model.fit(x, y, batch_size=32, epochs=3, shuffle=False, validation_split=0.25, verbose=0).history
        )
    for mine, real in zip(ours.get_weights(), theirs.get_weights(), strict=True):
        np.testing.assert_allclose(mine, real, rtol=1e-4, atol=1e-5)
    assert list(histories[0]) == list(histories[1])
    for key in histories[1]:
        np.testing.assert_allclose(histories[0][key], histories[1][key], rtol=1e-4)


@pytest.mark.slow
@pytest.mark.parametrize("loss", ["mse", "binary_crossentropy", "categorical_crossentropy", "logits"])
def test_losses_and_metrics_match_under_train_on_batch_and_evaluate(loss: str) -> None:
    rng = np.random.default_rng(1)
    x = rng.random((16, 4), dtype=np.float32)
    y = {
        "mse": rng.random((16, 3), dtype=np.float32),
        "binary_crossentropy": (rng.random((16, 3)) > 0.5).astype("float32"),
        "categorical_crossentropy": np.eye(3, dtype="float32")[rng.integers(0, 3, 16)],
        "logits": rng.integers(0, 3, 16),
    }[loss]

    def build(keras: Any) -> Any:
        inner = _functional(keras)
        if loss in ("mse", "logits"):
            return inner
        return keras.Model(inner.inputs[0], keras.layers.Activation("sigmoid")(inner.outputs[0]))

    ours, theirs = _paired(build)
    results = []
    for model, keras in ((ours, minitf.keras), (theirs, real_tf.keras)):
        chosen = keras.losses.SparseCategoricalCrossentropy(from_logits=True) if loss == "logits" else loss
        model.compile(keras.optimizers.SGD(0.05), chosen, metrics=["accuracy"])
        results.append((model.train_on_batch(x, y), model.evaluate(x, y, verbose=0)))
    np.testing.assert_allclose(np.array(results[0], dtype=float), np.array(results[1], dtype=float), rtol=1e-5)


@pytest.mark.slow
def test_progress_lines_match_with_times_masked() -> None:
    ours, theirs = _paired(_sequential)
    x, y = _digits_like(64)
    printed = []
    for model in (ours, theirs):
        model.compile("sgd", "sparse_categorical_crossentropy", metrics=["accuracy"])
        text = _printed(lambda model=model: model.fit(x, y, batch_size=16, epochs=2, shuffle=False, verbose=2))
        text += _printed(
            lambda model=model: model.fit(
                x, y, batch_size=16, epochs=2, shuffle=False, verbose=1, validation_split=0.25
            )
        )
        text += _printed(lambda model=model: model.evaluate(x, y, verbose=1))
        final = [line.split("\r")[-1] for line in text.split("\n")]  # the last redraw of each line
        # the padding after a line depends on how long the redraw before it was, which depends on timing
        printed.append(_mask_times("\n".join(re.sub("\x08+", "", line).rstrip() for line in final)))
    assert printed[0] == printed[1]


def test_fit_before_compile_raises_kerass_error() -> None:
    x, y = _digits_like(4)
    for keras in (minitf.keras, real_tf.keras):
        with pytest.raises(ValueError, match="You must call `compile\\(\\)` before using the model."):
            _sequential(keras).fit(x, y, verbose=0)


def test_wrong_input_shape_raises_kerass_error() -> None:
    messages = []
    for keras in (minitf.keras, real_tf.keras):
        with pytest.raises(ValueError) as caught:
            _fresh(_functional, keras)(np.zeros((2, 5), "float32"))
        messages.append(str(caught.value))
    assert "Hint:" in messages[0]
    assert messages[1] in messages[0]


@pytest.mark.slow
def test_loss_label_mismatch_raises_kerass_error() -> None:
    messages = []
    for keras in (minitf.keras, real_tf.keras):
        model = _fresh(_functional, keras)
        model.compile("sgd", "categorical_crossentropy")
        with pytest.raises(ValueError) as caught:
            model.fit(np.zeros((8, 4), "float32"), np.zeros((8,), "int32"), verbose=0)
        messages.append(str(caught.value))
    # Keras traces its train step with an unknown batch size, minitf with the batch's own (training.py says why)
    assert messages[1] in messages[0].replace("(8,", "(None,")


def test_subclassed_layer_tracks_weights_and_trainable_flag() -> None:
    seen = []
    for keras in (minitf.keras, real_tf.keras):

        class Scale(keras.layers.Layer):  # type: ignore[name-defined]  # the base depends on the engine
            def build(self, input_shape: Any) -> None:
                self.scale = self.add_weight(shape=(input_shape[-1],), initializer="ones", name="scale")
                self.offset = self.add_weight(shape=(), initializer="zeros", trainable=False, name="offset")

            def call(self, inputs: Any) -> Any:
                return inputs * self.scale + self.offset

        layer = Scale()
        out = np.asarray(layer(np.ones((2, 3), "float32")))
        before = (len(layer.trainable_weights), len(layer.non_trainable_weights))
        layer.trainable = False
        seen.append(
            (
                out.tolist(),
                before,
                len(layer.trainable_weights),
                len(layer.non_trainable_weights),
                [w.name for w in layer.weights],
                [w.shape for w in layer.get_weights()],
            )
        )
    assert seen[0] == seen[1]


@pytest.mark.slow
@pytest.mark.parametrize("direction", ["minitf_to_keras", "keras_to_minitf"])
@pytest.mark.parametrize("build", [_sequential, _two_inputs], ids=["sequential", "two_inputs"])
def test_saved_models_and_weights_load_in_the_other_engine(direction: str, build: Any, tmp_path: Any) -> None:
    source, target = (minitf.keras, real_tf.keras) if direction == "minitf_to_keras" else (real_tf.keras, minitf.keras)
    x = _digits_like(6)[0] if build is _sequential else [np.ones((6, 4), "float32"), np.zeros((6, 4), "float32")]

    def outputs(model: Any) -> list[np.ndarray]:
        result = model(x)
        return [np.asarray(t) for t in (result if isinstance(result, list) else [result])]

    model = _fresh(build, source)
    expected = outputs(model)
    model.save(tmp_path / "model.keras")
    model.save_weights(tmp_path / "model.weights.h5")
    for got, want in zip(outputs(target.models.load_model(tmp_path / "model.keras")), expected, strict=True):
        np.testing.assert_allclose(got, want, rtol=RTOL, atol=ATOL)
    fresh = _fresh(build, target)
    fresh.load_weights(tmp_path / "model.weights.h5")
    for got, want in zip(outputs(fresh), expected, strict=True):
        np.testing.assert_allclose(got, want, rtol=RTOL, atol=ATOL)


@pytest.mark.slow
def test_early_stopping_and_normalization_adapt_match() -> None:
    rng = np.random.default_rng(2)
    x, y = rng.random((40, 3), dtype=np.float32) * 5, rng.random((40, 1), dtype=np.float32)
    results = []
    for keras in (minitf.keras, real_tf.keras):
        norm = keras.layers.Normalization()
        norm.adapt(x)
        model = keras.Sequential([keras.Input((3,)), norm, keras.layers.Dense(1, kernel_initializer="ones")])
        model.compile(keras.optimizers.SGD(0.5), "mse")
        stop = keras.callbacks.EarlyStopping(monitor="loss", patience=1, min_delta=1e-3)
        history = model.fit(x, y, epochs=50, batch_size=40, verbose=0, callbacks=[stop])
        results.append((norm.get_weights()[:2], len(history.epoch), history.history["loss"]))
    np.testing.assert_allclose(results[0][0], results[1][0], rtol=RTOL)
    assert results[0][1] == results[1][1]
    np.testing.assert_allclose(results[0][2], results[1][2], rtol=1e-4)
