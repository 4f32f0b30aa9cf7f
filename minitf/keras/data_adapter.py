"""What `fit`, `evaluate` and `predict` accept as data, turned into batches of tensors.

NumPy arrays are cut into `batch_size` slices (in a new random order each epoch with `shuffle=True`); a
`tf.data.Dataset` is used as it is, its elements being batches already: `x`, `(x, y)` or `(x, y, sample_weight)`.
Float arrays become float32, as Keras feeds them. `class_weight` becomes a weight per sample (the weight of its
class), and `steps` caps the batches of one epoch: the next epoch goes on where the last one stopped, and starts
the data again once it ran out (a repeated dataset never runs out).
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any

import numpy as np

from minitf.core.conversion import convert_to_tensor
from minitf.core.nest import map_structure
from minitf.keras.layers.keras_tensor import KerasTensor

# One batch as train_step, test_step and predict_step get it: (x, y, sample_weight), y and weights maybe None.
Batch = tuple[Any, Any, Any]


def is_dataset(data: Any) -> bool:
    return hasattr(data, "element_spec") and hasattr(data, "batch")


def as_array(value: Any) -> Any:
    if value is None:
        return None
    array = np.asarray(value)
    return array.astype("float32") if array.dtype.kind == "f" and array.dtype != np.float32 else array


def as_arrays(value: Any) -> Any:
    """An array, or a dict or list of arrays (a model with several inputs or outputs), as fit feeds them."""
    if isinstance(value, dict):
        return {key: as_array(item) for key, item in value.items()}
    if isinstance(value, list | tuple) and value and all(hasattr(item, "shape") for item in value):
        return [as_array(item) for item in value]
    return as_array(value)


def _rows(value: Any, rows: Any) -> Any:
    """The rows of every array in `value` (None stays None), as tensors."""
    if value is None:
        return None
    if isinstance(value, dict):
        return {key: convert_to_tensor(item[rows]) for key, item in value.items()}
    if isinstance(value, list):
        return [convert_to_tensor(item[rows]) for item in value]
    return convert_to_tensor(value[rows])


def _first(value: Any) -> Any:
    return next(iter(value.values())) if isinstance(value, dict) else value[0] if isinstance(value, list) else value


def unpack_x_y_sample_weight(data: Any) -> Batch:
    """`keras.utils.unpack_x_y_sample_weight`: (x, y, sample_weight) from `x`, `(x,)`, `(x, y)` or all three."""
    if isinstance(data, list):
        data = tuple(data)
    if not isinstance(data, tuple):
        return data, None, None
    if len(data) == 1:
        return data[0], None, None
    if len(data) == 2:
        return data[0], data[1], None
    if len(data) == 3:
        return data[0], data[1], data[2]
    raise ValueError(
        f"Data is expected to be in format `x`, `(x,)`, `(x, y)`, or `(x, y, sample_weight)`, found: {data}"
    )


def pack_x_y_sample_weight(x: Any, y: Any = None, sample_weight: Any = None) -> Any:
    """`keras.utils.pack_x_y_sample_weight`: the shortest tuple that holds what is given."""
    if y is None:
        return (x,) if isinstance(x, tuple | list) else x
    return (x, y) if sample_weight is None else (x, y, sample_weight)


def class_weight_to_sample_weights(y: Any, class_weight: dict[int, float]) -> np.ndarray:
    """Each sample weighs what its class does (1.0 for a class not listed); one-hot rows name their class by
    their largest entry, as in Keras."""
    labels = np.asarray(y)
    if labels.ndim > 1:
        labels = np.argmax(labels, axis=-1) if labels.shape[-1] != 1 else np.squeeze(labels, axis=-1)
    labels = np.round(labels).astype("int32")
    return np.array([class_weight.get(int(label), 1.0) for label in labels], dtype="float32")


class Batches:
    """One epoch's batches, as many times as asked for."""

    def __init__(
        self,
        x: Any,
        y: Any = None,
        batch_size: int | None = None,
        shuffle: bool = False,
        sample_weight: Any = None,
        class_weight: dict[int, float] | None = None,
        steps: int | None = None,
    ) -> None:
        self.dataset = x if is_dataset(x) else None
        self.shuffle = shuffle
        self.class_weight = class_weight
        self.steps_per_epoch = steps
        self._fixed: list[Batch] | None = None
        self._running: Iterator[Batch] | None = None  # with `steps`: the pass an epoch goes on with
        if self.dataset is None:
            self.x, self.y = as_arrays(x), as_arrays(y)
            if class_weight is not None and self.y is not None:
                sample_weight = class_weight_to_sample_weights(self.y, class_weight)
            self.sample_weight = as_array(sample_weight)
            self.batch_size = batch_size or 32
            self.count = len(_first(self.x))
            if self.y is not None and self.count != len(_first(self.y)):
                raise ValueError(
                    f"Data cardinality is ambiguous. Make sure all arrays contain the same number of "
                    f"samples.'x' sizes: {self.count}\n'y' sizes: {len(_first(self.y))}\n"
                )

    @property
    def steps(self) -> int | None:
        if self.steps_per_epoch is not None:
            return self.steps_per_epoch
        if self.dataset is not None:
            count = int(self.dataset.cardinality())
            return count if count >= 0 else None
        return math.ceil(self.count / self.batch_size)

    def symbolic_inputs(self) -> Any:
        """KerasTensors of the inputs' batch shapes: the batch size when all batches have it, else None."""
        if self.dataset is not None:
            x_spec, _, _ = unpack_x_y_sample_weight(self.dataset.element_spec)
            return map_structure(lambda spec: KerasTensor(spec.shape.as_list(), spec.dtype), x_spec)
        size = self.batch_size if self.count % self.batch_size == 0 else None
        return map_structure(lambda a: KerasTensor((size, *a.shape[1:]), a.dtype), self.x)

    def __iter__(self) -> Iterator[Batch]:
        if self.steps_per_epoch is None:
            yield from self._one_pass()
            return
        for step in range(self.steps_per_epoch):
            if self._running is None:
                self._running = self._one_pass()
            batch = next(self._running, None)
            if batch is None and step == 0:  # the last epoch used the data up: start it again
                self._running = self._one_pass()
                batch = next(self._running, None)
            if batch is None:
                self._running = None
                return
            yield batch

    def _one_pass(self) -> Iterator[Batch]:
        if self.dataset is not None:
            for element in self.dataset:
                x, y, weights = unpack_x_y_sample_weight(element)
                if self.class_weight is not None and y is not None:
                    weights = convert_to_tensor(class_weight_to_sample_weights(y, self.class_weight))
                yield x, y, weights
            return
        if not self.shuffle and self._fixed is not None:
            yield from self._fixed
            return
        order = np.random.permutation(self.count) if self.shuffle else None
        batches = []
        for start in range(0, self.count, self.batch_size):
            rows = slice(start, start + self.batch_size) if order is None else order[start : start + self.batch_size]
            batches.append((_rows(self.x, rows), _rows(self.y, rows), _rows(self.sample_weight, rows)))
            yield batches[-1]
        if not self.shuffle:
            self._fixed = batches  # the same batches every epoch: made once


def split_validation(x: Any, y: Any, sample_weight: Any, validation_split: float) -> tuple[Batch, Batch]:
    """The last `validation_split` of the samples are held out (before any shuffling), as in Keras."""
    if is_dataset(x):
        raise ValueError(
            "`validation_split` is only supported for Tensors or NumPy arrays, found following "
            f"types in the input: {[type(x)]}"
        )
    arrays = [as_array(a) for a in (x, y, sample_weight)]
    split_at = int(math.floor(len(arrays[0]) * (1.0 - validation_split)))
    kept = tuple(None if a is None else a[:split_at] for a in arrays)
    held_out = tuple(None if a is None else a[split_at:] for a in arrays)
    return kept, held_out  # type: ignore[return-value]
