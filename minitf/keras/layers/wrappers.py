"""Layers around another layer: `TimeDistributed` applies it to every time step, `Bidirectional` runs a
recurrent layer forwards and a copy backwards over the sequence and merges the two."""

from __future__ import annotations

from typing import Any

from minitf.keras.layers.keras_tensor import KerasTensor
from minitf.keras.layers.layer import Layer
from minitf.keras.layers.layer_serialization import deserialize as deserialize_layer
from minitf.keras.layers.layer_serialization import serialize
from minitf.keras.layers.rnn import state_sizes
from minitf.ops.array import join_split, shape_ops, tile_pad
from minitf.ops.math import binary_math


class Wrapper(Layer):
    """A layer that holds `layer` and calls it in its own way."""

    def __init__(self, layer: Layer, **kwargs: Any) -> None:
        if not isinstance(layer, Layer):
            raise ValueError(
                f"Argument `layer` must be an instance of a Keras `Layer`. Received: layer={layer} "
                f"(of type {type(layer)})"
            )
        super().__init__(**kwargs)
        self.layer = layer

    def get_config(self) -> dict[str, Any]:
        return {**super().get_config(), "layer": serialize(self.layer)}

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> Layer:
        config = dict(config)
        config["layer"] = deserialize_layer(config["layer"])
        return super().from_config(config)


class TimeDistributed(Wrapper):
    """`layer` applied to each time step of (batch, time, ...) inputs, with the same weights at every step."""

    def build(self, input_shape: Any) -> None:
        if len(input_shape) < 3:
            raise ValueError(
                "`TimeDistributed` Layer should be passed an `input_shape` with at least 3 dimensions, "
                f"received: {input_shape}"
            )
        self.layer.build((input_shape[0], *input_shape[2:]))
        self.layer.built = True

    def call(self, inputs: Any, training: bool | None = None) -> Any:
        shape = inputs.shape.as_list()
        time = shape[1] if shape[1] is not None else shape_ops.shape(inputs)[1]
        rows = shape_ops.reshape(inputs, [-1, *shape[2:]])
        kwargs = {"training": training} if self.layer._call_has_training else {}
        out = self.layer.call(rows, **kwargs)
        return shape_ops.reshape(out, [-1, time, *out.shape.as_list()[1:]])


class Bidirectional(Wrapper):
    """A recurrent `layer` run forwards and a copy of it backwards; outputs merged by `merge_mode`
    ("concat", "sum", "mul", "ave", or None for both)."""

    def __init__(
        self,
        layer: Any,
        merge_mode: str | None = "concat",
        weights: Any = None,
        backward_layer: Any = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(layer, **kwargs)
        if merge_mode not in ("sum", "mul", "ave", "concat", None):
            raise ValueError(
                f"Invalid merge mode. Received: {merge_mode}. Merge mode should be one of "
                '{"sum", "mul", "ave", "concat", None}'
            )
        # the copies output zeros at masked steps when they return sequences, as Keras sets them up
        copied = {"zero_output_for_mask": layer.return_sequences}
        config = serialize(layer)
        config["config"] = {**config["config"], **copied, "name": "forward_" + layer.name}
        self.forward_layer = deserialize_layer(config)
        if backward_layer is None:
            config = serialize(layer)
            config["config"] = {
                **config["config"],
                **copied,
                "name": "backward_" + layer.name,
                "go_backwards": not layer.go_backwards,
            }
            backward_layer = deserialize_layer(config)
        self.backward_layer = backward_layer
        self._layers.remove(self.layer)  # the wrapped layer itself is only the pattern for the two copies
        self.merge_mode = merge_mode
        self.return_sequences, self.return_state = layer.return_sequences, layer.return_state

    def build(self, input_shape: Any) -> None:
        for layer in (self.forward_layer, self.backward_layer):
            layer.build(input_shape)
            layer.built = True

    def call(self, inputs: Any, training: bool | None = None, mask: Any = None) -> Any:
        forward = self.forward_layer.call(inputs, training=training, mask=mask)
        backward = self.backward_layer.call(inputs, training=training, mask=mask)
        forward_states: list[Any] = []
        backward_states: list[Any] = []
        if self.return_state:
            forward, *forward_states = forward
            backward, *backward_states = backward
        if self.return_sequences:
            backward = tile_pad.reverse(backward, [1])
        merged = self._merge(forward, backward)
        if self.return_state:
            outputs = merged if isinstance(merged, list) else [merged]
            return [*outputs, *forward_states, *backward_states]
        return merged

    def compute_mask(self, inputs: Any, mask: Any = None) -> Any:
        """The input's mask goes on with merged sequences (with each of the two when not merged); the last outputs
        and the states have none."""
        mask = mask[0] if isinstance(mask, list | tuple) else mask
        kept = mask if self.return_sequences else None
        output_mask: Any = kept if self.merge_mode else [kept, kept]
        if not self.return_state:
            return output_mask
        state_masks = [None] * (2 * len(state_sizes(self.forward_layer.cell.state_size)))  # type: ignore[attr-defined]
        return [*(output_mask if isinstance(output_mask, list) else [output_mask]), *state_masks]

    def _merge(self, forward: Any, backward: Any) -> Any:
        if self.merge_mode == "concat":
            return join_split.concat([forward, backward], axis=-1)
        if self.merge_mode == "sum":
            return forward + backward
        if self.merge_mode == "ave":
            return (forward + backward) / 2
        if self.merge_mode == "mul":
            return binary_math.multiply(forward, backward)
        return [forward, backward]

    def _trace_outputs(self, inputs: Any, args: tuple, kwargs: dict[str, Any]) -> Any:
        forward = self.forward_layer._trace_outputs(inputs, args, kwargs)
        states: list[Any] = []
        if self.return_state:
            forward, *states = forward
        shape = list(forward.shape)
        if self.merge_mode == "concat":
            shape[-1] = shape[-1] * 2
        outputs = [KerasTensor(shape, forward.dtype)]
        if self.merge_mode is None:
            outputs = [forward, KerasTensor(forward.shape, forward.dtype)]
        if not self.return_state:
            return outputs[0] if len(outputs) == 1 else outputs
        return [*outputs, *states, *[KerasTensor(s.shape, s.dtype) for s in states]]

    def get_config(self) -> dict[str, Any]:
        return {
            **Layer.get_config(self),
            "merge_mode": self.merge_mode,
            "layer": serialize(self.forward_layer),
            "backward_layer": serialize(self.backward_layer),
        }

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> Layer:
        config = dict(config)
        if config.get("backward_layer") is not None:
            config["backward_layer"] = deserialize_layer(config["backward_layer"])
        return super().from_config(config)
