"""What every Keras optimizer does around its update rule: the step count, the learning rate (a number kept in a
variable, or a schedule called with the step count), gradient clipping, weight decay and a moving average of the
weights (EMA).

Each optimizer keeps `iterations` (the step count) and, for a fixed rate, `learning_rate` in variables, plus its
slots per weight (momentum, velocity, ...) made on the first `apply`. Update rules are Keras's, written with
minitf's ops, so they trace into the train step's graph.
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np

import minitf.keras.naming as naming
import minitf.keras.optimizers.schedules as schedules
from minitf.keras.variables import KerasVariable
from minitf.ops.linalg.norms import clip_by_global_norm, clip_by_norm
from minitf.ops.math.binary_math import clip_by_value
from minitf.ops.math.cast import cast
from minitf.ops.math.comparisons import equal, not_equal
from minitf.ops.variables import Variable

OPTIONS = (
    "weight_decay",
    "clipnorm",
    "global_clipnorm",
    "clipvalue",
    "use_ema",
    "ema_momentum",
    "ema_overwrite_frequency",
    "loss_scale_factor",
    "gradient_accumulation_steps",
)


class Optimizer:
    """Subclass: list `slot_names` (or override `build_slots`) and write `update_step(gradient, variable, lr)`."""

    slot_names: tuple[str, ...] = ()

    def __init__(
        self,
        learning_rate: Any,
        weight_decay: float | None = None,
        clipnorm: float | None = None,
        clipvalue: float | None = None,
        global_clipnorm: float | None = None,
        use_ema: bool = False,
        ema_momentum: float = 0.99,
        ema_overwrite_frequency: int | None = None,
        loss_scale_factor: float | None = None,
        gradient_accumulation_steps: int | None = None,
        name: str | None = None,
        **kwargs: Any,
    ) -> None:
        kwargs.pop("decay", None)
        if kwargs:
            raise ValueError(f"Argument(s) not recognized: {kwargs}")
        if sum(a is not None for a in (clipnorm, clipvalue, global_clipnorm)) > 1:
            raise ValueError(
                "Only one of `clipnorm`, `clipvalue` and `global_clipnorm` can be set. Received: "
                f"clipnorm={clipnorm}, clipvalue={clipvalue}, global_clipnorm={global_clipnorm}"
            )
        if gradient_accumulation_steps is not None:
            raise ValueError("minitf does not implement `gradient_accumulation_steps`: leave it at None")
        if use_ema and not 0 <= ema_momentum <= 1:
            raise ValueError(f"`ema_momentum` must be in the range [0, 1]. Received: ema_momentum={ema_momentum}")
        self.weight_decay, self.clipnorm, self.clipvalue, self.global_clipnorm = (
            weight_decay,
            clipnorm,
            clipvalue,
            global_clipnorm,
        )
        self.use_ema, self.ema_momentum, self.ema_overwrite_frequency = use_ema, ema_momentum, ema_overwrite_frequency
        self.loss_scale_factor, self.gradient_accumulation_steps = loss_scale_factor, gradient_accumulation_steps
        self.name = name or naming.unique_name(naming.snake_case(type(self).__name__))
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
        self._averages: list[Variable] = []
        self._excluded: set[int] = set()
        self._excluded_pattern: Any = None

    # --- the learning rate ---
    @property
    def learning_rate(self) -> Any:
        if isinstance(self._schedule, schedules.LearningRateSchedule):
            return self._schedule(self.iterations)
        if self._schedule is not None:
            return self._schedule()  # a plain callable takes no step, as in Keras
        return self._learning_rate

    @learning_rate.setter
    def learning_rate(self, value: Any) -> None:
        if self._learning_rate is None:
            raise TypeError(
                "This optimizer was created with a `LearningRateSchedule` object as its `learning_rate` constructor "
                "argument, hence its learning rate is not settable. If you need the learning rate to be settable, "
                "you should instantiate the optimizer with a float `learning_rate` argument."
            )
        self._learning_rate.assign(float(value))

    # --- variables ---
    @property
    def variables(self) -> list[Variable]:
        own = [self.iterations] + ([self._learning_rate] if self._learning_rate is not None else [])
        return own + self._slot_list

    def add_variable_from_reference(self, reference: Any, name: str, initial: float = 0.0) -> Variable:
        """A variable shaped like `reference`, named after its path (`dense_kernel_momentum`) as Keras names it."""
        path = getattr(reference, "path", reference.name).replace("/", "_").replace(":", "_")
        with naming.path_scope(self.name):
            slot = KerasVariable(
                lambda: np.full(reference.shape.as_list(), initial, reference.dtype.as_numpy_dtype),
                name=f"{path}_{name}",
                trainable=False,
                dtype=reference.dtype,
            )
        self._slot_list.append(slot)
        return slot

    def add_slots(self, variables: list[Variable], names: tuple[str, ...], initial: float = 0.0) -> None:
        """One slot of each name per weight, weight by weight (the order Keras creates them in)."""
        for variable in variables:
            slots = self._slots.setdefault(id(variable), {})
            for name in names:
                slots[name] = self.add_variable_from_reference(variable, name, initial)

    def slot(self, variable: Any, name: str) -> Any:
        return self._slots[id(variable)][name]

    def build(self, variables: list[Variable]) -> None:
        """Make the slots before tracing, so the graph only reads and assigns them."""
        if self.use_ema:
            self._averages = [self.add_variable_from_reference(v, "average") for v in variables]
        self.build_slots(variables)
        self.built = True

    def build_slots(self, variables: list[Variable]) -> None:
        self.add_slots(variables, self.slot_names)

    # --- one step ---
    def apply_gradients(self, grads_and_vars: Any) -> Any:
        grads, variables = zip(*list(grads_and_vars), strict=True)
        return self.apply(list(grads), list(variables))

    def apply(self, grads: list[Any], variables: list[Variable]) -> Any:
        if not self.built:
            self.build(variables)
        pairs = [(g, v) for g, v in zip(grads, variables, strict=True) if g is not None]
        if pairs:
            kept = [g if self.loss_scale_factor is None else g / self.loss_scale_factor for g, _ in pairs]
            kept = self._clip(kept)
            learning_rate = cast(self.learning_rate, "float32")
            self._decay_weights([v for _, v in pairs], learning_rate)
            self.before_updates()
            for grad, (_, variable) in zip(kept, pairs, strict=True):
                self.update_step(grad, variable, learning_rate)
        if self.use_ema:
            self._update_averages(variables)
        return self.iterations.assign_add(1)

    def scale_loss(self, loss: Any) -> Any:
        """The loss times `loss_scale_factor` (apply divides the gradients by it again)."""
        return loss if self.loss_scale_factor is None else loss * self.loss_scale_factor

    def before_updates(self) -> None:
        """Once per step before the per-weight updates (Nadam advances a running product here)."""

    def update_step(self, gradient: Any, variable: Any, learning_rate: Any) -> None:
        raise NotImplementedError

    def _clip(self, grads: list[Any]) -> list[Any]:
        if self.clipnorm:
            return [clip_by_norm(g, self.clipnorm) for g in grads]
        if self.global_clipnorm:
            return list(clip_by_global_norm(grads, self.global_clipnorm)[0])
        if self.clipvalue:
            return [clip_by_value(g, -self.clipvalue, self.clipvalue) for g in grads]
        return grads

    def exclude_from_weight_decay(self, var_list: Any = None, var_names: Any = None) -> None:
        """Weights (or weights whose name matches one of `var_names`) that weight decay leaves alone."""
        if self.built:
            raise ValueError("`exclude_from_weight_decay()` can only be configured before the optimizer is built.")
        self._excluded = {id(v) for v in var_list or []}
        self._excluded_pattern = re.compile("|".join(set(var_names))) if var_names else None

    def _decay_weights(self, variables: list[Any], learning_rate: Any) -> None:
        if self.weight_decay is None:
            return
        for variable in variables:
            excluded = id(variable) in self._excluded or (
                self._excluded_pattern is not None and self._excluded_pattern.search(variable.name)
            )
            if not excluded:
                variable.assign_sub(variable * float(self.weight_decay) * learning_rate)

    def _update_averages(self, variables: list[Any]) -> None:
        """Moving averages of the weights; `finalize_variable_values` (fit calls it at the end) copies them in."""
        momentum = cast(not_equal(self.iterations.read_value(), 0), "float32") * self.ema_momentum
        for variable, average in zip(variables, self._averages, strict=True):
            average.assign(momentum * average + (1 - momentum) * variable)
        if self.ema_overwrite_frequency:
            overwrite = equal((self.iterations.read_value() + 1) % self.ema_overwrite_frequency, 0)
            for variable, average in zip(variables, self._averages, strict=True):
                variable.assign(cast(overwrite, "float32") * average + (1 - cast(overwrite, "float32")) * variable)

    def finalize_variable_values(self, var_list: list[Any]) -> None:
        if self.use_ema:
            for variable, average in zip(var_list, self._averages, strict=True):
                variable.assign(average)

    # --- configs ---
    def get_config(self) -> dict[str, Any]:
        if isinstance(self._schedule, schedules.LearningRateSchedule):
            rate: Any = schedules.serialize(self._schedule)
        elif self._learning_rate is not None:
            rate = float(np.asarray(self._learning_rate))
        else:
            rate = self._schedule
        return {"name": self.name, "learning_rate": rate, **{option: getattr(self, option) for option in OPTIONS}}

    @classmethod
    def from_config(cls, config: dict[str, Any], custom_objects: dict[str, Any] | None = None) -> Optimizer:
        config = dict(config)
        if isinstance(config.get("learning_rate"), dict):
            config["learning_rate"] = schedules.deserialize(config["learning_rate"], custom_objects)
        return cls(**config)
