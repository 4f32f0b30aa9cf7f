"""Traced graphs to JSON and back, for SavedModel: data only, never code.

A FuncGraph becomes a JSON object: its operations in program order (type, name, inputs as [op, output]
positions, attributes, output shapes and dtypes), which tensors are its inputs and outputs, and how its
outputs are structured. Numeric arrays (constants) go to a side table that the caller stores in an .npz
file, which NumPy reads without pickle. Kernels are found again by op type in `core.REGISTRY`, so loading
runs no code from the file: an unknown op type is an error, not an import.
"""

from __future__ import annotations

import base64
from typing import Any

import numpy as np

from minitf.composite.ragged.tensor import RaggedTensor
from minitf.composite.sparse import SparseTensor
from minitf.core import dtypes
from minitf.core.dtypes import resource, variant
from minitf.core.op import REGISTRY
from minitf.core.tensor_shape import TensorShape
from minitf.function.tracing.func_graph import FuncGraph
from minitf.function.tracing.graph import SymbolicTensor

_SPECIAL_DTYPES = {"resource": resource, "variant": variant}


class Arrays:
    """The side table of NumPy arrays: keys `a0`, `a1`, ... in an .npz file; strings are kept in the JSON."""

    def __init__(self, stored: dict[str, np.ndarray] | None = None) -> None:
        self.stored: dict[str, np.ndarray] = {} if stored is None else stored

    def put(self, array: Any) -> Any:
        array = np.asarray(array)
        if array.dtype == object:
            return {
                "t": "strings",
                "shape": list(array.shape),
                "v": [base64.b64encode(bytes(s)).decode() for s in array.reshape(-1)],
            }
        key = f"a{len(self.stored)}"
        self.stored[key] = array
        return {"t": "array", "key": key}

    def get(self, node: dict) -> np.ndarray:
        if node["t"] == "strings":
            out = np.empty(len(node["v"]), dtype=object)
            out[:] = [base64.b64decode(s) for s in node["v"]]
            return out.reshape(node["shape"])
        return self.stored[node["key"]]


def dtype_name(dtype: dtypes.DType) -> str:
    return dtype.name


def dtype_from(name: str) -> dtypes.DType:
    return _SPECIAL_DTYPES.get(name) or dtypes.as_dtype(name)


def shape_json(shape: TensorShape) -> list | None:
    return None if shape.rank is None else list(shape.as_list())


# ---------------------------------------------------------------------------------------------------
# Attribute values
# ---------------------------------------------------------------------------------------------------


def encode(value: Any, arrays: Arrays) -> Any:
    """An attribute value as JSON, tagged with its Python type so that `decode` gives the same value back."""
    if value is None or isinstance(value, bool | str | int):
        return value
    if isinstance(value, float):
        return {"t": "float", "v": repr(value)}
    if isinstance(value, complex):
        return {"t": "complex", "v": [repr(value.real), repr(value.imag)]}
    if isinstance(value, bytes):
        return {"t": "bytes", "v": base64.b64encode(value).decode()}
    if isinstance(value, dtypes.DType):
        return {"t": "dtype", "v": value.name}
    if isinstance(value, TensorShape):
        return {"t": "shape", "v": shape_json(value)}
    if isinstance(value, np.ndarray):
        return {"t": "ndarray", "v": arrays.put(value)}
    if isinstance(value, np.generic):
        return {"t": "scalar", "v": arrays.put(np.asarray(value))}
    if isinstance(value, list | tuple):
        return {
            "t": type(value).__name__ if type(value) in (list, tuple) else "tuple",
            "v": [encode(v, arrays) for v in value],
        }
    if isinstance(value, dict):
        return {"t": "dict", "v": [[encode(k, arrays), encode(v, arrays)] for k, v in value.items()]}
    if isinstance(value, slice):
        return {
            "t": "slice",
            "v": [encode(value.start, arrays), encode(value.stop, arrays), encode(value.step, arrays)],
        }
    if value is Ellipsis:
        return {"t": "ellipsis"}
    if isinstance(value, FuncGraph):
        # A branch or loop body: what it captured was turned into explicit inputs of the op that runs it.
        return {"t": "graph", "v": graph_to_json(value, arrays)}
    raise TypeError(
        f"Cannot save an attribute of type {type(value).__name__} ({value!r}) in a SavedModel.\n"
        f"Hint: minitf saves tensors, shapes, dtypes and plain Python values; keep other objects out "
        f"of the traced function."
    )


def decode(node: Any, arrays: Arrays) -> Any:
    if node is None or isinstance(node, bool | str | int):
        return node
    tag = node["t"]
    if tag == "float":
        return float(node["v"])
    if tag == "complex":
        return complex(float(node["v"][0]), float(node["v"][1]))
    if tag == "bytes":
        return base64.b64decode(node["v"])
    if tag == "dtype":
        return dtype_from(node["v"])
    if tag == "shape":
        return TensorShape(node["v"])
    if tag == "ndarray":
        return arrays.get(node["v"])
    if tag == "scalar":
        return arrays.get(node["v"])[()]
    if tag in ("list", "tuple"):
        items = [decode(v, arrays) for v in node["v"]]
        return items if tag == "list" else tuple(items)
    if tag == "dict":
        return {decode(k, arrays): decode(v, arrays) for k, v in node["v"]}
    if tag == "slice":
        return slice(*[decode(v, arrays) for v in node["v"]])
    if tag == "ellipsis":
        return Ellipsis
    if tag == "graph":
        return graph_from_json(node["v"], arrays)
    raise ValueError(f"Unknown value tag {tag!r} in a SavedModel file (written by a newer minitf?).")


# ---------------------------------------------------------------------------------------------------
# Graphs
# ---------------------------------------------------------------------------------------------------


def graph_to_json(graph: FuncGraph, arrays: Arrays) -> dict:
    """The graph's operations and structure. Its captures are listed by position: the caller says what each is."""
    position: dict[int, tuple[int, int]] = {}
    ops = []
    for i, op in enumerate(graph.get_operations()):
        if REGISTRY.get(op.type) is not op.op_def:
            raise ValueError(f"Cannot save the op {op.name} ({op.type}): it is not a registered minitf op.")
        ops.append(
            {
                "name": op.name,
                "type": op.type,
                "inputs": [list(position[id(t)]) for t in op.inputs],
                "attrs": {k: encode(v, arrays) for k, v in op.attrs.items() if not k.startswith("_") or k == "_shape"},
                "outputs": [[shape_json(t.shape), dtype_name(t.dtype)] for t in op.outputs],
            }
        )
        for j, t in enumerate(op.outputs):
            position[id(t)] = (i, j)
    return {
        "name": graph.name,
        "autograph": graph.autograph,
        "ops": ops,
        "inputs": [list(position[id(t)]) for t in graph.inputs],
        "outputs": [list(position[id(t)]) for t in graph.outputs],
        "structured_outputs": _structure_json(graph.structured_outputs, graph.outputs, arrays),
        "num_captures": len(graph.captures),
    }


def _structure_json(structure: Any, outputs: list[SymbolicTensor], arrays: Arrays) -> Any:
    if isinstance(structure, RaggedTensor | SparseTensor):  # a composite output: its components, and its kind
        levels = []
        node: Any = structure
        while isinstance(node, RaggedTensor):
            levels.append(node._uniform_row_length)
            node = node.values
        return {
            "t": type(structure).__name__,
            "uniform_row_lengths": levels,
            "v": [_structure_json(c, outputs, arrays) for c in structure._components()],
        }
    if isinstance(structure, SymbolicTensor):
        return {"t": "output", "v": next(i for i, t in enumerate(outputs) if t is structure)}
    if isinstance(structure, dict):
        return {"t": "dict", "v": [[k, _structure_json(v, outputs, arrays)] for k, v in structure.items()]}
    if isinstance(structure, list | tuple):
        return {
            "t": "list" if isinstance(structure, list) else "tuple",
            "v": [_structure_json(v, outputs, arrays) for v in structure],
        }
    return {"t": "value", "v": encode(structure, arrays)}


def _structure_from(node: Any, outputs: list[SymbolicTensor], arrays: Arrays) -> Any:
    tag = node["t"]
    if tag == "SparseTensor":
        return SparseTensor(*[_structure_from(c, outputs, arrays) for c in node["v"]])
    if tag == "RaggedTensor":
        flat, *splits = [_structure_from(c, outputs, arrays) for c in node["v"]]
        value: Any = flat
        for row_splits, uniform in zip(reversed(splits), reversed(node["uniform_row_lengths"])):
            value = RaggedTensor(value, row_splits, internal=True, uniform_row_length=uniform)
        return value
    if tag == "output":
        return outputs[node["v"]]
    if tag == "dict":
        return {k: _structure_from(v, outputs, arrays) for k, v in node["v"]}
    if tag in ("list", "tuple"):
        items = [_structure_from(v, outputs, arrays) for v in node["v"]]
        return items if tag == "list" else tuple(items)
    return decode(node["v"], arrays)


def graph_from_json(node: dict, arrays: Arrays) -> FuncGraph:
    """Rebuild a FuncGraph; every kernel is looked up by op type among minitf's registered ops."""
    graph = FuncGraph(node["name"], autograph=node["autograph"])
    made: list[Any] = []
    for op_node in node["ops"]:
        kind = op_node["type"]
        op_def = REGISTRY.get(kind)
        if op_def is None:
            raise ValueError(f"This SavedModel uses the op {kind}, which this version of minitf does not have.")
        inputs = [made[i].outputs[j] for i, j in op_node["inputs"]]
        attrs = {k: decode(v, arrays) for k, v in op_node["attrs"].items()}
        op = graph.create_op(op_def, inputs, attrs, name=op_node["name"])
        op.name = op_node["name"]
        for t, (shape, dt) in zip(op.outputs, op_node["outputs"]):  # as saved (set_shape may have refined them)
            t._shape, t._dtype = TensorShape(shape), dtype_from(dt)
        made.append(op)
    graph.inputs = [made[i].outputs[j] for i, j in node["inputs"]]
    graph.outputs = [made[i].outputs[j] for i, j in node["outputs"]]
    graph.structured_outputs = _structure_from(node["structured_outputs"], graph.outputs, arrays)
    return graph
