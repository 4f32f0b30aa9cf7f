"""Callbacks around the training loop that need no server: LearningRateScheduler, CSVLogger, TerminateOnNaN,
BackupAndRestore (resume an interrupted fit) and SwapEMAWeights (evaluate with the moving-average weights)."""

from __future__ import annotations

import csv
import json
import os
import shutil
from typing import Any

import numpy as np

from minitf.keras.callbacks.callback import Callback


class LearningRateScheduler(Callback):
    """Set the learning rate at each epoch's start to `schedule(epoch, current_rate)` (or `schedule(epoch)`)."""

    def __init__(self, schedule: Any, verbose: int = 0) -> None:
        super().__init__()
        self.schedule, self.verbose = schedule, verbose

    def on_epoch_begin(self, epoch: int, logs: dict | None = None) -> None:
        optimizer = self.model.optimizer
        current = float(np.asarray(optimizer.learning_rate))
        try:
            rate = self.schedule(epoch, current)
        except TypeError:  # a schedule of the epoch alone
            rate = self.schedule(epoch)
        if not isinstance(rate, float | np.float32 | np.float64):
            raise ValueError(f"The output of the `schedule` function should be a float. Got: {rate}")
        optimizer.learning_rate = rate
        if self.verbose > 0:
            print(f"\nEpoch {epoch + 1}: LearningRateScheduler setting learning rate to {rate}.")

    def on_epoch_end(self, epoch: int, logs: dict | None = None) -> None:
        if logs is not None:
            logs["learning_rate"] = float(np.asarray(self.model.optimizer.learning_rate))


class CSVLogger(Callback):
    """Write each epoch's logs as a row of a CSV file (`epoch` first, then the log names in sorted order)."""

    def __init__(self, filename: Any, separator: str = ",", append: bool = False) -> None:
        super().__init__()
        self.sep, self.filename, self.append = separator, os.fspath(filename), append
        self.writer: Any = None
        self.keys: list[str] | None = None
        self.append_header = True
        self.csv_file: Any = None

    def on_train_begin(self, logs: dict | None = None) -> None:
        if self.append and os.path.exists(self.filename):
            with open(self.filename) as existing:
                self.append_header = not existing.readline()
        self.csv_file = open(self.filename, "a" if self.append else "w", newline="")  # noqa: SIM115 - closed at train end
        self.writer, self.keys = None, None

    def on_epoch_end(self, epoch: int, logs: dict | None = None) -> None:
        logs = logs or {}
        if self.keys is None:
            self.keys = sorted(logs)
            if not any(key.startswith("val_") for key in self.keys):
                self.keys += [f"val_{key}" for key in self.keys]
        if self.writer is None:
            self.writer = csv.DictWriter(self.csv_file, fieldnames=["epoch", *self.keys], delimiter=self.sep)
            if self.append_header:
                self.writer.writeheader()

        def shown(value: Any) -> Any:
            if isinstance(value, np.ndarray) and value.ndim > 0:
                return f'"[{", ".join(map(str, value))}]"'
            return value

        self.writer.writerow({"epoch": epoch, **{key: shown(logs.get(key, "NA")) for key in self.keys}})
        self.csv_file.flush()

    def on_train_end(self, logs: dict | None = None) -> None:
        if self.csv_file is not None and not self.csv_file.closed:
            self.csv_file.close()
        self.writer = None


class TerminateOnNaN(Callback):
    """Stop training at the first batch whose loss is NaN or infinite."""

    def __init__(self, raise_error: bool = False) -> None:
        super().__init__()
        self.raise_error = raise_error

    def on_batch_end(self, batch: int, logs: dict | None = None) -> None:
        loss = (logs or {}).get("loss")
        if loss is not None and (np.isnan(loss) or np.isinf(loss)):
            if self.raise_error:
                raise RuntimeError(
                    f"NaN or Inf loss encountered at batch {batch}. Loss value: {loss}. "
                    "Terminating training immediately."
                )
            print(f"Batch {batch}: Invalid loss, terminating training")
            self.model.stop_training = True


class BackupAndRestore(Callback):
    """Save the weights and the epoch reached after each epoch in `backup_dir`; a later `fit` with the same
    folder starts from there. The folder is deleted when training ends normally."""

    def __init__(
        self, backup_dir: Any, save_freq: Any = "epoch", double_checkpoint: bool = False, delete_checkpoint: bool = True
    ) -> None:
        super().__init__()
        if not backup_dir:
            raise ValueError("Empty `backup_dir` argument passed")
        if save_freq != "epoch":
            raise ValueError("minitf's BackupAndRestore saves once per epoch: leave `save_freq` at 'epoch'")
        self.backup_dir, self.save_freq = os.fspath(backup_dir), save_freq
        self.double_checkpoint, self.delete_checkpoint = double_checkpoint, delete_checkpoint
        self._weights_path = os.path.join(self.backup_dir, "latest.weights.h5")
        self._metadata_path = os.path.join(self.backup_dir, "training_metadata.json")

    def on_train_begin(self, logs: dict | None = None) -> None:
        if os.path.exists(self._weights_path):
            self.model.load_weights(self._weights_path)
        if os.path.exists(self._metadata_path):
            with open(self._metadata_path) as file:
                self.model._initial_epoch = json.load(file)["epoch"]

    def on_epoch_end(self, epoch: int, logs: dict | None = None) -> None:
        os.makedirs(self.backup_dir, exist_ok=True)
        if self.double_checkpoint and os.path.exists(self._weights_path):
            shutil.copy(self._weights_path, f"{self._weights_path}.bkp")
        self.model.save_weights(self._weights_path)
        with open(self._metadata_path, "w") as file:
            file.write(json.dumps({"epoch": epoch + 1, "batch": 0}))

    def on_train_end(self, logs: dict | None = None) -> None:
        if self.delete_checkpoint and os.path.exists(self.backup_dir):
            shutil.rmtree(self.backup_dir)


class SwapEMAWeights(Callback):
    """With an optimizer using `use_ema=True`: evaluate (and, with `swap_on_epoch`, save) with the weights'
    moving averages, swapping them in and back out around it."""

    def __init__(self, swap_on_epoch: bool = False) -> None:
        super().__init__()
        self.swap_on_epoch = swap_on_epoch
        self._swapped = False

    def _swap(self) -> None:
        optimizer = self.model.optimizer
        if not getattr(optimizer, "use_ema", False):
            raise ValueError(
                "SwapEMAWeights must be used when `use_ema=True` is set on the optimizer. "
                f"Received: use_ema={getattr(optimizer, 'use_ema', False)}"
            )
        for variable, average in zip(self.model.trainable_weights, optimizer._averages, strict=True):
            current = variable.numpy()
            variable.assign(average)
            average.assign(current)
        self._swapped = not self._swapped

    def on_epoch_begin(self, epoch: int, logs: dict | None = None) -> None:
        if self._swapped:
            self._swap()

    def on_epoch_end(self, epoch: int, logs: dict | None = None) -> None:
        if self.swap_on_epoch and not self._swapped:
            self._swap()

    def on_test_begin(self, logs: dict | None = None) -> None:
        if not self._swapped:
            self._swap()

    def on_test_end(self, logs: dict | None = None) -> None:
        if self._swapped:
            self._swap()
