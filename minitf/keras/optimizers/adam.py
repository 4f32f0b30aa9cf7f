"""Optimizers built on Adam's two moving averages (of the gradient and of its square): Adam, AdamW, Adamax,
Nadam, Lamb, Lion, and Adafactor (which keeps the second one factored into row and column averages)."""

from __future__ import annotations

from typing import Any

import numpy as np

from minitf.keras.optimizers.optimizer import Optimizer
from minitf.keras.variables import KerasVariable
from minitf.ops.array.shape_ops import expand_dims
from minitf.ops.array.where import where
from minitf.ops.math.binary_math import maximum, minimum, pow
from minitf.ops.math.cast import cast
from minitf.ops.math.reductions import reduce_mean, reduce_sum
from minitf.ops.math.unary_math import abs, sign, sqrt, square


class _Moments(Optimizer):
    """Keeps `beta_1`, `beta_2`, `epsilon`; a slot `momentum` (and another) per weight."""

    def __init__(
        self,
        learning_rate: Any = 0.001,
        beta_1: float = 0.9,
        beta_2: float = 0.999,
        epsilon: float = 1e-7,
        **options: Any,
    ) -> None:
        super().__init__(learning_rate, **options)
        self.beta_1, self.beta_2, self.epsilon = beta_1, beta_2, epsilon

    def step(self) -> Any:
        """This update's step number, counted from 1, as a float."""
        return cast(self.iterations.read_value() + 1, "float32")

    def update_moments(self, gradient: Any, variable: Any) -> tuple[Any, Any]:
        m, v = self.slot(variable, "momentum"), self.slot(variable, "velocity")
        m.assign_add((gradient - m) * (1 - self.beta_1))
        v.assign_add((square(gradient) - v) * (1 - self.beta_2))
        return m, v

    def get_config(self) -> dict[str, Any]:
        return {**super().get_config(), "beta_1": self.beta_1, "beta_2": self.beta_2, "epsilon": self.epsilon}


class Adam(_Moments):
    """Moving averages of the gradient (m) and its square (v), bias-corrected through the step size."""

    slot_names = ("momentum", "velocity")

    def __init__(
        self,
        learning_rate: Any = 0.001,
        beta_1: float = 0.9,
        beta_2: float = 0.999,
        epsilon: float = 1e-7,
        amsgrad: bool = False,
        **options: Any,
    ) -> None:
        super().__init__(learning_rate, beta_1, beta_2, epsilon, **options)
        self.amsgrad = amsgrad

    def build_slots(self, variables: list[Any]) -> None:
        self.add_slots(variables, self.slot_names)
        if self.amsgrad:
            self.add_slots(variables, ("velocity_hat",))

    def update_step(self, gradient: Any, variable: Any, learning_rate: Any) -> None:
        step = self.step()
        alpha = learning_rate * sqrt(1 - pow(self.beta_2, step)) / (1 - pow(self.beta_1, step))
        m, v = self.update_moments(gradient, variable)
        if self.amsgrad:  # the largest second moment seen so far
            v_hat = self.slot(variable, "velocity_hat")
            v_hat.assign(maximum(v_hat, v))
            v = v_hat
        variable.assign_sub((m * alpha) / (sqrt(v) + self.epsilon))

    def get_config(self) -> dict[str, Any]:
        return {**super().get_config(), "amsgrad": self.amsgrad}


class AdamW(Adam):
    """Adam with weight decay applied to the weights directly (decoupled from the gradient)."""

    def __init__(
        self,
        learning_rate: Any = 0.001,
        weight_decay: float = 0.004,
        beta_1: float = 0.9,
        beta_2: float = 0.999,
        epsilon: float = 1e-7,
        amsgrad: bool = False,
        **options: Any,
    ) -> None:
        if weight_decay is None:
            raise ValueError("Argument `weight_decay` must be a float. Received: weight_decay=None")
        super().__init__(learning_rate, beta_1, beta_2, epsilon, amsgrad, weight_decay=weight_decay, **options)


class Adamax(_Moments):
    """Adam with the infinity norm: the second moment is a decaying maximum of |gradient|."""

    slot_names = ("momentum", "norm")

    def update_step(self, gradient: Any, variable: Any, learning_rate: Any) -> None:
        m, u = self.slot(variable, "momentum"), self.slot(variable, "norm")
        m.assign_add((gradient - m) * (1 - self.beta_1))
        u.assign(maximum(self.beta_2 * u, abs(gradient)))
        variable.assign_sub(learning_rate * m / ((1 - pow(self.beta_1, self.step())) * (u + self.epsilon)))


class Nadam(_Moments):
    """Adam with Nesterov momentum: the momentum term looks one step ahead, with a warming-up `beta_1`."""

    slot_names = ("momentum", "velocity")

    def build_slots(self, variables: list[Any]) -> None:
        super().build_slots(variables)
        self._u_product = KerasVariable(1.0, name="variable", trainable=False, dtype="float32")
        self._slot_list.append(self._u_product)

    def _u(self, step: Any) -> Any:
        return self.beta_1 * (1.0 - 0.5 * pow(0.96, step))

    def before_updates(self) -> None:
        self._u_product.assign(self._u_product * self._u(self.step()))

    def update_step(self, gradient: Any, variable: Any, learning_rate: Any) -> None:
        step = self.step()
        u_t, u_next = self._u(step), self._u(step + 1)
        u_product = self._u_product.read_value()
        m, v = self.update_moments(gradient, variable)
        m_hat = u_next * m / (1 - u_product * u_next) + (1 - u_t) * gradient / (1 - u_product)
        v_hat = v / (1 - pow(self.beta_2, step))
        variable.assign_sub(m_hat * learning_rate / (sqrt(v_hat) + self.epsilon))


class Lamb(_Moments):
    """Adam's step rescaled per weight by the ratio of the weight's norm to the step's norm (for large batches)."""

    slot_names = ("momentum", "velocity")

    def update_step(self, gradient: Any, variable: Any, learning_rate: Any) -> None:
        step = self.step()
        m, v = self.update_moments(gradient, variable)
        update = (m / (1.0 - pow(self.beta_1, step))) / (sqrt(v / (1.0 - pow(self.beta_2, step))) + self.epsilon)
        weight_norm, update_norm = sqrt(reduce_sum(square(variable))), sqrt(reduce_sum(square(update)))
        ratio = where(weight_norm > 0, where(update_norm > 0, weight_norm / update_norm, 1.0), 1.0)
        variable.assign_sub(ratio * learning_rate * update)


class Lion(Optimizer):
    """Steps of equal size per weight: the sign of an interpolation between momentum and gradient."""

    slot_names = ("momentum",)

    def __init__(self, learning_rate: Any = 0.001, beta_1: float = 0.9, beta_2: float = 0.99, **options: Any) -> None:
        super().__init__(learning_rate, **options)
        self.beta_1, self.beta_2 = beta_1, beta_2
        if beta_1 <= 0 or beta_1 > 1:
            raise ValueError(
                "Argument `beta_1` must be in the [0, 1] range. Otherwise, the optimizer degenerates to SignSGD. "
                f"Received: beta_1={beta_1}."
            )

    def update_step(self, gradient: Any, variable: Any, learning_rate: Any) -> None:
        m = self.slot(variable, "momentum")
        variable.assign_sub(learning_rate * sign(m * self.beta_1 + gradient * (1.0 - self.beta_1)))
        m.assign(m * self.beta_2 + gradient * (1.0 - self.beta_2))

    def get_config(self) -> dict[str, Any]:
        return {**super().get_config(), "beta_1": self.beta_1, "beta_2": self.beta_2}


class Adafactor(Optimizer):
    """Adam's second moment kept as row and column averages for matrices (memory of a vector, not a matrix);
    steps are relative to the weights' own scale."""

    def __init__(
        self,
        learning_rate: Any = 0.001,
        beta_2_decay: float = -0.8,
        epsilon_1: float = 1e-30,
        epsilon_2: float = 0.001,
        clip_threshold: float = 1.0,
        relative_step: bool = True,
        **options: Any,
    ) -> None:
        super().__init__(learning_rate, **options)
        self.beta_2_decay, self.epsilon_1, self.epsilon_2 = beta_2_decay, epsilon_1, epsilon_2
        self.clip_threshold, self.relative_step = clip_threshold, relative_step

    def build_slots(self, variables: list[Any]) -> None:
        for variable in variables:
            shape = variable.shape.as_list()
            if len(shape) < 2:  # Keras keeps scalar placeholders for vectors' row and column averages
                row: Any = KerasVariable(0, name=variable.name, trainable=False, dtype="int32")
                column: Any = KerasVariable(0, name=variable.name, trainable=False, dtype="int32")
                self._slot_list += [row, column]
            else:
                row = self._zeros(variable, shape[:-1])
                column = self._zeros(variable, shape[:-2] + shape[-1:])
            self._slots[id(variable)] = {"row": row, "column": column}
            self._slots[id(variable)]["velocity"] = self.add_variable_from_reference(variable, "velocity")

    def _zeros(self, variable: Any, shape: list[int]) -> KerasVariable:
        made = KerasVariable(lambda: np.zeros(shape, "float32"), name=variable.name, trainable=False)
        self._slot_list.append(made)
        return made

    def update_step(self, gradient: Any, variable: Any, learning_rate: Any) -> None:
        step = cast(self.iterations.read_value() + 1, "float32")
        if self._schedule is None and self.relative_step:
            learning_rate = minimum(learning_rate, 1 / sqrt(step))
        slots = self.slot(variable, "row"), self.slot(variable, "column"), self.slot(variable, "velocity")
        row, column, velocity = slots
        rho = minimum(learning_rate, 1 / sqrt(step))
        alpha = maximum(self.epsilon_2, sqrt(reduce_mean(square(variable)))) * rho
        squared = square(gradient) + self.epsilon_1
        beta_2 = 1 - pow(step, self.beta_2_decay)
        if variable.shape.rank >= 2:
            row.assign(beta_2 * row + (1 - beta_2) * reduce_mean(squared, axis=-1))
            column.assign(beta_2 * column + (1 - beta_2) * reduce_mean(squared, axis=-2))
            normalized_row = row / reduce_mean(row, axis=-1, keepdims=True)
            velocity.assign(expand_dims(normalized_row, -1) * expand_dims(column, -2))
        else:
            velocity.assign(beta_2 * velocity + (1 - beta_2) * squared)
        u = gradient / sqrt(velocity)
        u_hat = u / maximum(1.0, sqrt(reduce_mean(square(u))) / self.clip_threshold)
        variable.assign_sub(alpha * u_hat)

    def get_config(self) -> dict[str, Any]:
        return {
            **super().get_config(),
            "beta_2_decay": self.beta_2_decay,
            "epsilon_1": self.epsilon_1,
            "epsilon_2": self.epsilon_2,
            "clip_threshold": self.clip_threshold,
            "relative_step": self.relative_step,
        }
