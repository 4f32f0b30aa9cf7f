"""Optimizers that scale the step by a running average of the gradients' size: SGD (with momentum, Nesterov),
RMSprop, Adagrad, Adadelta and Ftrl."""

from __future__ import annotations

from typing import Any

from minitf.keras.optimizers.optimizer import Optimizer
from minitf.ops.math.binary_math import clip_by_value, pow
from minitf.ops.math.unary_math import sqrt, square


class SGD(Optimizer):
    """`w -= lr * g`; with momentum, a velocity `m = momentum * m - lr * g` is added instead."""

    def __init__(
        self, learning_rate: Any = 0.01, momentum: float = 0.0, nesterov: bool = False, **options: Any
    ) -> None:
        super().__init__(learning_rate, **options)
        if not isinstance(momentum, float | int) or momentum < 0 or momentum > 1:
            raise ValueError("`momentum` must be a float between [0, 1].")
        self.momentum, self.nesterov = float(momentum), nesterov
        self.slot_names = ("momentum",) if self.momentum else ()

    def update_step(self, gradient: Any, variable: Any, learning_rate: Any) -> None:
        if not self.momentum:
            variable.assign_sub(gradient * learning_rate)
            return
        m = self.slot(variable, "momentum")
        m.assign(m * self.momentum - gradient * learning_rate)
        if self.nesterov:
            variable.assign_add(m * self.momentum - gradient * learning_rate)
        else:
            variable.assign_add(m)

    def get_config(self) -> dict[str, Any]:
        return {**super().get_config(), "momentum": self.momentum, "nesterov": self.nesterov}


class RMSprop(Optimizer):
    """Divide the step by a moving root mean square of recent gradients."""

    def __init__(
        self,
        learning_rate: Any = 0.001,
        rho: float = 0.9,
        momentum: float = 0.0,
        epsilon: float = 1e-7,
        centered: bool = False,
        **options: Any,
    ) -> None:
        super().__init__(learning_rate, **options)
        self.rho, self.momentum, self.epsilon, self.centered = rho, momentum, epsilon, centered

    def build_slots(self, variables: list[Any]) -> None:
        self.add_slots(variables, ("velocity",))
        if self.momentum > 0:
            self.add_slots(variables, ("momentum",))
        if self.centered:
            self.add_slots(variables, ("average_gradient",))

    def update_step(self, gradient: Any, variable: Any, learning_rate: Any) -> None:
        velocity = self.slot(variable, "velocity")
        velocity.assign(self.rho * velocity + (1 - self.rho) * square(gradient))
        if self.centered:
            average = self.slot(variable, "average_gradient")
            average.assign(self.rho * average + (1 - self.rho) * gradient)
            denominator: Any = velocity - square(average) + self.epsilon
        else:
            denominator = velocity + self.epsilon
        increment = learning_rate * gradient / sqrt(denominator)
        if self.momentum > 0:
            momentum = self.slot(variable, "momentum")
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


class Adagrad(Optimizer):
    """Each weight's step shrinks with the sum of its squared gradients so far."""

    def __init__(
        self,
        learning_rate: Any = 0.001,
        initial_accumulator_value: float = 0.1,
        epsilon: float = 1e-7,
        **options: Any,
    ) -> None:
        super().__init__(learning_rate, **options)
        self.initial_accumulator_value, self.epsilon = initial_accumulator_value, epsilon

    def build_slots(self, variables: list[Any]) -> None:
        self.add_slots(variables, ("accumulator",), initial=self.initial_accumulator_value)

    def update_step(self, gradient: Any, variable: Any, learning_rate: Any) -> None:
        accumulator = self.slot(variable, "accumulator")
        accumulator.assign_add(square(gradient))
        variable.assign_sub(learning_rate * gradient / sqrt(accumulator + self.epsilon))

    def get_config(self) -> dict[str, Any]:
        return {
            **super().get_config(),
            "initial_accumulator_value": self.initial_accumulator_value,
            "epsilon": self.epsilon,
        }


class Adadelta(Optimizer):
    """Steps sized by the ratio of recent update sizes to recent gradient sizes (moving averages with `rho`)."""

    slot_names = ("accumulated_grad", "accumulated_delta_var")

    def __init__(self, learning_rate: Any = 0.001, rho: float = 0.95, epsilon: float = 1e-7, **options: Any) -> None:
        super().__init__(learning_rate, **options)
        self.rho, self.epsilon = rho, epsilon

    def update_step(self, gradient: Any, variable: Any, learning_rate: Any) -> None:
        rho = self.rho
        grads, deltas = self.slot(variable, "accumulated_grad"), self.slot(variable, "accumulated_delta_var")
        grads.assign(rho * grads + (1 - rho) * square(gradient))
        delta = -(sqrt(deltas + self.epsilon) * gradient) / sqrt(grads + self.epsilon)
        deltas.assign(rho * deltas + (1 - rho) * square(delta))
        variable.assign_add(learning_rate * delta)

    def get_config(self) -> dict[str, Any]:
        return {**super().get_config(), "rho": self.rho, "epsilon": self.epsilon}


class Ftrl(Optimizer):
    """Follow The Regularized Leader: per-weight rates with L1/L2 penalties, for wide sparse linear models."""

    def __init__(
        self,
        learning_rate: Any = 0.001,
        learning_rate_power: float = -0.5,
        initial_accumulator_value: float = 0.1,
        l1_regularization_strength: float = 0.0,
        l2_regularization_strength: float = 0.0,
        l2_shrinkage_regularization_strength: float = 0.0,
        beta: float = 0.0,
        **options: Any,
    ) -> None:
        super().__init__(learning_rate, **options)
        for name, value, sign in (
            ("initial_accumulator_value", initial_accumulator_value, "positive or zero"),
            ("learning_rate_power", -learning_rate_power, "negative or zero"),
            ("l1_regularization_strength", l1_regularization_strength, "positive or zero"),
            ("l2_regularization_strength", l2_regularization_strength, "positive or zero"),
            ("l2_shrinkage_regularization_strength", l2_shrinkage_regularization_strength, "positive or zero"),
        ):
            if value < 0.0:
                shown = -value if name == "learning_rate_power" else value
                raise ValueError(f"`{name}` needs to be {sign}. Received: {name}={shown}.")
        self.learning_rate_power, self.initial_accumulator_value = learning_rate_power, initial_accumulator_value
        self.l1_regularization_strength = l1_regularization_strength
        self.l2_regularization_strength = l2_regularization_strength
        self.l2_shrinkage_regularization_strength = l2_shrinkage_regularization_strength
        self.beta = beta

    def build_slots(self, variables: list[Any]) -> None:
        for variable in variables:
            self._slots[id(variable)] = {
                "accumulator": self.add_variable_from_reference(
                    variable, "accumulator", self.initial_accumulator_value
                ),
                "linear": self.add_variable_from_reference(variable, "linear"),
            }

    def update_step(self, gradient: Any, variable: Any, learning_rate: Any) -> None:
        accumulator, linear = self.slot(variable, "accumulator"), self.slot(variable, "linear")
        power = -self.learning_rate_power
        l2 = self.l2_regularization_strength + self.beta / (2.0 * learning_rate)
        shrunk_gradient = gradient + 2 * self.l2_shrinkage_regularization_strength * variable
        new_accumulator = accumulator + square(gradient)
        sigma = (pow(new_accumulator, power) - pow(accumulator, power)) / learning_rate
        linear.assign_add(shrunk_gradient - sigma * variable)
        quadratic = pow(new_accumulator, power) / learning_rate + 2 * l2
        l1 = self.l1_regularization_strength
        variable.assign((clip_by_value(linear, -l1, l1) - linear) / quadratic)
        accumulator.assign(new_accumulator)

    def get_config(self) -> dict[str, Any]:
        return {
            **super().get_config(),
            "learning_rate_power": self.learning_rate_power,
            "initial_accumulator_value": self.initial_accumulator_value,
            "l1_regularization_strength": self.l1_regularization_strength,
            "l2_regularization_strength": self.l2_regularization_strength,
            "l2_shrinkage_regularization_strength": self.l2_shrinkage_regularization_strength,
            "beta": self.beta,
        }
