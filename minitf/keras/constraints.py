"""`keras.constraints`: a projection applied to a weight after each optimizer step (`Dense(kernel_constraint=...)`),
keeping it non-negative or its norms within bounds."""

from __future__ import annotations

from typing import Any

import minitf.keras.naming as naming
import minitf.left_out as left_out
from minitf.core.conversion import convert_to_tensor
from minitf.keras.backend import epsilon
from minitf.keras.identifiers import Family
from minitf.ops.math.binary_math import clip_by_value, maximum
from minitf.ops.math.reductions import reduce_sum
from minitf.ops.math.unary_math import sqrt, square

LEFT_OUT: dict[str, str] = {}
__getattr__ = left_out.module_getattr("tf.keras.constraints", LEFT_OUT)


class Constraint:
    """Subclass and write `__call__(w)` returning the projected weight."""

    def __call__(self, w: Any) -> Any:
        return w

    def get_config(self) -> dict[str, Any]:
        return {}

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> Constraint:
        return cls(**config)


def _norms(w: Any, axis: Any) -> Any:
    return sqrt(reduce_sum(square(w), axis=axis, keepdims=True))


class MaxNorm(Constraint):
    """Scale down each slice along `axis` (each unit's incoming weights) whose norm exceeds `max_value`."""

    def __init__(self, max_value: float = 2, axis: Any = 0) -> None:
        self.max_value, self.axis = max_value, axis

    def __call__(self, w: Any) -> Any:
        w = convert_to_tensor(w)
        norms = _norms(w, self.axis)
        return w * (clip_by_value(norms, 0.0, float(self.max_value)) / (epsilon() + norms))

    def get_config(self) -> dict[str, Any]:
        return {"max_value": self.max_value, "axis": self.axis}


class NonNeg(Constraint):
    """Negative weights become zero."""

    def __call__(self, w: Any) -> Any:
        return maximum(convert_to_tensor(w), 0.0)


class UnitNorm(Constraint):
    """Each slice along `axis` scaled to norm 1."""

    def __init__(self, axis: Any = 0) -> None:
        self.axis = axis

    def __call__(self, w: Any) -> Any:
        w = convert_to_tensor(w)
        return w / (epsilon() + _norms(w, self.axis))

    def get_config(self) -> dict[str, Any]:
        return {"axis": self.axis}


class MinMaxNorm(Constraint):
    """Each slice's norm moved into [min_value, max_value], by the fraction `rate` of the way per step."""

    def __init__(self, min_value: float = 0.0, max_value: float = 1.0, rate: float = 1.0, axis: Any = 0) -> None:
        self.min_value, self.max_value, self.rate, self.axis = min_value, max_value, rate, axis

    def __call__(self, w: Any) -> Any:
        w = convert_to_tensor(w)
        norms = _norms(w, self.axis)
        clipped = clip_by_value(norms, float(self.min_value), float(self.max_value))
        desired = self.rate * clipped + (1 - self.rate) * norms
        return w * (desired / (epsilon() + norms))

    def get_config(self) -> dict[str, Any]:
        return {"min_value": self.min_value, "max_value": self.max_value, "rate": self.rate, "axis": self.axis}


max_norm, non_neg, unit_norm, min_max_norm = MaxNorm, NonNeg, UnitNorm, MinMaxNorm
CLASSES: list[type[Constraint]] = [Constraint, MaxNorm, MinMaxNorm, NonNeg, UnitNorm]
BY_NAME: dict[str, type[Constraint]] = {
    **{cls.__name__: cls for cls in CLASSES},
    **{naming.snake_case(cls.__name__): cls for cls in CLASSES},
}


_FAMILY = Family("constraint", "keras.constraints", BY_NAME, LEFT_OUT)
serialize, deserialize, get = _FAMILY.serialize, _FAMILY.deserialize, _FAMILY.get
