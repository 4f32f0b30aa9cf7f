"""The `Metric` object and the reductions most metrics are: `Sum`, `Mean`, and `MeanMetricWrapper` (the mean
of a per-sample function, which is what accuracies and the loss-like metrics are).

A metric keeps its running state in variables (`add_weight`), updated inside the compiled train step, so it
costs a few ops per batch; `result()` reads them, `reset_state()` sets them back to zero.
"""

from __future__ import annotations

from typing import Any

import minitf.keras.initializers as initializers
import minitf.keras.naming as naming
from minitf.core.conversion import convert_to_tensor
from minitf.keras.losses.functions import same_rank
from minitf.keras.losses.loss import apply_mask
from minitf.keras.variables import KerasVariable
from minitf.ops.array.creation import zeros
from minitf.ops.array.shape_ops import shape
from minitf.ops.math.binary_math import divide_no_nan
from minitf.ops.math.cast import cast
from minitf.ops.math.elementwise import broadcast_like
from minitf.ops.math.reductions import reduce_mean, reduce_sum


class Metric:
    """Subclass: make state with `add_weight` in `__init__`, write `update_state(...)` and `result()`."""

    def __init__(self, dtype: Any = None, name: str | None = None) -> None:
        self.name = name or naming.unique_name(naming.snake_case(type(self).__name__))
        self.dtype = "float32" if dtype is None else str(getattr(dtype, "name", dtype))
        self._variables: list[KerasVariable] = []

    def add_variable(
        self, shape: Any, initializer: Any, dtype: Any = None, aggregation: str = "sum", name: str | None = None
    ) -> KerasVariable:
        """A state variable, not trainable, named `metric_name/name` as in Keras."""
        if not hasattr(self, "_variables"):
            raise RuntimeError("You forgot to call `super().__init__()` in the `__init__()` method. Go add it!")
        fill = initializers.get(initializer if initializer is not None else "zeros")
        dtype = dtype or self.dtype
        with naming.path_scope(self.name.replace("/", ">")):
            variable = KerasVariable(
                lambda: fill(tuple(shape), dtype=dtype), name=name or "variable", trainable=False, dtype=dtype
            )
        self._variables.append(variable)
        return variable

    def add_weight(self, shape: Any = (), initializer: Any = None, dtype: Any = None, name: str | None = None) -> Any:
        return self.add_variable(shape=shape, initializer=initializer, dtype=dtype, name=name)

    @property
    def variables(self) -> list[KerasVariable]:
        found = list(self._variables)
        for value in vars(self).values():  # metrics kept inside this one (as attributes) count too
            if isinstance(value, Metric) and value is not self:
                found.extend(value.variables)
        return found

    def reset_state(self) -> None:
        for variable in self.variables:
            variable.assign(zeros(variable.shape, variable.dtype))

    def update_state(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError

    def result(self) -> Any:
        raise NotImplementedError

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if not hasattr(self, "_variables"):
            raise RuntimeError("You forgot to call `super().__init__()` in the `__init__()` method. Go add it!")
        self.update_state(*args, **kwargs)
        return self.result()

    def get_config(self) -> dict[str, Any]:
        return {"name": self.name, "dtype": self.dtype}

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> Metric:
        return cls(**config)

    def __repr__(self) -> str:
        return f"<{type(self).__name__} name={self.name}>"

    __str__ = __repr__


def reduce_to_samplewise_values(values: Any, sample_weight: Any, reduce: Any, dtype: str) -> tuple[Any, Any]:
    """One value per sample (reducing the axes past the weights'), weighted; and the weights per sample."""
    values = cast(convert_to_tensor(values), dtype)
    if sample_weight is not None:
        sample_weight = cast(convert_to_tensor(sample_weight), dtype)
        values, sample_weight = same_rank(values, sample_weight)
        weight_rank, values_rank = sample_weight.shape.rank, values.shape.rank
        if values_rank > weight_rank:
            values = reduce(values, axis=list(range(weight_rank, values_rank)))
        sample_weight = broadcast_like(sample_weight, values)
        values = values * sample_weight
        if weight_rank > 1:
            sample_weight = reduce(sample_weight, axis=list(range(1, weight_rank)))
    if values.shape.rank > 1:
        values = reduce(values, axis=list(range(1, values.shape.rank)))
    return values, sample_weight


class Sum(Metric):
    """The (weighted) sum of every value given so far."""

    def __init__(self, name: str = "sum", dtype: Any = None) -> None:
        super().__init__(name=name, dtype=dtype)
        self.total = self.add_variable(shape=(), initializer="zeros", dtype=self.dtype, name="total")

    def update_state(self, values: Any, sample_weight: Any = None) -> None:
        values, _ = reduce_to_samplewise_values(values, sample_weight, reduce_sum, self.dtype)
        self.total.assign_add(reduce_sum(values))

    def result(self) -> Any:
        return cast(self.total, self.dtype)


class Mean(Metric):
    """The (weighted) mean of every value given to `update_state` so far."""

    def __init__(self, name: str = "mean", dtype: Any = None) -> None:
        super().__init__(name=name, dtype=dtype)
        self.total = self.add_variable(shape=(), initializer="zeros", dtype=self.dtype, name="total")
        self.count = self.add_variable(shape=(), initializer="zeros", dtype=self.dtype, name="count")

    def update_state(self, values: Any, sample_weight: Any = None) -> None:
        values, sample_weight = reduce_to_samplewise_values(values, sample_weight, reduce_mean, self.dtype)
        self.total.assign_add(reduce_sum(values))
        if sample_weight is not None:
            samples: Any = reduce_sum(sample_weight)
        elif values.shape.rank >= 1:
            samples = shape(values)[0]
        else:
            samples = 1
        self.count.assign_add(cast(samples, self.dtype))

    def result(self) -> Any:
        # divide_no_nan: an empty metric (total 0, count 0) is 0, not nan
        return divide_no_nan(self.total, self.count)


class MeanMetricWrapper(Mean):
    """The mean of a per-sample function `fn(y_true, y_pred, **kwargs)` (accuracies are this)."""

    def __init__(self, fn: Any, name: str | None = None, dtype: Any = None, **kwargs: Any) -> None:
        super().__init__(name=name, dtype=dtype)  # type: ignore[arg-type]
        self._fn, self._fn_kwargs = fn, kwargs

    def update_state(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> None:  # type: ignore[override]
        mask = getattr(y_pred, "_keras_mask", None)  # steps a model output's mask hides do not count
        y_pred = convert_to_tensor(y_pred)
        if y_pred.dtype.is_floating and y_pred.dtype.name != self.dtype:
            y_pred = cast(y_pred, self.dtype)
        values = self._fn(convert_to_tensor(y_true), y_pred, **self._fn_kwargs)
        super().update_state(values, apply_mask(sample_weight, mask, self.dtype, "sum"))

    def get_config(self) -> dict[str, Any]:
        function = {"module": "builtins", "class_name": "function", "config": self._fn.__name__}
        return {**super().get_config(), "fn": {**function, "registered_name": "function"}, **self._fn_kwargs}


class _Wrapper(MeanMetricWrapper):
    """A MeanMetricWrapper subclass: Keras's default name, options (with defaults) passed on to the function,
    and a config of the name, the dtype and the options listed in `configured`."""

    function: Any = None
    default_name = ""
    options: dict[str, Any] = {}
    configured: tuple[str, ...] = ()

    def __init__(self, name: str | None = None, dtype: Any = None, **kwargs: Any) -> None:
        unknown = set(kwargs) - set(self.options)
        if unknown:
            raise TypeError(f"{type(self).__name__}.__init__() got an unexpected keyword argument '{unknown.pop()}'")
        options = {**self.options, **kwargs}
        super().__init__(type(self).function, name=name or self.default_name, dtype=dtype, **options)
        for key, value in options.items():
            setattr(self, key, value)

    def get_config(self) -> dict[str, Any]:
        return {"name": self.name, "dtype": self.dtype, **{key: self._fn_kwargs[key] for key in self.configured}}


def wrapper(
    class_name: str, function: Any, default_name: str, options: dict[str, Any] | None = None, configured: Any = None
) -> type[_Wrapper]:
    """A metric class averaging `function` per sample, with Keras's default name and options."""
    options = options or {}
    attributes = {
        "function": staticmethod(function),
        "default_name": default_name,
        "options": options,
        "configured": tuple(options) if configured is None else tuple(configured),
    }
    return type(class_name, (_Wrapper,), attributes)
