"""The callbacks of the installed Keras against minitf's: every name implemented or left out; the same training
(weights, history, printed messages, files written) with each callback that needs no server."""

from __future__ import annotations

import io
import os
from contextlib import redirect_stdout
from typing import Any

import keras
import numpy as np
import pytest

import minitf
from tests.engine.differential import keras_families

ours = minitf.keras.callbacks


def _data() -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(7)
    x = rng.normal(size=(32, 3)).astype("float32")
    return x, (x @ np.array([[1.0], [-2.0], [0.5]], "float32") + 0.3).astype("float32")


def _train(library: Any, callbacks: list[Any], epochs: int = 4, **compile_options: Any) -> tuple[Any, Any, str]:
    x, y = _data()
    library.backend.clear_session()
    model = library.Sequential([library.Input((3,)), library.layers.Dense(1)])
    model.set_weights([np.full((3, 1), 0.1, "float32"), np.zeros(1, "float32")])
    model.compile(optimizer=compile_options.pop("optimizer", "sgd"), loss="mse", **compile_options)
    out = io.StringIO()
    with redirect_stdout(out):
        history = model.fit(
            x, y, batch_size=8, epochs=epochs, verbose=0, shuffle=False, validation_data=(x, y), callbacks=callbacks
        )
    return model, history, out.getvalue()


def _same_training(make: Any, **options: Any) -> tuple[str, str]:
    (their_model, their_history, their_text) = _train(keras, make(keras), **options)
    (my_model, my_history, my_text) = _train(minitf.keras, make(minitf.keras), **options)
    assert sorted(my_history.history) == sorted(their_history.history)
    for key, values in their_history.history.items():
        np.testing.assert_allclose(my_history.history[key], values, 1e-4, 1e-6, err_msg=key)
    for mine, theirs in zip(my_model.get_weights(), their_model.get_weights(), strict=True):
        np.testing.assert_allclose(mine, theirs, 1e-4, 1e-6)
    return my_text, their_text


def test_every_keras_callback_is_implemented_or_left_out() -> None:
    assert keras_families.unaccounted_names("callbacks", ours) == []
    assert keras_families.left_out_names_raise(ours, "tf.keras.callbacks") == []


@pytest.mark.slow
def test_learning_rate_scheduler_sets_logs_and_prints_as_keras_does() -> None:
    mine, theirs = _same_training(lambda lib: [lib.callbacks.LearningRateScheduler(lambda e, lr: lr * 0.5, verbose=1)])
    assert mine == theirs


@pytest.mark.slow
def test_reduce_lr_on_plateau_lowers_the_rate_and_prints_as_keras_does() -> None:
    def make(lib: Any) -> list[Any]:
        return [lib.callbacks.ReduceLROnPlateau(monitor="loss", factor=0.5, patience=1, min_delta=10.0, verbose=1)]

    mine, theirs = _same_training(make, epochs=5)
    assert mine == theirs


@pytest.mark.slow
def test_terminate_on_nan_stops_training_at_the_first_bad_loss() -> None:
    def make(lib: Any) -> list[Any]:
        return [lib.callbacks.TerminateOnNaN()]

    mine, theirs = _same_training(make, optimizer="sgd")
    assert mine == theirs
    x, y = _data()
    for library in (keras, minitf.keras):
        library.backend.clear_session()
        model = library.Sequential([library.Input((3,)), library.layers.Dense(1)])
        model.compile(optimizer=library.optimizers.SGD(1e30), loss="mse")
        with redirect_stdout(io.StringIO()) as out:
            history = model.fit(x, y * 1e20, batch_size=8, epochs=3, verbose=0, callbacks=[make(library)[0]])
        assert "Invalid loss, terminating training" in out.getvalue()
        assert len(history.history["loss"]) == 1


@pytest.mark.slow
def test_csv_logger_writes_the_same_file(tmp_path: Any) -> None:
    texts = []
    for library in (keras, minitf.keras):
        path = tmp_path / f"{library.__name__}.csv"
        _train(library, [library.callbacks.CSVLogger(str(path))])
        texts.append(path.read_text())
    header_and_epochs = [[line.split(",")[0] for line in text.splitlines()] for text in texts]
    assert header_and_epochs[0] == header_and_epochs[1]
    assert texts[0].splitlines()[0] == texts[1].splitlines()[0]
    for their_line, my_line in zip(texts[0].splitlines()[1:], texts[1].splitlines()[1:], strict=True):
        np.testing.assert_allclose(
            [float(v) for v in my_line.split(",")], [float(v) for v in their_line.split(",")], 1e-4
        )


@pytest.mark.slow
def test_model_checkpoint_makes_missing_folders_and_prints_as_keras_does(tmp_path: Any) -> None:
    texts = []
    for library, engine in ((keras, "theirs"), (minitf.keras, "mine")):
        path = str(tmp_path / engine / "nested" / "deeper" / "best.keras")
        callback = library.callbacks.ModelCheckpoint(path, monitor="val_loss", save_best_only=True, verbose=1)
        texts.append(_train(library, [callback])[2].replace(engine, "ENGINE"))
        assert os.path.exists(path)
    assert texts[1] == texts[0]


def test_backup_and_restore_resumes_an_interrupted_fit(tmp_path: Any) -> None:
    x, y = _data()

    class Interrupt(minitf.keras.callbacks.Callback):
        def on_epoch_end(self, epoch: int, logs: dict | None = None) -> None:
            if epoch == 1:
                raise RuntimeError("interrupted")

    minitf.keras.backend.clear_session()
    model = minitf.keras.Sequential([minitf.keras.Input((3,)), minitf.keras.layers.Dense(1)])
    model.compile("sgd", "mse")
    backup = minitf.keras.callbacks.BackupAndRestore(str(tmp_path / "backup"))
    with pytest.raises(RuntimeError, match="interrupted"):
        model.fit(x, y, epochs=4, verbose=0, callbacks=[backup, Interrupt()])
    history = model.fit(x, y, epochs=4, verbose=0, callbacks=[backup])
    assert history.epoch == [2, 3]
    assert not os.path.exists(tmp_path / "backup")


@pytest.mark.slow
def test_swap_ema_weights_evaluates_with_the_moving_averages() -> None:
    def make(lib: Any) -> list[Any]:
        return [lib.callbacks.SwapEMAWeights()]

    (their_model, their_history, _) = _train(keras, make(keras), optimizer=keras.optimizers.SGD(use_ema=True))
    (my_model, my_history, _) = _train(
        minitf.keras, make(minitf.keras), optimizer=minitf.keras.optimizers.SGD(use_ema=True)
    )
    for key, values in their_history.history.items():
        np.testing.assert_allclose(my_history.history[key], values, 1e-4, 1e-6, err_msg=key)
    for mine, theirs in zip(my_model.get_weights(), their_model.get_weights(), strict=True):
        np.testing.assert_allclose(mine, theirs, 1e-4, 1e-6)


def _hooks_seen(library: Any) -> list[str]:
    """Every hook of fit, evaluate and predict with the keys (and predict's output arrays) of the logs it gets."""
    seen: list[str] = []

    class Recorder(library.callbacks.Callback):
        pass

    def recorder(hook: str) -> Any:
        def record(self: Any, *args: Any, **kwargs: Any) -> None:
            logs = kwargs["logs"] if "logs" in kwargs else args[-1]
            described = {k: (type(v).__name__, getattr(v, "shape", None)) for k, v in logs.items()}
            seen.append(f"{hook}{args[: len(args) - ('logs' not in kwargs)]} {sorted(kwargs)}: {described}")

        return record

    stages = [f"on_{stage}{batch}" for stage in ("train", "test", "predict") for batch in ("", "_batch")]
    for hook in [f"{stage}_{when}" for stage in [*stages, "on_epoch"] for when in ("begin", "end")]:
        setattr(Recorder, hook, recorder(hook))
    x, y = _data()
    library.backend.clear_session()
    model = library.Sequential([library.Input((3,)), library.layers.Dense(1)])
    model.compile("sgd", "mse", metrics=["mae"])
    model.fit(x, y, batch_size=16, epochs=1, verbose=0, validation_split=0.5, shuffle=False, callbacks=[Recorder()])
    model.evaluate(x, y, batch_size=16, verbose=0, callbacks=[Recorder()])
    model.predict(x, batch_size=20, verbose=0, callbacks=[Recorder()])
    return seen


def test_every_hook_gets_a_logs_dict_with_the_keys_keras_gives_predict_batches_their_outputs() -> None:
    assert _hooks_seen(minitf.keras) == _hooks_seen(keras)
