"""The channel's codec: values as JSON data, rebuilt on the other side from that data alone.

This module runs inside both kernels (the grader sends its source, grader/trusted/channel/__init__.py), so it uses only
the standard library, NumPy, and the engine (minitf or TensorFlow) that the notebook imported.

Values cross as JSON: numbers, strings, None, lists, tuples, dicts, sets, NumPy arrays and scalars, and tensors,
variables and dtypes of the engine, each rebuilt from plain data.  A minitf graph (a FuncGraph, which a graph pass
exercise rewrites) crosses as its operations in minitf's SavedModel format (`minitf/saved/graph_json.py`): op
types found again among minitf's registered ops, attributes as data.  What is not data is each side's business: the
``Encoder`` hands it to a function of the side that encodes, and the ``Decoder`` hands tags it does not know to a
function of the side that decodes.
"""

import base64
import importlib
import json
import sys

import numpy as np

ENGINES = ("minitf", "tensorflow")
#: libraries whose public functions a test may pass to the student's code (tf.nn.relu, np.sin, ...)
LIBRARIES = (*ENGINES, "numpy", "math")
#: dtypes whose bytes are plain numbers (no Python objects behind them)
PLAIN_KINDS = "biufc"
#: the largest reply (JSON, in bytes) for one request; the grader's sockets refuse larger messages unread
MAX_REPLY_BYTES = 8 * 1024 * 1024
#: ops whose kernels need attributes that never cross (Python functions, generated code)
GRAPH_OPS_REFUSED = frozenset({"PyFunc", "PyFuncStateless", "EagerPyFunc", "FusedElementwise", "_FusedMatMul"})
MAX_GRAPH_OPS = 5000


class ChannelError(Exception):
    """The other side sent something that is not a value this channel carries."""


def engine_of(value):
    root = type(value).__module__.split(".")[0]
    return sys.modules.get(root) if root in ENGINES else None


def engine_named(name):
    if name not in ENGINES:
        raise ChannelError(f"unknown engine {name!r}")
    return sys.modules.get(name) or importlib.import_module(name)


def array_data(array):
    array = np.array(array, order="C", copy=True)  # keeps 0-d arrays 0-d (ascontiguousarray would not)
    if array.dtype.kind not in PLAIN_KINDS:
        raise ChannelError(f"arrays of dtype {array.dtype} do not cross")
    return {"dtype": array.dtype.str, "shape": list(array.shape), "b64": base64.b64encode(array.tobytes()).decode()}


def array_from(data):
    dtype = np.dtype(str(data["dtype"]))
    if dtype.kind not in PLAIN_KINDS or dtype.hasobject:
        raise ChannelError(f"arrays of dtype {dtype} do not cross")
    shape = tuple(int(n) for n in data["shape"])
    raw = base64.b64decode(str(data["b64"]), validate=True)
    if any(n < 0 for n in shape) or len(raw) != int(np.prod(shape, dtype=np.int64)) * dtype.itemsize:
        raise ChannelError("array bytes do not match the shape")
    return np.frombuffer(raw, dtype=dtype).reshape(shape).copy()


class Encoder:
    """Turns a value into JSON-ready data; ``other`` says what to do with values that are not data."""

    def __init__(self, other):
        self.other = other

    def encode(self, value, depth=0):
        if depth > 50:
            raise ChannelError("the value is nested too deeply")
        if value is None or type(value) in (bool, int, str):
            return value
        if type(value) is float:
            finite = value == value and value not in (float("inf"), float("-inf"))
            return value if finite else {"$": "float", "v": repr(value)}
        if type(value) in (list, tuple, set, frozenset):
            items = list(value) if type(value) in (list, tuple) else sorted(value, key=repr)
            return {"$": type(value).__name__, "v": [self.encode(item, depth + 1) for item in items]}
        if type(value) is dict:
            return {
                "$": "dict",
                "k": [self.encode(k, depth + 1) for k in value],
                "v": [self.encode(v, depth + 1) for v in value.values()],
            }
        if type(value) is np.ndarray and value.dtype.kind in PLAIN_KINDS:
            return {"$": "ndarray", **array_data(value)}
        if is_graph(value):  # (a graph that cannot cross says why, instead of becoming a reference)
            return graph_data(value, self)
        if isinstance(value, np.generic) and type(value).__module__ == "numpy" and value.dtype.kind in PLAIN_KINDS:
            return {"$": "npscalar", **array_data(np.asarray(value))}
        engine = engine_of(value)
        if engine is not None:
            encoded = self._engine_value(engine, value)
            if encoded is not None:
                return encoded
        return self.other(value)

    def _engine_value(self, engine, value):
        name = engine.__name__
        if isinstance(value, engine.DType):
            return {"$": "dtype", "engine": name, "name": value.name}
        try:
            return self._engine_data(engine, value)
        except ChannelError:  # e.g. a tensor of strings: it stays where it is
            return None

    def _engine_data(self, engine, value):
        name = engine.__name__
        if isinstance(value, engine.Variable):
            data = array_data(value.numpy())
            return {
                "$": "variable",
                "engine": name,
                "tfdtype": value.dtype.name,
                **data,
                "name": value.name.rsplit(":", 1)[0],
                "trainable": bool(value.trainable),
            }
        if isinstance(value, engine.Tensor):
            try:
                array = value.numpy()
            except Exception:  # a symbolic tensor has no value
                return None
            return {"$": "tensor", "engine": name, "tfdtype": value.dtype.name, **array_data(np.asarray(array))}
        return None


class Decoder:
    """Rebuilds values from data; ``special`` handles the tags only one side understands."""

    def __init__(self, special):
        self.special = special

    def decode(self, data, depth=0):
        if depth > 50:
            raise ChannelError("the value is nested too deeply")
        if data is None or type(data) in (bool, int, float, str):
            return data
        if type(data) is not dict or type(data.get("$")) is not str:
            raise ChannelError(f"not a value: {type(data).__name__}")
        tag = data["$"]
        if tag == "float":
            if data["v"] not in ("nan", "inf", "-inf"):
                raise ChannelError("not a float")
            return float(data["v"])
        if tag in ("list", "tuple", "set", "frozenset"):
            items = [self.decode(item, depth + 1) for item in data["v"]]
            return {"list": list, "tuple": tuple, "set": set, "frozenset": frozenset}[tag](items)
        if tag == "dict":
            return dict(
                zip(
                    [self.decode(k, depth + 1) for k in data["k"]],
                    [self.decode(v, depth + 1) for v in data["v"]],
                    strict=True,
                )
            )
        if tag == "ndarray":
            return array_from(data)
        if tag == "npscalar":
            return array_from(data)[()]
        if tag in ("tensor", "variable", "dtype"):
            engine = engine_named(data["engine"])
            dtype = engine.as_dtype(str(data["tfdtype"] if tag != "dtype" else data["name"]))
            if tag == "dtype":
                return dtype
            value = engine.constant(array_from(data), dtype=dtype)
            if tag == "tensor":
                return value
            return engine.Variable(value, name=str(data["name"]), trainable=bool(data["trainable"]))
        if tag == "graph":
            return graph_from(data, self, depth)
        return self.special(self, data, depth)


# --------------------------------------------------------------------------------------------------------
# Graphs (minitf only): a pass exercise hands a FuncGraph to the student's function, which rewrites it in
# place.  The graph goes over as data; what the pass made of it comes back the same way (trusted.py
# puts it into the test's own graph object).


def func_graph_class():
    """minitf's FuncGraph once the notebook has loaded it (no graph can cross before)."""
    graph_module = sys.modules.get("minitf.function.tracing.func_graph")
    return graph_module.FuncGraph if graph_module is not None else type(None)


def graph_data(graph, encoder):
    from minitf.saved import graph_json

    if len(graph.get_operations()) > MAX_GRAPH_OPS:
        raise ChannelError(f"a graph of more than {MAX_GRAPH_OPS} operations does not cross")
    arrays = graph_json.Arrays()
    structured, graph.structured_outputs = graph.structured_outputs, list(graph.outputs)  # (a pass may have
    try:  # replaced what the old structure names)
        structure = graph_json.graph_to_json(graph, arrays)
    except KeyError:
        raise ChannelError(
            "the graph is broken: an operation reads a tensor that no operation before it makes"
        ) from None
    except (TypeError, ValueError) as error:
        raise ChannelError(f"the graph does not cross: {error}") from None
    finally:
        graph.structured_outputs = structured
    refused = {op["type"] for op in structure["ops"]} & GRAPH_OPS_REFUSED
    if refused:
        raise ChannelError(f"a graph with {sorted(refused)} operations does not cross")
    return {
        "$": "graph",
        "engine": "minitf",
        "json": json.dumps(structure),
        "arrays": {key: array_data(array) for key, array in arrays.stored.items()},
        "captures": [encoder.encode(outside) for outside, _ in graph.captures],
    }


def graph_from(data, decoder, depth):
    from minitf.saved import graph_json

    if data.get("engine") != "minitf" or "minitf" not in sys.modules:
        raise ChannelError("graphs cross only between minitf kernels")
    structure = json.loads(str(data["json"]))
    if type(structure) is not dict or type(structure.get("ops")) is not list:
        raise ChannelError("not a graph")
    if len(structure["ops"]) > MAX_GRAPH_OPS:
        raise ChannelError(f"a graph of more than {MAX_GRAPH_OPS} operations does not cross")
    refused = {str(op.get("type")) for op in structure["ops"] if type(op) is dict} & GRAPH_OPS_REFUSED
    if refused:
        raise ChannelError(f"a graph with {sorted(refused)} operations does not cross")
    arrays = graph_json.Arrays({str(key): array_from(value) for key, value in dict(data["arrays"]).items()})
    try:
        graph = graph_json.graph_from_json(structure, arrays)
    except (KeyError, IndexError, TypeError, ValueError) as error:
        raise ChannelError(f"not a graph: {error}") from None
    captures = [decoder.decode(item, depth + 1) for item in data["captures"]]
    if len(captures) > len(graph.inputs):
        raise ChannelError("a graph with more captures than inputs")
    graph.rebuild(graph, captures)  # its last inputs stand for the values it captured
    return graph


def mutable(values):
    """Variables, graphs and lists among the arguments, in a fixed order (both sides walk them the same way)."""
    found = []
    for value in values:
        if isinstance(value, list):
            found.append(value)
            found += [v for v in value if is_variable(v) or is_graph(v)]
        elif is_variable(value) or is_graph(value):
            found.append(value)
    return found


def is_graph(value):
    return isinstance(value, func_graph_class())


def is_variable(value):
    engine = engine_of(value)
    return engine is not None and isinstance(value, engine.Variable)
