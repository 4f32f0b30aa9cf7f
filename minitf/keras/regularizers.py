"""`keras.regularizers`: a penalty on a weight, added to the loss `fit` minimises (`layer.losses`)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

import minitf.keras.naming as naming
import minitf.left_out as left_out
from minitf.keras.identifiers import Family
from minitf.ops.array.creation import eye
from minitf.ops.linalg.linalg_ops import matmul
from minitf.ops.math.binary_math import maximum
from minitf.ops.math.reductions import reduce_sum
from minitf.ops.math.unary_math import abs, rsqrt, square

LEFT_OUT: dict[str, str] = {}
__getattr__ = left_out.module_getattr("tf.keras.regularizers", LEFT_OUT)


def _non_negative(value: Any, name: str) -> float:
    if not isinstance(value, float | int) or math.isinf(value) or math.isnan(value) or value < 0:
        raise ValueError(f"Invalid value for argument {name}: expected a non-negative float.Received: {name}={value}")
    return float(value)


def _as_float32(value: float) -> float:
    """The value as Keras reports it for L1 and OrthogonalRegularizer, which keep it in a float32 tensor."""
    return float(np.float32(value))


class Regularizer:
    """Subclass and write `__call__(weight)` returning a scalar penalty."""

    def __call__(self, weight: Any) -> Any:
        return 0.0

    def get_config(self) -> dict[str, Any]:
        raise NotImplementedError(f"{type(self).__name__} does not implement get_config()")

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> Regularizer:
        return cls(**config)


class L1L2(Regularizer):
    """`l1 * sum(|w|) + l2 * sum(w ** 2)`."""

    def __init__(self, l1: float = 0.0, l2: float = 0.0) -> None:
        self.l1 = _non_negative(0.0 if l1 is None else l1, "l1")
        self.l2 = _non_negative(0.0 if l2 is None else l2, "l2")

    def __call__(self, weight: Any) -> Any:
        penalty: Any = 0.0
        if self.l1:
            penalty = penalty + self.l1 * reduce_sum(abs(weight))
        if self.l2:
            penalty = penalty + self.l2 * reduce_sum(square(weight))
        return penalty

    def get_config(self) -> dict[str, Any]:
        return {"l1": self.l1, "l2": self.l2}


class L1(Regularizer):
    """`l1 * sum(|w|)`: pushes weights to exactly zero."""

    def __init__(self, l1: float = 0.01) -> None:
        self.l1 = _non_negative(0.01 if l1 is None else l1, "l1")

    def __call__(self, weight: Any) -> Any:
        return self.l1 * reduce_sum(abs(weight))

    def get_config(self) -> dict[str, Any]:
        return {"l1": _as_float32(self.l1)}


class L2(Regularizer):
    """`l2 * sum(weight ** 2)`: keeps weights small."""

    def __init__(self, l2: float = 0.01) -> None:
        self.l2 = _non_negative(0.01 if l2 is None else l2, "l2")

    def __call__(self, weight: Any) -> Any:
        return self.l2 * reduce_sum(square(weight))

    def get_config(self) -> dict[str, Any]:
        return {"l2": self.l2}


class OrthogonalRegularizer(Regularizer):
    """Penalises the cosine similarity between different rows (or columns) of a 2-D weight."""

    def __init__(self, factor: float = 0.01, mode: str = "rows") -> None:
        self.factor = _non_negative(factor, "factor")
        if mode not in ("rows", "columns"):
            raise ValueError(
                f'Invalid value for argument `mode`. Expected one of {{"rows", "columns"}}. Received: mode={mode}'
            )
        self.mode = mode

    def __call__(self, weight: Any) -> Any:
        if weight.shape.rank != 2:
            shape = tuple(weight.shape.as_list())
            raise ValueError(f"Inputs to OrthogonalRegularizer must have rank 2. Received: inputs.shape={shape}")
        axis = 1 if self.mode == "rows" else 0
        unit = weight * rsqrt(maximum(reduce_sum(square(weight), axis=axis, keepdims=True), 1e-12))
        product = matmul(unit, unit, transpose_b=True) if self.mode == "rows" else matmul(unit, unit, transpose_a=True)
        size = weight.shape[0] if self.mode == "rows" else weight.shape[1]
        off_diagonal = product * (1.0 - eye(size, dtype=weight.dtype))
        return self.factor * 0.5 * reduce_sum(abs(off_diagonal)) / (size * (size - 1.0) / 2.0)

    def get_config(self) -> dict[str, Any]:
        return {"factor": _as_float32(self.factor), "mode": self.mode}


l1, l2, l1_l2, orthogonal_regularizer = L1, L2, L1L2, OrthogonalRegularizer
ALL = [L1, L1L2, L2, OrthogonalRegularizer]
BY_NAME: dict[str, type[Regularizer]] = {
    **{cls.__name__: cls for cls in [*ALL, Regularizer]},
    **{naming.snake_case(cls.__name__): cls for cls in [*ALL, Regularizer]},
    "l1l2": L1L2,
}


_FAMILY = Family("regularizer", "keras.regularizers", BY_NAME, LEFT_OUT)
serialize, deserialize, get = _FAMILY.serialize, _FAMILY.deserialize, _FAMILY.get
