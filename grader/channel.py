"""The data-only channel between the student's kernel and the trusted kernel that computes verdicts.

This file runs inside both kernels (the grader sends its source, as it does for the guard), so it uses
only the standard library, NumPy, and the engine (minitf or TensorFlow) that the notebook imported.

Values cross as JSON: numbers, strings, None, lists, tuples, dicts, sets, NumPy arrays and scalars, and
tensors, variables and dtypes of the engine, each rebuilt on the other side from plain data.  A minitf graph
(a FuncGraph, which a graph pass exercise rewrites) crosses as its operations in minitf's SavedModel format
(`minitf/saved/graph_json.py`): op types found again among minitf's registered ops, attributes as data.  Anything
else the student's kernel holds (a function, a custom object) stays there: the trusted kernel gets a
proxy whose calls send data arguments over and get data back.  The trusted kernel decodes strictly and
never executes what it receives, so whatever the student's kernel sends is at worst a wrong value.

A test may also hand the student's code an instance of a class that an instructor cell defines (a
function of known cost, for timing exercises).  It is lent, not copied: it stays in the trusted kernel,
and the student's kernel gets a stand-in whose method calls come back to the trusted kernel through the
grader ("callbacks") while the student's code waits.  So the instance's attributes (a KnownCost's planted
costs) are never in the student's kernel, and the time its methods take (sleeping) passes in the trusted
kernel, where the student's code cannot shorten it.  Only the trusted side lends; it refuses to receive a
lent object's data from the student's side.
"""

import base64
import builtins
import importlib
import json
import sys
import types

import numpy as np

ENGINES = ("minitf", "tensorflow")
#: libraries whose public functions a test may pass to the student's code (tf.nn.relu, np.sin, ...)
LIBRARIES = (*ENGINES, "numpy", "math")
#: dtypes whose bytes are plain numbers (no Python objects behind them)
PLAIN_KINDS = "biufc"
#: what a tf.function has and a plain Python function has not; the source decides whether a name has them
TF_FUNCTION_ONLY = frozenset({
    "get_concrete_function", "experimental_get_tracing_count", "python_function", "input_signature",
    "function_spec", "experimental_get_compiler_ir", "pretty_printed_concrete_signatures",
})


class ChannelError(Exception):
    """The other side sent something that is not a value this channel carries."""


def _engine_of(value):
    root = type(value).__module__.split(".")[0]
    return sys.modules.get(root) if root in ENGINES else None


def _engine(name):
    if name not in ENGINES:
        raise ChannelError(f"unknown engine {name!r}")
    return sys.modules.get(name) or importlib.import_module(name)


def _array_data(array):
    array = np.array(array, order="C", copy=True)  # keeps 0-d arrays 0-d (ascontiguousarray would not)
    if array.dtype.kind not in PLAIN_KINDS:
        raise ChannelError(f"arrays of dtype {array.dtype} do not cross")
    return {"dtype": array.dtype.str, "shape": list(array.shape), "b64": base64.b64encode(array.tobytes()).decode()}


def _array_from(data):
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
            return {"$": "dict", "k": [self.encode(k, depth + 1) for k in value],
                    "v": [self.encode(v, depth + 1) for v in value.values()]}
        if type(value) is np.ndarray and value.dtype.kind in PLAIN_KINDS:
            return {"$": "ndarray", **_array_data(value)}
        if _is_graph(value):  # (a graph that cannot cross says why, instead of becoming a reference)
            return _graph_data(value, self)
        if isinstance(value, np.generic) and type(value).__module__ == "numpy" and value.dtype.kind in PLAIN_KINDS:
            return {"$": "npscalar", **_array_data(np.asarray(value))}
        engine = _engine_of(value)
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
            data = _array_data(value.numpy())
            return {"$": "variable", "engine": name, "tfdtype": value.dtype.name, **data,
                    "name": value.name.rsplit(":", 1)[0], "trainable": bool(value.trainable)}
        if isinstance(value, engine.Tensor):
            try:
                array = value.numpy()
            except Exception:  # a symbolic tensor has no value
                return None
            return {"$": "tensor", "engine": name, "tfdtype": value.dtype.name, **_array_data(np.asarray(array))}
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
            return dict(zip([self.decode(k, depth + 1) for k in data["k"]],
                            [self.decode(v, depth + 1) for v in data["v"]], strict=True))
        if tag == "ndarray":
            return _array_from(data)
        if tag == "npscalar":
            return _array_from(data)[()]
        if tag in ("tensor", "variable", "dtype"):
            engine = _engine(data["engine"])
            dtype = engine.as_dtype(str(data["tfdtype"] if tag != "dtype" else data["name"]))
            if tag == "dtype":
                return dtype
            value = engine.constant(_array_from(data), dtype=dtype)
            if tag == "tensor":
                return value
            return engine.Variable(value, name=str(data["name"]), trainable=bool(data["trainable"]))
        if tag == "graph":
            return _graph_from(data, self, depth)
        return self.special(self, data, depth)


# --------------------------------------------------------------------------------------------------------
# Graphs (minitf only): a pass exercise hands a FuncGraph to the student's function, which rewrites it in
# place.  The graph goes over as data; what the pass made of it comes back the same way and replaces the
# original's contents, so the test sees the rewritten graph as if the pass had run next to it.

#: ops whose kernels need attributes that never cross (Python functions, generated code)
GRAPH_OPS_REFUSED = frozenset({"PyFunc", "PyFuncStateless", "EagerPyFunc", "FusedElementwise", "_FusedMatMul"})
MAX_GRAPH_OPS = 5000


def _func_graph_class():
    graph_module = sys.modules.get("minitf.function.tracing.graph")
    return graph_module.FuncGraph if graph_module is not None else type(None)


def _graph_data(graph, encoder):
    from minitf.saved import graph_json

    if len(graph.get_operations()) > MAX_GRAPH_OPS:
        raise ChannelError(f"a graph of more than {MAX_GRAPH_OPS} operations does not cross")
    arrays = graph_json.Arrays()
    structured, graph.structured_outputs = graph.structured_outputs, list(graph.outputs)  # (a pass may have
    try:                                                              # replaced what the old structure names)
        structure = graph_json.graph_to_json(graph, arrays)
    except KeyError:
        raise ChannelError("the graph is broken: an operation reads a tensor that no operation before it "
                           "makes") from None
    except (TypeError, ValueError) as error:
        raise ChannelError(f"the graph does not cross: {error}") from None
    finally:
        graph.structured_outputs = structured
    refused = {op["type"] for op in structure["ops"]} & GRAPH_OPS_REFUSED
    if refused:
        raise ChannelError(f"a graph with {sorted(refused)} operations does not cross")
    return {"$": "graph", "engine": "minitf", "json": json.dumps(structure),
            "arrays": {key: _array_data(array) for key, array in arrays.stored.items()},
            "captures": [encoder.encode(outside) for outside, _ in graph.captures]}


def _graph_from(data, decoder, depth):
    from minitf.ops.state_ops import variable_of
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
    arrays = graph_json.Arrays({str(key): _array_from(value) for key, value in dict(data["arrays"]).items()})
    try:
        graph = graph_json.graph_from_json(structure, arrays)
    except (KeyError, IndexError, TypeError, ValueError) as error:
        raise ChannelError(f"not a graph: {error}") from None
    captures = [decoder.decode(item, depth + 1) for item in data["captures"]]
    if len(captures) > len(graph.inputs):
        raise ChannelError("a graph with more captures than inputs")
    holders = graph.inputs[len(graph.inputs) - len(captures):]
    for outside, holder in zip(captures, holders):
        if holder.dtype.name == "resource":
            holder._variable = variable_of(outside)
    graph.captures = list(zip(captures, holders))
    return graph


def _replace_graph(original, new):
    """Make `original` the graph `new` is; its captures keep the original's own values, by position."""
    from minitf.ops.state_ops import variable_of

    if len(new.captures) != len(original.captures):
        raise ChannelError("the rewritten graph captures other values than the graph it was given")
    captures = [(outside, holder) for (outside, _), (_, holder) in zip(original.captures, new.captures)]
    for outside, holder in captures:
        holder._variable = variable_of(outside) if holder.dtype.name == "resource" else None
    for op in new.get_operations():
        op.graph = original
    original._operations = new.get_operations()
    original._name_counts = dict(new._name_counts)
    original.inputs = list(new.inputs)
    original.outputs = list(new.outputs)
    original.structured_outputs = new.structured_outputs
    original.control_outputs = [op for op in new.get_operations() if op.stateful]
    original.captures = captures
    original._captured = {id(outside): holder for outside, holder in captures}
    original.changed()


# --------------------------------------------------------------------------------------------------------
# The student's side: values by name, calls, attributes.  Objects that are not data are kept here and
# named by number; the trusted kernel only ever holds those numbers.

_kept = []
_kept_ids = {}


def _user_namespace():
    from IPython import get_ipython

    return get_ipython().user_ns


def _keep(value):
    key = id(value)
    if key not in _kept_ids or _kept[_kept_ids[key]] is not value:
        _kept_ids[key] = len(_kept)
        _kept.append(value)
    return {"$": "ref", "id": _kept_ids[key], "type": type(value).__name__, "callable": callable(value),
            "traces": _is_engine_function(value)}


#: where each engine defines the class of what tf.function returns
FUNCTION_MODULES = {"minitf": "minitf.function.function",
                    "tensorflow": "tensorflow.python.eager.polymorphic_function.polymorphic_function"}


def _is_engine_function(value):
    """Whether a value is the engine's own tf.function (only a claim: the trusted side asks for its traces)."""
    for module in FUNCTION_MODULES.values():
        kind = getattr(sys.modules.get(module), "Function", None)
        if isinstance(kind, type) and type(value) is kind:
            return True
    return False


def _trace_data(concrete, encoder):
    """One trace of a tf.function as data: its graph (minitf) and its cache key, from which the trusted
    side counts traces.  A TensorFlow trace crosses by its signature only."""
    key = str(getattr(concrete, "_key", None) or getattr(concrete, "structured_input_signature", ""))[:10000]
    graph = getattr(concrete, "graph", None)
    if _is_graph(graph):
        return {"graph": _graph_data(graph, encoder), "key": key}
    return {"key": key}


def _student_special(decoder, data, depth):
    tag = data["$"]
    if tag == "ref":
        return _kept[int(data["id"])]
    if tag == "lambda":
        return eval(compile(str(data["src"]), "<test>", "eval"), _user_namespace())
    if tag == "libfn":
        if data["module"] not in LIBRARIES:
            raise ChannelError(f"unknown library {data['module']!r}")
        target = importlib.import_module(str(data["module"]))
        for part in str(data["path"]).split("."):
            target = getattr(target, part)
        return target
    if tag == "lent":
        return Lent(int(data["id"]), bool(data.get("callable")))
    raise ChannelError(f"unknown tag {tag!r}")


class Lent:
    """The student's side of an object the test lent: calls of it and of its public methods run in the trusted
    kernel (while this kernel waits); its attributes are not readable here."""

    __slots__ = ("_lent_id", "_callable")

    def __init__(self, lent_id, is_callable):
        object.__setattr__(self, "_lent_id", lent_id)
        object.__setattr__(self, "_callable", is_callable)

    def __call__(self, *args, **kwargs):
        if not self._callable:
            raise TypeError("this object is not callable")
        return _callback(self._lent_id, None, args, kwargs)

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)
        return lambda *args, **kwargs: _callback(self._lent_id, name, args, kwargs)

    def __setattr__(self, name, value):
        raise AttributeError("objects the test lends cannot be changed")

    def __repr__(self):
        return "<an object the test lent to your code>"


def _callback(lent_id, method, args, kwargs):
    """Call a lent object (or one of its methods) in the trusted kernel; the grader relays this, and times it."""
    encoder = Encoder(_keep)
    payload = {"callback": {"id": lent_id, "method": method, "args": encoder.encode(tuple(args)),
                            "kwargs": encoder.encode(dict(kwargs))}}
    reply = json.loads(builtins.input(json.dumps(payload)))
    if "raised" in reply or "failed" in reply:
        name = str(reply.get("raised", "RuntimeError"))
        kind = getattr(builtins, name, None)
        kind = kind if isinstance(kind, type) and issubclass(kind, Exception) else RuntimeError
        raise kind(str(reply.get("message", reply.get("failed", ""))))
    return Decoder(_student_special).decode(reply["value"])


def _student_answer(payload):
    namespace = _user_namespace()
    decoder = Decoder(_student_special)
    encoder = Encoder(_keep)
    op = payload["op"]
    if op == "names":
        return {"values": {name: encoder.encode(namespace[name]) for name in payload["names"] if name in namespace}}
    target = _kept[int(payload["id"])]
    if op == "getattr":
        return {"value": encoder.encode(getattr(target, str(payload["attr"])))}
    if op == "call":
        args = decoder.decode(payload["args"])
        kwargs = decoder.decode(payload["kwargs"])
        result = target(*args, **kwargs)
        # what the call did to its mutable arguments goes back too (train_step updates Variables in place)
        mutable = _mutable(args) + _mutable(list(kwargs.values()))
        slots = {id(v): n for n, v in enumerate(mutable)}
        mutated = [
            {"$": "list", "v": [{"$": "slot", "id": slots[id(i)]} if id(i) in slots else encoder.encode(i) for i in v]}
            if isinstance(v, list) else encoder.encode(v)
            for v in mutable
        ]
        return {"value": encoder.encode(result), "mutated": mutated}
    if op == "traced_call":  # a tf.function: the trace that serves these arguments, then the call itself
        args = decoder.decode(payload["args"])
        kwargs = decoder.decode(payload["kwargs"])
        trace = _trace_data(target.get_concrete_function(*args, **kwargs), encoder)
        if payload.get("trace_only"):
            return {"trace": trace}
        answer = _student_answer({**payload, "op": "call"})
        return {**answer, "trace": trace}
    if op == "traces":  # every trace a tf.function made before the test asked
        return {"traces": [_trace_data(c, encoder) for c in list(getattr(target, "_concrete", []))[:1000]]}
    if op == "iter":
        return {"value": encoder.encode(list(target))}
    if op == "len":
        return {"value": int(len(target))}
    if op == "getitem":
        return {"value": encoder.encode(target[decoder.decode(payload["key"])])}
    if op == "repr":
        return {"value": str(repr(target))[:10000]}
    if op == "str":
        return {"value": str(target)[:10000]}
    raise ChannelError(f"unknown request {op!r}")


def _mutable(values):
    """Variables, graphs and lists among the arguments, in a fixed order (both sides walk them the same way)."""
    found = []
    for value in values:
        if isinstance(value, list):
            found.append(value)
            found += [v for v in value if _is_variable(v) or _is_graph(v)]
        elif _is_variable(value) or _is_graph(value):
            found.append(value)
    return found


def _is_graph(value):
    return isinstance(value, _func_graph_class())


def _is_variable(value):
    engine = _engine_of(value)
    return engine is not None and isinstance(value, engine.Variable)


#: the largest reply (JSON, in bytes) for one request; the grader's sockets refuse larger messages unread
MAX_REPLY_BYTES = 8 * 1024 * 1024


def serve(request):
    """Answer one request from the grader (a JSON string); the reply is JSON, as base64 text.

    Base64 makes the reply's ``text/plain`` form a quoted string of plain letters, which the grader checks
    and decodes in one linear pass, never by evaluating it.
    """
    try:
        reply = json.dumps(_student_answer(json.loads(request)))
        if len(reply) > MAX_REPLY_BYTES:
            reply = json.dumps({"raised": "ValueError", "message": f"the value is too large to grade ({len(reply)} "
                                f"bytes of data; the grader takes at most {MAX_REPLY_BYTES})"})
    except BaseException as error:  # the student's code failed: the verdict side raises the same kind of error
        reply = json.dumps({"raised": type(error).__name__, "message": str(error)[:2000]})
    return base64.b64encode(reply.encode()).decode()


last_reply = ""


def answer(request):
    """Serve a request as a cell's code (so the student's code may call lent objects through input()); the
    grader reads the reply from ``last_reply`` (IPython evaluates user expressions after input is withdrawn)."""
    global last_reply
    last_reply = ""
    last_reply = serve(request)


# --------------------------------------------------------------------------------------------------------
# The trusted side: proxies for the student's objects, and how test code's arguments are sent.

class StudentCodeError(Exception):
    """The student's code raised an exception that is not one of Python's built-in ones."""


def _request(payload):
    reply = json.loads(builtins.input(json.dumps(payload)))
    while type(reply) is dict and "callback" in reply:  # the student's code calls an object the test lent it
        reply = json.loads(builtins.input(json.dumps({"callback_result": _serve_callback(reply["callback"])})))
    if "failed" in reply:  # the grader could not get an answer (time limit, the kernel died)
        kind = str(reply.get("kind", "RuntimeError"))
        raise type(kind if kind.isidentifier() else "RuntimeError", (RuntimeError,), {})(str(reply["failed"]))
    if "raised" in reply:
        name, message = str(reply["raised"]), str(reply["message"])
        kind = getattr(builtins, name, None)
        if not (isinstance(kind, type) and issubclass(kind, Exception)):
            kind = type(name, (StudentCodeError,), {}) if name.isidentifier() else StudentCodeError
        raise kind(message)
    return reply


class Remote:
    """An object that lives in the student's kernel; only data about it ever reaches this kernel."""

    __slots__ = ("_id",)

    def __getattr__(self, attr):
        if attr.startswith("__") or attr in TF_FUNCTION_ONLY:  # a RemoteFunction answers these itself
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {attr!r}")
        return _decode(_request({"op": "getattr", "id": self._id, "attr": attr})["value"])

    def __iter__(self):
        return iter(_decode(_request({"op": "iter", "id": self._id})["value"]))

    def __len__(self):
        return _request({"op": "len", "id": self._id})["value"]

    def __getitem__(self, key):
        return _decode(_request({"op": "getitem", "id": self._id, "key": _encode(key)})["value"])

    def __repr__(self):
        return str(_request({"op": "repr", "id": self._id})["value"])

    def __str__(self):
        return str(_request({"op": "str", "id": self._id})["value"])

    def __eq__(self, other):
        return self is other

    def __hash__(self):
        return id(self)


class RemoteCallable(Remote):
    __slots__ = ()

    def __call__(self, *args, **kwargs):
        sent_args, sent_kwargs = list(args), dict(kwargs)
        reply = _request({"op": "call", "id": self._id, "args": _encode(tuple(args)), "kwargs": _encode(kwargs)})
        _apply_mutations(_mutable(sent_args) + _mutable(list(sent_kwargs.values())), reply.get("mutated", []))
        return _decode(reply["value"])


class RemoteFunction(RemoteCallable):
    """A tf.function in the student's kernel.  How often it traced is counted here, from its traces as data.

    Every call asks for the trace that serves its arguments (the graph, rebuilt here from minitf's registered
    ops, and the cache key); distinct traces are counted, together with those the function made before the
    test ran.  An object that only claims to be a tf.function has no graph to send: its calls fail.
    """

    __slots__ = ("_traces", "_pulled")

    def __call__(self, *args, **kwargs):
        self._pull()
        sent_args, sent_kwargs = list(args), dict(kwargs)
        reply = _request({"op": "traced_call", "id": self._id, "args": _encode(tuple(args)),
                          "kwargs": _encode(kwargs)})
        self._count(reply.get("trace"))
        _apply_mutations(_mutable(sent_args) + _mutable(list(sent_kwargs.values())), reply.get("mutated", []))
        return _decode(reply["value"])

    def get_concrete_function(self, *args, **kwargs):
        """The trace for these arguments, as a graph rebuilt here (minitf), counted like a call's."""
        self._pull()
        reply = _request({"op": "traced_call", "id": self._id, "args": _encode(tuple(args)),
                          "kwargs": _encode(kwargs), "trace_only": True})
        return self._count(reply.get("trace"))

    def experimental_get_tracing_count(self):
        self._pull()
        return len(self._traces)

    def _pull(self):
        if not self._pulled:
            object.__setattr__(self, "_pulled", True)
            for trace in _request({"op": "traces", "id": self._id}).get("traces", [])[:1000]:
                self._count(trace)

    def _count(self, trace):
        """Check one trace and add it to this function's traces; returns its graph (None for TensorFlow)."""
        if type(trace) is not dict or type(trace.get("key")) is not str:
            raise TypeError(f"{type(self).__name__} is not a tf.function: the grader got no trace of it")
        graph = None
        if "graph" in trace:
            graph = Decoder(_trusted_special).decode(trace["graph"])  # raises ChannelError if it is no graph
            fingerprint = json.dumps([trace["graph"].get("json"), trace["key"]])
        elif "minitf" in sys.modules:  # a minitf function always has a graph
            raise TypeError(f"{type(self).__name__} is not a tf.function: its trace has no graph")
        else:
            fingerprint = trace["key"]
        self._traces.add(fingerprint)
        return graph


_proxy_classes = {}


def _proxy(data, tf_function=False):
    """A stand-in for a student object: a plain one, a callable, or (if asked and claimed) a tf.function."""
    name = str(data.get("type", "object"))
    base = RemoteCallable if data.get("callable") else Remote
    if tf_function and data.get("traces") is True and base is RemoteCallable:
        base = RemoteFunction
    key = (name if name.isidentifier() else "object", base)
    if key not in _proxy_classes:  # named after the student's type, so messages say "a function", "a Foo"
        _proxy_classes[key] = type(key[0], (base,), {"__slots__": ()})
    proxy = _proxy_classes[key].__new__(_proxy_classes[key])
    object.__setattr__(proxy, "_id", int(data["id"]))
    if base is RemoteFunction:
        object.__setattr__(proxy, "_traces", set())
        object.__setattr__(proxy, "_pulled", False)
    return proxy


def _trusted_special(decoder, data, depth):
    if data["$"] == "ref":  # a returned tf.function (make_slope's) is one here only as far as its traces, pulled as
        return _proxy(data, tf_function=True)  # data, show: without a trace its calls and its count fail
    raise ChannelError(f"unknown tag {data['$']!r}")


def _decode(data):
    return Decoder(_trusted_special).decode(data)


def _lambda_source(function):
    """The source of a lambda written in a test cell, so the student's kernel can build the same function."""
    import ast
    import linecache

    code = function.__code__
    if code.co_freevars:
        raise ChannelError("a lambda passed to the student's code may use only its arguments, tf and np")
    source = "".join(linecache.getlines(code.co_filename))
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Lambda) and node.lineno == code.co_firstlineno:
            segment = ast.get_source_segment(source, node)
            compiled = compile(segment, "<test>", "eval")
            if any(isinstance(c, types.CodeType) and c.co_code == code.co_code for c in compiled.co_consts):
                return segment
    raise ChannelError("cannot find the source of a lambda passed to the student's code")


_lent: list = []


def _lend(value):
    for number, lent in enumerate(_lent):
        if lent is value:
            return {"$": "lent", "id": number, "callable": callable(value)}
    _lent.append(value)
    return {"$": "lent", "id": len(_lent) - 1, "callable": callable(value)}


def _serve_callback(request):
    """Run one call of a lent object for the student's code; the answer is data (or another lent object)."""
    try:
        target = _lent[int(request["id"])]
        method = request.get("method")
        if method is not None:
            member = getattr(type(target), str(method), None)
            if str(method).startswith("_") or not isinstance(member, types.FunctionType):
                raise AttributeError(f"{type(target).__name__!r} object has no method {method!r} your code may call")
            target = getattr(target, str(method))
        args = _decode(request["args"])
        kwargs = _decode(request["kwargs"])
        if type(args) is not tuple or type(kwargs) is not dict or not all(type(k) is str for k in kwargs):
            raise ChannelError("not a call")
        return {"value": _encode(target(*args, **kwargs))}
    except Exception as error:
        return {"raised": type(error).__name__, "message": str(error)[:2000]}


def _trusted_other(value):
    if isinstance(value, Remote):
        return {"$": "ref", "id": object.__getattribute__(value, "_id")}
    if isinstance(value, types.FunctionType) and value.__name__ == "<lambda>":
        return {"$": "lambda", "src": _lambda_source(value)}
    if type(type(value)) is type and type(value).__module__ == "__main__" and hasattr(value, "__dict__"):
        return _lend(value)  # an instance of an instructor's class: it stays here
    root = (getattr(value, "__module__", None) or "").split(".")[0]
    if callable(value) and root in LIBRARIES:
        path = _public_path(root, value)
        if path:
            return {"$": "libfn", "module": root, "path": path}
    raise ChannelError(f"a {type(value).__name__} cannot be passed to the student's code")


_public_paths: dict = {}


def _public_path(root, function):
    """Where a library function is found in the library's public namespace: 'nn.relu', 'math.sin', 'sin'."""
    if root not in _public_paths:
        index = {}
        library = importlib.import_module(root)
        for name in dir(library):
            if name.startswith("_"):
                continue
            value = getattr(library, name, None)
            if isinstance(value, types.ModuleType):
                for inner in dir(value):
                    if not inner.startswith("_"):
                        index.setdefault(id(getattr(value, inner, None)), f"{name}.{inner}")
            elif callable(value):
                index[id(value)] = name
        _public_paths[root] = index
    return _public_paths[root].get(id(function))


def _encode(value):
    return Encoder(_trusted_other).encode(value)


def _apply_mutations(originals, states):
    """Make the test's own arguments show what the student's function did to its copies of them."""
    if len(originals) != len(states):
        return
    decoder = Decoder(lambda _decoder, data, _depth: _slot(originals, data))
    for original, state in zip(originals, states):
        if _is_variable(original):
            new = decoder.decode(state)
            if _is_variable(new) and new is not original and tuple(new.shape) == tuple(original.shape) \
                    and new.dtype == original.dtype:
                original.assign(new.numpy())
        elif _is_graph(original):
            new = decoder.decode(state)
            if _is_graph(new) and new is not original:
                _replace_graph(original, new)
    for original, state in zip(originals, states):  # lists last: their entries may be the variables above
        if isinstance(original, list):
            original[:] = decoder.decode(state)


def _slot(originals, data):
    if data["$"] == "slot":
        return originals[int(data["id"])]
    return _trusted_special(None, data, 0)


def bind(namespace, values, tf_functions, wanted):
    """Put the student's values for these names into the test's namespace (absent ones are removed)."""
    for name in wanted:
        namespace.pop(name, None)
    for name, data in values.items():
        if name not in wanted:
            continue
        if type(data) is dict and data.get("$") == "ref":  # a tf.function only if its source says so, too
            namespace[name] = _proxy(data, tf_function=bool(tf_functions.get(name)))
        else:
            namespace[name] = _decode(data)
