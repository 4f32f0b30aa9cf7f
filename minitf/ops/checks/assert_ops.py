"""Assertions: tf.Assert, tf.assert_greater / assert_less (and the other comparisons in tf.debugging) and
tf.assert_rank.

Eagerly an assertion is checked at once and returns None. Inside a tf.function it becomes a stateful op
(`AssertThat`) that checks when the graph runs, as TensorFlow's `Assert` does; stateful ops keep their place
in program order, so a `tf.control_dependencies` block needs no edges of its own: everything after the
assertion already runs after it. Traced, `tf.Assert` returns the operation TensorFlow returns: an `Identity`
named `Assert/AssertGuard/Identity` of its guard (`AssertGuard`, TensorFlow's is an `If`), usable in
`tf.control_dependencies`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, cast

import numpy as np

from minitf.core import dtypes
from minitf.core.context import state
from minitf.core.conversion import convert_to_tensor
from minitf.core.errors import InvalidArgumentError
from minitf.core.op import Op, bind
from minitf.core.printing import format_value
from minitf.core.tensor import EagerTensor, Tensor
from minitf.core.tensor_shape import TensorShape
from minitf.ops.array.shape_ops import Identity
from minitf.ops.math.comparisons import greater, greater_equal, less, less_equal
from minitf.ops.math.reductions import reduce_all

_ESCAPES = {ord("\n"): "\\n", ord("\r"): "\\r", ord("\t"): "\\t", ord('"'): '\\"', ord("'"): "\\'", ord("\\"): "\\\\"}


def _entry(value: Any) -> str:
    """One entry as a running graph's Assert writes it: text C-escaped (newlines as \\n), numbers as tf.print
    writes them."""
    if isinstance(value, bytes | str):
        data = value if isinstance(value, bytes) else value.encode()
        text = "".join(_ESCAPES.get(b, f"\\{b:03o}" if b < 0x20 or b == 0x7F else chr(b)) for b in data)
        return text.encode("latin-1").decode("utf-8", "backslashreplace")  # UTF-8 beyond ASCII stays as it is
    return format_value(np.asarray(value))


def _summary(value: Any, summarize: int) -> str:
    """A tensor as a running graph's Assert lists it (TensorFlow's Tensor::SummarizeValue): the first
    `summarize` entries in row-major order (all if negative), bracketed by dimension, "..." where some are
    left out: [[1, 2], [3, 4]] with 3 entries is [1 2][3...]..."""
    array = np.asarray(value, dtype=object) if isinstance(value, bytes) else np.asarray(value)
    flat = array.reshape(-1)
    limit = flat.size if summarize < 0 else min(summarize, flat.size)
    entries = [_entry(v) for v in flat[:limit]]
    more = "..." if limit < flat.size else ""
    if array.ndim == 0:
        return " ".join(entries) + more
    out: list[str] = []
    taken = 0

    def dimension(d: int) -> None:
        nonlocal taken
        if taken >= limit:
            return
        if d == array.ndim - 1:
            for i in range(array.shape[d]):
                if taken >= limit:
                    out.append("..." if d else "")
                    return
                out.append((" " if i else "") + entries[taken])
                taken += 1
            return
        for _ in range(array.shape[d]):
            opened = taken < limit
            out.append("[" if opened else "")
            dimension(d + 1)
            out.append("]" if opened else "")

    dimension(0)
    return "".join(out) + more


def _eager_summary(value: Any, summarize: int) -> str:
    """A value as TensorFlow's eager Assert lists it: the first `summarize` entries (all if negative), each
    written as NumPy writes one entry (b'...' for text), separated by commas."""
    if not np.ndim(value):  # (a string scalar's value is plain bytes)
        return str(value if isinstance(value, bytes) else np.asarray(value)[()]) if summarize else ""
    flat = np.reshape(value, -1)
    count = flat.size if summarize < 0 else summarize
    return ", ".join([str(v) for v in flat[:count]] + (["..."] if count < flat.size else []))


def _assert_kernel(condition: Any, *data: Any, summarize: int, texts: tuple) -> tuple:
    if not bool(np.all(condition)):
        parts = [_entry(t) if t is not None else _summary(d, summarize) for t, d in zip(texts, data)]
        raise InvalidArgumentError(None, None, "assertion failed: " + " ".join(f"[{p}]" for p in parts))
    return ()


AssertThat = Op("AssertThat", _assert_kernel, shape=lambda s, t, a: [], num_outputs=0, stateful=True)


def _guard_kernel(condition: Any, *data: Any, summarize: int, texts: tuple) -> np.ndarray:
    _assert_kernel(condition, *data, summarize=summarize, texts=texts)
    return np.asarray(True)


# tf.Assert's check inside a traced function: one boolean output, so that an Identity of it can stand for the
# assertion as TensorFlow's does.
AssertGuard = Op("AssertGuard", _guard_kernel, shape=lambda s, t, a: [(TensorShape([]), dtypes.bool)], stateful=True)


def Assert(condition: Any, data: Any, summarize: int | None = None, name: str | None = None) -> Any:
    """Raise InvalidArgumentError, listing `data`, if `condition` is false (when the graph runs, if traced)."""
    cond = convert_to_tensor(condition)
    items = list(data) if isinstance(data, list | tuple) else [data]
    count = 3 if summarize is None else int(summarize)
    if state.graph is None:
        if not bool(np.all(cast(EagerTensor, cond)._value)):
            shown = "\n".join(_eager_summary(cast(EagerTensor, convert_to_tensor(d))._value, count) for d in items)
            raise InvalidArgumentError(None, None, f"Expected '{condition!s}' to be true. Summarized data: {shown}")
        return None
    texts = tuple(d if isinstance(d, str) else None for d in items)
    graph = state.graph
    scope, outer = graph.unique_name(name or "Assert"), graph.name_scopes
    graph.name_scopes = [scope]
    try:
        tensors = [convert_to_tensor("") if isinstance(d, str) else convert_to_tensor(d) for d in items]
        guard = graph.add_node(AssertGuard, [cond, *tensors], {"summarize": count, "texts": texts}, name="AssertGuard")
        return graph.add_node(Identity, guard.outputs, {}, name="AssertGuard/Identity")
    finally:
        graph.name_scopes = outer


# ---------------------------------------------------------------------------------------------------
# Comparisons: assert_greater, assert_less, ...
# ---------------------------------------------------------------------------------------------------


def _comparison(
    symbol: str, test: Callable[[Any, Any], Tensor], np_test: Callable[[Any, Any], Any], name: str
) -> Callable[..., Any]:
    def check(x: Any, y: Any, message: str | None = None, summarize: int | None = None, name: str | None = None) -> Any:
        a = convert_to_tensor(x)
        b = y if isinstance(y, Tensor) else convert_to_tensor(y, dtype_hint=a.dtype)
        holds = reduce_all(test(a, b))
        count = 3 if summarize is None else int(summarize)
        if state.graph is None:
            if not bool(cast(EagerTensor, holds)._value):
                raise InvalidArgumentError(
                    None,
                    None,
                    _failure(symbol, np_test, cast(EagerTensor, a)._value, cast(EagerTensor, b)._value, message, count),
                )
            return None
        head = (message,) if message else ()
        texts = (*head, f"Condition x {symbol} y did not hold element-wise:", "x (x) = ", None, "y (y) = ", None)
        blanks = [convert_to_tensor("") for _ in range(len(texts) - 2)]
        data = [*blanks[: len(head) + 2], a, blanks[-1], b]
        return bind(AssertThat, holds, *data, summarize=count, texts=texts)

    check.__name__ = name
    check.__doc__ = f"Raise InvalidArgumentError unless x {symbol} y everywhere (they broadcast)."
    return check


def _failure(
    symbol: str, np_test: Callable[[Any, Any], Any], x: np.ndarray, y: np.ndarray, message: str | None, summarize: int
) -> str:
    """TensorFlow's eager message: the first differing indices and values, then the first elements of both."""
    x, y = np.asarray(x), np.asarray(y)
    failing = ~np.broadcast_to(np_test(x, y), np.broadcast_shapes(x.shape, y.shape))
    where = np.argwhere(failing)[:summarize]
    xs, ys = np.broadcast_arrays(x, y)
    lines = [message] if message else []
    lines += [
        f"Condition x {symbol} y did not hold.",
        f"Indices of first {len(where)} different values:",
        f"{where}",
        "Corresponding x values:",
        f"{xs[tuple(where.T)]}",
        "Corresponding y values:",
        f"{ys[tuple(where.T)]}",
        f"First {min(summarize, x.size)} elements of x:",
        f"{x.ravel()[:summarize]}",
        f"First {min(summarize, y.size)} elements of y:",
        f"{y.ravel()[:summarize]}",
    ]
    return "\n".join(lines)


assert_greater = _comparison(">", greater, np.greater, "assert_greater")
assert_less = _comparison("<", less, np.less, "assert_less")
assert_greater_equal = _comparison(">=", greater_equal, np.greater_equal, "assert_greater_equal")
assert_less_equal = _comparison("<=", less_equal, np.less_equal, "assert_less_equal")


def assert_rank(x: Any, rank: Any, message: str | None = None, name: str | None = None) -> Any:
    """ValueError unless x has rank `rank` (known while tracing, so checked at once)."""
    t = convert_to_tensor(x)
    want = int(getattr(rank, "_value", rank))
    have = t.shape.rank
    if have is not None and have != want:
        raise ValueError(
            f"{message + '.  ' if message else ''}Tensor {getattr(t, 'name', 'x')} must have rank "
            f"{want}.  Received rank {have}, shape {t.shape}"
        )
    return None
