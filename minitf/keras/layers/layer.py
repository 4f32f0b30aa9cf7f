"""`keras.layers.Layer`: weights plus a `call`, built the first time it sees an input shape.

What a subclass writes: `build(input_shape)` creates weights with `add_weight`, `call(inputs, training=None)`
computes. What `__call__` adds around them: converting NumPy inputs to tensors (floats to float32), checking
`input_spec`, building once, passing the `training` flag down to inner layers, and, when the input is a
KerasTensor (functional API), recording the call instead of computing it.
"""

from __future__ import annotations

import contextlib
import functools
import inspect
import math
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np

import minitf.keras.auto_config as auto_config
import minitf.keras.initializers as initializers
import minitf.keras.layers.call_errors as call_errors
import minitf.keras.layers.symbolic as symbolic
import minitf.keras.naming as naming
import minitf.keras.regularizers as regularizers
from minitf.core.conversion import convert_to_tensor
from minitf.core.tensor import Tensor
from minitf.keras.dtype_policies import DTypeAttributes
from minitf.keras.layers.input_spec import InputSpec, check_input
from minitf.keras.layers.keras_tensor import KerasTensor, Node, flatten, map_structure
from minitf.keras.serialization import accepted, deserialize
from minitf.keras.variables import KerasVariable
from minitf.ops.math.cast import cast
from minitf.ops.variables import Variable

_training_stack: list[bool | None] = []


@contextmanager
def training_scope(training: bool | None) -> Iterator[None]:
    """Inner layers called without `training=` inherit the flag of the call around them."""
    _training_stack.append(training)
    try:
        yield
    finally:
        _training_stack.pop()


def _as_input_tensor(value: Any) -> Any:
    """NumPy arrays and Python numbers become tensors; floats are computed in float32, as Keras autocasts."""
    if isinstance(value, KerasTensor):
        return value
    tensor = value if isinstance(value, Tensor) else convert_to_tensor(value)
    if tensor.dtype.is_floating and tensor.dtype.name != "float32":
        tensor = cast(tensor, "float32")
    return tensor


def _only_tensors_positionally(args: tuple) -> None:
    """Keras's rule: positional arguments are tensors (NumPy arrays count: they are converted); a Python number,
    list of numbers or string given positionally is most likely data that should have been an array, or an
    option that should have been a keyword."""
    for arg in flatten(args):
        if arg is None or isinstance(arg, Tensor | KerasTensor) or hasattr(arg, "__array__"):
            continue
        raise ValueError(
            "Only input tensors may be passed as positional arguments. The following argument value should be "
            f"passed as a keyword argument: {arg} (of type {type(arg)})"
        )


class Layer(DTypeAttributes):
    """The base of every layer and model: tracks weights and inner layers, builds once, then calls."""

    _layers: list[Layer]  # set first in __init__, so __setattr__ can track inner layers from then on
    passes_masks = False  # layers that keep the steps as they are (Dense, Dropout, activations) say True
    takes_plain_values = False  # preprocessing layers say True: they are called on Python lists and strings

    def __init__(self, trainable: bool = True, name: str | None = None, dtype: Any = None, **kwargs: Any) -> None:
        object.__setattr__(self, "_layers", [])
        self.name = name or naming.unique_name(naming.snake_case(type(self).__name__))
        self._trainable = bool(trainable)
        self.built = False
        self.dtype = "float32" if dtype is None else str(getattr(dtype, "name", dtype))
        self.input_spec: InputSpec | None = None
        self._own_weights: list[KerasVariable] = []
        self._added_losses: list[Any] = []
        self._inbound_nodes: list[Node] = []
        self._build_input_shape: Any = None
        parameters = inspect.signature(self.call).parameters
        self._call_has_training, self._call_has_mask = "training" in parameters, "mask" in parameters
        # a `training` with a default is left to it when None (Keras passes only a value); one without, gets None
        self._training_default = parameters["training"].default if self._call_has_training else None
        input_dim = kwargs.pop("input_dim", None)
        input_shape = (input_dim,) if input_dim is not None else kwargs.pop("input_shape", None)
        if input_shape is not None:
            warnings.warn(
                "Do not pass an `input_shape`/`input_dim` argument to a layer. When using Sequential models, "
                "prefer using an `Input(shape)` object as the first layer in the model instead.",
                stacklevel=2,
            )
        self._batch_input_shape = None if input_shape is None else (None, *input_shape)
        if kwargs:
            raise ValueError(f"Unrecognized keyword arguments passed to {type(self).__name__}: {kwargs}")

    def __init_subclass__(cls, **kwargs: Any) -> None:
        """A subclass's `build` marks the layer built and remembers the input shape, even when a user calls
        `layer.build(shape)` directly, as Keras does."""
        super().__init_subclass__(**kwargs)
        if "build" in cls.__dict__:
            cls.build = _marking_built(cls.__dict__["build"])  # type: ignore[method-assign]
        if "compute_mask" in cls.__dict__:
            cls.compute_mask = symbolic.symbolic_compute_mask(cls.__dict__["compute_mask"])  # type: ignore[method-assign]

    # --- tracking inner layers and weights ---
    def __setattr__(self, name: str, value: Any) -> None:
        layers = self.__dict__.get("_layers")
        if layers is not None and not name.startswith("_"):
            for item in value if isinstance(value, list | tuple) else [value]:
                if isinstance(item, Layer) and not any(item is known for known in layers):
                    layers.append(item)
        object.__setattr__(self, name, value)

    def add_weight(
        self,
        shape: Any = None,
        initializer: Any = None,
        dtype: Any = None,
        trainable: bool = True,
        regularizer: Any = None,
        constraint: Any = None,
        name: str | None = None,
        **kwargs: Any,
    ) -> KerasVariable:
        """A new weight of this layer, filled by `initializer` (Glorot uniform for floats unless told)."""
        shape = () if shape is None else tuple(shape)
        dtype = dtype or self.dtype
        if initializer is None:
            initializer = "glorot_uniform" if np.dtype(str(dtype)).kind == "f" else "zeros"
        value = initializers.get(initializer)(shape, dtype=dtype)
        with naming.path_scope(self.name):
            variable = KerasVariable(value, name=name or "variable", trainable=trainable, dtype=dtype)
        variable._regularizer = regularizers.get(regularizer)
        self._own_weights.append(variable)
        return variable

    @property
    def trainable(self) -> bool:
        return self._trainable

    @trainable.setter
    def trainable(self, value: bool) -> None:
        """Freezing a layer freezes its inner layers too."""
        self._trainable = bool(value)
        for layer in self._layers:
            layer.trainable = value

    @property
    def layers(self) -> list[Layer]:
        return list(self._layers)

    def _flat_layers(self) -> list[Layer]:
        found: list[Layer] = []
        for layer in self._layers:
            found.append(layer)
            found.extend(layer._flat_layers())
        return found

    @property
    def weights(self) -> list[Variable]:
        """Own weights (trainable first), then each inner layer's."""
        own = [w for w in self._own_weights if w.trainable] + [w for w in self._own_weights if not w.trainable]
        return _unique(own + [w for layer in self._layers for w in layer.weights])

    @property
    def trainable_weights(self) -> list[Variable]:
        if not self.trainable:
            return []
        own = [w for w in self._own_weights if w.trainable]
        return _unique(own + [w for layer in self._layers for w in layer.trainable_weights])

    @property
    def non_trainable_weights(self) -> list[Variable]:
        if not self.trainable:
            return self.weights
        own = [w for w in self._own_weights if not w.trainable]
        return _unique(own + [w for layer in self._layers for w in layer.non_trainable_weights])

    variables = weights
    trainable_variables = trainable_weights
    non_trainable_variables = non_trainable_weights

    def get_weights(self) -> list[np.ndarray]:
        return [np.array(w.numpy()) for w in self.weights]

    def set_weights(self, weights: list[Any]) -> None:
        """Assign arrays to `self.weights`, in that order, with Keras's checks on count and shapes."""
        own = self.weights
        if len(weights) != len(own):
            raise ValueError(
                f"You called `set_weights(weights)` on layer '{self.name}' with a weight list of "
                f"length {len(weights)}, but the layer was expecting {len(own)} weights."
            )
        for variable, value in zip(own, weights, strict=True):
            value = np.asarray(value)
            if tuple(variable.shape.as_list()) != value.shape:
                raise ValueError(
                    f"Layer {self.name} weight shape {tuple(variable.shape.as_list())} is not "
                    f"compatible with provided weight shape {value.shape}."
                )
            variable.assign(value.astype(variable.dtype.as_numpy_dtype))

    def count_params(self) -> int:
        return int(sum(math.prod(int(d or 0) for d in w.shape.as_list()) for w in self.weights))

    # --- losses added by regularizers and add_loss ---
    def add_loss(self, loss: Any) -> None:
        self._added_losses.append(loss)

    @property
    def losses(self) -> list[Any]:
        penalties = [w._regularizer(w) for w in self._own_weights if getattr(w, "_regularizer", None) is not None]
        inner = [loss for layer in self._layers for loss in layer.losses]
        return list(self._added_losses) + penalties + inner

    # --- building and calling ---
    def build(self, input_shape: Any) -> None:
        """Create the weights once the input shape is known; layers without weights need nothing here."""

    def call(self, inputs: Any, *args: Any, **kwargs: Any) -> Any:
        return inputs

    def _maybe_build(self, inputs: Any) -> None:
        if self.built:
            return
        shapes = map_structure(lambda t: tuple(t.shape.as_list()) if isinstance(t, Tensor) else tuple(t.shape), inputs)
        self.build(shapes)
        self._build_input_shape = shapes
        self.built = True

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if not self.takes_plain_values:
            _only_tensors_positionally(args)
        inputs = args[0] if args else kwargs.pop("inputs")
        if self.takes_plain_values and isinstance(inputs, list | tuple):  # Python data: one tensor, as Keras makes it
            inputs = convert_to_tensor(inputs)
        if any(isinstance(leaf, KerasTensor) for leaf in flatten(inputs)):
            return self._call_symbolically(inputs, args[1:], kwargs)
        inputs = map_structure(_as_input_tensor, inputs)
        kwargs = {k: _as_input_tensor(v) if isinstance(v, np.ndarray) else v for k, v in kwargs.items()}
        for index, tensor in enumerate(flatten(inputs)):
            check_input(self.input_spec, tensor, self.name, index)
        # Keras builds a layer without its own `build` whose inner layers are unbuilt by tracing `call` first
        built_by_a_trace = not self.built and type(self).build is Layer.build and any(not x.built for x in self._layers)
        self._maybe_build(inputs)
        for index, tensor in enumerate(flatten(inputs)):
            check_input(self.input_spec, tensor, self.name, index)
        training = kwargs.pop("training", None)
        if training is None and _training_stack:
            training = _training_stack[-1]
        if training is None and self._training_default is not inspect.Parameter.empty:
            training = self._training_default
        elif self._call_has_training:
            kwargs["training"] = training
        self._added_losses = []
        previous_mask = kwargs["mask"] if kwargs.get("mask") is not None else mask_of(inputs)
        if self._call_has_mask and previous_mask is not None:
            kwargs["mask"] = previous_mask
        elif not self._call_has_mask:
            kwargs.pop("mask", None)
        # inner layers built during this call get this layer's name in their weights' paths (`model/dense/kernel`)
        with training_scope(training), naming.path_scope(self.name):
            outputs = call_errors.call_reporting(self, self.call, inputs, *args[1:], **kwargs)
        if built_by_a_trace:
            symbolic.name_outputs_as_a_trace_does(outputs)
        propagate(self, inputs, outputs, previous_mask)
        return outputs

    def _trace_outputs(self, inputs: Any, args: tuple, kwargs: dict[str, Any]) -> Any:
        """The output KerasTensors: `call` traced once on placeholders of the input shapes (no values computed)."""
        call_kwargs = dict(kwargs)
        if self._call_has_training:
            call_kwargs.setdefault("training", False)
        else:
            call_kwargs.pop("training", None)
        return symbolic.trace(lambda i, a, k: self.call(i, *a, **k), inputs, args, call_kwargs)

    # --- masks ---
    @property
    def supports_masking(self) -> bool:
        """Whether the layer passes a mask on (set by the layer; by default when it defines `compute_mask`)."""
        default = type(self).passes_masks or type(self).compute_mask is not Layer.compute_mask
        return self.__dict__.get("_supports_masking", default)

    @supports_masking.setter
    def supports_masking(self, value: bool) -> None:
        self._supports_masking = bool(value)

    def compute_mask(self, inputs: Any, previous_mask: Any = None) -> Any:
        """The mask of the output: the input's, unless the layer changes it."""
        return previous_mask

    def _call_symbolically(self, inputs: Any, args: tuple, kwargs: dict[str, Any]) -> Any:
        """A call on KerasTensors: build, find the output shapes by tracing `call`, record a Node, attach the
        output's mask as a KerasTensor (from `compute_mask` on the input's mask), as Keras does."""
        self._maybe_build(inputs)
        for index, tensor in enumerate(flatten(inputs)):
            check_input(self.input_spec, tensor, self.name, index)
        previous_mask = kwargs["mask"] if kwargs.get("mask") is not None else mask_of(inputs)
        call_kwargs = dict(kwargs)
        if self._call_has_mask and previous_mask is not None:
            call_kwargs["mask"] = previous_mask
        elif not self._call_has_mask:
            call_kwargs.pop("mask", None)
        trace = functools.partial(self._trace_outputs, inputs, args, call_kwargs)
        outputs = call_errors.symbolic_call_reporting(self, trace, (inputs, *args), kwargs)
        flat_outputs = flatten(outputs)
        node_index = len(self._inbound_nodes)
        for index, tensor in enumerate(flat_outputs):
            tensor._keras_history = (self, node_index, index)
        inputs_flat = [t for t in flatten((inputs, args, kwargs)) if isinstance(t, KerasTensor)]
        self._inbound_nodes.append(Node(self, inputs_flat, flat_outputs, (inputs, args), kwargs))
        propagate(self, inputs, outputs, previous_mask)
        return outputs

    def compute_output_shape(self, input_shape: Any) -> Any:
        if _is_shape(input_shape):
            inputs: Any = KerasTensor(input_shape)
        else:
            inputs = [KerasTensor(shape) for shape in input_shape]
        return map_structure(lambda t: t.shape, self._trace_outputs(inputs, (), {}))

    @property
    def input(self) -> Any:
        """The KerasTensor(s) of the layer's first call on keras.Input tensors, as Keras's `layer.input`."""
        return self._first_node_tensors("input_tensors", "input")

    @property
    def output(self) -> Any:
        """The KerasTensor(s) the layer's first call on keras.Input tensors made, as Keras's `layer.output`."""
        return self._first_node_tensors("output_tensors", "output")

    def _first_node_tensors(self, attribute: str, what: str) -> Any:
        if not self._inbound_nodes:
            raise AttributeError(f"The layer {self.name} has never been called and thus has no defined {what}.")
        tensors = getattr(self._inbound_nodes[0], attribute)
        return tensors[0] if len(tensors) == 1 else tensors

    # --- what summary() shows ---
    def _summary_output_shape(self) -> str | None:
        if self._inbound_nodes:
            # Keras shows the outputs of the layer's latest call on symbolic inputs
            shapes = [t.shape for t in self._inbound_nodes[-1].output_tensors]
        elif self._build_input_shape is not None:
            shapes = flatten_shapes(self.compute_output_shape(self._build_input_shape))
        else:
            return None
        if len(shapes) == 1:
            return "(" + ", ".join(str(d) for d in shapes[0]) + ")"
        return str([tuple(s) for s in shapes]).replace("'", "")

    # --- configuration (saving) ---
    def __new__(cls, *args: Any, **kwargs: Any) -> Any:
        return auto_config.record(super().__new__(cls), args, kwargs)

    def get_config(self) -> dict[str, Any]:
        config: dict[str, Any] = {"name": self.name, "trainable": self.trainable, "dtype": _dtype_policy(self.dtype)}
        return auto_config.with_arguments(self, config, Layer.get_config)

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> Layer:
        """The layer again from `get_config()`'s dictionary (Keras's own entries minitf lacks are left out)."""
        config = {key: deserialize(value) for key, value in config.items()}
        if isinstance(config.get("dtype"), dict):
            config["dtype"] = config["dtype"]["config"]["name"]
        return cls(**accepted(cls, config))

    def __repr__(self) -> str:
        return f"<{type(self).__name__} name={self.name}, built={self.built}>"


def _marking_built(build: Any) -> Any:
    @functools.wraps(build)
    def wrapper(self: Layer, input_shape: Any = None, *args: Any, **kwargs: Any) -> None:
        with naming.path_scope(self.name):
            build(self, input_shape, *args, **kwargs)
        self._build_input_shape = None if input_shape is None else tuple(input_shape)
        self.built = True

    return wrapper


def _is_shape(shape: Any) -> bool:
    return isinstance(shape, tuple | list) and all(d is None or isinstance(d, int) for d in shape)


def flatten_shapes(shape: Any) -> list[tuple]:
    """A shape or a list of shapes, as a list of shapes."""
    if _is_shape(shape):
        return [tuple(shape)]
    return [tuple(s) for s in shape]


def _dtype_policy(name: str) -> dict[str, Any]:
    return {"module": "keras", "class_name": "DTypePolicy", "config": {"name": name}, "registered_name": None}


def _unique(variables: list[Variable]) -> list[Variable]:
    seen: set[int] = set()
    out = []
    for variable in variables:
        if id(variable) not in seen:
            seen.add(id(variable))
            out.append(variable)
    return out


# --- masks (keras/layers/masking.py says what they are) ---
def mask_of(value: Any) -> Any:
    """The mask attached to a tensor (None if none), or to each tensor of a list."""
    if isinstance(value, list | tuple):
        masks = [mask_of(item) for item in value]
        return None if all(m is None for m in masks) else masks
    return getattr(value, "_keras_mask", None)


def attach(outputs: Any, masks: Any) -> None:
    """Attach `masks` to the outputs that carry no mask yet."""
    if masks is None:
        return
    flat_masks = masks if isinstance(masks, list | tuple) else [masks]
    for tensor, mask in zip(flatten(outputs), flat_masks, strict=False):
        if mask is not None and getattr(tensor, "_keras_mask", None) is None:
            with contextlib.suppress(AttributeError):  # a NumPy value or a Python number: nothing to attach to
                tensor._keras_mask = mask


def propagate(layer: Layer, inputs: Any, outputs: Any, previous_mask: Any) -> None:
    """After a call: the layer's output mask, from `compute_mask`, or Keras's warning that the mask is lost."""
    if layer.supports_masking:
        attach(outputs, layer.compute_mask(inputs, previous_mask))
    elif previous_mask is not None and any(m is not None for m in flatten(previous_mask)):
        warnings.warn(
            f"Layer '{layer.name}' (of type {type(layer).__name__}) was passed an input with a mask attached to it. "
            "However, this layer does not support masking and will therefore destroy the mask information. "
            "Downstream layers will not see the mask.",
            stacklevel=3,
        )
