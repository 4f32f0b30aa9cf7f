"""The trusted side of the channel: stand-ins for the student's objects, and how a test's arguments are sent.

This module runs in the trusted kernel (the grader sends its source).  It decodes strictly (codec.py) and never
executes what it receives, so whatever the student's kernel sends is at worst a wrong value.  ``bind`` puts the
student's values into the test's namespace; an object that is not data becomes a ``Remote`` stand-in whose uses
are requests (``REQUESTS`` in student.py lists them all), asked on this kernel's stdin channel and
relayed by the grader to the student's kernel.

A test may also hand the student's code an instance of a class that an instructor cell defines (a function of
known cost, for timing exercises).  It is lent, not copied: it stays here, and the student's kernel gets a
stand-in whose method calls come back through the grader ("callbacks", ``serve_callback``) while the student's
code waits.  So the instance's attributes (a KnownCost's planted costs) are never in the student's kernel, and
the time its methods take passes here, where the student's code cannot shorten it.  Only this side lends; it
refuses to receive a lent object's data from the student's side.
"""

import builtins
import importlib
import json
import sys
import types

from .codec import LIBRARIES, ChannelError, Decoder, Encoder, is_graph, is_variable, mutable

#: what a tf.function has and a plain Python function has not; the source decides whether a name has them
TF_FUNCTION_ONLY = frozenset(
    {
        "get_concrete_function",
        "experimental_get_tracing_count",
        "python_function",
        "input_signature",
        "function_spec",
        "experimental_get_compiler_ir",
        "pretty_printed_concrete_signatures",
    }
)


class StudentCodeError(Exception):
    """The student's code raised an exception that is not one of Python's built-in ones."""


def _request(payload):
    """Send one request (a row of the student side's ``REQUESTS``) through the grader and return its answer; calls
    of lent objects that the student's code makes meanwhile are served here; what the student's code raised is
    raised again."""
    reply = json.loads(builtins.input(json.dumps(payload)))
    while type(reply) is dict and "callback" in reply:  # the student's code calls an object the test lent it
        reply = json.loads(builtins.input(json.dumps({"callback_result": serve_callback(reply["callback"])})))
    if "failed" in reply:  # the grader could not get an answer (time limit, the kernel died)
        failure = str(reply.get("kind", "RuntimeError"))
        raise type(failure if failure.isidentifier() else "RuntimeError", (RuntimeError,), {})(str(reply["failed"]))
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
        return decode(_request({"op": "getattr", "id": self._id, "attr": attr})["value"])

    def __iter__(self):
        return iter(decode(_request({"op": "iter", "id": self._id})["value"]))

    def __len__(self):
        return _request({"op": "len", "id": self._id})["value"]

    def __getitem__(self, key):
        return decode(_request({"op": "getitem", "id": self._id, "key": encode(key)})["value"])

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
        reply = _request({"op": "call", "id": self._id, "args": encode(tuple(args)), "kwargs": encode(kwargs)})
        _apply_mutations(mutable(sent_args) + mutable(list(sent_kwargs.values())), reply.get("mutated", []))
        return decode(reply["value"])


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
        reply = _request({"op": "traced_call", "id": self._id, "args": encode(tuple(args)), "kwargs": encode(kwargs)})
        self._count(reply.get("trace"))
        _apply_mutations(mutable(sent_args) + mutable(list(sent_kwargs.values())), reply.get("mutated", []))
        return decode(reply["value"])

    def get_concrete_function(self, *args, **kwargs):
        """The trace for these arguments, as a graph rebuilt here (minitf), counted like a call's."""
        self._pull()
        reply = _request(
            {
                "op": "traced_call",
                "id": self._id,
                "args": encode(tuple(args)),
                "kwargs": encode(kwargs),
                "trace_only": True,
            }
        )
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
            graph = Decoder(decode_special).decode(trace["graph"])  # raises ChannelError if it is no graph
            fingerprint = json.dumps([trace["graph"].get("json"), trace["key"]])
        elif "minitf" in sys.modules:  # a minitf function always has a graph
            raise TypeError(f"{type(self).__name__} is not a tf.function: its trace has no graph")
        else:
            fingerprint = trace["key"]
        self._traces.add(fingerprint)
        return graph


_proxy_classes: dict = {}


def proxy(data, tf_function=False):
    """A stand-in for a student object: a plain one, a callable, or (if asked and claimed) a tf.function."""
    name = str(data.get("type", "object"))
    base = RemoteCallable if data.get("callable") else Remote
    if tf_function and data.get("traces") is True and base is RemoteCallable:
        base = RemoteFunction
    key = (name if name.isidentifier() else "object", base)
    if key not in _proxy_classes:  # named after the student's type, so messages say "a function", "a Foo"
        _proxy_classes[key] = type(key[0], (base,), {"__slots__": ()})
    stand_in = _proxy_classes[key].__new__(_proxy_classes[key])
    object.__setattr__(stand_in, "_id", int(data["id"]))
    if base is RemoteFunction:
        object.__setattr__(stand_in, "_traces", set())
        object.__setattr__(stand_in, "_pulled", False)
    return stand_in


def decode_special(decoder, data, depth):
    if data["$"] == "ref":  # a returned tf.function (make_slope's) is one here only as far as its traces, pulled as
        return proxy(data, tf_function=True)  # data, show: without a trace its calls and its count fail
    raise ChannelError(f"unknown tag {data['$']!r}")


def decode(data):
    return Decoder(decode_special).decode(data)


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
            if segment is None:
                continue
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


def serve_callback(request):
    """Run one call of a lent object for the student's code; the answer is data (or another lent object)."""
    try:
        target = _lent[int(request["id"])]
        method = request.get("method")
        if method is not None:
            member = getattr(type(target), str(method), None)
            if str(method).startswith("_") or not isinstance(member, types.FunctionType):
                raise AttributeError(f"{type(target).__name__!r} object has no method {method!r} your code may call")
            target = getattr(target, str(method))
        args = decode(request["args"])
        kwargs = decode(request["kwargs"])
        if type(args) is not tuple or type(kwargs) is not dict or not all(type(k) is str for k in kwargs):
            raise ChannelError("not a call")
        return {"value": encode(target(*args, **kwargs))}
    except Exception as error:
        return {"raised": type(error).__name__, "message": str(error)[:2000]}


def encode_other(value):
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
        index: dict = {}
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


def encode(value):
    return Encoder(encode_other).encode(value)


def _apply_mutations(originals, states):
    """Make the test's own arguments show what the student's function did to its copies of them."""
    if len(originals) != len(states):
        return
    decoder = Decoder(lambda _decoder, data, _depth: _slot(originals, data))
    for original, state in zip(originals, states):
        if is_variable(original):
            new = decoder.decode(state)
            if (
                is_variable(new)
                and new is not original
                and tuple(new.shape) == tuple(original.shape)
                and new.dtype == original.dtype
            ):
                original.assign(new.numpy())
        elif is_graph(original):
            new = decoder.decode(state)
            if is_graph(new) and new is not original:
                _replace_graph(original, new)
    for original, state in zip(originals, states):  # lists last: their entries may be the variables above
        if isinstance(original, list):
            original[:] = decoder.decode(state)


def _replace_graph(original, new):
    """Make ``original`` (the test's graph) the graph ``new`` is; it keeps its own captured values, by position."""
    if len(new.captures) != len(original.captures):
        raise ChannelError("the rewritten graph captures other values than the graph it was given")
    original.rebuild(new, original.external_captures())


def _slot(originals, data):
    if data["$"] == "slot":
        return originals[int(data["id"])]
    return decode_special(None, data, 0)


def bind(namespace, values, tf_functions, wanted):
    """Put the student's values for these names into the test's namespace (absent ones are removed)."""
    for name in wanted:
        namespace.pop(name, None)
    for name, data in values.items():
        if name not in wanted:
            continue
        if type(data) is dict and data.get("$") == "ref":  # a tf.function only if its source says so, too
            namespace[name] = proxy(data, tf_function=bool(tf_functions.get(name)))
        else:
            namespace[name] = decode(data)
