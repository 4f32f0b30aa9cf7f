"""The symbolic values of the functional API: `keras.Input(...)` and what layers return when called on it.

A KerasTensor has a shape (batch dimension None) and a dtype, no value. Calling a layer on one records a `Node`
(layer, inputs, outputs); a functional `Model(inputs, outputs)` walks these nodes back from its outputs and
replays them on real tensors when it is called.
"""

from __future__ import annotations

from typing import Any

import minitf.keras.naming as naming
from minitf.core import dtypes
from minitf.core.tensor_shape import TensorShape


class KerasTensor:
    def __init__(
        self, shape: Any, dtype: Any = "float32", name: str | None = None, history: tuple[Any, int, int] | None = None
    ) -> None:
        self.shape = tuple(shape)
        self.dtype = dtypes.as_dtype(dtype).name
        self.name = name or naming.unique_name("keras_tensor")
        self._keras_history = history  # (layer, node index, tensor index) that made it; None for inputs

    @property
    def ndim(self) -> int:
        return len(self.shape)

    def tensor_shape(self) -> TensorShape:
        return TensorShape(list(self.shape))

    def __repr__(self) -> str:
        return f"<KerasTensor shape={self.shape}, dtype={self.dtype}, sparse=False, ragged=False, name={self.name}>"


def history_of(tensor: KerasTensor) -> tuple[Any, int, int]:
    """(layer, node index, tensor index) of the call that made `tensor`."""
    if tensor._keras_history is None:
        raise ValueError(f"{tensor} was not made by a layer call on a keras.Input.")
    return tensor._keras_history


class Node:
    """One call of a layer on KerasTensors: what went in, what came out."""

    def __init__(
        self, layer: Any, inputs: list[KerasTensor], outputs: list[KerasTensor], arguments: Any, kwargs: dict[str, Any]
    ) -> None:
        self.layer, self.input_tensors, self.output_tensors = layer, inputs, outputs
        self.arguments, self.kwargs = arguments, kwargs  # the call's structure, with KerasTensors in it

    @property
    def parent_nodes(self) -> list[Node]:
        parents = []
        for tensor in self.input_tensors:
            if tensor._keras_history is not None:
                layer, node_index, _ = tensor._keras_history
                parents.append(layer._inbound_nodes[node_index])
        return parents


def flatten(structure: Any) -> list[Any]:
    """The leaves of nested lists, tuples and dicts, in order."""
    if isinstance(structure, list | tuple):
        return [leaf for item in structure for leaf in flatten(item)]
    if isinstance(structure, dict):
        return [leaf for key in sorted(structure) for leaf in flatten(structure[key])]
    return [structure]


def map_structure(function: Any, structure: Any) -> Any:
    if isinstance(structure, list | tuple):
        return type(structure)(map_structure(function, item) for item in structure)
    if isinstance(structure, dict):
        return {key: map_structure(function, value) for key, value in structure.items()}
    return function(structure)
