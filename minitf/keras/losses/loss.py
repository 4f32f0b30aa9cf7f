"""The `Loss` object: per-sample values from `call`, weighted, then reduced to one number.

"sum_over_batch_size" (the default) divides the weighted sum by the number of values, so a sample weight of 0
still counts in the denominator, as in Keras; "mean_with_sample_weight" divides by the weights' sum instead.
"""

from __future__ import annotations

from typing import Any

import minitf.keras.naming as naming
from minitf.core.conversion import convert_to_tensor
from minitf.keras.losses.functions import same_rank
from minitf.ops.array.shape_ops import size
from minitf.ops.math.binary_math import divide_no_nan
from minitf.ops.math.cast import cast
from minitf.ops.math.comparisons import logical_and
from minitf.ops.math.reductions import reduce_sum

REDUCTIONS = ("sum_over_batch_size", "sum", None, "none", "mean", "mean_with_sample_weight")


def standardize_reduction(reduction: Any) -> Any:
    if reduction not in REDUCTIONS:
        allowed = "{" + ", ".join(repr(r) for r in REDUCTIONS) + "}"
        raise ValueError(
            f"Invalid value for argument `reduction`. Expected one of {allowed}. Received: reduction={reduction}"
        )
    return reduction


def reduce_weighted_values(values: Any, sample_weight: Any = None, reduction: Any = "sum_over_batch_size") -> Any:
    """Multiply by the sample weights (brought to the values' rank) and reduce as `reduction` says."""
    if sample_weight is not None:
        values, weight = same_rank(values, cast(convert_to_tensor(sample_weight), values.dtype))
        values = values * weight
    if reduction in (None, "none") or values.shape.rank == 0 or values.shape.as_list() == [0]:
        return values
    total = reduce_sum(values)
    if reduction == "sum":
        return total
    if reduction == "mean_with_sample_weight" and sample_weight is not None:
        return divide_no_nan(total, reduce_sum(cast(convert_to_tensor(sample_weight), total.dtype)))
    return divide_no_nan(total, cast(size(values), total.dtype))


def apply_mask(sample_weight: Any, mask: Any, dtype: Any, reduction: Any) -> Any:
    """The sample weights with a model output's mask folded in, as Keras does it: masked values weigh 0 and, for a
    mean over the batch, the others weigh total / valid, so the mean is taken over the unmasked values only."""
    if mask is None:
        return sample_weight
    weight = cast(mask, dtype)
    if reduction in ("mean", "sum_over_batch_size"):
        total = cast(size(weight), dtype)
        weight = weight * (total / (reduce_sum(weight) + 1e-7))
    if sample_weight is None:
        return weight
    weight, given = same_rank(weight, cast(convert_to_tensor(sample_weight), dtype))
    return given * weight


def _as_float32(value: Any) -> Any:
    """Inputs in the loss's dtype (float32), as Keras converts both `y_true` and `y_pred`."""
    tensor = convert_to_tensor(value)
    return tensor if tensor.dtype.name == "float32" else cast(tensor, "float32")


class Loss:
    """Subclass and write `call(y_true, y_pred)` returning one value per sample; `loss(y_true, y_pred)` reduces."""

    def __init__(self, name: str | None = None, reduction: Any = "sum_over_batch_size", dtype: Any = None) -> None:
        self.name = name or naming.snake_case(type(self).__name__)
        self.reduction = standardize_reduction(reduction)
        self.dtype = "float32" if dtype is None else str(getattr(dtype, "name", dtype))

    def __call__(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> Any:
        """The reduced loss; the steps a mask on `y_pred` (or on the values) hides do not count."""
        in_mask = getattr(y_pred, "_keras_mask", None)
        values = self.call(_as_float32(y_true), _as_float32(y_pred))
        out_mask = getattr(values, "_keras_mask", None)
        mask = in_mask if out_mask is None else out_mask if in_mask is None else logical_and(in_mask, out_mask)
        return reduce_weighted_values(
            values, apply_mask(sample_weight, mask, values.dtype, self.reduction), self.reduction
        )

    def call(self, y_true: Any, y_pred: Any) -> Any:
        raise NotImplementedError

    def get_config(self) -> dict[str, Any]:
        return {"name": self.name, "reduction": self.reduction}

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> Loss:
        return cls(**config)


class LossFunctionWrapper(Loss):
    """A loss object around a loss function and its keyword arguments (what compile makes of `loss="mae"`)."""

    def __init__(
        self, fn: Any, reduction: Any = "sum_over_batch_size", name: str | None = None, dtype: Any = None, **kwargs: Any
    ) -> None:
        super().__init__(name=name, reduction=reduction, dtype=dtype)
        self.fn, self._fn_kwargs = fn, kwargs

    def call(self, y_true: Any, y_pred: Any) -> Any:
        y_true, y_pred = same_rank(y_true, y_pred)
        return self.fn(y_true, y_pred, **self._fn_kwargs)

    def get_config(self) -> dict[str, Any]:
        function = {"module": "builtins", "class_name": "function", "config": self.fn.__name__}
        return {**super().get_config(), "fn": {**function, "registered_name": "function"}, **self._fn_kwargs}

    def __repr__(self) -> str:
        return f"<LossFunctionWrapper({self.fn}, kwargs={self._fn_kwargs})>"
