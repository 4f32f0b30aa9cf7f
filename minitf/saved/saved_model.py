"""`tf.saved_model.save` / `load`: a `tf.Module`'s variables and traced functions, reloadable without its code.

The format is minitf's own (docs/saved_model.md), a directory with:
  saved_model.json          the object tree (modules, variables, functions by attribute name) and every
                            function's traced graphs as data (minitf/saved/graph_json.py)
  variables/variables.npz   the variables' values
  constants.npz             arrays the graphs hold (constants, captured tensors)
Loading reads JSON and NumPy arrays (`allow_pickle=False`): it never runs code from the files, and it needs
neither the Python class of the module nor the source of its functions. The loaded object, like
TensorFlow's, is a plain object with the saved attributes: variables are new Variables with the saved values,
functions run the saved graphs and accept the inputs they were traced for.

This file saves; saved_model_load.py loads; saved_model_format.py has what both read and write.
"""

from __future__ import annotations

import inspect
import json
import os
from typing import Any

import numpy as np

from minitf.core.tensor import EagerTensor, Tensor
from minitf.function.cache_keys import TensorSpec
from minitf.function.concrete_function import ConcreteFunction
from minitf.function.function import Function
from minitf.function.module import Module
from minitf.ops.variables import Variable
from minitf.saved.checkpoint import Checkpoint
from minitf.saved.graph_json import Arrays, encode, graph_to_json, shape_json
from minitf.saved.saved_model_format import (
    CONSTANTS_FILE,
    FORMAT,
    GRAPHS_FILE,
    VARIABLES_FILE,
    VERSION,
    key_json,
    parameters_json,
    spec_key,
)
from minitf.saved.saved_model_load import load

__all__ = ["load", "save"]  # load lives in saved_model_load.py; tf.saved_model has both


class _Writer:
    """Walks the object tree once, numbering variables and functions as it meets them."""

    def __init__(self) -> None:
        self.variables: list[Variable] = []
        self.variable_ids: dict[int, int] = {}
        self.functions: list[dict] = []
        self.function_ids: dict[int, int] = {}
        self.arrays = Arrays()
        self.seen: set[int] = set()

    def node(self, value: Any) -> Any:
        if isinstance(value, Variable):
            return {"kind": "variable", "id": self.variable_id(value)}
        if isinstance(value, Function):
            return {"kind": "function", "id": self.function_id(value)}
        if isinstance(value, list | tuple):
            items = [self.node(v) for v in value]
            return {"kind": "list", "items": [i for i in items if i is not None]}
        if isinstance(value, dict):
            entries = {str(k): self.node(v) for k, v in value.items()}
            return {"kind": "dict", "items": {k: v for k, v in entries.items() if v is not None}}
        if isinstance(value, Module) or _is_checkpoint(value):
            if id(value) in self.seen:
                return None
            self.seen.add(id(value))
            attributes = {name: self.node(v) for name, v in _attributes(value)}
            return {"kind": "object", "attributes": {k: v for k, v in attributes.items() if v is not None}}
        return None  # plain Python values are not part of a SavedModel, as in TensorFlow

    def variable_id(self, variable: Variable) -> int:
        known = self.variable_ids.get(id(variable))
        if known is None:
            known = self.variable_ids[id(variable)] = len(self.variables)
            self.variables.append(variable)
        return known

    def function_id(self, function: Function) -> int:
        known = self.function_ids.get(id(function))
        if known is not None:
            return known
        self.function_ids[id(function)] = len(self.functions)
        record: dict[str, Any] = {}
        self.functions.append(record)
        if function.input_signature is not None and not function._concrete:
            function.get_concrete_function()  # TensorFlow traces a signature's function when saving it
        record.update(
            {
                "name": function.name,
                "parameters": parameters_json(function.function_spec, self.arrays),
                "input_signature": None
                if function.input_signature is None
                else [key_json(spec_key(s), self.arrays) for s in function.input_signature],
                "concrete": [c for c in (self.concrete(cf) for cf in function._concrete) if c is not None],
            }
        )
        return self.function_ids[id(function)]

    def concrete(self, cf: ConcreteFunction) -> dict | None:
        try:
            key = [key_json(k, self.arrays) for k in cf._key]
        except TypeError:
            return None  # traced for a Python object that cannot be saved: TensorFlow drops it too
        captures = []
        for value in cf.graph.external_captures():
            if isinstance(value, Variable):
                if id(value) not in self.variable_ids:
                    raise AssertionError(
                        f"Tried to export a function which references an 'untracked' resource. TensorFlow "
                        f"objects (e.g. tf.Variable) captured by functions must be 'tracked' by assigning them "
                        f"to an attribute of a tracked object or assigned to an attribute of the main object "
                        f"directly. Trackable Python objects referring to this tensor (from gc.get_referrers, "
                        f"limited to two hops):\n{value!r}\nHint: keep the variable as an attribute of the "
                        f"module (self.v = tf.Variable(...))."
                    )
                captures.append({"kind": "variable", "id": self.variable_ids[id(value)]})
            elif isinstance(value, EagerTensor):
                captures.append(
                    {
                        "kind": "tensor",
                        "value": encode(np.asarray(value._value), self.arrays),
                        "dtype": value.dtype.name,
                    }
                )
            else:
                raise ValueError(f"Cannot save a function that captures {value!r}.")
        return {
            "graph": graph_to_json(cf.graph, self.arrays),
            "key": key,
            "param_names": cf._param_names,
            "captures": captures,
        }

    def signature(self, key: str, cf: ConcreteFunction) -> dict:
        """A signature: the trace, its inputs by name and its outputs as a name -> tensor dict."""
        outputs = _signature_outputs(cf.structured_outputs, cf.name, key)
        if not cf.outputs:
            outputs = {}
        positions = {id(t): i for i, t in enumerate(cf.graph.outputs)}
        specs = [s for s in cf.structured_input_signature[0] if isinstance(s, TensorSpec)]
        saved = self.concrete(cf)
        if saved is None:
            raise ValueError(f"Cannot save the signature {key!r}: its function was traced for Python objects.")
        saved["signature_inputs"] = [[s.name, shape_json(s.shape), s.dtype.name] for s in specs]
        saved["signature_outputs"] = [[name, positions[id(t)]] for name, t in outputs.items()]
        return saved


def _signatures_to_save(obj: Any, signatures: Any) -> dict[str, ConcreteFunction]:
    """The `signatures` argument as name -> ConcreteFunction (TensorFlow's default: the one eligible function)."""
    if signatures is None:
        eligible = []
        for _, value in _attributes(obj):
            if isinstance(value, Function | ConcreteFunction):
                cf = (
                    value
                    if isinstance(value, ConcreteFunction)
                    else (value.get_concrete_function() if value.input_signature is not None else None)
                )
                if cf is not None and cf.outputs and _valid_outputs(cf):
                    eligible.append(cf)
        return {"serving_default": eligible[0]} if len(eligible) == 1 else {}
    if not isinstance(signatures, dict):
        signatures = {"serving_default": signatures}
    result = {}
    for key, value in signatures.items():
        if isinstance(value, Function) and value.input_signature is not None:
            value = value.get_concrete_function()
        if not isinstance(value, ConcreteFunction):
            raise ValueError(
                f"Expected a TensorFlow function for which to generate a signature, but got {value!r}. "
                f"Only `tf.functions` with an input signature or concrete functions can be used as a "
                f"signature."
            )
        _signature_outputs(value.structured_outputs, value.name, key)
        result[key] = value
    return result


def _valid_outputs(cf: ConcreteFunction) -> bool:
    try:
        _signature_outputs(cf.structured_outputs, cf.name, "unused")
    except ValueError:
        return False
    return True


def _signature_outputs(outputs: Any, function_name: str, key: str) -> dict[str, Any]:
    """A signature's outputs are a dict of named tensors: `output_0`, ... for a tensor or a sequence."""
    if hasattr(outputs, "_asdict"):
        outputs = outputs._asdict()
    elif not isinstance(outputs, dict):
        outputs = {f"output_{i}": v for i, v in enumerate(outputs if isinstance(outputs, list | tuple) else [outputs])}
    for name, value in outputs.items():
        if not isinstance(name, str):
            raise ValueError(
                f"Got a dictionary with a non-string key {name!r} in the output of the function "
                f"{function_name} used to generate the SavedModel signature {key!r}."
            )
        if not isinstance(value, Tensor):
            raise ValueError(
                f"Got a non-Tensor value {value!r} for key {name!r} in the output of the function "
                f"{function_name} used to generate the SavedModel signature {key!r}. Outputs for "
                f"functions used as signatures must be a single Tensor, a sequence of Tensors, or a "
                f"dictionary from string to Tensor."
            )
    return outputs


def _is_checkpoint(value: Any) -> bool:
    return isinstance(value, Checkpoint)


def _attributes(obj: Any) -> list[tuple[str, Any]]:
    """What a module tracks: its attributes (not the bookkeeping of tf.Module) and its tf.function methods."""
    found = [
        (k, v)
        for k, v in vars(obj).items()
        if k not in ("_name", "_scope_name", "_name_scope") and not k.startswith("_minitf_function_")
    ]
    for name in dir(type(obj)):
        if isinstance(inspect.getattr_static(type(obj), name, None), Function):
            found.append((name, getattr(obj, name)))
    return found


def _trackable_check(obj: Any) -> None:
    if not (isinstance(obj, Module) or _is_checkpoint(obj)):
        raise ValueError(
            f"Expected an object of type `Trackable`, such as `tf.Module` or a subclass of the "
            f"`Trackable` class, for export. Got {obj!r} with type {type(obj)}.\nHint: put the "
            f"variables and tf.functions on a tf.Module and save that."
        )


def save(obj: Any, export_dir: str, signatures: Any = None, options: Any = None) -> None:
    """Write `obj` (a tf.Module) with its variables and traced tf.functions to the directory `export_dir`."""
    _trackable_check(obj)
    writer = _Writer()
    root = writer.node(obj)
    signature_functions = _signatures_to_save(obj, signatures)
    saved_signatures = {key: writer.signature(key, cf) for key, cf in signature_functions.items()}
    export_dir = os.fspath(export_dir)
    os.makedirs(os.path.join(export_dir, "variables"), exist_ok=True)
    os.makedirs(os.path.join(export_dir, "assets"), exist_ok=True)
    variables = [
        {
            "name": v.name.rsplit(":", 1)[0],
            "dtype": v.dtype.name,
            "shape": shape_json(v.shape),
            "trainable": v.trainable,
        }
        for v in writer.variables
    ]
    # Any: NumPy's savez stub reads `**values` as its allow_pickle flag too
    values: dict[str, Any] = {f"v{i}": np.asarray(v.numpy()) for i, v in enumerate(writer.variables)}
    strings = {}
    for i in range(len(writer.variables)):  # strings cannot go into .npz without pickle: JSON keeps them
        if values[f"v{i}"].dtype == object:
            strings[str(i)] = encode(values.pop(f"v{i}"), writer.arrays)
    document = {
        "format": FORMAT,
        "version": VERSION,
        "root": root,
        "variables": variables,
        "string_variables": strings,
        "functions": writer.functions,
        "signatures": saved_signatures,
    }
    with open(os.path.join(export_dir, GRAPHS_FILE), "w", encoding="utf-8") as f:
        json.dump(document, f)
    np.savez(os.path.join(export_dir, VARIABLES_FILE), **values)
    constants: dict[str, Any] = writer.arrays.stored
    np.savez(os.path.join(export_dir, CONSTANTS_FILE), **constants)
