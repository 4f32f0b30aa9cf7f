"""`keras.optimizers.schedules`: learning rates that change with the step count.

An optimizer given a schedule calls it with its `iterations` at every update, inside the traced train step, so
each schedule is written with minitf ops on a float step.
"""

from __future__ import annotations

import math
from typing import Any

import minitf.left_out as left_out
from minitf.core.conversion import convert_to_tensor
from minitf.ops.array.where import where
from minitf.ops.math.binary_math import minimum, pow
from minitf.ops.math.cast import cast
from minitf.ops.math.comparisons import equal, logical_and
from minitf.ops.math.trigonometry import cos
from minitf.ops.math.unary_math import ceil, floor, log

LEFT_OUT: dict[str, str] = {}
__getattr__ = left_out.module_getattr("tf.keras.optimizers.schedules", LEFT_OUT)


class LearningRateSchedule:
    """Subclass and write `__call__(step)` and `get_config()`."""

    def __call__(self, step: Any) -> Any:
        raise NotImplementedError(
            f"Learning rate schedule '{type(self).__name__}' must override `__call__(self, step)`."
        )

    def get_config(self) -> dict[str, Any]:
        raise NotImplementedError(
            f"Learning rate schedule '{type(self).__name__}' must override `get_config()` in order to be serializable."
        )

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> LearningRateSchedule:
        return cls(**config)


def _check_steps(name: str, steps: Any) -> None:
    if steps <= 0:
        raise ValueError(f"Argument `{name}` must be > 0. Received: {name}={steps}")


def _float_step(step: Any) -> Any:
    return cast(step, "float32")


class ExponentialDecay(LearningRateSchedule):
    """`initial_learning_rate * decay_rate ** (step / decay_steps)` (the exponent floored with staircase)."""

    def __init__(
        self,
        initial_learning_rate: float,
        decay_steps: int,
        decay_rate: float,
        staircase: bool = False,
        name: str = "ExponentialDecay",
    ) -> None:
        self.initial_learning_rate, self.decay_steps, self.decay_rate = initial_learning_rate, decay_steps, decay_rate
        self.staircase, self.name = staircase, name
        _check_steps("decay_steps", decay_steps)

    def __call__(self, step: Any) -> Any:
        p = _float_step(step) / float(self.decay_steps)
        if self.staircase:
            p = floor(p)
        return self.initial_learning_rate * pow(float(self.decay_rate), p)

    def get_config(self) -> dict[str, Any]:
        return {
            "initial_learning_rate": self.initial_learning_rate,
            "decay_steps": self.decay_steps,
            "decay_rate": self.decay_rate,
            "staircase": self.staircase,
            "name": self.name,
        }


class InverseTimeDecay(ExponentialDecay):
    """`initial_learning_rate / (1 + decay_rate * step / decay_steps)`."""

    def __init__(
        self,
        initial_learning_rate: float,
        decay_steps: int,
        decay_rate: float,
        staircase: bool = False,
        name: str = "InverseTimeDecay",
    ) -> None:
        super().__init__(initial_learning_rate, decay_steps, decay_rate, staircase, name)

    def __call__(self, step: Any) -> Any:
        p = _float_step(step) / float(self.decay_steps)
        if self.staircase:
            p = floor(p)
        return self.initial_learning_rate / (1.0 + float(self.decay_rate) * p)


class PiecewiseConstantDecay(LearningRateSchedule):
    """`values[0]` up to `boundaries[0]`, `values[1]` up to `boundaries[1]`, ..., the last value after."""

    def __init__(self, boundaries: list[Any], values: list[Any], name: str = "PiecewiseConstant") -> None:
        if len(boundaries) != len(values) - 1:
            raise ValueError(
                "The length of boundaries should be 1 less than the length of values. Received: "
                f"boundaries={boundaries} of length {len(boundaries)}, and values={values} of length {len(values)}."
            )
        self.boundaries, self.values, self.name = boundaries, values, name

    def __call__(self, step: Any) -> Any:
        step = convert_to_tensor(step)
        dtype = convert_to_tensor(self.values[0]).dtype
        bounds = [cast(b, step.dtype) for b in self.boundaries]
        result = cast(step <= bounds[0], dtype) * self.values[0] + cast(step > bounds[-1], dtype) * self.values[-1]
        for low, high, value in zip(bounds[:-1], bounds[1:], self.values[1:-1], strict=True):
            result += cast(logical_and(step > low, step <= high), dtype) * value
        return result

    def get_config(self) -> dict[str, Any]:
        return {"boundaries": self.boundaries, "values": self.values, "name": self.name}


class PolynomialDecay(LearningRateSchedule):
    """From the initial rate to `end_learning_rate` along `(1 - step / decay_steps) ** power`; with `cycle`,
    the decay restarts over ever longer spans instead of staying at the end rate."""

    def __init__(
        self,
        initial_learning_rate: float,
        decay_steps: int,
        end_learning_rate: float = 0.0001,
        power: float = 1.0,
        cycle: bool = False,
        name: str = "PolynomialDecay",
    ) -> None:
        self.initial_learning_rate, self.decay_steps, self.end_learning_rate = (
            initial_learning_rate,
            decay_steps,
            end_learning_rate,
        )
        self.power, self.cycle, self.name = power, cycle, name
        _check_steps("decay_steps", decay_steps)

    def __call__(self, step: Any) -> Any:
        step, decay_steps = _float_step(step), float(self.decay_steps)
        if self.cycle:
            spans = where(equal(step, 0.0), 1.0, ceil(step / decay_steps))
            p = step / (decay_steps * spans)
        else:
            p = minimum(step, decay_steps) / decay_steps
        span = self.initial_learning_rate - self.end_learning_rate
        return span * pow(1.0 - p, float(self.power)) + self.end_learning_rate

    def get_config(self) -> dict[str, Any]:
        return {
            "initial_learning_rate": self.initial_learning_rate,
            "decay_steps": self.decay_steps,
            "end_learning_rate": self.end_learning_rate,
            "power": self.power,
            "cycle": self.cycle,
            "name": self.name,
        }


def _cosine(fraction: Any, alpha: float) -> Any:
    """From 1 at fraction 0 down to `alpha` at fraction 1, along half a cosine."""
    return (1 - alpha) * (0.5 * (1.0 + cos(math.pi * fraction))) + alpha


class CosineDecay(LearningRateSchedule):
    """Half a cosine from the initial rate down to `alpha` times it, after an optional linear warmup."""

    def __init__(
        self,
        initial_learning_rate: float,
        decay_steps: int,
        alpha: float = 0.0,
        name: str = "CosineDecay",
        warmup_target: float | None = None,
        warmup_steps: int = 0,
    ) -> None:
        self.initial_learning_rate, self.decay_steps, self.alpha, self.name = (
            initial_learning_rate,
            decay_steps,
            alpha,
            name,
        )
        self.warmup_target, self.warmup_steps = warmup_target, warmup_steps
        _check_steps("decay_steps", decay_steps)

    def __call__(self, step: Any) -> Any:
        step, decay_steps = _float_step(step), float(self.decay_steps)
        if self.warmup_target is None:
            return self.initial_learning_rate * _cosine(minimum(step, decay_steps) / decay_steps, self.alpha)
        warmup_steps = float(self.warmup_steps)
        step = minimum(step, decay_steps + warmup_steps)
        rise = (self.warmup_target - self.initial_learning_rate) * (step / warmup_steps) + self.initial_learning_rate
        fall = self.warmup_target * _cosine((step - warmup_steps) / decay_steps, self.alpha)
        return where(step < warmup_steps, rise, fall)

    def get_config(self) -> dict[str, Any]:
        return {
            "initial_learning_rate": self.initial_learning_rate,
            "decay_steps": self.decay_steps,
            "alpha": self.alpha,
            "name": self.name,
            "warmup_target": self.warmup_target,
            "warmup_steps": self.warmup_steps,
        }


class CosineDecayRestarts(LearningRateSchedule):
    """Cosine decay that restarts: each period `t_mul` times longer and its peak `m_mul` times lower."""

    def __init__(
        self,
        initial_learning_rate: float,
        first_decay_steps: int,
        t_mul: float = 2.0,
        m_mul: float = 1.0,
        alpha: float = 0.0,
        name: str = "SGDRDecay",
    ) -> None:
        self.initial_learning_rate, self.first_decay_steps = initial_learning_rate, first_decay_steps
        self._t_mul, self._m_mul, self.alpha, self.name = t_mul, m_mul, alpha, name
        _check_steps("first_decay_steps", first_decay_steps)

    def __call__(self, step: Any) -> Any:
        fraction = _float_step(step) / float(self.first_decay_steps)
        t_mul = float(self._t_mul)
        if t_mul == 1.0:
            restart = floor(fraction)
            fraction = fraction - restart
        else:  # periods grow geometrically: find which one `fraction` falls in
            restart = floor(log(1.0 - fraction * (1.0 - t_mul)) / math.log(t_mul))
            done = (1.0 - pow(t_mul, restart)) / (1.0 - t_mul)
            fraction = (fraction - done) / pow(t_mul, restart)
        peak = pow(float(self._m_mul), restart)
        cosine = 0.5 * peak * (1.0 + cos(math.pi * fraction))
        return self.initial_learning_rate * ((1 - self.alpha) * cosine + self.alpha)

    def get_config(self) -> dict[str, Any]:
        return {
            "initial_learning_rate": self.initial_learning_rate,
            "first_decay_steps": self.first_decay_steps,
            "t_mul": self._t_mul,
            "m_mul": self._m_mul,
            "alpha": self.alpha,
            "name": self.name,
        }


SCHEDULES = [
    CosineDecay,
    CosineDecayRestarts,
    ExponentialDecay,
    InverseTimeDecay,
    PiecewiseConstantDecay,
    PolynomialDecay,
]


def serialize(schedule: LearningRateSchedule) -> dict[str, Any]:
    return {
        "module": "keras.optimizers.schedules",
        "class_name": type(schedule).__name__,
        "config": schedule.get_config(),
        "registered_name": None,
    }


def deserialize(config: dict[str, Any], custom_objects: dict[str, Any] | None = None) -> LearningRateSchedule:
    known = {cls.__name__: cls for cls in SCHEDULES} | (custom_objects or {})
    if config["class_name"] not in known:
        raise ValueError(f"Could not interpret decay identifier: {config['class_name']}")
    return known[config["class_name"]].from_config(config["config"])
