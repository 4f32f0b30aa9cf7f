"""The arguments many layers share, read and written back the way Keras does: weight options (initializer,
regularizer, constraint), sizes given as an int or a tuple, padding and data format."""

from __future__ import annotations

from typing import Any

import minitf.keras.initializers as initializers
import minitf.keras.regularizers as regularizers
from minitf.keras.serialization import serialize


class WeightOptions:
    """How one weight of a layer (`kernel`, `bias`, ...) is made: initializer, regularizer, constraint."""

    def __init__(self, initializer: Any, regularizer: Any = None, constraint: Any = None) -> None:
        self.initializer = initializers.get(initializer)
        self.regularizer = regularizers.get(regularizer)
        self.constraint = constraint

    def config(self, prefix: str, constraint: bool = True) -> dict[str, Any]:
        entries = {
            f"{prefix}_initializer": serialize(self.initializer, "keras.initializers"),
            f"{prefix}_regularizer": serialize(self.regularizer, "keras.regularizers"),
        }
        if constraint:
            entries[f"{prefix}_constraint"] = _serialize_constraint(self.constraint)
        return entries


def _serialize_constraint(constraint: Any) -> Any:
    if constraint is None or not hasattr(constraint, "get_config"):
        return constraint
    return serialize(constraint, "keras.constraints")


def add_weight(layer: Any, name: str, shape: Any, options: WeightOptions, trainable: bool = True) -> Any:
    return layer.add_weight(
        shape,
        options.initializer,
        trainable=trainable,
        regularizer=options.regularizer,
        constraint=options.constraint,
        name=name,
    )


def int_tuple(value: Any, rank: int, name: str) -> tuple[int, ...]:
    """`3` -> `(3, 3)` for rank 2; a tuple must have `rank` ints, as Keras checks."""
    if isinstance(value, int):
        return (value,) * rank
    values = tuple(value)
    if len(values) != rank or not all(isinstance(v, int) for v in values):
        raise ValueError(f"The `{name}` argument must be a tuple of {rank} integers. Received {name}={value}")
    return values


def padding_mode(padding: str, allowed: tuple[str, ...] = ("valid", "same")) -> str:
    mode = str(padding).lower()
    if mode not in allowed:
        raise ValueError(
            f"The `padding` argument must be a list/tuple or one of {', '.join(allowed)}. Received: {padding}"
        )
    return mode


def channels_last(data_format: str | None) -> str:
    """minitf's images and sequences are channels last (TensorFlow's CPU kernels want that layout too)."""
    if data_format in (None, "channels_last"):
        return "channels_last"
    if data_format == "channels_first":
        raise ValueError(
            "minitf's layers take channels-last inputs only (batch, ..., channels); data_format='channels_first' "
            "is left out. Transpose the input with tf.transpose or use data_format='channels_last'."
        )
    raise ValueError(
        f"The `data_format` argument must be one of {{'channels_first', 'channels_last'}}. Received: {data_format}"
    )
