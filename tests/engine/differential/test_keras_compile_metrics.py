"""`compile(metrics=...)` as Keras reads it, for every metric identifier the installed Keras accepts: on a model
of one output (a flat list) and on a model of two outputs (a list with one entry per output, a dict by output
name, single identifiers, None for an output without metrics, weighted metrics). Both engines train the same
model from the same weights; the History keys and values, evaluate's dict and list, `metrics_names`, the kinds,
names and results of `model.metrics` (before and after fit) and the printed progress line must agree."""

from __future__ import annotations

import io
from contextlib import redirect_stdout
from typing import Any

import keras
import numpy as np
import pytest
import tensorflow as real_tf

import minitf
from tests.engine.differential import keras_families

RTOL, ATOL = 1e-4, 1e-5
# Accepted by `keras.metrics.get` but stopping fit on both engines (compared below): the abstract base class
# has no `update_state`; Mean and Sum take (values, sample_weight), not (y_true, y_pred).
NOT_FOR_COMPILE = ["Metric", "metric", "Mean", "mean", "Sum", "sum"]


def _accepted_identifiers() -> list[str]:
    """Every string `keras.metrics.get` accepts that minitf implements (left-out ones refuse, tested elsewhere)."""
    found = []
    for name in keras_families.identifiers("metrics"):
        try:
            keras.metrics.get(name)
        except (TypeError, ValueError):
            continue
        if name not in minitf.keras.metrics.LEFT_OUT_IDENTIFIERS and name not in NOT_FOR_COMPILE:
            found.append(name)
    return [*found, "acc"]  # "acc" is compile's own short form of "accuracy"


IDENTIFIERS = _accepted_identifiers()
SPARSE = [name for name in IDENTIFIERS if "sparse" in name.lower()]
DENSE = [name for name in IDENTIFIERS if name not in SPARSE]


def _data() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(3)
    x = rng.normal(size=(12, 4)).astype("float32")
    classes = rng.integers(0, 3, 12)
    return x, np.eye(3, dtype="float32")[classes], classes.reshape(-1, 1).astype("float32"), rng.uniform(0, 2, 12)


def _model(tf: Any, outputs: int) -> Any:
    """One or two softmax outputs of three classes, "p" (one-hot labels) and "s" (class-number labels)."""
    tf.keras.backend.clear_session()
    inputs = tf.keras.Input((4,), name="x")
    heads = [tf.keras.layers.Dense(3, activation="softmax", name=name)(inputs) for name in ("p", "s")[:outputs]]
    model = tf.keras.Model(inputs, heads[0] if outputs == 1 else heads)
    rng = np.random.default_rng(0)
    model.set_weights([rng.normal(0, 0.5, w.shape).astype("float32") for w in model.get_weights()])
    return model


def _kinds(model: Any) -> list[Any]:
    return [[type(metric).__name__, metric.name] for metric in model.metrics]


def _results(model: Any) -> list[Any]:
    """Each of `model.metrics`' result(), dicts as sorted (name, value) pairs."""
    found = []
    for metric in model.metrics:
        value = metric.result()
        found.append(sorted((k, np.asarray(v)) for k, v in value.items()) if isinstance(value, dict) else value)
    return found


def _run(tf: Any, outputs: int, metrics: Any, weighted: Any = None) -> dict[str, Any]:
    x, one_hot, classes, weights = _data()
    model = _model(tf, outputs)
    y = one_hot if outputs == 1 else [one_hot, classes]
    losses = (
        "categorical_crossentropy" if outputs == 1 else ["categorical_crossentropy", "sparse_categorical_crossentropy"]
    )
    model.compile("sgd", loss=losses, metrics=metrics, weighted_metrics=weighted)
    seen: dict[str, Any] = {"before": _kinds(model), "names_before": model.metrics_names}
    printed = io.StringIO()
    with redirect_stdout(printed):
        history = model.fit(x, y, sample_weight=weights, batch_size=4, epochs=2, shuffle=False, verbose=2).history
    seen |= {"history": history, "after": _kinds(model), "names": model.metrics_names, "results": _results(model)}
    seen["evaluate"] = model.evaluate(x, y, batch_size=4, verbose=0, return_dict=True)
    seen["evaluate_list"] = model.evaluate(x, y, batch_size=4, verbose=0)
    seen["line"] = printed.getvalue().strip().split("\n")[-1]
    return seen


def _progress(line: str) -> tuple[list[str], list[float]]:
    """A progress line's `name: value` pairs: the names in order (with the value's notation, fixed or
    exponent), and the values."""
    pairs = [part.split(": ") for part in line.split(" - ") if ": " in part]
    return [f"{name}:{'e' if 'e' in value else 'f'}" for name, value in pairs], [float(value) for _, value in pairs]


def _assert_alike(mine: dict[str, Any], theirs: dict[str, Any]) -> None:
    for key in ("before", "names_before", "after", "names"):
        assert mine[key] == theirs[key], key
    assert list(mine["history"]) == list(theirs["history"])
    for key, values in theirs["history"].items():
        np.testing.assert_allclose(mine["history"][key], values, RTOL, ATOL, err_msg=key)
    assert list(mine["evaluate"]) == list(theirs["evaluate"])
    for key, value in theirs["evaluate"].items():
        np.testing.assert_allclose(mine["evaluate"][key], value, RTOL, ATOL, err_msg=key)
    for my_value, their_value in zip(mine["evaluate_list"], theirs["evaluate_list"], strict=True):
        np.testing.assert_allclose(my_value, their_value, RTOL, ATOL)  # (F1Score gives one value per class)
    for my_result, their_result in zip(mine["results"], theirs["results"], strict=True):
        if isinstance(their_result, list):  # CompileMetrics: (name, value) pairs
            assert [k for k, _ in my_result] == [k for k, _ in their_result]
            for (name, my_value), (_, their_value) in zip(my_result, their_result, strict=True):
                np.testing.assert_allclose(my_value, their_value, RTOL, ATOL, err_msg=name)
        else:
            np.testing.assert_allclose(np.asarray(my_result), np.asarray(their_result), RTOL, ATOL)
    (my_names, my_values), (their_names, their_values) = _progress(mine["line"]), _progress(theirs["line"])
    assert my_names == their_names, f"{mine['line']}\n{theirs['line']}"
    np.testing.assert_allclose(my_values, their_values, 2e-3, 1e-4)


def _same(outputs: int, metrics: Any, weighted: Any = None) -> dict[str, Any]:
    theirs = _run(real_tf, outputs, metrics, weighted)
    mine = _run(minitf, outputs, metrics, weighted)
    _assert_alike(mine, theirs)
    return mine


pytestmark = pytest.mark.slow  # each case trains a model with up to every metric on both engines


def test_every_metric_identifier_in_a_flat_list_logs_under_its_own_name() -> None:
    _same(1, DENSE, weighted=["mae", "acc"])


def test_every_metric_identifier_per_output_in_a_list_logs_as_output_underscore_name() -> None:
    seen = _same(2, [DENSE, SPARSE + ["acc"]])
    assert "p_mae" in seen["history"] and "s_sparse_categorical_accuracy" in seen["history"]


def test_every_metric_identifier_per_output_in_a_dict_by_output_name() -> None:
    _same(2, {"s": SPARSE + ["accuracy"], "p": DENSE})


@pytest.mark.parametrize(
    "metrics",
    [
        [["mae"], ["mse"]],
        ["mae", "mse"],
        {"p": ["mae"], "s": "mse"},
        {"s": "acc"},
        [None, ["mse", "mae"]],
        (["mae", "mae"], []),
        [["mae", "MAE"], ["acc"]],
    ],
    ids=str,
)
def test_per_output_metric_forms_and_repeated_names(metrics: Any) -> None:
    _same(2, metrics)


def test_weighted_metrics_per_output_are_named_apart_from_their_unweighted_twins() -> None:
    seen = _same(2, [["mae"], ["acc"]], weighted=[["mae"], ["acc", "mse"]])
    assert "p_weighted_mae" in seen["history"]


def _compile_error(tf: Any, outputs: int, metrics: Any) -> BaseException:
    x, one_hot, classes, _ = _data()
    model = _model(tf, outputs)
    try:
        model.compile("sgd", loss="mse", metrics=metrics)
        model.fit(x, one_hot if outputs == 1 else [one_hot, classes], epochs=1, verbose=0)
    except Exception as error:  # the error is what is compared
        return error
    raise AssertionError(f"no error for metrics={metrics}")


@pytest.mark.parametrize(
    ("outputs", "metrics", "fragment"),
    [
        (1, "mae", "Expected `metrics` argument to be a list, tuple, or dict. Received instead: metrics=mae"),
        (2, 3, "Expected `metrics` argument to be a list, tuple, or dict."),
        (2, ["mae"], "Invalid `metrics`. `metrics` should contain metrics objects and either be a dict"),
        (2, {"q": "mae"}, "match the output structure of the model: ['X', 'X'].\nReceived: metrics={'q': 'mae'}"),
        (2, [["nope"], None], "Could not interpret metric identifier: nope\nReceived: metrics=[['nope'], None]"),
        *[(1, [name], "") for name in NOT_FOR_COMPILE],
    ],
    ids=str,
)
def test_metrics_keras_refuses_raise_its_error(outputs: int, metrics: Any, fragment: str) -> None:
    mine, theirs = _compile_error(minitf, outputs, metrics), _compile_error(real_tf, outputs, metrics)
    assert type(mine).__name__ == type(theirs).__name__
    assert fragment in str(theirs) and fragment in str(mine), f"{mine}\n{theirs}"


def test_compiling_again_without_metrics_keeps_the_compiled_metrics() -> None:
    def names(tf: Any) -> list[Any]:
        model = _model(tf, 1)
        model.compile("sgd", "mse", metrics=["mae"])
        model.compile("adam", "mse")
        return _kinds(model)

    assert names(minitf) == names(real_tf) == [["Mean", "loss"], ["CompileMetrics", "compile_metrics"]]


def test_metrics_kept_as_attributes_of_a_subclassed_model_are_listed_and_logged() -> None:
    def run(tf: Any) -> dict[str, Any]:
        tf.keras.backend.clear_session()

        class Tracked(tf.keras.Model):
            def __init__(self) -> None:
                super().__init__()
                self.dense = tf.keras.layers.Dense(1, kernel_initializer="ones")
                self.tracker = tf.keras.metrics.Mean(name="tracker")
                self._hidden = tf.keras.metrics.Sum(name="hidden")

            def call(self, x: Any) -> Any:
                return self.dense(x)

        model = Tracked()
        x = np.linspace(0, 1, 12, dtype="float32").reshape(4, 3)
        kinds = _kinds(model)
        model.compile("sgd", "mse", metrics=["mae"])
        history = model.fit(x, x[:, :1], epochs=1, verbose=0, shuffle=False).history
        return {"kinds": [kinds, _kinds(model)], "history": history, "evaluate": model.evaluate(x, x[:, :1], verbose=0)}

    mine, theirs = run(minitf), run(real_tf)
    assert mine["kinds"] == theirs["kinds"]
    assert list(mine["history"]) == list(theirs["history"])
    for key, values in theirs["history"].items():
        np.testing.assert_allclose(mine["history"][key], values, RTOL, ATOL, err_msg=key)
    np.testing.assert_allclose(mine["evaluate"], theirs["evaluate"], RTOL, ATOL)
