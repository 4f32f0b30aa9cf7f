"""Recurrent layers: `RNN` loops a cell (rnn_cells.py) over the time axis of (batch, time, features) inputs;
SimpleRNN, LSTM and GRU are an RNN with their cell, configured flat as Keras configures them;
StackedRNNCells runs several cells as one.

The loop is a Python loop over the time steps, so the tape records each step and gradients flow back through
time. In a functional model the output shape comes from the cell's sizes (no tracing), so a sequence length
of None (`keras.Input((None, 8))`) works."""

from __future__ import annotations

from typing import Any

from minitf.keras.layers.input_spec import InputSpec
from minitf.keras.layers.keras_tensor import KerasTensor
from minitf.keras.layers.layer import Layer
from minitf.keras.layers.layer_serialization import deserialize as deserialize_layer
from minitf.keras.layers.layer_serialization import serialize
from minitf.keras.layers.rnn_cells import GRUCell, LSTMCell, RecurrentCell, SimpleRNNCell
from minitf.keras.serialization import deserialize
from minitf.ops.array import creation, join_split, slicing
from minitf.ops.array.shape_ops import expand_dims
from minitf.ops.array.where import where


def state_sizes(size: Any) -> list[int]:
    return list(size) if isinstance(size, list | tuple) else [size]


class StackedRNNCells(Layer):
    """Several cells as one: each step runs them in order, each feeding the next; the states are all of theirs."""

    def __init__(self, cells: list[Any], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.cells = list(cells)

    @property
    def state_size(self) -> list[int]:
        return [size for cell in self.cells for size in state_sizes(cell.state_size)]

    @property
    def output_size(self) -> int:
        return int(self.cells[-1].output_size)

    def build(self, input_shape: Any) -> None:
        for cell in self.cells:
            cell.build(input_shape)
            cell.built = True
            input_shape = (input_shape[0], cell.output_size)

    def reset_dropout_masks(self) -> None:
        for cell in self.cells:
            cell.reset_dropout_masks()

    def call(self, inputs: Any, states: Any, training: bool | None = None) -> tuple[Any, list[Any]]:
        new_states, start = [], 0
        for cell in self.cells:
            count = len(state_sizes(cell.state_size))
            inputs, cell_states = cell.call(inputs, list(states[start : start + count]), training=training)
            new_states.extend(cell_states)
            start += count
        return inputs, new_states

    def get_config(self) -> dict[str, Any]:
        return {**super().get_config(), "cells": [serialize(cell) for cell in self.cells]}

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> Layer:
        config = dict(config)
        config["cells"] = [deserialize_layer(cell) for cell in config["cells"]]
        return super().from_config(config)


class RNN(Layer):
    """`cell` applied at each time step, its states carried to the next; returns the last output (or all of
    them with `return_sequences`) and, with `return_state`, the final states."""

    def __init__(
        self,
        cell: Any,
        return_sequences: bool = False,
        return_state: bool = False,
        go_backwards: bool = False,
        stateful: bool = False,
        unroll: bool = False,
        zero_output_for_mask: bool = False,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        if isinstance(cell, list | tuple):
            cell = StackedRNNCells(list(cell))
        if not hasattr(cell, "call") or not hasattr(cell, "state_size"):
            raise ValueError(
                f"Argument `cell` should have a `call` method and a `state_size` attribute. Received: cell={cell}"
            )
        if stateful:
            raise ValueError(
                "minitf's recurrent layers leave out stateful=True (states carried from one batch to the next); "
                "pass the states yourself with `initial_state` and `return_state=True`."
            )
        self.cell = cell
        self.return_sequences, self.return_state, self.go_backwards = return_sequences, return_state, go_backwards
        self.stateful, self.unroll, self.zero_output_for_mask = stateful, unroll, zero_output_for_mask
        self.input_spec = InputSpec(min_ndim=3)

    def build(self, input_shape: Any) -> None:
        sequence_shape = input_shape[0] if isinstance(input_shape, list) else input_shape
        self.cell.build((sequence_shape[0], *sequence_shape[2:]))
        self.cell.built = True

    def call(self, inputs: Any, initial_state: Any = None, training: bool | None = None, mask: Any = None) -> Any:
        if isinstance(inputs, list):
            inputs, initial_state = inputs[0], inputs[1:]
        mask = mask[0] if isinstance(mask, list | tuple) else mask
        states = list(initial_state) if initial_state is not None else self._zero_states(inputs)
        self.cell.reset_dropout_masks()
        steps = join_split.unstack(inputs, axis=1)
        keeps = [None] * len(steps) if mask is None else join_split.unstack(expand_dims(mask, -1), axis=1)
        if self.go_backwards:
            steps, keeps = steps[::-1], keeps[::-1]
        outputs: list[Any] = []
        for step, keep in zip(steps, keeps, strict=True):
            output, new_states = self.cell.call(step, states, training=training)
            new_states = list(new_states) if isinstance(new_states, list | tuple) else [new_states]
            if keep is not None:  # a masked step keeps the states and repeats the output (or gives zeros)
                before = outputs[-1] if outputs and not self.zero_output_for_mask else creation.zeros_like(output)
                output = where(keep, output, before)
                new_states = [where(keep, new, old) for new, old in zip(new_states, states, strict=True)]
            states = new_states
            outputs.append(output)
        result = join_split.stack(outputs, axis=1) if self.return_sequences else outputs[-1]
        return [result, *states] if self.return_state else result

    def compute_mask(self, inputs: Any, mask: Any = None) -> Any:
        """The input's mask goes on with the sequence of outputs; the last output and the states have none."""
        mask = mask[0] if isinstance(mask, list | tuple) else mask
        output_mask = mask if self.return_sequences else None
        return [output_mask, *[None for _ in state_sizes(self.cell.state_size)]] if self.return_state else output_mask

    def _zero_states(self, inputs: Any) -> list[Any]:
        """Zeros of shape (batch, size) for each state, made from the input so an unknown batch size works."""
        column = creation.zeros_like(slicing.getitem(inputs, (slice(None), 0, slice(0, 1))))
        return [column * creation.zeros([1, size], dtype=inputs.dtype) for size in state_sizes(self.cell.state_size)]

    def _trace_outputs(self, inputs: Any, args: tuple, kwargs: dict[str, Any]) -> Any:
        """The output KerasTensors from the cell's sizes: the time axis may be unknown (None)."""
        sequence = inputs[0] if isinstance(inputs, list) else inputs
        batch, time = sequence.shape[0], sequence.shape[1]
        output_shape = (batch, time, self.cell.output_size) if self.return_sequences else (batch, self.cell.output_size)
        output = KerasTensor(output_shape, sequence.dtype)
        if not self.return_state:
            return output
        return [output, *[KerasTensor((batch, size), sequence.dtype) for size in state_sizes(self.cell.state_size)]]

    def compute_output_shape(self, input_shape: Any) -> Any:
        outputs = self._trace_outputs(KerasTensor(input_shape), (), {})
        return [o.shape for o in outputs] if isinstance(outputs, list) else outputs.shape

    def _rnn_config(self) -> dict[str, Any]:
        return {
            **super().get_config(),
            "return_sequences": self.return_sequences,
            "return_state": self.return_state,
            "go_backwards": self.go_backwards,
            "stateful": self.stateful,
            "unroll": self.unroll,
            "zero_output_for_mask": self.zero_output_for_mask,
        }

    def get_config(self) -> dict[str, Any]:
        return {**self._rnn_config(), "cell": serialize(self.cell)}

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> Layer:
        config = dict(config)
        config["cell"] = deserialize_layer(config["cell"])
        return super().from_config(config)


_RNN_ARGUMENTS = ("return_sequences", "return_state", "go_backwards", "stateful", "unroll", "zero_output_for_mask")


class _CellLayer(RNN):
    """SimpleRNN, LSTM, GRU: an RNN that makes its own cell from the arguments and lists them in its config."""

    cell_class: type[RecurrentCell] = SimpleRNNCell
    cell_name = "simple_rnn_cell"
    config_has_seed = False  # Keras lists the cell's seed in LSTM's and GRU's config, not in SimpleRNN's

    def __init__(self, units: int, **kwargs: Any) -> None:
        layer_keys = {*_RNN_ARGUMENTS, "name", "trainable", "dtype", "input_shape"}
        layer_kwargs = {key: value for key, value in kwargs.items() if key in layer_keys}
        cell_kwargs = {key: value for key, value in kwargs.items() if key not in layer_keys}
        activity_regularizer = cell_kwargs.pop("activity_regularizer", None)
        cell = self.cell_class(units, name=self.cell_name, dtype=kwargs.get("dtype"), **cell_kwargs)
        super().__init__(cell, **layer_kwargs)
        self.activity_regularizer = activity_regularizer
        self.input_spec = InputSpec(ndim=3)

    @property
    def units(self) -> int:
        return int(self.cell.units)

    def get_config(self) -> dict[str, Any]:
        cell = {
            key: value for key, value in self.cell.get_config().items() if key not in ("name", "trainable", "dtype")
        }
        weights = {key: cell.pop(key) for key in list(cell) if key.rsplit("_", 1)[-1] in ("regularizer", "constraint")}
        regularizers = {key: value for key, value in weights.items() if key.endswith("regularizer")}
        constraints = {key: value for key, value in weights.items() if key.endswith("constraint")}
        tail = {key: cell.pop(key) for key in ("dropout", "recurrent_dropout", "reset_after", "seed") if key in cell}
        if not self.config_has_seed:
            del tail["seed"]
        return {
            **self._rnn_config(),
            **cell,
            **regularizers,
            "activity_regularizer": None,
            **constraints,
            **tail,
        }

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> Layer:
        """All of the flat config goes to the constructor, which splits it between the layer and its cell."""
        config = {key: deserialize(value) for key, value in config.items()}
        if isinstance(config.get("dtype"), dict):
            config["dtype"] = config["dtype"]["config"]["name"]
        return cls(**config)


class SimpleRNN(_CellLayer):
    """A fully connected recurrent layer: `h = tanh(x @ kernel + h_prev @ recurrent_kernel + bias)`."""


class LSTM(_CellLayer):
    """Long short-term memory: gated cell state, for dependencies across many time steps."""

    cell_class = LSTMCell
    cell_name = "lstm_cell"
    config_has_seed = True


class GRU(_CellLayer):
    """Gated recurrent unit: LSTM's idea with two gates and one state."""

    cell_class = GRUCell
    cell_name = "gru_cell"
    config_has_seed = True
