"""`tf.saved_model.load`: a SavedModel directory back as a plain object with the saved attributes.

Variables are new Variables with the saved values; functions (`RestoredFunction`) run the saved graphs and
accept the inputs they were traced for; `loaded.signatures` holds the serving signatures. Nothing from the
files is run as code (JSON and NumPy arrays without pickle).
"""

from __future__ import annotations

import inspect
import json
import os
from typing import Any

import numpy as np

from minitf.core import dtypes
from minitf.core.conversion import convert_to_tensor
from minitf.core.errors import InvalidArgumentError
from minitf.core.tensor import make
from minitf.core.tensor_shape import TensorShape
from minitf.function.cache_keys import Literal, TensorSpec
from minitf.function.compiling.execute import call_graph
from minitf.function.concrete_function import ConcreteFunction
from minitf.function.function import Function
from minitf.ops.variables import Variable
from minitf.saved.graph_json import Arrays, decode, graph_from_json
from minitf.saved.saved_model_format import (
    CONSTANTS_FILE,
    FORMAT,
    GRAPHS_FILE,
    VARIABLES_FILE,
    key_from,
    signature_from,
    spec_from_key,
)


class _UserObject:
    """A loaded object: the saved attributes, without the class that defined them (as in TensorFlow)."""


class RestoredFunction(Function):
    """A loaded tf.function: runs the saved traces; it cannot trace anew (the Python source is not saved)."""

    def __init__(
        self, name: str, sig: inspect.Signature, input_signature: Any, concretes: list[ConcreteFunction]
    ) -> None:
        def restored_function_body(*args: Any, **kwargs: Any) -> Any:
            raise ValueError("A restored function cannot run Python code.")

        restored_function_body.__signature__ = sig  # type: ignore[attr-defined]
        restored_function_body.__name__ = name
        super().__init__(restored_function_body, name=name, input_signature=input_signature)
        for cf in concretes:
            self._cache[cf._key] = cf
            self._concrete.append(cf)

    def _trace(self, bound: inspect.BoundArguments, key: tuple) -> ConcreteFunction:
        names = list(bound.arguments)
        if not self._concrete:
            raise ValueError(
                "Found zero restored functions for caller function.\nHint: TensorFlow (and minitf) "
                "saves the traces a tf.function has made; call it once, or give it an "
                "input_signature, before saving."
            )
        got = "\n".join(f"    * {bound.arguments[n]!r}" for n in names)
        options = "\n\n".join(
            f"Option {i}:\n  Positional arguments ({len(cf._key)} total):\n"
            + "\n".join(f"    * {_option_text(k)}" for k in cf._key)
            + "\n  Keyword arguments: {}"
            for i, cf in enumerate(self._concrete, start=1)
        )
        raise ValueError(
            f"Could not find matching concrete function to call loaded from the SavedModel. Got:\n"
            f"  Positional arguments ({len(names)} total):\n{got}\n  Keyword arguments: {{}}\n\n "
            f"Expected these arguments to match one of the following {len(self._concrete)} "
            f"option(s):\n\n{options}"
        )


def _option_text(key: Any) -> str:
    return repr(key.value) if isinstance(key, Literal) else repr(key)


def load(export_dir: str, tags: Any = None, options: Any = None) -> Any:
    """The object saved in `export_dir`, with its variables restored and its functions callable."""
    export_dir = os.fspath(export_dir)
    path = os.path.join(export_dir, GRAPHS_FILE)
    if not os.path.exists(path):
        raise OSError(
            f"SavedModel file does not exist at: {export_dir}/{{saved_model.pbtxt|saved_model.pb}}"
            f"\nHint: minitf loads directories written by minitf's tf.saved_model.save "
            f"(with a {GRAPHS_FILE})."
        )
    with open(path, encoding="utf-8") as f:
        document = json.load(f)
    if document.get("format") != FORMAT:
        raise ValueError(f"{path} is not a minitf SavedModel.")
    with np.load(os.path.join(export_dir, CONSTANTS_FILE), allow_pickle=False) as stored:
        arrays = Arrays({k: stored[k] for k in stored.files})
    with np.load(os.path.join(export_dir, VARIABLES_FILE), allow_pickle=False) as stored:
        values = {k: stored[k] for k in stored.files}
    variables = []
    for i, spec in enumerate(document["variables"]):
        value = values.get(f"v{i}")
        if value is None:
            value = decode(document["string_variables"][str(i)], arrays)
        variables.append(
            Variable(value, name=spec["name"], trainable=spec["trainable"], dtype=dtypes.as_dtype(spec["dtype"]))
        )
    functions = [_restore_function(record, variables, arrays) for record in document["functions"]]
    loaded = _restore_node(document["root"], variables, functions)
    loaded.signatures = _SignatureMap(
        {
            key: _restore_signature(key, entry, variables, arrays)
            for key, entry in document.get("signatures", {}).items()
        }
    )
    return loaded


def _restore_graph(entry: dict, variables: list[Variable], arrays: Arrays) -> Any:
    """A saved trace's graph, its captures fed by the loaded variables and the saved tensors."""
    graph = graph_from_json(entry["graph"], arrays)
    outside: list[Any] = []
    for capture in entry["captures"]:
        if capture["kind"] == "variable":
            outside.append(variables[capture["id"]])
        else:
            outside.append(make(decode(capture["value"], arrays), dtypes.as_dtype(capture["dtype"])))
    n = len(outside)
    holders = graph.inputs[len(graph.inputs) - n :] if n else []
    for value, holder in zip(outside, holders):
        if isinstance(value, Variable):
            holder._variable = value
    graph.captures = list(zip(outside, holders))
    return graph


def _restore_function(record: dict, variables: list[Variable], arrays: Arrays) -> RestoredFunction:
    sig = signature_from(record["parameters"], arrays)
    concretes = []
    for entry in record["concrete"]:
        graph = _restore_graph(entry, variables, arrays)
        key = tuple(key_from(k, arrays) for k in entry["key"])
        graph.structured_input_signature = (
            tuple(k if isinstance(k, TensorSpec) else getattr(k, "value", k) for k in key),
            {},
        )
        concretes.append(ConcreteFunction(graph, sig, key, entry["param_names"], record["name"]))
    signature = (
        None
        if record["input_signature"] is None
        else tuple(spec_from_key(key_from(k, arrays)) for k in record["input_signature"])
    )
    return RestoredFunction(record["name"], sig, signature, concretes)


def _restore_node(node: dict, variables: list[Variable], functions: list[RestoredFunction]) -> Any:
    kind = node["kind"]
    if kind == "variable":
        return variables[node["id"]]
    if kind == "function":
        return functions[node["id"]]
    if kind == "list":
        return [_restore_node(n, variables, functions) for n in node["items"]]
    if kind == "dict":
        return {k: _restore_node(n, variables, functions) for k, n in node["items"].items()}
    obj = _UserObject()
    for name, child in node["attributes"].items():
        value = _restore_node(child, variables, functions)
        if name == "__call__":
            obj = _callable(obj, value)
        else:
            setattr(obj, name, value)
    return obj


def _callable(obj: _UserObject, call: Any) -> _UserObject:
    """A module saved with a tf.function `__call__` loads as an object you can call."""
    cls = type("_UserObject", (_UserObject,), {"__call__": lambda self, *a, **k: call(*a, **k)})
    new = cls()
    new.__dict__.update(obj.__dict__)
    new.__dict__["__call__"] = call
    return new


# ---------------------------------------------------------------------------------------------------
# Signatures: `loaded.signatures["serving_default"](x=...)` -> {"output_0": ...}
# ---------------------------------------------------------------------------------------------------


class SignatureFunction:
    """A loaded signature: named tensor inputs (keywords or positions), a dict of named tensor outputs."""

    def __init__(self, key: str, graph: Any, inputs: list[TensorSpec], outputs: list[tuple[str, int]]) -> None:
        self._key = key
        self.graph = graph
        self._inputs = inputs
        self._outputs = outputs
        self.name = f"__inference_signature_wrapper_{graph.name}"

    @property
    def structured_input_signature(self) -> tuple:
        return (), {s.name: s for s in self._inputs}

    @property
    def structured_outputs(self) -> dict[str, TensorSpec]:
        return {
            name: TensorSpec(self.graph.outputs[i].shape, self.graph.outputs[i].dtype, name=name)
            for name, i in self._outputs
        }

    def __call__(self, *args: Any, **kwargs: Any) -> dict[str, Any]:
        names = [s.name for s in self._inputs]
        values = dict(zip(names, args))
        values.update(kwargs)
        if set(values) != set(names) or len(args) > len(names):
            missing = [n for n in names if n not in values]
            raise TypeError(
                f"Binding inputs to tf.function failed due to `missing a required argument: "
                f"{missing[0]!r}`. Received args: {args} and kwargs: {kwargs} for signature: "
                f"{self._signature_text()}."
                if missing
                else f"Binding inputs to tf.function failed due to `got an unexpected keyword argument`. "
                f"Received args: {args} and kwargs: {kwargs} for signature: {self._signature_text()}."
            )
        flat = []
        for i, spec in enumerate(self._inputs):
            value = convert_to_tensor(values[spec.name], dtype_hint=spec.dtype)
            if value.dtype is not spec.dtype:
                raise InvalidArgumentError(
                    None,
                    None,
                    f"cannot compute {self.name} as input #{i}(zero-based) was "
                    f"expected to be a {_c_name(spec.dtype)} tensor but is a "
                    f"{_c_name(value.dtype)} tensor [Op:{self.name}]",
                )
            flat.append(value)
        outputs = call_graph(self.graph, flat + self.graph.external_captures())
        return {name: outputs[i] for name, i in self._outputs}

    def _signature_text(self) -> str:
        inputs = ", ".join(f"{s.name}: {s!r}" for s in self._inputs)
        outputs = ", ".join(f"[{name!r}, {spec!r}]" for name, spec in self.structured_outputs.items())
        return f"(*, {inputs}) -> Dict[{outputs}]"

    def __repr__(self) -> str:
        return f"<ConcreteFunction {self._signature_text()} at 0x{id(self):X}>"


def _c_name(dtype: dtypes.DType) -> str:
    return {"float32": "float", "float64": "double", "float16": "half"}.get(dtype.name, dtype.name)


class _SignatureMap(dict):
    """`loaded.signatures`: signature name -> SignatureFunction."""

    def __repr__(self) -> str:
        return f"_SignatureMap({dict.__repr__(self)})"


def _restore_signature(key: str, entry: dict, variables: list[Variable], arrays: Arrays) -> SignatureFunction:
    graph = _restore_graph(entry, variables, arrays)
    inputs = [
        TensorSpec(TensorShape(shape), dtypes.as_dtype(dtype), name=name)
        for name, shape, dtype in entry["signature_inputs"]
    ]
    return SignatureFunction(key, graph, inputs, [(name, i) for name, i in entry["signature_outputs"]])
