"""`compile`, `fit`, `evaluate`, `predict`: the training loop of the course, written once for every model.

The step `fit` repeats is `train_step`: the forward pass under a GradientTape, the loss (plus the layers'
regularization losses), the gradients, one optimizer update, the metrics. `fit` compiles it with `tf.function`
(one trace per batch shape), so `model.train_function` is a minitf
Function whose graph can be drawn like any other.
"""

from __future__ import annotations

from typing import Any

import numpy as np

import minitf.keras.optimizers as optimizers
from minitf.autodiff.tape import GradientTape
from minitf.core.nest import map_structure
from minitf.function.function import function
from minitf.keras.callbacks.callback import Callback, CallbackList, History, ProgbarLogger
from minitf.keras.compile_loss import CompileLoss
from minitf.keras.compile_metrics import CompileMetrics
from minitf.keras.data_adapter import Batches, is_dataset, split_validation, unpack_x_y_sample_weight
from minitf.keras.layers.keras_tensor import flatten
from minitf.keras.metrics.metric import Mean, Metric
from minitf.ops.array.shape_ops import shape
from minitf.ops.math.binary_math import add_n

NOT_COMPILED = (
    "You must call `compile()` before using the model.\n"
    'Hint: call model.compile(optimizer=..., loss=...) first, e.g. model.compile("adam", "mse").'
)


class Trainer:
    compiled = False
    optimizer: Any = None
    loss: Any = None
    _loss_fn: CompileLoss | None = None
    _compile_metrics: CompileMetrics | None = None
    train_function: Any = None
    test_function: Any = None
    predict_function: Any = None
    run_eagerly = False
    jit_compile: Any = "auto"

    def compile(
        self,
        optimizer: Any = "rmsprop",
        loss: Any = None,
        metrics: Any = None,
        loss_weights: Any = None,
        weighted_metrics: Any = None,
        run_eagerly: bool = False,
        steps_per_execution: int = 1,
        jit_compile: Any = "auto",
    ) -> None:
        """Choose the optimizer, the loss and the metrics; names are resolved as Keras resolves them. As in Keras,
        compiling again without `loss` (or without metrics) keeps the loss (or the metrics) compiled before."""
        self.optimizer = optimizers.get(optimizer)
        output_names = getattr(self, "output_names", None)
        if loss is not None:
            self.loss = loss
            self._loss_fn = CompileLoss(loss, loss_weights)
        if metrics is not None or weighted_metrics is not None:
            self._compile_metrics = CompileMetrics(metrics, weighted_metrics, output_names)
        self._compile_arguments = {"metrics": metrics, "weighted_metrics": weighted_metrics}
        self._loss_tracker = Mean(name="loss")
        self.run_eagerly, self.jit_compile = run_eagerly, jit_compile
        self.train_function: Any = None
        self.test_function: Any = None
        self.predict_function: Any = None
        self.compiled = True
        self.stop_training = False

    def _check_compiled(self) -> None:
        if not self.compiled:
            raise ValueError(NOT_COMPILED)

    @property
    def metrics(self) -> list[Metric]:
        """As Keras lists them: the loss tracker, the compiled metrics as one (CompileMetrics), each output's loss
        tracker (a model of several outputs, once trained), then the Metric objects the model and its layers keep
        as attributes."""
        found: list[Metric] = []
        if self.compiled:
            found.append(self._loss_tracker)
            if self._compile_metrics is not None:
                found.append(self._compile_metrics)
            if self._loss_fn is not None:
                found.extend(self._loss_fn.trackers)
        for owner in [self, *self._flat_layers()]:  # type: ignore[attr-defined]
            found.extend(
                value
                for name, value in vars(owner).items()
                if isinstance(value, Metric) and name not in ("_loss_tracker", "_compile_metrics")
            )
        return found

    @property
    def metrics_names(self) -> list[str]:
        return [metric.name for metric in self.metrics]

    def reset_metrics(self) -> None:
        for metric in self.metrics:
            metric.reset_state()

    # --- one step ---
    def compute_loss(
        self, x: Any = None, y: Any = None, y_pred: Any = None, sample_weight: Any = None, training: bool = True
    ) -> Any:
        """The compiled loss plus every loss the layers added (regularization penalties)."""
        found = []
        if self._loss_fn is not None:
            found.append(self._loss_fn(y, y_pred, sample_weight))
        found.extend(self.losses)  # type: ignore[attr-defined]
        if not found:
            raise ValueError("No loss to compute. Provide a `loss` argument in `compile()`.")
        return found[0] if len(found) == 1 else add_n(found)

    def compute_metrics(self, x: Any, y: Any, y_pred: Any, sample_weight: Any = None) -> dict[str, Any]:
        """`metrics` count every sample alike; `weighted_metrics` weigh them by `sample_weight`, as in Keras."""
        if self._compile_metrics is not None:
            self._compile_metrics.update_state(y, y_pred, sample_weight)
        return self.get_metrics_result()

    def get_metrics_result(self) -> dict[str, Any]:
        """Every metric's value by name; the compiled metrics' dict is merged in."""
        results: dict[str, Any] = {}
        for metric in self.metrics:
            value = metric.result()
            results.update(value if isinstance(value, dict) else {metric.name: value})
        return results

    def train_step(self, data: Any) -> dict[str, Any]:
        x, y, sample_weight = unpack_x_y_sample_weight(data)
        with GradientTape() as tape:
            y_pred = self(x, training=True)  # type: ignore[operator]
            loss = self.compute_loss(x, y, y_pred, sample_weight)
        self._loss_tracker.update_state(loss, sample_weight=shape(flatten(x)[0])[0])
        weights = self.trainable_weights  # type: ignore[attr-defined]
        self.optimizer.apply(tape.gradient(loss, weights), weights)
        return self.compute_metrics(x, y, y_pred, sample_weight)

    def test_step(self, data: Any) -> dict[str, Any]:
        x, y, sample_weight = unpack_x_y_sample_weight(data)
        y_pred = self(x, training=False)  # type: ignore[operator]
        loss = self.compute_loss(x, y, y_pred, sample_weight, training=False)
        self._loss_tracker.update_state(loss, sample_weight=shape(flatten(x)[0])[0])
        return self.compute_metrics(x, y, y_pred, sample_weight)

    def predict_step(self, data: Any) -> Any:
        x, _, _ = unpack_x_y_sample_weight(data)
        return self(x, training=False)  # type: ignore[operator]

    # --- compiling the steps ---
    def _prepare(self, x: Any, y: Any) -> None:
        """Before the first trace: the metrics (they depend on the shapes) and the optimizer's slots."""
        y_pred = self(x, training=False)  # type: ignore[operator]
        if self._loss_fn is not None:
            self._loss_fn.build(y_pred, getattr(self, "output_names", ["output"]))
        if self._compile_metrics is not None and not self._compile_metrics.built:
            self._compile_metrics.build(y, y_pred)
        if not self.optimizer.built:
            self.optimizer.build(self.trainable_weights)  # type: ignore[attr-defined]

    def _build_on_shapes(self, batches: Batches) -> None:
        """As Keras's fit and evaluate do first: an unbuilt model is built on the shapes of the data's batches,
        whose batch size is known only when every batch has it (its summary shows that size or `None`)."""
        if not self.built:  # type: ignore[attr-defined]
            self(batches.symbolic_inputs(), training=False)  # type: ignore[operator]

    def _compiled(self, step: Any) -> Any:
        """`step` as a tf.function over (x, y) batches: one trace per batch shape (the full batches and the last,
        smaller one). TensorFlow's Keras leaves the batch dimension unknown instead; minitf's random ops (Dropout's
        mask) need known shapes, so the batch size stays in the graph."""

        def run(x: Any, y: Any, sample_weight: Any = None) -> Any:  # named arguments: tf.function's fast path
            return step((x, y) if sample_weight is None else (x, y, sample_weight))

        def run_predict(x: Any) -> Any:
            return step((x,))

        predicting = step == self.predict_step
        if predicting:
            run = run_predict  # type: ignore[assignment]
            # named as TensorFlow's, for the warning below
            run.__qualname__ = "TensorFlowTrainer.make_predict_function.<locals>.one_step_on_data_distributed"
        if self.run_eagerly:
            return run
        jit_compile = True if self.jit_compile is True else None
        compiled = function(run, jit_compile=jit_compile, autograph=False, reduce_retracing=predicting)
        # TensorFlow warns of frequent retracing only from predict (a new model's step is traced again, and once
        # more for a smaller last batch); its train and test steps run over an iterator and never warn
        compiled._warns_on_frequent_tracing = predicting
        return compiled

    def make_train_function(self, x: Any, y: Any) -> Any:
        if self.train_function is None:
            self._prepare(x, y)
            self.train_function = self._compiled(self.train_step)
        return self.train_function

    def make_test_function(self, x: Any, y: Any) -> Any:
        if self.test_function is None:
            self._prepare(x, y)
            self.test_function = self._compiled(self.test_step)
        return self.test_function

    def make_predict_function(self, x: Any) -> Any:
        if self.predict_function is None:
            self.predict_function = self._compiled(self.predict_step)
        return self.predict_function

    # --- the loops ---
    def fit(
        self,
        x: Any = None,
        y: Any = None,
        batch_size: int | None = None,
        epochs: int = 1,
        verbose: Any = "auto",
        callbacks: list[Callback] | None = None,
        validation_split: float = 0.0,
        validation_data: Any = None,
        shuffle: bool = True,
        class_weight: Any = None,
        sample_weight: Any = None,
        initial_epoch: int = 0,
        steps_per_epoch: int | None = None,
        validation_steps: int | None = None,
        validation_batch_size: int | None = None,
        validation_freq: int = 1,
    ) -> History:
        """Train for `epochs` passes over the data; returns the History of each epoch's logs."""
        self._check_compiled()
        if validation_split and validation_data is None:
            (x, y, sample_weight), validation_data = split_validation(x, y, sample_weight, validation_split)
        shuffle = shuffle and not is_dataset(x)
        batches = Batches(x, y, batch_size, shuffle, sample_weight, class_weight, steps_per_epoch)
        self._build_on_shapes(batches)
        history = History()
        given = list(callbacks or [])
        chain = [*given, *([ProgbarLogger()] if verbose else []), history]
        callback_list = CallbackList(chain, self, {"verbose": verbose, "epochs": epochs, "steps": batches.steps})
        self.stop_training = False
        batch_logs_wanted = callback_list.wants("on_train_batch_end")
        callback_list.call("on_train_begin", None)
        initial_epoch = getattr(self, "_initial_epoch", None) or initial_epoch  # set by BackupAndRestore
        logs: dict[str, Any] = {}
        epoch_logs: dict[str, Any] | None = None
        for epoch in range(initial_epoch, epochs):
            self.reset_metrics()
            callback_list.call("on_epoch_begin", epoch, None)
            step_logs: dict[str, Any] = {}
            for step, (x_batch, y_batch, weights) in enumerate(batches):
                callback_list.call("on_train_batch_begin", step, None)
                step_logs = self.make_train_function(x_batch, y_batch)(x_batch, y_batch, weights)
                if batch_logs_wanted:
                    callback_list.call("on_train_batch_end", step, _python_logs(step_logs))
            logs = _python_logs(step_logs)
            epoch_logs = dict(logs)
            if validation_data is not None and (epoch + 1) % validation_freq == 0:
                val_x, val_y, val_weights = unpack_x_y_sample_weight(validation_data)
                val_batches = Batches(
                    val_x, val_y, validation_batch_size or batch_size, sample_weight=val_weights, steps=validation_steps
                )
                val_logs = self._evaluate_logs(val_batches, callback_list)
                epoch_logs.update({f"val_{key}": value for key, value in val_logs.items()})
            callback_list.call("on_epoch_end", epoch, epoch_logs)
            if self.stop_training:
                break
        callback_list.call("on_train_end", epoch_logs)
        if self.optimizer.use_ema:
            self.optimizer.finalize_variable_values(self.trainable_weights)  # type: ignore[attr-defined]
        return history

    def _evaluate_logs(self, batches: Batches, callback_list: CallbackList) -> dict[str, Any]:
        self.reset_metrics()
        callback_list.call("on_test_begin", None)
        logs: dict[str, Any] = {}
        for step, (x_batch, y_batch, weights) in enumerate(batches):
            callback_list.call("on_test_batch_begin", step, None)
            logs = _python_logs(self.make_test_function(x_batch, y_batch)(x_batch, y_batch, weights))
            callback_list.call("on_test_batch_end", step, logs)
        callback_list.call("on_test_end", logs)
        return logs

    def evaluate(
        self,
        x: Any = None,
        y: Any = None,
        batch_size: int | None = None,
        verbose: Any = "auto",
        sample_weight: Any = None,
        steps: int | None = None,
        callbacks: list[Callback] | None = None,
        return_dict: bool = False,
    ) -> Any:
        """The loss and metrics over the data: `[loss, metric, ...]`, or a dict with `return_dict=True`."""
        self._check_compiled()
        batches = Batches(x, y, batch_size, sample_weight=sample_weight, steps=steps)
        self._build_on_shapes(batches)
        chain = list(callbacks or []) + ([ProgbarLogger()] if verbose else [])
        logs = self._evaluate_logs(
            batches, CallbackList(chain, self, {"verbose": verbose, "epochs": 1, "steps": batches.steps})
        )
        if return_dict:
            return logs
        return self._in_metric_order(logs)

    def _in_metric_order(self, logs: dict[str, Any]) -> Any:
        """evaluate's list as Keras orders it: by `self.metrics` (the compiled metrics by their own names, so a
        prefixed `a_mae` is not among them), then the other logs by name."""
        names: list[str] = []
        for metric in self.metrics:
            names.extend([m.name for m in metric.metrics] if isinstance(metric, CompileMetrics) else [metric.name])
        values = [logs[name] for name in names if name in logs] + [
            logs[key] for key in sorted(logs) if key not in names
        ]
        return values[0] if len(values) == 1 else values

    def predict(
        self,
        x: Any,
        batch_size: int | None = None,
        verbose: Any = "auto",
        steps: int | None = None,
        callbacks: list[Callback] | None = None,
    ) -> np.ndarray:
        """The model's outputs for every sample, batch by batch, as one NumPy array."""
        batches = Batches(x, None, batch_size, steps=steps)
        chain = list(callbacks or []) + ([ProgbarLogger()] if verbose else [])
        callback_list = CallbackList(chain, self, {"verbose": verbose, "epochs": 1, "steps": batches.steps})
        callback_list.call("on_predict_begin", None)
        outputs = []
        for step, (x_batch, _, _) in enumerate(batches):
            callback_list.call("on_predict_batch_begin", step, None)
            outputs.append(self.make_predict_function(x_batch)(x_batch))
            callback_list.call("on_predict_batch_end", step, _predict_logs(outputs[-1]))
        callback_list.call("on_predict_end", None)
        # one array per output (a model with several outputs gives a list or dict of them)
        return map_structure(lambda *parts: np.concatenate([np.asarray(p) for p in parts]), *outputs)

    def train_on_batch(
        self, x: Any, y: Any = None, sample_weight: Any = None, class_weight: Any = None, return_dict: bool = False
    ) -> Any:
        """One train step on exactly this batch; the logs are this batch's alone (Keras resets the metrics first)."""
        self._check_compiled()
        batches = Batches(x, y, len(x), sample_weight=sample_weight, class_weight=class_weight)
        self._build_on_shapes(batches)
        x_batch, y_batch, weights = next(iter(batches))
        self.reset_metrics()
        logs = _python_logs(self.make_train_function(x_batch, y_batch)(x_batch, y_batch, weights))
        return logs if return_dict else self._in_metric_order(logs)

    def test_on_batch(self, x: Any, y: Any = None, sample_weight: Any = None, return_dict: bool = False) -> Any:
        self._check_compiled()
        batches = Batches(x, y, len(x), sample_weight=sample_weight)
        self._build_on_shapes(batches)
        x_batch, y_batch, weights = next(iter(batches))
        self.reset_metrics()
        logs = _python_logs(self.make_test_function(x_batch, y_batch)(x_batch, y_batch, weights))
        return logs if return_dict else self._in_metric_order(logs)

    def predict_on_batch(self, x: Any) -> np.ndarray:
        x_batch, _, _ = next(iter(Batches(x, None, len(x))))
        return np.asarray(self.make_predict_function(x_batch)(x_batch))


def _predict_logs(batch_outputs: Any) -> dict[str, Any]:
    """What `on_predict_batch_end` sees, as Keras gives it: `{"outputs": array}`; a model with named outputs
    gives one entry per output name instead (Keras flattens the dict)."""
    if isinstance(batch_outputs, dict):
        return {key: np.asarray(batch_outputs[key]) for key in sorted(batch_outputs)}
    return {"outputs": batch_outputs if isinstance(batch_outputs, list | tuple) else np.asarray(batch_outputs)}


def _python_logs(logs: dict[str, Any]) -> dict[str, Any]:
    """Tensors to Python floats (arrays for per-class metrics such as F1Score), keys in sorted order (Keras's
    logs come out of a traced function sorted).  A dict among the values (a custom train_step that returns
    ``{m.name: m.result() for m in self.metrics}``, where CompileMetrics' result is a dict) is merged in, as Keras
    flattens it."""
    flat: dict[str, Any] = {}
    for key in sorted(logs):
        if isinstance(logs[key], dict):
            flat.update(_python_logs(logs[key]))
            continue
        value = np.asarray(logs[key])
        flat[key] = float(value) if value.ndim == 0 else value
    return flat
