"""`tf.saved_model.save` / `load`: a `tf.Module`'s variables and traced functions, reloadable without its code.

The format is minitf's own (docs/saved_model.md), a directory with:
  saved_model.json          the object tree (modules, variables, functions by attribute name) and every
                            function's traced graphs as data (minitf/graph_io.py)
  variables/variables.npz   the variables' values
  constants.npz             arrays the graphs hold (constants, captured tensors)
Loading reads JSON and NumPy arrays (`allow_pickle=False`): it never runs code from the files, and it needs
neither the Python class of the module nor the source of its functions. The loaded object, like
TensorFlow's, is a plain object with the saved attributes: variables are new Variables with the saved values,
functions run the saved graphs and accept the inputs they were traced for.
"""

from __future__ import annotations

import contextlib
import inspect
import json
import os
from typing import Any

import numpy as np

from minitf import dtypes
from minitf.checkpoint import Checkpoint
from minitf.core import convert_to_tensor
from minitf.errors import InvalidArgumentError
from minitf.function.cache_keys import Literal, TensorSpec, VariableSpec
from minitf.function.concrete_function import ConcreteFunction
from minitf.function.execute import call_graph
from minitf.function.function import Function
from minitf.function.module import Module
from minitf.graph_io import Arrays, decode, encode, graph_from_json, graph_to_json, shape_json
from minitf.tensor import EagerTensor, Tensor, make
from minitf.tensor_shape import TensorShape
from minitf.variables import Variable

FORMAT = "minitf-saved-model"
VERSION = 1
GRAPHS_FILE = "saved_model.json"
VARIABLES_FILE = os.path.join("variables", "variables.npz")
CONSTANTS_FILE = "constants.npz"


# ---------------------------------------------------------------------------------------------------
# Saving
# ---------------------------------------------------------------------------------------------------

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
            items = {str(k): self.node(v) for k, v in value.items()}
            return {"kind": "dict", "items": {k: v for k, v in items.items() if v is not None}}
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
        record.update({
            "name": function.name,
            "parameters": _parameters_json(function.function_spec, self.arrays),
            "input_signature": None if function.input_signature is None else
            [_key_json(_spec_key(s), self.arrays) for s in function.input_signature],
            "concrete": [c for c in (self.concrete(cf) for cf in function._concrete) if c is not None],
        })
        return self.function_ids[id(function)]

    def concrete(self, cf: ConcreteFunction) -> dict | None:
        try:
            key = [_key_json(k, self.arrays) for k in cf._key]
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
                        f"module (self.v = tf.Variable(...)).")
                captures.append({"kind": "variable", "id": self.variable_ids[id(value)]})
            elif isinstance(value, EagerTensor):
                captures.append({"kind": "tensor", "value": encode(np.asarray(value._value), self.arrays),
                                 "dtype": value.dtype.name})
            else:
                raise ValueError(f"Cannot save a function that captures {value!r}.")
        return {"graph": graph_to_json(cf.graph, self.arrays), "key": key, "param_names": cf._param_names,
                "captures": captures}


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
                cf = value if isinstance(value, ConcreteFunction) else \
                    (value.get_concrete_function() if value.input_signature is not None else None)
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
            raise ValueError(f"Expected a TensorFlow function for which to generate a signature, but got {value!r}. "
                             f"Only `tf.functions` with an input signature or concrete functions can be used as a "
                             f"signature.")
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
        outputs = {f"output_{i}": v for i, v in enumerate(outputs if isinstance(outputs, list | tuple)
                                                          else [outputs])}
    for name, value in outputs.items():
        if not isinstance(name, str):
            raise ValueError(f"Got a dictionary with a non-string key {name!r} in the output of the function "
                             f"{function_name} used to generate the SavedModel signature {key!r}.")
        if not isinstance(value, Tensor):
            raise ValueError(f"Got a non-Tensor value {value!r} for key {name!r} in the output of the function "
                             f"{function_name} used to generate the SavedModel signature {key!r}. Outputs for "
                             f"functions used as signatures must be a single Tensor, a sequence of Tensors, or a "
                             f"dictionary from string to Tensor.")
    return outputs


def _is_checkpoint(value: Any) -> bool:
    return isinstance(value, Checkpoint)


def _attributes(obj: Any) -> list[tuple[str, Any]]:
    """What a module tracks: its attributes (not the bookkeeping of tf.Module) and its tf.function methods."""
    found = [(k, v) for k, v in vars(obj).items() if k not in ("_name", "_scope_name", "_name_scope")
             and not k.startswith("_minitf_function_")]
    for name in dir(type(obj)):
        if isinstance(inspect.getattr_static(type(obj), name, None), Function):
            found.append((name, getattr(obj, name)))
    return found


def _trackable_check(obj: Any) -> None:
    if not (isinstance(obj, Module) or _is_checkpoint(obj)):
        raise ValueError(f"Expected an object of type `Trackable`, such as `tf.Module` or a subclass of the "
                         f"`Trackable` class, for export. Got {obj!r} with type {type(obj)}.\nHint: put the "
                         f"variables and tf.functions on a tf.Module and save that.")


def _spec_key(spec: Any) -> Any:
    if isinstance(spec, TensorSpec):
        return TensorSpec(spec.shape, spec.dtype)
    if isinstance(spec, list | tuple):
        return ("List" if isinstance(spec, list) else "Tuple", *(_spec_key(s) for s in spec))
    raise TypeError(f"Cannot save the input signature entry {spec!r}.")


def _key_json(key: Any, arrays: Arrays) -> Any:
    if isinstance(key, VariableSpec):
        raise TypeError("a Variable argument")
    if isinstance(key, TensorSpec):
        return {"t": "spec", "shape": shape_json(key.shape), "dtype": key.dtype.name,
                "name": getattr(key, "name", None)}
    if isinstance(key, Literal):
        return {"t": "literal", "v": encode(key.value, arrays)}
    if isinstance(key, tuple) and key and key[0] in ("List", "Tuple"):
        return {"t": key[0], "v": [_key_json(k, arrays) for k in key[1:]]}
    if isinstance(key, tuple) and key and key[0] == "Dict":
        return {"t": "Dict", "v": [[k, _key_json(t, arrays)] for k, t in key[1:]]}
    raise TypeError(f"a {type(key).__name__} argument")


def _key_from(node: Any, arrays: Arrays) -> Any:
    tag = node["t"]
    if tag == "spec":
        return TensorSpec(TensorShape(node["shape"]), dtypes.as_dtype(node["dtype"]))
    if tag == "literal":
        return Literal(decode(node["v"], arrays))
    if tag in ("List", "Tuple"):
        return (tag, *(_key_from(k, arrays) for k in node["v"]))
    return ("Dict", *((k, _key_from(t, arrays)) for k, t in node["v"]))


def _parameters_json(sig: inspect.Signature, arrays: Arrays) -> list[dict]:
    params = []
    for p in sig.parameters.values():
        entry: dict[str, Any] = {"name": p.name, "kind": p.kind.name}
        if p.default is not inspect.Parameter.empty:
            with contextlib.suppress(TypeError):  # a default that is not plain data is not saved
                entry["default"] = encode(p.default, arrays)
        params.append(entry)
    return params


def _signature_from(params: list[dict], arrays: Arrays) -> inspect.Signature:
    return inspect.Signature([
        inspect.Parameter(p["name"], inspect._ParameterKind[p["kind"]],
                          default=decode(p["default"], arrays) if "default" in p else inspect.Parameter.empty)
        for p in params])


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
    variables = [{"name": v.name.rsplit(":", 1)[0], "dtype": v.dtype.name, "shape": shape_json(v.shape),
                  "trainable": v.trainable} for v in writer.variables]
    values = {f"v{i}": np.asarray(v.numpy()) for i, v in enumerate(writer.variables)}
    strings = {}
    for i in range(len(writer.variables)):  # strings cannot go into .npz without pickle: JSON keeps them
        if values[f"v{i}"].dtype == object:
            strings[str(i)] = encode(values.pop(f"v{i}"), writer.arrays)
    document = {"format": FORMAT, "version": VERSION, "root": root, "variables": variables,
                "string_variables": strings, "functions": writer.functions, "signatures": saved_signatures}
    with open(os.path.join(export_dir, GRAPHS_FILE), "w", encoding="utf-8") as f:
        json.dump(document, f)
    np.savez(os.path.join(export_dir, VARIABLES_FILE), **values)
    np.savez(os.path.join(export_dir, CONSTANTS_FILE), **writer.arrays.stored)


# ---------------------------------------------------------------------------------------------------
# Loading
# ---------------------------------------------------------------------------------------------------

class _UserObject:
    """A loaded object: the saved attributes, without the class that defined them (as in TensorFlow)."""


class RestoredFunction(Function):
    """A loaded tf.function: runs the saved traces; it cannot trace anew (the Python source is not saved)."""

    def __init__(self, name: str, sig: inspect.Signature, input_signature: Any,
                 concretes: list[ConcreteFunction]) -> None:
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
            raise ValueError("Found zero restored functions for caller function.\nHint: TensorFlow (and minitf) "
                             "saves the traces a tf.function has made; call it once, or give it an "
                             "input_signature, before saving.")
        got = "\n".join(f"    * {bound.arguments[n]!r}" for n in names)
        options = "\n\n".join(
            f"Option {i}:\n  Positional arguments ({len(cf._key)} total):\n" +
            "\n".join(f"    * {_option_text(k)}" for k in cf._key) + "\n  Keyword arguments: {}"
            for i, cf in enumerate(self._concrete, start=1))
        raise ValueError(f"Could not find matching concrete function to call loaded from the SavedModel. Got:\n"
                         f"  Positional arguments ({len(names)} total):\n{got}\n  Keyword arguments: {{}}\n\n "
                         f"Expected these arguments to match one of the following {len(self._concrete)} "
                         f"option(s):\n\n{options}")


def _option_text(key: Any) -> str:
    return repr(key.value) if isinstance(key, Literal) else repr(key)


def load(export_dir: str, tags: Any = None, options: Any = None) -> Any:
    """The object saved in `export_dir`, with its variables restored and its functions callable."""
    export_dir = os.fspath(export_dir)
    path = os.path.join(export_dir, GRAPHS_FILE)
    if not os.path.exists(path):
        raise OSError(f"SavedModel file does not exist at: {export_dir}/{{saved_model.pbtxt|saved_model.pb}}"
                      f"\nHint: minitf loads directories written by minitf's tf.saved_model.save "
                      f"(with a {GRAPHS_FILE}).")
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
        variables.append(Variable(value, name=spec["name"], trainable=spec["trainable"],
                                  dtype=dtypes.as_dtype(spec["dtype"])))
    functions = [_restore_function(record, variables, arrays) for record in document["functions"]]
    loaded = _restore_node(document["root"], variables, functions)
    loaded.signatures = _SignatureMap({key: _restore_signature(key, entry, variables, arrays)
                                       for key, entry in document.get("signatures", {}).items()})
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
    holders = graph.inputs[len(graph.inputs) - n:] if n else []
    for value, holder in zip(outside, holders):
        if isinstance(value, Variable):
            holder._variable = value
    graph.captures = list(zip(outside, holders))
    return graph


def _restore_function(record: dict, variables: list[Variable], arrays: Arrays) -> RestoredFunction:
    sig = _signature_from(record["parameters"], arrays)
    concretes = []
    for entry in record["concrete"]:
        graph = _restore_graph(entry, variables, arrays)
        key = tuple(_key_from(k, arrays) for k in entry["key"])
        graph.structured_input_signature = (tuple(k if isinstance(k, TensorSpec) else getattr(k, "value", k)
                                                  for k in key), {})
        concretes.append(ConcreteFunction(graph, sig, key, entry["param_names"], record["name"]))
    signature = None if record["input_signature"] is None else \
        tuple(_spec_from_key(_key_from(k, arrays)) for k in record["input_signature"])
    return RestoredFunction(record["name"], sig, signature, concretes)


def _spec_from_key(key: Any) -> Any:
    if isinstance(key, tuple):
        items = [_spec_from_key(k) for k in key[1:]]
        return items if key[0] == "List" else tuple(items)
    return key


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
        return {name: TensorSpec(self.graph.outputs[i].shape, self.graph.outputs[i].dtype, name=name)
                for name, i in self._outputs}

    def __call__(self, *args: Any, **kwargs: Any) -> dict[str, Any]:
        names = [s.name for s in self._inputs]
        values = dict(zip(names, args))
        values.update(kwargs)
        if set(values) != set(names) or len(args) > len(names):
            missing = [n for n in names if n not in values]
            raise TypeError(f"Binding inputs to tf.function failed due to `missing a required argument: "
                            f"{missing[0]!r}`. Received args: {args} and kwargs: {kwargs} for signature: "
                            f"{self._signature_text()}." if missing else
                            f"Binding inputs to tf.function failed due to `got an unexpected keyword argument`. "
                            f"Received args: {args} and kwargs: {kwargs} for signature: {self._signature_text()}.")
        flat = []
        for i, spec in enumerate(self._inputs):
            value = convert_to_tensor(values[spec.name], dtype_hint=spec.dtype)
            if value.dtype is not spec.dtype:  # type: ignore[attr-defined]
                raise InvalidArgumentError(None, None, f"cannot compute {self.name} as input #{i}(zero-based) was "
                                           f"expected to be a {_c_name(spec.dtype)} tensor but is a "
                                           f"{_c_name(value.dtype)} tensor [Op:{self.name}]")  # type: ignore
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
    inputs = [TensorSpec(TensorShape(shape), dtypes.as_dtype(dtype), name=name)
              for name, shape, dtype in entry["signature_inputs"]]
    return SignatureFunction(key, graph, inputs, [(name, i) for name, i in entry["signature_outputs"]])
