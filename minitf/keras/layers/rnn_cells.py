"""The recurrent cells: one time step of SimpleRNN, LSTM and GRU, each a function
`(inputs, states) -> (output, new states)` with Keras's weights (kernel, recurrent_kernel, bias) in Keras's
gate order, so weights copied from Keras give the same numbers. The RNN layer (rnn.py) loops a cell over time."""

from __future__ import annotations

from typing import Any

import minitf.keras.activations as activations
from minitf.keras.layers.layer import Layer
from minitf.keras.layers.options import WeightOptions, add_weight
from minitf.ops.array import creation, join_split
from minitf.ops.linalg.linalg_ops import matmul
from minitf.ops.nn.dropout import dropout


class RecurrentCell(Layer):
    """What the three cells share: units, activations, the three weights' options, dropout on the inputs and
    on the carried state (one mask per sequence, as Keras draws it)."""

    gates = 1

    def __init__(
        self,
        units: int,
        activation: Any = "tanh",
        use_bias: bool = True,
        kernel_initializer: Any = "glorot_uniform",
        recurrent_initializer: Any = "orthogonal",
        bias_initializer: Any = "zeros",
        kernel_regularizer: Any = None,
        recurrent_regularizer: Any = None,
        bias_regularizer: Any = None,
        kernel_constraint: Any = None,
        recurrent_constraint: Any = None,
        bias_constraint: Any = None,
        dropout: float = 0.0,
        recurrent_dropout: float = 0.0,
        seed: int | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        if units <= 0:
            raise ValueError(
                f"Received an invalid value for argument `units`, expected a positive integer, got {units}."
            )
        self.units, self.use_bias, self.seed = int(units), use_bias, seed
        self.activation = activations.get(activation)
        self.options = {
            "kernel": WeightOptions(kernel_initializer, kernel_regularizer, kernel_constraint),
            "recurrent": WeightOptions(recurrent_initializer, recurrent_regularizer, recurrent_constraint),
            "bias": WeightOptions(bias_initializer, bias_regularizer, bias_constraint),
        }
        self.dropout = min(1.0, max(0.0, dropout))
        self.recurrent_dropout = min(1.0, max(0.0, recurrent_dropout))
        self.state_size: Any = self.units
        self.output_size = self.units
        self._masks: dict[str, Any] = {}

    def build(self, input_shape: Any) -> None:
        size = self.gates * self.units
        self.kernel = add_weight(self, "kernel", (input_shape[-1], size), self.options["kernel"])
        self.recurrent_kernel = add_weight(self, "recurrent_kernel", (self.units, size), self.options["recurrent"])
        self.bias = add_weight(self, "bias", self._bias_shape(), self.options["bias"]) if self.use_bias else None

    def _bias_shape(self) -> tuple[int, ...]:
        return (self.gates * self.units,)

    def reset_dropout_masks(self) -> None:
        """A new sequence: the next step draws new dropout masks."""
        self._masks = {}

    def _dropped(self, x: Any, which: str, rate: float, training: bool | None) -> Any:
        if not training or rate == 0:
            return x
        if which not in self._masks:
            self._masks[which] = dropout(creation.ones_like(x), rate=rate, seed=self.seed)
        return x * self._masks[which]

    def _weight_config(self, *extra: tuple[str, Any]) -> dict[str, Any]:
        config = {
            f"{name}_initializer": self.options[name].config(name)[f"{name}_initializer"] for name in self.options
        }
        config.update(extra)
        for kind in ("regularizer", "constraint"):
            config.update(
                {f"{name}_{kind}": self.options[name].config(name)[f"{name}_{kind}"] for name in self.options}
            )
        return config

    def get_config(self) -> dict[str, Any]:
        return {
            **super().get_config(),
            "units": self.units,
            "activation": activations.serialize(self.activation),
            "use_bias": self.use_bias,
            **self._weight_config(),
            "dropout": self.dropout,
            "recurrent_dropout": self.recurrent_dropout,
            "seed": self.seed,
        }

    def get_initial_state(self, batch_size: int | None = None) -> list[Any]:
        sizes = self.state_size if isinstance(self.state_size, list) else [self.state_size]
        return [creation.zeros([batch_size, size]) for size in sizes]


class SimpleRNNCell(RecurrentCell):
    """`h = activation(x @ kernel + h_prev @ recurrent_kernel + bias)`."""

    def call(self, inputs: Any, states: Any, training: bool | None = None) -> tuple[Any, Any]:
        previous = states[0] if isinstance(states, list | tuple) else states
        x = matmul(self._dropped(inputs, "input", self.dropout, training), self.kernel)
        if self.bias is not None:
            x = x + self.bias
        previous_dropped = self._dropped(previous, "state", self.recurrent_dropout, training)
        output = self.activation(x + matmul(previous_dropped, self.recurrent_kernel))
        return output, [output] if isinstance(states, list | tuple) else output


class LSTMCell(RecurrentCell):
    """A long short-term memory step: input, forget and output gates and a candidate (Keras's order i, f, c, o)
    update the carried cell state `c`; the output is `o * activation(c)`."""

    gates = 4

    def __init__(
        self, units: int, recurrent_activation: Any = "sigmoid", unit_forget_bias: bool = True, **kwargs: Any
    ) -> None:
        super().__init__(units, **kwargs)
        self.recurrent_activation = activations.get(recurrent_activation)
        self.unit_forget_bias = unit_forget_bias
        self.state_size = [self.units, self.units]

    def build(self, input_shape: Any) -> None:
        if self.use_bias and self.unit_forget_bias:
            zeros, ones = self.options["bias"].initializer, _ones

            def forget_bias(shape: Any, dtype: Any = None) -> Any:
                units = shape[0] // 4
                return join_split.concat(
                    [zeros((units,), dtype), ones((units,), dtype), zeros((2 * units,), dtype)], axis=0
                )

            bias_options = self.options["bias"]
            self.options["bias"] = WeightOptions(forget_bias, bias_options.regularizer, bias_options.constraint)
            super().build(input_shape)
            self.options["bias"] = bias_options
        else:
            super().build(input_shape)

    def call(self, inputs: Any, states: Any, training: bool | None = None) -> tuple[Any, list[Any]]:
        h_previous, c_previous = states
        z = matmul(self._dropped(inputs, "input", self.dropout, training), self.kernel)
        z = z + matmul(self._dropped(h_previous, "state", self.recurrent_dropout, training), self.recurrent_kernel)
        if self.bias is not None:
            z = z + self.bias
        i, f, c, o = join_split.split(z, 4, axis=-1)
        i, f, o = self.recurrent_activation(i), self.recurrent_activation(f), self.recurrent_activation(o)
        cell = f * c_previous + i * self.activation(c)
        h = o * self.activation(cell)
        return h, [h, cell]

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config["recurrent_activation"] = activations.serialize(self.recurrent_activation)
        config["unit_forget_bias"] = self.unit_forget_bias
        return config


def _ones(shape: Any, dtype: Any = None) -> Any:
    return creation.ones(shape, dtype or "float32")


class GRUCell(RecurrentCell):
    """A gated recurrent unit step (Keras's gate order z, r, h): the update gate `z` mixes the previous state
    with a candidate computed from the input and the reset-gated previous state."""

    gates = 3

    def __init__(
        self, units: int, recurrent_activation: Any = "sigmoid", reset_after: bool = True, **kwargs: Any
    ) -> None:
        super().__init__(units, **kwargs)
        self.recurrent_activation = activations.get(recurrent_activation)
        self.reset_after = reset_after

    def _bias_shape(self) -> tuple[int, ...]:
        return (2, 3 * self.units) if self.reset_after else (3 * self.units,)

    def call(self, inputs: Any, states: Any, training: bool | None = None) -> tuple[Any, Any]:
        h_previous = states[0] if isinstance(states, list | tuple) else states
        x = matmul(self._dropped(inputs, "input", self.dropout, training), self.kernel)
        h_dropped = self._dropped(h_previous, "state", self.recurrent_dropout, training)
        input_bias, recurrent_bias = (
            (join_split.unstack(self.bias) if self.reset_after else (self.bias, None))
            if (self.bias is not None)
            else (None, None)
        )
        if input_bias is not None:
            x = x + input_bias
        x_z, x_r, x_h = join_split.split(x, 3, axis=-1)
        if self.reset_after:
            inner = matmul(h_dropped, self.recurrent_kernel)
            if recurrent_bias is not None:
                inner = inner + recurrent_bias
            r_z, r_r, r_h = join_split.split(inner, 3, axis=-1)
            z, r = self.recurrent_activation(x_z + r_z), self.recurrent_activation(x_r + r_r)
            candidate = self.activation(x_h + r * r_h)
        else:
            kernel_z, kernel_r, kernel_h = join_split.split(self.recurrent_kernel, 3, axis=-1)
            z = self.recurrent_activation(x_z + matmul(h_dropped, kernel_z))
            r = self.recurrent_activation(x_r + matmul(h_dropped, kernel_r))
            candidate = self.activation(x_h + matmul(r * h_dropped, kernel_h))
        h = z * h_previous + (1 - z) * candidate
        return h, [h] if isinstance(states, list | tuple) else h

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config["recurrent_activation"] = activations.serialize(self.recurrent_activation)
        config["reset_after"] = self.reset_after
        return config
