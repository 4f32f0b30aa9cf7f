"""`fit`, `evaluate`, `train_on_batch` and `test_on_batch` with weights and step limits, against Keras:
`sample_weight` (arrays, or a dataset's third element), `class_weight`, `weighted_metrics` (named
`weighted_<name>` beside an unweighted twin), `steps_per_epoch` on a repeated dataset, `validation_steps`, and
`steps` in evaluate and predict. Same weights, same data, so the logs agree to float32 round-off."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import tensorflow as real_tf

import minitf

ENGINES = (minitf, real_tf)
pytestmark = pytest.mark.slow  # each test trains a model on both engines


def _data() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(4)
    x = rng.random((48, 6), dtype=np.float32)
    y = (x[:, :2].sum(axis=1) * 2).astype("int64") % 3
    return x, y, np.linspace(0.5, 2.0, 48).astype("float32")


def _model(tf: Any, weighted_metrics: Any = None) -> Any:
    tf.keras.backend.clear_session()
    model = tf.keras.Sequential([tf.keras.Input((6,)), tf.keras.layers.Dense(8, "relu"), tf.keras.layers.Dense(3)])
    model.set_weights([np.random.default_rng(1).normal(0, 0.3, w.shape).astype("float32") for w in model.get_weights()])
    model.compile(
        tf.keras.optimizers.SGD(0.1),
        tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True),
        metrics=["accuracy"],
        weighted_metrics=weighted_metrics,
    )
    return model


def _agree(run: Any) -> None:
    mine, theirs = run(minitf), run(real_tf)
    assert mine.keys() == theirs.keys()
    for key in theirs:
        np.testing.assert_allclose(mine[key], theirs[key], rtol=1e-4, atol=1e-5, err_msg=key)


def test_sample_weights_and_class_weights_weigh_the_loss_as_in_keras() -> None:
    x, y, weights = _data()

    def run(tf: Any) -> dict[str, Any]:
        logs: dict[str, Any] = {}
        model = _model(tf)
        logs |= {
            f"sw_{k}": v
            for k, v in model.fit(
                x, y, sample_weight=weights, batch_size=16, epochs=2, shuffle=False, verbose=0
            ).history.items()
        }
        model = _model(tf)
        cw = model.fit(x, y, class_weight={0: 1.0, 1: 3.0, 2: 0.5}, batch_size=16, shuffle=False, verbose=0)
        logs |= {f"cw_{k}": v for k, v in cw.history.items()}
        logs["evaluate"] = model.evaluate(x, y, sample_weight=weights, verbose=0)
        logs["on_batch"] = model.train_on_batch(x, y, sample_weight=weights)
        logs["test_on_batch"] = model.test_on_batch(x, y, sample_weight=weights)
        dataset = tf.data.Dataset.from_tensor_slices((x, y, weights)).batch(16)
        logs |= {f"ds_{k}": v for k, v in _model(tf).fit(dataset, verbose=0).history.items()}
        return logs

    _agree(run)


def test_weighted_metrics_are_named_apart_from_their_unweighted_twins() -> None:
    x, y, weights = _data()

    def run(tf: Any) -> dict[str, Any]:
        model = _model(tf, weighted_metrics=["accuracy", "sparse_categorical_crossentropy"])
        history = model.fit(x, y, sample_weight=weights, batch_size=16, shuffle=False, verbose=0).history
        return {**history, "names": [len(model.metrics_names)]}

    _agree(run)


def test_steps_cap_the_batches_of_each_epoch_of_evaluate_and_of_predict() -> None:
    x, y, _ = _data()

    def run(tf: Any) -> dict[str, Any]:
        model = _model(tf)
        repeated = tf.data.Dataset.from_tensor_slices((x, y)).repeat().batch(16)
        batches = tf.data.Dataset.from_tensor_slices((x, y)).batch(16)
        history = model.fit(
            repeated, epochs=3, steps_per_epoch=2, validation_data=batches, validation_steps=1, verbose=0
        )
        evaluated = model.evaluate(batches, steps=2, verbose=0)
        predicted = model.predict(x, batch_size=16, steps=2, verbose=0)
        capped = model.fit(x, y, batch_size=16, epochs=2, steps_per_epoch=2, shuffle=False, verbose=0)
        return {
            **history.history,
            "params": [history.params["steps"]],
            "evaluate": evaluated,
            "predict": predicted,
            **{f"capped_{k}": v for k, v in capped.history.items()},
        }

    _agree(run)
