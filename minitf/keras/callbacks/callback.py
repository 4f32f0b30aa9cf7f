"""The `Callback` base, the list `fit` calls hooks on, and the callbacks `fit` always adds: `History` (what it
returns) and, when `verbose` is on, a `ProgbarLogger` (the progress lines). The callbacks a user passes run
first, in order."""

from __future__ import annotations

from typing import Any

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

    def on_train_batch_begin(self, batch: int, logs: dict | None = None) -> None:
        self.on_batch_begin(batch, logs)  # Keras 2's name for the hook, still called

    def on_train_batch_end(self, batch: int, logs: dict | None = None) -> None:
        self.on_batch_end(batch, logs)

    def __getattr__(self, name: str) -> Any:
        if name in HOOKS or name in ("on_batch_begin", "on_batch_end"):
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
        when none looks at them); `on_batch_end` counts for `on_train_batch_end`."""
        hooks = {hook, hook.replace("_train_batch_", "_batch_")}
        for callback in self.callbacks:
            for name in hooks:
                if name in vars(callback) or any(
                    name in vars(klass) for klass in type(callback).__mro__ if klass is not Callback
                ):
                    return True
        return False

    def call(self, hook: str, *args: Any) -> None:
        """`args` end with the logs: every callback gets the same dict, `{}` when there are none (Keras's hooks
        never see `None`); batch hooks get it as `logs=`, as Keras passes it."""
        *position, logs = args
        logs = {} if logs is None else logs
        for callback in self.callbacks:
            if "_batch_" in hook:
                getattr(callback, hook)(*position, logs=logs)
            else:
                getattr(callback, hook)(*position, logs)


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
