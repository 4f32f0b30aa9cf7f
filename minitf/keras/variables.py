"""The weights of a layer: a minitf `tf.Variable` that also knows its Keras `path` and prints as Keras prints it."""

from __future__ import annotations

from typing import Any

import numpy as np

import minitf.keras.naming as naming
from minitf.ops.variables import Variable


class KerasVariable(Variable):
    """A `tf.Variable` named like Keras's (`kernel`) with the path of the layers it was built in (`dense/kernel`)."""

    def __init__(self, initial_value: Any, name: str, trainable: bool = True, dtype: Any = None) -> None:
        super().__init__(initial_value, trainable=trainable, name=name, dtype=dtype)
        self.path = naming.current_path(name)
        self._keras_name = name
        self._regularizer: Any = None  # a penalty for layer.losses, from add_weight(regularizer=...)

    @property
    def name(self) -> str:  # Keras 3 names have no `:0`
        return self._keras_name

    @property
    def trainable(self) -> bool:
        return self._trainable

    @trainable.setter
    def trainable(self, value: bool) -> None:
        self._trainable = bool(value)

    def __repr__(self) -> str:
        return (
            f"<Variable path={self.path}, shape={tuple(self.shape.as_list())}, dtype={self.dtype.name}, "
            f"value={np.asarray(self.numpy())}>"
        )

    __str__ = __repr__
