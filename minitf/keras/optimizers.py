"""`keras.optimizers`: SGD (with momentum, Nesterov), Adam, RMSprop, and the `ExponentialDecay` schedule.

Each optimizer keeps `iterations` (the step count) and, for a fixed rate, `learning_rate` in variables, plus
its slots per weight (momentum, velocity) made on the first `apply`. The update rules are Keras's, written with
minitf's ops, so they trace into the train step's graph.
"""

from __future__ import annotations

from typing import Any

import numpy as np

import minitf.keras.naming as naming
from minitf.keras.variables import KerasVariable
from minitf.ops.math.binary_math import pow as tf_pow
from minitf.ops.math.cast import cast
from minitf.ops.math.unary_math import floor, sqrt, square
from minitf.ops.variables import Variable


class ExponentialDecay:
    """`initial_learning_rate * decay_rate ** (step / decay_steps)` (the exponent floored with staircase)."""

    def __init__(
        self,
        initial_learning_rate: float,
        decay_steps: int,
        decay_rate: float,
        staircase: bool = False,
        name: str = "ExponentialDecay",
    ) -> None:
        self.initial_learning_rate, self.decay_steps = initial_learning_rate, decay_steps
        self.decay_rate, self.staircase, self.name = decay_rate, staircase, name

    def __call__(self, step: Any) -> Any:
        p = cast(step, "float32") / float(self.decay_steps)
        if self.staircase:
            p = floor(p)
        return self.initial_learning_rate * tf_pow(float(self.decay_rate), p)

    def get_config(self) -> dict[str, Any]:
        return {
            "initial_learning_rate": self.initial_learning_rate,
            "decay_steps": self.decay_steps,
            "decay_rate": self.decay_rate,
            "staircase": self.staircase,
            "name": self.name,
        }


class Optimizer:
    slot_names: tuple[str, ...] = ()

    def __init__(self, learning_rate: Any = 0.001, name: str | None = None, **kwargs: Any) -> None:
        self.name = naming.unique_name(name or naming.snake_case(type(self).__name__))
        self._schedule = learning_rate if callable(learning_rate) else None
        with naming.path_scope(self.name):
            self.iterations = KerasVariable(0, name="iteration", trainable=False, dtype="int64")
            self._learning_rate = (
                None
                if self._schedule
                else KerasVariable(float(learning_rate), name="learning_rate", trainable=False, dtype="float32")
            )
        self.built = False
        self._slots: dict[int, dict[str, Any]] = {}
        self._slot_list: list[Variable] = []

    @property
    def learning_rate(self) -> Any:
        return self._schedule(self.iterations) if self._schedule else self._learning_rate

    @learning_rate.setter
    def learning_rate(self, value: float) -> None:
        if self._learning_rate is None:
            raise TypeError("This optimizer was created with a learning rate schedule: its rate cannot be set.")
        self._learning_rate.assign(float(value))

    @property
    def variables(self) -> list[Variable]:
        own = [self.iterations] + ([self._learning_rate] if self._learning_rate is not None else [])
        return own + self._slot_list

    def build(self, variables: list[Variable]) -> None:
        """Make the slots (zeros shaped like each weight); before tracing, so the graph only reads them."""
        with naming.path_scope(self.name):
            for variable in variables:
                slots = {}
                for slot in self.slot_names:
                    path = getattr(variable, "path", variable.name).replace("/", "_")
                    slots[slot] = KerasVariable(
                        lambda v=variable: v.numpy() * 0, name=f"{path}_{slot}", trainable=False, dtype=variable.dtype
                    )
                    self._slot_list.append(slots[slot])
                self._slots[id(variable)] = slots
        self.built = True

    def apply_gradients(self, grads_and_vars: Any) -> Any:
        grads, variables = zip(*list(grads_and_vars), strict=True)
        return self.apply(list(grads), list(variables))

    def apply(self, grads: list[Any], variables: list[Variable]) -> Any:
        if not self.built:
            self.build(variables)
        learning_rate = cast(self.learning_rate, "float32")
        for grad, variable in zip(grads, variables, strict=True):
            if grad is not None:
                self.update_step(grad, variable, learning_rate)
        return self.iterations.assign_add(1)

    def update_step(self, gradient: Any, variable: Any, learning_rate: Any) -> None:
        raise NotImplementedError

    def get_config(self) -> dict[str, Any]:
        rate = self._schedule.get_config() if self._schedule else float(np.asarray(self._learning_rate))
        return {"name": self.name, "learning_rate": rate}


class SGD(Optimizer):
    """`w -= lr * g`; with momentum, a velocity `m = momentum * m - lr * g` is added instead."""

    def __init__(
        self,
        learning_rate: Any = 0.01,
        momentum: float = 0.0,
        nesterov: bool = False,
        name: str | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(learning_rate, name, **kwargs)
        self.momentum, self.nesterov = float(momentum), nesterov
        self.slot_names = ("momentum",) if self.momentum else ()

    def update_step(self, gradient: Any, variable: Any, learning_rate: Any) -> None:
        if not self.momentum:
            variable.assign_sub(gradient * learning_rate)
            return
        m = self._slots[id(variable)]["momentum"]
        m.assign(m * self.momentum - gradient * learning_rate)
        if self.nesterov:
            variable.assign_add(m * self.momentum - gradient * learning_rate)
        else:
            variable.assign_add(m)

    def get_config(self) -> dict[str, Any]:
        return {**super().get_config(), "momentum": self.momentum, "nesterov": self.nesterov}


class Adam(Optimizer):
    """Moving averages of the gradient (m) and its square (v), bias-corrected through the step size."""

    slot_names = ("momentum", "velocity")

    def __init__(
        self,
        learning_rate: Any = 0.001,
        beta_1: float = 0.9,
        beta_2: float = 0.999,
        epsilon: float = 1e-7,
        amsgrad: bool = False,
        name: str | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(learning_rate, name, **kwargs)
        self.beta_1, self.beta_2, self.epsilon, self.amsgrad = beta_1, beta_2, epsilon, amsgrad

    def update_step(self, gradient: Any, variable: Any, learning_rate: Any) -> None:
        step = cast(self.iterations.read_value() + 1, variable.dtype)
        beta_1_power, beta_2_power = tf_pow(self.beta_1, step), tf_pow(self.beta_2, step)
        alpha = learning_rate * sqrt(1 - beta_2_power) / (1 - beta_1_power)
        m, v = self._slots[id(variable)]["momentum"], self._slots[id(variable)]["velocity"]
        m.assign_add((gradient - m) * (1 - self.beta_1))
        v.assign_add((square(gradient) - v) * (1 - self.beta_2))
        variable.assign_sub((m * alpha) / (sqrt(v) + self.epsilon))

    def get_config(self) -> dict[str, Any]:
        return {
            **super().get_config(),
            "beta_1": self.beta_1,
            "beta_2": self.beta_2,
            "epsilon": self.epsilon,
            "amsgrad": self.amsgrad,
        }


class RMSprop(Optimizer):
    """Divide the step by a moving root mean square of recent gradients."""

    def __init__(
        self,
        learning_rate: Any = 0.001,
        rho: float = 0.9,
        momentum: float = 0.0,
        epsilon: float = 1e-7,
        centered: bool = False,
        name: str | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(learning_rate, name, **kwargs)
        self.rho, self.momentum, self.epsilon, self.centered = rho, momentum, epsilon, centered
        self.slot_names = (
            ("velocity",) + (("momentum",) if momentum > 0 else ()) + (("average_gradient",) if centered else ())
        )

    def update_step(self, gradient: Any, variable: Any, learning_rate: Any) -> None:
        slots = self._slots[id(variable)]
        velocity = slots["velocity"]
        velocity.assign(self.rho * velocity + (1 - self.rho) * square(gradient))
        if self.centered:
            average = slots["average_gradient"]
            average.assign(self.rho * average + (1 - self.rho) * gradient)
            denominator: Any = velocity - square(average) + self.epsilon
        else:
            denominator = velocity + self.epsilon
        increment = learning_rate * gradient / sqrt(denominator)
        if self.momentum > 0:
            momentum = slots["momentum"]
            momentum.assign(self.momentum * momentum + increment)
            variable.assign_sub(momentum)
        else:
            variable.assign_sub(increment)

    def get_config(self) -> dict[str, Any]:
        return {
            **super().get_config(),
            "rho": self.rho,
            "momentum": self.momentum,
            "epsilon": self.epsilon,
            "centered": self.centered,
        }


_BY_NAME: dict[str, type[Optimizer]] = {"sgd": SGD, "adam": Adam, "rmsprop": RMSprop}


def get(identifier: Any) -> Optimizer:
    """An optimizer for a name (`"adam"`: Keras's defaults) or the optimizer given."""
    if isinstance(identifier, str):
        if identifier.lower() not in _BY_NAME:
            raise ValueError(f"Could not interpret optimizer identifier: {identifier}")
        return _BY_NAME[identifier.lower()]()
    if isinstance(identifier, Optimizer):
        return identifier
    raise ValueError(f"Could not interpret optimizer identifier: {identifier}")
