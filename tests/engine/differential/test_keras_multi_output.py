"""A functional model with several inputs and outputs trains as in Keras: inputs given as a dict (matched by the
keras.Input names) or a list, one loss per output (by name) with loss weights, the per-output losses logged as
`<output>_loss`, evaluate's values in the outputs' order, targets as a list matched to the outputs' sorted names,
predict giving one array per output, and `layer.input` / `layer.output` / `model.output_shape`. A Model
subclass given (inputs, outputs) is a functional model that keeps the subclass's train_step, as Keras makes it."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import tensorflow as real_tf

import minitf

pytestmark = pytest.mark.slow  # trains a model on both engines


def _run(tf: Any) -> dict[str, Any]:
    keras, layers = tf.keras, tf.keras.layers
    keras.backend.clear_session()
    a, b = keras.Input((3,), name="a"), keras.Input((2,), name="b")
    joined = layers.concatenate([a, b])
    dense = layers.Dense(2, name="d")
    model = keras.Model([a, b], {"p": layers.Dense(1, name="p")(joined), "d": dense(joined)})
    model.set_weights([np.random.default_rng(0).normal(0, 0.5, w.shape).astype("float32") for w in model.get_weights()])
    model.compile(keras.optimizers.SGD(0.1), loss={"p": "mse", "d": "mse"}, loss_weights={"p": 1.0, "d": 0.5})
    rng = np.random.default_rng(1)
    xa, xb = rng.random((8, 3)).astype("float32"), rng.random((8, 2)).astype("float32")
    yp, yd = rng.random((8, 1)).astype("float32"), rng.random((8, 2)).astype("float32")
    seen: dict[str, Any] = {}
    history = model.fit({"a": xa, "b": xb}, {"p": yp, "d": yd}, batch_size=4, epochs=3, shuffle=False, verbose=0)
    seen |= history.history
    seen["evaluate"] = model.evaluate([xa, xb], [yd, yp], verbose=0)
    predicted = model.predict([xa, xb], batch_size=4, verbose=0)
    seen["predict"] = [predicted["d"], predicted["p"]]
    seen["shapes"] = [[list(shape) for shape in model.output_shape], list(dense.output.shape), list(dense.input.shape)]
    return seen


def test_a_model_of_two_inputs_and_two_outputs_trains_evaluates_and_predicts_as_in_keras() -> None:
    mine, theirs = _run(minitf), _run(real_tf)
    assert mine.keys() == theirs.keys()
    for key in theirs:
        if key != "shapes":
            for m, t in zip(mine[key], theirs[key], strict=True):
                np.testing.assert_allclose(m, t, rtol=1e-4, atol=1e-5, err_msg=key)
    assert mine["shapes"] == theirs["shapes"]


def _custom_fit(tf: Any) -> dict[str, Any]:
    keras = tf.keras
    keras.backend.clear_session()
    tracker = keras.metrics.Mean(name="loss")

    class CustomModel(keras.Model):
        def train_step(self, data: Any) -> Any:
            x, y = data
            with tf.GradientTape() as tape:
                loss = keras.losses.MeanSquaredError()(y, self(x, training=True))
            gradients = tape.gradient(loss, self.trainable_variables)
            self.optimizer.apply_gradients(zip(gradients, self.trainable_variables))
            tracker.update_state(loss)
            return {"loss": tracker.result()}

        @property
        def metrics(self) -> list[Any]:
            return [tracker]

    inputs = keras.Input((4,))
    model = CustomModel(inputs, keras.layers.Dense(1)(inputs))
    model.set_weights([np.full(w.shape, 0.1, "float32") for w in model.get_weights()])
    model.compile(optimizer="sgd")
    x, y = np.linspace(0, 1, 32, dtype="float32").reshape(8, 4), np.ones((8, 1), "float32")
    history = model.fit(x, y, batch_size=4, epochs=2, shuffle=False, verbose=0).history
    return {**history, "names": [type(model).__name__, len(model.layers), len(model.trainable_variables)]}


def test_a_model_subclass_given_inputs_and_outputs_is_functional_and_keeps_its_train_step() -> None:
    mine, theirs = _custom_fit(minitf), _custom_fit(real_tf)
    assert mine["names"] == theirs["names"]
    np.testing.assert_allclose(mine["loss"], theirs["loss"], rtol=1e-5)
