"""The student's side of the channel: it answers the trusted kernel's requests about the student's values.

This module runs in the student's kernel (the grader sends its source).  Values that are data cross as data
(codec.py); anything else the student's code made (a function, a custom object) is kept here and named by number,
so the trusted kernel only ever holds those numbers.  Every request the trusted kernel may send is a row of
``REQUESTS``.  The grader evaluates ``answer(request)`` here and reads the reply from ``last_reply``.

An object the test lends (an instance of an instructor's class, for timing exercises) stays in the trusted kernel:
here it is a ``Lent`` stand-in whose calls go back through the grader and run there while this kernel waits.
"""

import base64
import builtins
import importlib
import json
import sys

from .codec import (
    LIBRARIES,
    MAX_REPLY_BYTES,
    ChannelError,
    Decoder,
    Encoder,
    graph_data,
    is_graph,
    mutable,
)

_kept: list = []
_kept_ids: dict = {}


def _user_namespace():
    from IPython import get_ipython

    return get_ipython().user_ns


def keep(value):
    """Keep a value that is not data here; the trusted kernel gets its number, its type's name and what it claims."""
    key = id(value)
    if key not in _kept_ids or _kept[_kept_ids[key]] is not value:
        _kept_ids[key] = len(_kept)
        _kept.append(value)
    return {
        "$": "ref",
        "id": _kept_ids[key],
        "type": type(value).__name__,
        "callable": callable(value),
        "traces": _is_engine_function(value),
    }


#: where each engine defines the class of what tf.function returns
FUNCTION_MODULES = {
    "minitf": "minitf.function.function",
    "tensorflow": "tensorflow.python.eager.polymorphic_function.polymorphic_function",
}


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
    if is_graph(graph):
        return {"graph": graph_data(graph, encoder), "key": key}
    return {"key": key}


def decode_special(decoder, data, depth):
    """What the trusted kernel sends that is not data: a kept object's number, a lambda's source, a library
    function's public name, or an object it lends."""
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
    encoder = Encoder(keep)
    payload = {
        "callback": {
            "id": lent_id,
            "method": method,
            "args": encoder.encode(tuple(args)),
            "kwargs": encoder.encode(dict(kwargs)),
        }
    }
    reply = json.loads(builtins.input(json.dumps(payload)))
    if "raised" in reply or "failed" in reply:
        name = str(reply.get("raised", "RuntimeError"))
        kind = getattr(builtins, name, None)
        kind = kind if isinstance(kind, type) and issubclass(kind, Exception) else RuntimeError
        raise kind(str(reply.get("message", reply.get("failed", ""))))
    return Decoder(decode_special).decode(reply["value"])


# --------------------------------------------------------------------------------------------------------
# The requests: each takes the request (JSON data) and returns its answer (JSON data).

_decoder = Decoder(decode_special)
_encoder = Encoder(keep)


def _target(request):
    return _kept[int(request["id"])]


def _names(request):
    """The values the answer cells bound to these names (names the student's code never bound are left out)."""
    namespace = _user_namespace()
    return {"values": {name: _encoder.encode(namespace[name]) for name in request["names"] if name in namespace}}


def _call(request):
    """Call a kept object with the test's arguments; what the call did to its mutable arguments goes back too
    (a train_step updates Variables in place), entries that were arguments themselves as their slot."""
    args = _decoder.decode(request["args"])
    kwargs = _decoder.decode(request["kwargs"])
    result = _target(request)(*args, **kwargs)
    changed = mutable(args) + mutable(list(kwargs.values()))
    slots = {id(v): n for n, v in enumerate(changed)}
    mutated = [
        {"$": "list", "v": [{"$": "slot", "id": slots[id(i)]} if id(i) in slots else _encoder.encode(i) for i in v]}
        if isinstance(v, list)
        else _encoder.encode(v)
        for v in changed
    ]
    return {"value": _encoder.encode(result), "mutated": mutated}


def _traced_call(request):
    """A tf.function: the trace that serves these arguments, then (unless only the trace is asked) the call."""
    args = _decoder.decode(request["args"])
    kwargs = _decoder.decode(request["kwargs"])
    trace = _trace_data(_target(request).get_concrete_function(*args, **kwargs), _encoder)
    if request.get("trace_only"):
        return {"trace": trace}
    return {**_call(request), "trace": trace}


def _traces(request):
    """Every trace a tf.function made before the test asked."""
    return {"traces": [_trace_data(c, _encoder) for c in list(getattr(_target(request), "_concrete", []))[:1000]]}


#: every request the trusted kernel may send (grader/trusted/channel/trusted.py), and what answers it here
REQUESTS = {
    "names": _names,
    "getattr": lambda request: {"value": _encoder.encode(getattr(_target(request), str(request["attr"])))},
    "call": _call,
    "traced_call": _traced_call,
    "traces": _traces,
    "iter": lambda request: {"value": _encoder.encode(list(_target(request)))},
    "len": lambda request: {"value": int(len(_target(request)))},
    "getitem": lambda request: {"value": _encoder.encode(_target(request)[_decoder.decode(request["key"])])},
    "repr": lambda request: {"value": str(repr(_target(request)))[:10000]},
    "str": lambda request: {"value": str(_target(request))[:10000]},
}


def answer_request(request):
    """The answer to one request, as JSON data; an unknown request is an error."""
    op = request.get("op") if type(request) is dict else None
    if type(op) is not str or op not in REQUESTS:
        raise ChannelError(f"unknown request {op!r}")
    return REQUESTS[op](request)


def serve(request):
    """Answer one request from the grader (a JSON string); the reply is JSON, as base64 text.

    Base64 makes the reply's ``text/plain`` form a quoted string of plain letters, which the grader checks
    and decodes in one linear pass, never by evaluating it.
    """
    try:
        reply = json.dumps(answer_request(json.loads(request)))
        if len(reply) > MAX_REPLY_BYTES:
            reply = json.dumps(
                {
                    "raised": "ValueError",
                    "message": f"the value is too large to grade ({len(reply)} "
                    f"bytes of data; the grader takes at most {MAX_REPLY_BYTES})",
                }
            )
    except BaseException as error:  # the student's code failed: the trusted side raises the same kind of error
        reply = json.dumps({"raised": type(error).__name__, "message": str(error)[:2000]})
    return base64.b64encode(reply.encode()).decode()


last_reply = ""


def answer(request):
    """Serve a request as a cell's code (so the student's code may call lent objects through input()); the
    grader reads the reply from ``last_reply`` (IPython evaluates user expressions after input is withdrawn)."""
    global last_reply
    last_reply = ""
    last_reply = serve(request)
