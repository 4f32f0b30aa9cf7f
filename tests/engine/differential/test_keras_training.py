"""`minitf.keras`'s training loop against real `tf.keras`: subclassed models, tf.data input, validation data,
callbacks, regularization losses, Embedding and Dropout, and the compiled train step a student can open."""

from __future__ import annotations

import re
from typing import Any

import numpy as np
import pytest
import tensorflow as real_tf
from tensorflow.python.eager.polymorphic_function import polymorphic_function

import minitf
from minitf.function import retracing

ENGINES = (minitf, real_tf)


def _subclassed(keras: Any) -> Any:
    class Classifier(keras.Model):
        def __init__(self) -> None:
            super().__init__(name="classifier")
            self.hidden = keras.layers.Dense(8, activation="relu", kernel_regularizer=keras.regularizers.L2(0.01))
            self.dropout = keras.layers.Dropout(0.5)
            self.out = keras.layers.Dense(3)

        def call(self, inputs: Any, training: Any = None) -> Any:
            return self.out(self.dropout(self.hidden(inputs), training=training))

    return Classifier()


def _data(n: int = 40) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(3)
    return rng.random((n, 4), dtype=np.float32), rng.integers(0, 3, n).astype("int64")


def test_subclassed_model_weights_paths_and_regularization_losses_match() -> None:
    x, _ = _data(2)
    seen = []
    for tf in ENGINES:
        tf.keras.backend.clear_session()  # layer names count from zero: tests run before made other layers
        model = _subclassed(tf.keras)
        model(x)
        seen.append(([w.path for w in model.weights], [w.shape for w in model.get_weights()], len(model.losses)))
    assert seen[0] == seen[1]


def test_dropout_passes_inputs_through_unless_training() -> None:
    ones = np.ones((200, 50), "float32")
    for tf in ENGINES:
        layer = tf.keras.layers.Dropout(0.5)
        np.testing.assert_array_equal(np.asarray(layer(ones)), ones)
        dropped = np.asarray(layer(ones, training=True))
        assert set(np.unique(dropped)) == {0.0, 2.0}  # kept values are scaled by 1 / (1 - rate)
        assert 0.4 < (dropped == 0).mean() < 0.6


def test_embedding_looks_up_rows_of_its_table() -> None:
    ids = np.array([[1, 2, 1]])
    results = []
    for tf in ENGINES:
        layer = tf.keras.layers.Embedding(5, 3)
        layer.build((None, 3))
        layer.set_weights([np.arange(15, dtype="float32").reshape(5, 3)])
        out = layer(ids)
        results.append((np.asarray(out).tolist(), out.dtype.name if hasattr(out.dtype, "name") else str(out.dtype)))
    assert results[0] == results[1]


@pytest.mark.slow
def test_fit_on_a_dataset_with_validation_data_and_callbacks_matches() -> None:
    x, y = _data()
    outcomes = []
    weights = None
    for tf in ENGINES:
        keras = tf.keras
        model = keras.Sequential(
            [
                keras.Input((4,)),
                keras.layers.Dense(8, activation="relu"),
                keras.layers.Dense(3, kernel_regularizer=keras.regularizers.L2(0.01)),
            ]
        )
        if weights is None:
            weights = model.get_weights()
        model.set_weights(weights)
        model.compile(
            keras.optimizers.SGD(0.1, momentum=0.5),
            keras.losses.SparseCategoricalCrossentropy(from_logits=True),
            metrics=["accuracy"],
        )
        seen: list = []
        log = keras.callbacks.LambdaCallback(
            on_epoch_end=lambda epoch, logs, seen=seen: seen.append((epoch, sorted(logs)))
        )
        dataset = tf.data.Dataset.from_tensor_slices((x, y)).batch(16)
        history = model.fit(dataset, epochs=3, validation_data=(x[:10], y[:10]), callbacks=[log], verbose=0)
        outcomes.append((history.history, history.params, seen, model.get_weights(), model.predict(x, verbose=0)))
    mine, real = outcomes
    assert list(mine[0]) == list(real[0]) and mine[1] == real[1] and mine[2] == real[2]
    for key in real[0]:
        np.testing.assert_allclose(mine[0][key], real[0][key], rtol=1e-5)
    for a, b in zip(mine[3], real[3], strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(mine[4], real[4], rtol=1e-5, atol=1e-6)


@pytest.mark.slow
def test_model_checkpoint_saves_files_keras_can_load(tmp_path: Any) -> None:
    x, y = _data()
    keras = minitf.keras
    model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(3)])
    model.compile("adam", "sparse_categorical_crossentropy")
    checkpoint = keras.callbacks.ModelCheckpoint(str(tmp_path / "best.keras"), monitor="loss", save_best_only=True)
    model.fit(x, y, epochs=2, verbose=0, callbacks=[checkpoint])
    restored = real_tf.keras.models.load_model(tmp_path / "best.keras", compile=False)
    np.testing.assert_allclose(restored.predict(x, verbose=0), model.predict(x, verbose=0), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("weights_only", [False, True])
def test_a_checkpoint_file_name_without_kerass_extension_raises_kerass_error(weights_only: bool) -> None:
    messages = []
    for keras in (minitf.keras, real_tf.keras):
        with pytest.raises(ValueError) as caught:
            keras.callbacks.ModelCheckpoint("model.txt", save_weights_only=weights_only)
        messages.append(str(caught.value))
    assert messages[0] == messages[1]


def test_the_train_step_fit_runs_is_a_traced_function_with_a_graph() -> None:
    x, y = _data(8)
    keras = minitf.keras
    model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(3)])
    model.compile("sgd", "sparse_categorical_crossentropy", jit_compile=True)
    model.fit(x, y, batch_size=8, verbose=0)
    assert isinstance(model.train_function, type(minitf.function(lambda: None)))
    graph = model.train_function.get_concrete_function(minitf.constant(x), minitf.constant(y)).graph
    kinds = {operation.type for operation in graph.get_operations()}
    assert {"MatMul", "LogSoftmax", "AssignSubVariableOp"} <= kinds


def test_tf_keras_is_the_keras_package() -> None:
    import minitf.keras as keras  # the import a student writes, next to tf.keras

    assert minitf.keras is keras
    assert keras.layers.Dense is minitf.keras.layers.Dense


def test_losses_and_metrics_called_on_numpy_arrays_compute_in_float32() -> None:
    rng = np.random.default_rng(4)
    probabilities = rng.dirichlet(np.ones(3), size=5)  # float64, as NumPy makes them
    labels = rng.integers(0, 3, 5)
    results = []
    for keras in (minitf.keras, real_tf.keras):
        values = [
            keras.losses.MeanSquaredError()(np.eye(3)[labels], probabilities),
            keras.losses.CategoricalCrossentropy()(np.eye(3)[labels], probabilities),
            keras.losses.SparseCategoricalCrossentropy()(labels, probabilities),
            keras.losses.BinaryCrossentropy(from_logits=True)(np.eye(3)[labels], probabilities),
            keras.metrics.SparseCategoricalAccuracy()(labels, probabilities),
            keras.metrics.CategoricalAccuracy()(np.eye(3)[labels], probabilities),
        ]
        results.append([(float(np.asarray(v)), v.dtype.name) for v in values])
    for mine, real in zip(results[0], results[1], strict=True):
        assert mine[1] == real[1]
        np.testing.assert_allclose(mine[0], real[0], rtol=1e-5)


@pytest.mark.slow
def test_evaluate_and_predict_on_datasets_and_metric_names_match() -> None:
    rng = np.random.default_rng(5)
    x, y = rng.random((30, 4), dtype=np.float32), (rng.random((30, 1)) > 0.5).astype("float32")
    results = []
    for tf in ENGINES:
        keras = tf.keras
        model = keras.Sequential(
            [keras.Input((4,)), keras.layers.Dense(1, activation="sigmoid", kernel_initializer="ones")]
        )
        model.compile(
            keras.optimizers.RMSprop(0.01),
            "binary_crossentropy",
            metrics=["accuracy", keras.metrics.BinaryAccuracy(name="binary")],
        )
        dataset = tf.data.Dataset.from_tensor_slices((x, y)).batch(8)
        history = model.fit(x, y, epochs=2, validation_data=dataset, verbose=0, shuffle=False)
        results.append(
            (
                history.history,
                model.evaluate(dataset, verbose=0),
                model.evaluate(x, y, verbose=0, return_dict=True),
                model.metrics_names,
                model.predict(tf.data.Dataset.from_tensor_slices(x).batch(7), verbose=0),
            )
        )
    mine, real = results
    assert list(mine[0]) == list(real[0]) and list(mine[2]) == list(real[2]) and mine[3] == real[3]
    for key in real[0]:
        np.testing.assert_allclose(mine[0][key], real[0][key], rtol=1e-5)
    np.testing.assert_allclose(mine[1], real[1], rtol=1e-5)
    np.testing.assert_allclose(list(mine[2].values()), list(real[2].values()), rtol=1e-5)
    np.testing.assert_allclose(mine[4], real[4], rtol=1e-5)


def _retracing_warnings(tf: Any, caplog: Any) -> list[str]:
    """Several models fit one after the other, each on a last batch smaller than the others."""
    caplog.clear()
    x, y = np.ones((10, 3), "float32"), np.ones((10, 1), "float32")
    for _ in range(4):
        model = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(1)])
        model.compile("sgd", "mse")
        model.fit(x, y, batch_size=4, epochs=2, verbose=0, validation_split=0.3)
        model.evaluate(x, y, batch_size=3, verbose=0)
        model.predict(x, batch_size=3, verbose=0)
    return [re.sub(" at 0x[0-9a-f]+", "", r.getMessage()) for r in caplog.records if "retracing" in r.getMessage()]


def test_fit_and_evaluate_never_warn_of_retracing_and_predict_warns_when_tensorflow_does(
    caplog: Any, monkeypatch: Any
) -> None:
    """TensorFlow warns from the third model's predict on (each model's step is traced anew, and once more for
    the smaller last batch); its train and test steps never warn. Both engines count traces per Python function
    for the whole process: the counts start afresh here, so earlier tests do not matter."""
    monkeypatch.setattr(retracing, "detectors", {})
    manager = polymorphic_function._FrequentTracingDetectorManager()
    monkeypatch.setattr(polymorphic_function, "_frequent_tracing_detector_manager", manager)
    expected = _retracing_warnings(real_tf, caplog)
    assert len(expected) == 2
    assert _retracing_warnings(minitf, caplog) == expected
