"""`keras.callbacks`: code `fit` calls at the start and end of training, epochs and batches.

`fit` always adds a `History` (what it returns) and, when `verbose` is on, a `ProgbarLogger` (the progress
lines); the callbacks a user passes run in between, in order.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from minitf.keras.progbar import Progbar

HOOKS = (
    "on_train_begin",
    "on_train_end",
    "on_epoch_begin",
    "on_epoch_end",
    "on_train_batch_begin",
    "on_train_batch_end",
    "on_test_begin",
    "on_test_end",
    "on_test_batch_begin",
    "on_test_batch_end",
    "on_predict_begin",
    "on_predict_end",
    "on_predict_batch_begin",
    "on_predict_batch_end",
)


class Callback:
    """Every hook does nothing; a subclass overrides the ones it needs. `self.model` is the model training."""

    def __init__(self) -> None:
        self.model: Any = None
        self.params: dict[str, Any] = {}

    def set_model(self, model: Any) -> None:
        self.model = model

    def set_params(self, params: dict[str, Any]) -> None:
        self.params = params

    def __getattr__(self, name: str) -> Any:
        if name in HOOKS:
            return lambda *args, **kwargs: None
        raise AttributeError(name)


class CallbackList:
    """Calls one hook on every callback in turn."""

    def __init__(self, callbacks: list[Callback], model: Any, params: dict[str, Any]) -> None:
        self.callbacks = callbacks
        for callback in callbacks:
            callback.set_model(model)
            callback.set_params(params)

    def wants(self, hook: str) -> bool:
        """Whether any callback does something in `hook` (fit skips turning every batch's logs into floats
        when none looks at them)."""
        for callback in self.callbacks:
            if hook in vars(callback) or any(
                hook in vars(klass) for klass in type(callback).__mro__ if klass is not Callback
            ):
                return True
        return False

    def call(self, hook: str, *args: Any) -> None:
        for callback in self.callbacks:
            getattr(callback, hook)(*args)


class History(Callback):
    """Records each epoch's logs: `history.history["loss"]` is the list of epoch losses."""

    def __init__(self) -> None:
        super().__init__()
        self.history: dict[str, list[float]] = {}
        self.epoch: list[int] = []

    def on_train_begin(self, logs: dict | None = None) -> None:
        self.epoch = []

    def on_epoch_end(self, epoch: int, logs: dict | None = None) -> None:
        self.epoch.append(epoch)
        for key, value in (logs or {}).items():
            self.history.setdefault(key, []).append(value)
        self.model.history = self


class ProgbarLogger(Callback):
    """The progress lines: "Epoch 1/5", then a bar per epoch (verbose=1) or one line per epoch (verbose=2)."""

    def __init__(self) -> None:
        super().__init__()
        self.progbar: Progbar | None = None
        self.seen = 0
        self.in_fit = False

    def set_params(self, params: dict[str, Any]) -> None:
        super().set_params(params)
        self.verbose = 1 if params["verbose"] == "auto" else params["verbose"]
        self.epochs, self.target = params.get("epochs", 1), params.get("steps")

    def _start(self) -> None:
        self.seen = 0
        self.progbar = Progbar(self.target, verbose=self.verbose)

    def _update(self, batch: int, logs: dict | None) -> None:
        if self.progbar is None:
            self._start()
        self.seen = batch + 1
        if self.verbose == 1 and self.progbar is not None:
            self.progbar.update(self.seen, list((logs or {}).items()), finalize=False)

    def _finish(self, logs: dict | None) -> None:
        if self.progbar is None:
            return
        if self.target is None:
            self.target = self.progbar.target = self.seen
        self.progbar.update(self.target, list((logs or {}).items()), finalize=True)

    def on_train_begin(self, logs: dict | None = None) -> None:
        self.in_fit = True

    def on_epoch_begin(self, epoch: int, logs: dict | None = None) -> None:
        self._start()
        if self.verbose and self.epochs > 1:
            print(f"Epoch {epoch + 1}/{self.epochs}")

    def on_train_batch_end(self, batch: int, logs: dict | None = None) -> None:
        self._update(batch, logs)

    def on_epoch_end(self, epoch: int, logs: dict | None = None) -> None:
        self._finish(logs)

    def on_test_begin(self, logs: dict | None = None) -> None:
        if not self.in_fit:
            self._start()

    def on_test_batch_end(self, batch: int, logs: dict | None = None) -> None:
        if not self.in_fit:
            self._update(batch, logs)

    def on_test_end(self, logs: dict | None = None) -> None:
        if not self.in_fit:
            self._finish(logs)

    def on_predict_begin(self, logs: dict | None = None) -> None:
        self._start()

    def on_predict_batch_end(self, batch: int, logs: dict | None = None) -> None:
        self._update(batch, None)

    def on_predict_end(self, logs: dict | None = None) -> None:
        self._finish(logs)


class LambdaCallback(Callback):
    """Callbacks from plain functions: `LambdaCallback(on_epoch_end=lambda epoch, logs: ...)`."""

    def __init__(
        self,
        on_epoch_begin: Any = None,
        on_epoch_end: Any = None,
        on_train_begin: Any = None,
        on_train_end: Any = None,
        on_train_batch_begin: Any = None,
        on_train_batch_end: Any = None,
        **kwargs: Any,
    ) -> None:
        super().__init__()
        given = {
            "on_epoch_begin": on_epoch_begin,
            "on_epoch_end": on_epoch_end,
            "on_train_begin": on_train_begin,
            "on_train_end": on_train_end,
            "on_train_batch_begin": on_train_batch_begin,
            "on_train_batch_end": on_train_batch_end,
            **kwargs,
        }
        for hook, function in given.items():
            if function is not None:
                setattr(self, hook, function)


def _improvement(mode: str, monitor: str) -> Any:
    """np.less or np.greater: whether a lower or a higher value of `monitor` is better."""
    if mode == "min" or (mode == "auto" and "acc" not in monitor and "auc" not in monitor):
        return np.less
    return np.greater


class EarlyStopping(Callback):
    """Stop training when `monitor` has not improved by `min_delta` for `patience` epochs."""

    def __init__(
        self,
        monitor: str = "val_loss",
        min_delta: float = 0,
        patience: int = 0,
        verbose: int = 0,
        mode: str = "auto",
        baseline: float | None = None,
        restore_best_weights: bool = False,
        start_from_epoch: int = 0,
    ) -> None:
        super().__init__()
        self.monitor, self.patience, self.verbose, self.baseline = monitor, patience, verbose, baseline
        self.restore_best_weights, self.start_from_epoch = restore_best_weights, start_from_epoch
        self.monitor_op = _improvement(mode, monitor)
        self.min_delta = abs(min_delta) * (1 if self.monitor_op is np.greater else -1)
        self.stopped_epoch = 0

    def on_train_begin(self, logs: dict | None = None) -> None:
        self.wait, self.stopped_epoch, self.best_epoch = 0, 0, 0
        self.best: float | None = None
        self.best_weights: list | None = None

    def on_epoch_end(self, epoch: int, logs: dict | None = None) -> None:
        current = (logs or {}).get(self.monitor)
        if current is None or epoch < self.start_from_epoch:
            return
        if self.restore_best_weights and self.best_weights is None:
            self.best_weights = self.model.get_weights()
        self.wait += 1
        if self.best is None or self.monitor_op(current - self.min_delta, self.best):
            self.best, self.best_epoch = current, epoch
            if self.restore_best_weights:
                self.best_weights = self.model.get_weights()
            if self.baseline is None or self.monitor_op(current - self.min_delta, self.baseline):
                self.wait = 0
            return
        if self.wait >= self.patience and epoch > 0:
            self.stopped_epoch = epoch
            self.model.stop_training = True

    def on_train_end(self, logs: dict | None = None) -> None:
        if self.stopped_epoch > 0 and self.verbose > 0:
            print(f"Epoch {self.stopped_epoch + 1}: early stopping")
        if self.restore_best_weights and self.best_weights is not None and self.stopped_epoch > 0:
            if self.verbose > 0:
                print(f"Restoring model weights from the end of the best epoch: {self.best_epoch + 1}.")
            self.model.set_weights(self.best_weights)


class ModelCheckpoint(Callback):
    """Save the model (or only its weights) after each epoch, or only when `monitor` improved."""

    def __init__(
        self,
        filepath: str,
        monitor: str = "val_loss",
        verbose: int = 0,
        save_best_only: bool = False,
        save_weights_only: bool = False,
        mode: str = "auto",
        save_freq: str = "epoch",
    ) -> None:
        super().__init__()
        self.filepath, self.monitor, self.verbose = str(filepath), monitor, verbose
        self.save_best_only, self.save_weights_only = save_best_only, save_weights_only
        self.monitor_op = _improvement(mode, monitor)
        self.best: float | None = None
        if save_weights_only and not self.filepath.endswith(".weights.h5"):
            raise ValueError(
                "When using `save_weights_only=True` in `ModelCheckpoint`, the filepath provided must "
                f"end in `.weights.h5` (Keras weights format). Received: filepath={self.filepath}"
            )
        if not save_weights_only and not self.filepath.endswith((".keras", ".h5")):
            raise ValueError(
                f"The filepath provided must end in `.keras` (Keras model format). Received: filepath={self.filepath}"
            )

    def on_epoch_end(self, epoch: int, logs: dict | None = None) -> None:
        logs = logs or {}
        path = self.filepath.format(epoch=epoch + 1, **logs)
        if self.save_best_only:
            current = logs.get(self.monitor)
            if current is None or (self.best is not None and not self.monitor_op(current, self.best)):
                return
            if self.verbose > 0:
                print(
                    f"\nEpoch {epoch + 1}: {self.monitor} improved from {self.best} to {current}, "
                    f"saving model to {path}"
                )
            self.best = current
        if self.save_weights_only:
            self.model.save_weights(path)
        else:
            self.model.save(path)
