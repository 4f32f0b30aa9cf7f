"""Running layer code on KerasTensors (the functional API): the code is traced once in a graph, each KerasTensor
standing in as a placeholder of its shape and dtype, and the graph's outputs come back as new KerasTensors. So a
layer's `call` gives its output shapes, and its `compute_mask` the symbolic mask Keras attaches as `_keras_mask`,
without computing any value."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import minitf.keras.naming as naming
from minitf.core.tensor import Tensor
from minitf.function.cache_keys import TensorSpec
from minitf.function.function import function
from minitf.keras.layers.keras_tensor import KerasTensor, flatten, map_structure


def holds_keras_tensors(structure: Any) -> bool:
    return any(isinstance(leaf, KerasTensor) for leaf in flatten(structure))


def trace(code: Callable[..., Any], *arguments: Any, ops_make_keras_tensors: bool = False) -> Any:
    """`code(*arguments)` with the KerasTensors in `arguments` as graph placeholders; its tensors as new KerasTensors.

    With `ops_make_keras_tensors`, the result is what Keras's ops on KerasTensors give (`compute_mask` runs them):
    every op on the way takes a KerasTensor name first (Masking's mask is numbered after `not_equal` and `any`), and
    a tensor `code` returns as it got it is the same KerasTensor (a mask passed on unchanged)."""
    keras_tensors = [leaf for leaf in flatten(arguments) if isinstance(leaf, KerasTensor)]

    def traced(*placeholders: Any) -> Any:
        substitute = dict(zip(map(id, keras_tensors), placeholders, strict=True))
        return code(*map_structure(lambda leaf: substitute.get(id(leaf), leaf), arguments))

    specs = [TensorSpec(list(t.shape), t.dtype) for t in keras_tensors]
    concrete = function(traced, autograph=False).get_concrete_function(*specs)
    placeholders = [op.outputs[0] for op in concrete.graph.get_operations() if op.type == "Placeholder"]
    given = dict(zip(map(id, placeholders), keras_tensors, strict=False))

    def as_keras_tensor(tensor: Any) -> Any:
        if not isinstance(tensor, Tensor):
            return tensor
        source = tensor.op.inputs[0] if tensor.op.type == "Identity" else tensor
        if ops_make_keras_tensors and id(source) in given:
            return given[id(source)]
        return KerasTensor(tensor.shape.as_list(), tensor.dtype)

    if ops_make_keras_tensors:
        made = [op for op in concrete.graph.get_operations() if op.type not in ("Placeholder", "Const", "Identity")]
        for _ in made[: len(made) - len(flatten(concrete.structured_outputs))]:
            naming.unique_name("keras_tensor")
    return map_structure(as_keras_tensor, concrete.structured_outputs)


def name_outputs_as_a_trace_does(outputs: Any) -> None:
    """Take the names Keras's tracing build gives its output KerasTensors, so later KerasTensors are numbered as in
    Keras (`keras_tensor_7`); minitf builds such a layer by running it and needs no trace."""
    for leaf in flatten(outputs):
        if isinstance(leaf, Tensor):
            naming.unique_name("keras_tensor")


def symbolic_compute_mask(compute_mask: Callable[..., Any]) -> Callable[..., Any]:
    """A layer's `compute_mask` that, given KerasTensors, returns the mask as a KerasTensor (as Keras's does)."""

    @functools.wraps(compute_mask)
    def wrapper(self: Any, inputs: Any, *args: Any, **kwargs: Any) -> Any:
        if not holds_keras_tensors((inputs, args, kwargs)):
            return compute_mask(self, inputs, *args, **kwargs)
        return trace(lambda i, a, k: compute_mask(self, i, *a, **k), inputs, args, kwargs, ops_make_keras_tensors=True)

    return wrapper
