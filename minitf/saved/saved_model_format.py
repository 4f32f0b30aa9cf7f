"""minitf's SavedModel format: file names and how cache keys, input signatures and Python signatures are
written as JSON (docs/saved_model.md). Saving (saved_model.py) and loading (saved_model_load.py) share it."""

from __future__ import annotations

import contextlib
import inspect
import os
from typing import Any

from minitf.core import dtypes
from minitf.core.tensor_shape import TensorShape
from minitf.function.cache_keys import Literal, TensorSpec, VariableSpec
from minitf.saved.graph_json import Arrays, decode, encode, shape_json

FORMAT = "minitf-saved-model"
VERSION = 1
GRAPHS_FILE = "saved_model.json"
VARIABLES_FILE = os.path.join("variables", "variables.npz")
CONSTANTS_FILE = "constants.npz"


def spec_key(spec: Any) -> Any:
    if isinstance(spec, TensorSpec):
        return TensorSpec(spec.shape, spec.dtype)
    if isinstance(spec, list | tuple):
        return ("List" if isinstance(spec, list) else "Tuple", *(spec_key(s) for s in spec))
    raise TypeError(f"Cannot save the input signature entry {spec!r}.")


def key_json(key: Any, arrays: Arrays) -> Any:
    if isinstance(key, VariableSpec):
        raise TypeError("a Variable argument")
    if isinstance(key, TensorSpec):
        return {
            "t": "spec",
            "shape": shape_json(key.shape),
            "dtype": key.dtype.name,
            "name": getattr(key, "name", None),
        }
    if isinstance(key, Literal):
        return {"t": "literal", "v": encode(key.value, arrays)}
    if isinstance(key, tuple) and key and key[0] in ("List", "Tuple"):
        return {"t": key[0], "v": [key_json(k, arrays) for k in key[1:]]}
    if isinstance(key, tuple) and key and key[0] == "Dict":
        return {"t": "Dict", "v": [[k, key_json(t, arrays)] for k, t in key[1:]]}
    raise TypeError(f"a {type(key).__name__} argument")


def key_from(node: Any, arrays: Arrays) -> Any:
    tag = node["t"]
    if tag == "spec":
        return TensorSpec(TensorShape(node["shape"]), dtypes.as_dtype(node["dtype"]))
    if tag == "literal":
        return Literal(decode(node["v"], arrays))
    if tag in ("List", "Tuple"):
        return (tag, *(key_from(k, arrays) for k in node["v"]))
    return ("Dict", *((k, key_from(t, arrays)) for k, t in node["v"]))


def parameters_json(sig: inspect.Signature, arrays: Arrays) -> list[dict]:
    params = []
    for p in sig.parameters.values():
        entry: dict[str, Any] = {"name": p.name, "kind": p.kind.name}
        if p.default is not inspect.Parameter.empty:
            with contextlib.suppress(TypeError):  # a default that is not plain data is not saved
                entry["default"] = encode(p.default, arrays)
        params.append(entry)
    return params


def signature_from(params: list[dict], arrays: Arrays) -> inspect.Signature:
    return inspect.Signature(
        [
            inspect.Parameter(
                p["name"],
                inspect._ParameterKind[p["kind"]],
                default=decode(p["default"], arrays) if "default" in p else inspect.Parameter.empty,
            )
            for p in params
        ]
    )


def spec_from_key(key: Any) -> Any:
    if isinstance(key, tuple):
        items = [spec_from_key(k) for k in key[1:]]
        return items if key[0] == "List" else tuple(items)
    return key
