"""Every metric of the installed Keras against minitf's: update_state over batches with sample weights, result,
reset_state, configs and serialized forms; the names `compile(metrics=...)` accepts; custom Metric subclasses
with add_weight. Names minitf leaves out say so."""

from __future__ import annotations

from typing import Any

import keras
import numpy as np
import pytest

import minitf
from tests.engine.differential import keras_families

RTOL, ATOL = 2e-5, 2e-6
ours = minitf.keras.metrics
SKIP = {"Metric", "MeanMetricWrapper"}
CLASSES = [
    n for n in keras_families.public_names("metrics") if n[0].isupper() and n not in SKIP and n not in ours.LEFT_OUT
]
FUNCTIONS = [n for n in keras_families.public_names("metrics") if n[0].islower() and n not in ours.LEFT_OUT]
OPTIONS: dict[str, list[dict[str, Any]]] = {
    "Precision": [{}, {"thresholds": [0.3, 0.6]}, {"top_k": 2}, {"class_id": 1}],
    "Recall": [{}, {"thresholds": 0.7}, {"top_k": 1}, {"class_id": 2}],
    "TruePositives": [{}, {"thresholds": [0.2, 0.5, 0.8]}],
    "AUC": [{}, {"curve": "PR"}, {"num_thresholds": 7, "summation_method": "minoring"}, {"from_logits": True}],
    "F1Score": [{}, {"average": "macro", "threshold": 0.5}, {"average": "micro"}, {"average": "weighted"}],
    "FBetaScore": [{"beta": 2.0}, {"beta": 0.5, "average": "macro"}],
    "R2Score": [{}, {"class_aggregation": "variance_weighted_average"}, {"class_aggregation": None}],
    "BinaryAccuracy": [{}, {"threshold": 0.3}],
    "TopKCategoricalAccuracy": [{"k": 2}],
    "SparseTopKCategoricalAccuracy": [{"k": 2}],
    "BinaryCrossentropy": [{}, {"label_smoothing": 0.1}],
}


def _batches(name: str) -> list[tuple[np.ndarray, np.ndarray, np.ndarray | None]]:
    """Three batches (labels, predictions, sample weights or None) of the kind this metric reads."""
    rng = np.random.default_rng(len(name))
    out = []
    for i in range(3):
        logits = rng.normal(size=(5, 3)).astype("float32")
        probabilities = np.exp(logits) / np.exp(logits).sum(-1, keepdims=True)
        classes = rng.integers(0, 3, 5)
        if "Sparse" in name:
            labels: np.ndarray = classes.astype("float32")
        elif "Categorical" in name or "TopK" in name or "Score" in name and name != "R2Score":
            labels = np.eye(3, dtype="float32")[classes]
        elif name in ("Mean", "Sum", "R2Score", "MeanAbsoluteError", "MeanSquaredError", "RootMeanSquaredError"):
            labels = rng.normal(size=(5, 3)).astype("float32")
        else:
            labels = rng.integers(0, 2, (5, 3)).astype("float32")
        weights = None if i == 0 else rng.uniform(0, 2, 5).astype("float32")
        out.append((labels, probabilities, weights))
    return out


def _feed(metric: Any, name: str, batches: list) -> list[np.ndarray]:
    results = []
    for labels, predictions, weights in batches:
        if name in ("Mean", "Sum"):
            metric.update_state(labels, sample_weight=weights)
        else:
            metric.update_state(labels, predictions, sample_weight=weights)
        results.append(np.asarray(metric.result()))
    return results


def test_every_keras_metric_name_is_implemented_or_left_out() -> None:
    assert keras_families.unaccounted_names("metrics", ours) == []
    assert keras_families.left_out_names_raise(ours, "tf.keras.metrics") == []


def test_every_metric_identifier_keras_accepts_resolves_or_is_refused_as_left_out() -> None:
    assert keras_families.unaccounted_identifiers("metrics", ours.get) == []


@pytest.mark.parametrize("name", CLASSES)
def test_metric_results_over_weighted_batches_reset_and_config_match(name: str) -> None:
    for options in OPTIONS.get(name, [{}]):
        keras.backend.clear_session()
        minitf.keras.backend.clear_session()
        theirs, mine = getattr(keras.metrics, name)(**options), getattr(ours, name)(**options)
        batches = _batches(name)
        for actual, expected in zip(_feed(mine, name, batches), _feed(theirs, name, batches), strict=True):
            np.testing.assert_allclose(actual, expected, 1e-4, 1e-5, err_msg=f"{name} {options}")
        assert [v.name for v in mine.variables] == [v.name for v in theirs.variables]
        mine.reset_state()
        theirs.reset_state()
        np.testing.assert_allclose(np.asarray(mine.result()), np.asarray(theirs.result()), RTOL, ATOL)
        assert mine.get_config() == theirs.get_config(), options
        assert repr(mine) == repr(theirs)
        assert ours.serialize(mine) == keras.metrics.serialize(theirs)


@pytest.mark.parametrize("name", FUNCTIONS)
def test_metric_function_values_match(name: str) -> None:
    rng = np.random.default_rng(5)
    probabilities = rng.dirichlet(np.ones(4), 6).astype("float32")
    classes = rng.integers(0, 4, 6)
    labels = classes.astype("float32") if "sparse" in name else np.eye(4, dtype="float32")[classes]
    expected = np.asarray(getattr(keras.metrics, name)(labels, probabilities))
    actual = getattr(ours, name)(minitf.constant(labels), minitf.constant(probabilities))
    np.testing.assert_allclose(actual.numpy(), expected, RTOL, ATOL, err_msg=name)


def _fit_with_metrics(library: Any, metrics: list[Any]) -> tuple[dict, list]:
    rng = np.random.default_rng(4)
    x = rng.normal(size=(24, 4)).astype("float32")
    y = (x.sum(1, keepdims=True) > 0).astype("float32")
    library.backend.clear_session()
    model = library.Sequential([library.Input((4,)), library.layers.Dense(1, activation="sigmoid")])
    model.set_weights([np.full((4, 1), 0.1, "float32"), np.zeros(1, "float32")])
    model.compile("sgd", "binary_crossentropy", metrics=metrics)
    history = model.fit(x, y, batch_size=8, epochs=2, verbose=0, shuffle=False)
    return history.history, model.evaluate(x, y, verbose=0, return_dict=True)


@pytest.mark.slow
def test_compile_accepts_metric_names_and_objects_as_keras_does() -> None:
    def metrics(library: Any) -> list[Any]:
        m = library.metrics
        return ["mae", "acc", "mse", "AUC", m.Precision(), m.Recall(name="rec"), m.AUC(curve="PR", name="prc")]

    theirs, mine = _fit_with_metrics(keras, metrics(keras)), _fit_with_metrics(minitf.keras, metrics(minitf.keras))
    for their_logs, my_logs in zip(theirs, mine, strict=True):
        assert sorted(my_logs) == sorted(their_logs)
        for key in their_logs:
            np.testing.assert_allclose(my_logs[key], their_logs[key], 1e-4, 1e-5, err_msg=key)


class _Counter:
    """A custom metric as a learner writes one: state from add_weight, update_state, result, reset."""

    @staticmethod
    def make(library: Any) -> Any:
        class PositiveShare(library.metrics.Metric):
            def __init__(self, name: str = "positive_share", **kwargs: Any) -> None:
                super().__init__(name=name, **kwargs)
                self.positives = self.add_weight(name="positives", initializer="zeros")
                self.seen = self.add_weight(shape=(), name="seen", initializer="zeros")

            def update_state(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> None:
                engine = minitf if library is minitf.keras else __import__("tensorflow")
                predicted = engine.cast(y_pred > 0.5, "float32")
                self.positives.assign_add(engine.reduce_sum(predicted))
                self.seen.assign_add(engine.cast(engine.size(predicted), "float32"))

            def result(self) -> Any:
                return self.positives / self.seen

        return PositiveShare()


@pytest.mark.slow
def test_a_custom_metric_with_add_weight_works_alone_and_in_fit() -> None:
    theirs, mine = _Counter.make(keras), _Counter.make(minitf.keras)
    assert [v.name for v in mine.variables] == [v.name for v in theirs.variables]
    assert [v.path for v in mine.variables] == [v.path for v in theirs.variables]
    predictions = np.array([[0.2], [0.7], [0.9]], "float32")
    np.testing.assert_allclose(float(mine(None, predictions)), float(theirs(None, predictions)))
    mine.reset_state()
    assert float(mine.positives.numpy()) == 0.0
    their_logs, my_logs = (_fit_with_metrics(lib, [_Counter.make(lib)]) for lib in (keras, minitf.keras))
    for key in their_logs[0]:
        np.testing.assert_allclose(my_logs[0][key], their_logs[0][key], 1e-4, 1e-5, err_msg=key)


def test_an_unknown_metric_name_raises_kerass_error() -> None:
    with pytest.raises(ValueError, match="Could not interpret metric identifier: nope"):
        ours.get("nope")
