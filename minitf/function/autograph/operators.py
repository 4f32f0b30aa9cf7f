"""AutoGraph's runtime operators: what the rewritten code calls (`ag__.if_stmt`, `ag__.for_stmt`, ...).

Each one looks at its condition or iterable when the code runs: a Python value (or an eager tensor) runs
plain Python, so an `if` on a Python bool is decided while tracing and `for i in range(3)` is unrolled; a
symbolic tensor builds a `tf.cond` (branches.py) or a `tf.while_loop` (loops.py). The variables a branch
or loop body changes come in and out through the `get_state`/`set_state` functions the rewrite made;
values left undefined on one path are `Undefined` (undefined.py).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from minitf.core import dtypes
from minitf.core.context import state
from minitf.core.conversion import convert_to_tensor
from minitf.core.errors import OperatorNotAllowedInGraphError
from minitf.core.tensor import Tensor
from minitf.core.tensor_shape import TensorShape
from minitf.function.autograph.undefined import Undefined, UndefinedReturnValue
from minitf.function.control_flow.branches import build_if, cond
from minitf.function.control_flow.loops import build_while
from minitf.function.control_flow.tensor_array import TensorArray
from minitf.function.tracing.graph import SymbolicTensor
from minitf.function.tracing.trace import TracingGraph, graph_scope
from minitf.ops.array.creation import range as tf_range
from minitf.ops.array.shape_ops import shape as tf_shape
from minitf.ops.math.binary_math import add, floordiv, floormod, maximum, subtract
from minitf.ops.math.cast import cast
from minitf.ops.math.comparisons import logical_not, not_equal


def _is_symbolic(value: Any) -> bool:
    return isinstance(value, SymbolicTensor)


def _as_condition(value: Any) -> Any:
    if isinstance(value, Undefined):
        value.fail()
    if hasattr(value, "_as_tensor") and not isinstance(value, Tensor) and state.graph is not None:
        return value.read_value()
    return value


def ld(getter: Callable[[], Any], name: str) -> Any:
    try:
        return getter()
    except NameError:
        return Undefined(name)


def retval(value: Any) -> Any:
    if isinstance(value, UndefinedReturnValue):
        if object.__getattribute__(value, "error") is not None:
            value.fail()
        return None
    if isinstance(value, Undefined):
        value.fail()
    return value


def not_(value: Any) -> Any:
    value = _as_condition(value)
    if _is_symbolic(value):
        return logical_not(value)
    return not value


def and_(left: Callable[[], Any], right: Callable[[], Any]) -> Any:
    a = _as_condition(left())
    if _is_symbolic(a):
        return cond(a, lambda: convert_to_tensor(right()), lambda: a)
    return a and right()


def or_(left: Callable[[], Any], right: Callable[[], Any]) -> Any:
    a = _as_condition(left())
    if _is_symbolic(a):
        return cond(a, lambda: a, lambda: convert_to_tensor(right()))
    return a or right()


def if_exp(test: Any, body: Callable[[], Any], orelse: Callable[[], Any]) -> Any:
    test = _as_condition(test)
    if _is_symbolic(test):
        return cond(test, body, orelse)
    return body() if test else orelse()


def if_stmt(
    test: Any,
    body: Callable[[], None],
    orelse: Callable[[], None],
    get_state: Callable[[], tuple],
    set_state: Callable[[tuple], None],
    names: tuple[str, ...],
) -> None:
    test = _as_condition(test)
    if not _is_symbolic(test):
        body() if test else orelse()
        return
    _check_scalar_bool(test, "if statement")
    initial = get_state()

    def branch(fn: Callable[[], None]) -> Callable[[], list]:
        def run() -> list:
            set_state(initial)
            fn()
            return list(get_state())

        return run

    set_state(tuple(build_if(test, branch(body), branch(orelse), names)))


def _check_scalar_bool(test: Any, where: str) -> None:
    if test.dtype is not dtypes.bool:
        raise TypeError(
            f"Condition of {where} expected to be `tf.bool` scalar, got {test}; to check for None, use `is not None`"
        )
    if test.shape.rank not in (None, 0):
        raise ValueError(f"condition of {where} expected to be `tf.bool` scalar, got {test}")


_LOOP_OPTIONS: list[dict] = []


def set_loop_options(
    parallel_iterations: Any = None,
    swap_memory: Any = None,
    maximum_iterations: Any = None,
    shape_invariants: Any = None,
) -> None:
    """`tf.autograph.experimental.set_loop_options`: shape invariants for the loop being traced."""
    if _LOOP_OPTIONS:
        _LOOP_OPTIONS[-1]["shape_invariants"] = list(shape_invariants or [])
        if maximum_iterations is not None:
            _LOOP_OPTIONS[-1]["maximum_iterations"] = maximum_iterations


def _loop_values(values: Sequence[Any], names: Sequence[str]) -> tuple[list[int], list[Any]]:
    """Which state values a graph loop carries (tensors, numbers, TensorArrays) and as what tensors."""
    positions: list[int] = []
    carried: list[Any] = []
    for i, v in enumerate(values):
        if isinstance(v, Undefined) or v is None:
            continue
        if isinstance(v, TensorArray):
            positions.append(i)
            carried.append(v)
        elif isinstance(v, Tensor | bool | int | float | np.ndarray | np.generic) or hasattr(v, "_as_tensor"):
            positions.append(i)
            carried.append(
                v.read_value() if hasattr(v, "_as_tensor") and not isinstance(v, Tensor) else convert_to_tensor(v)
            )
    return positions, carried


def _graph_loop(
    test: Callable[[], Any],
    body: Callable[[], None],
    get_state: Callable[[], tuple],
    set_state: Callable[[tuple], None],
    names: tuple[str, ...],
    extra_vars: list[Any] | None = None,
    extra_step: Callable[[list[Any]], list[Any]] | None = None,
    max_iterations: Any = None,
) -> None:
    """Build a While op from the converted loop; `extra_vars` are hidden loop variables (a for-loop iterate)."""
    initial = list(get_state())
    positions, carried = _loop_values(initial, names)
    extra_vars = extra_vars or []
    n_extra = len(extra_vars)
    flat = [v._stack if isinstance(v, TensorArray) else v for v in carried] + extra_vars
    loop_names = [names[i] for i in positions] + [f"itr_{k}" for k in range(n_extra)]
    invariants: list[Any] = [
        TensorShape(None)
        if isinstance(v, TensorArray) and v._element_shape is None
        else (TensorShape([None]) + v._element_shape if isinstance(v, TensorArray) else None)
        for v in carried
    ] + [None] * n_extra
    options: dict = {}
    _LOOP_OPTIONS.append(options)

    def restore(holders: Sequence[Any]) -> None:
        values = list(initial)
        for k, i in enumerate(positions):
            h = holders[k]
            values[i] = TensorArray._from_stack(h, carried[k]) if isinstance(carried[k], TensorArray) else h
        set_state(tuple(values))

    def cond_fn(*holders: Any) -> Any:
        restore(holders)
        return test(*holders[len(positions) :]) if n_extra else test()

    body_holders: list[Any] = []
    learned: dict[int, Any] = {}

    def body_fn(*holders: Any) -> list:
        body_holders[:] = holders
        restore(holders)
        extra = list(holders[len(positions) :])
        if extra_step is not None:
            extra = extra_step(extra)
        else:
            body()
        after = list(get_state())
        out = []
        for k, i in enumerate(positions):
            v = after[i]
            if isinstance(v, Undefined):
                raise ValueError(f"'{names[i]}' must be defined before the loop.")
            if isinstance(v, TensorArray):
                learned[k] = v._element_shape  # what the body wrote: the TensorArray's elements after the loop
            out.append(v._stack if isinstance(v, TensorArray) else v)
        return out + extra

    try:
        try:
            result = build_while(cond_fn, body_fn, flat, loop_names, invariants, max_iterations)
        except ValueError as exc:
            given = options.get("shape_invariants")
            if not given or "set_loop_options" not in str(exc):
                raise
            by_var = {id(v): s for v, s in given}
            for k, holder in enumerate(body_holders[: len(carried)]):
                if id(holder) in by_var:
                    invariants[k] = TensorShape(by_var[id(holder)])
            result = build_while(cond_fn, body_fn, flat, loop_names, invariants, max_iterations)
    finally:
        _LOOP_OPTIONS.pop()
    final = list(initial)
    for k, i in enumerate(positions):
        final[i] = TensorArray._from_stack(result[k], carried[k]) if isinstance(carried[k], TensorArray) else result[k]
        if isinstance(final[i], TensorArray) and final[i]._element_shape is None:
            final[i]._element_shape = learned.get(k)
    for i, v in enumerate(initial):
        if isinstance(v, Undefined) and i not in positions:
            final[i] = v
    set_state(tuple(final))


_LIMITATIONS = (
    "\nSee https://github.com/tensorflow/tensorflow/blob/master/tensorflow/python/autograph/g3doc/"
    "reference/limitations.md#consistency-of-control-flow-types for more info."
)
_WHILE_BECAME_TENSOR = (
    "The condition of while loop started as non-Tensor, then changed to Tensor. This may happen "
    "either because variables changed type, or when a break or return statement inside the loop "
    "depends on a Tensor condition. In both cases, changing to a TF loop should remove the error." + _LIMITATIONS
)
_FOR_BREAK_ON_TENSOR = (
    "break and return statements which depend on a TF condition are not supported in Python for "
    "loops. Did you intend to make it a TF loop?" + _LIMITATIONS
)


def _python_bool(value: Any, message: str) -> bool:
    """A Python loop's condition; one that turned into a tensor gets TensorFlow's NotImplementedError."""
    try:
        return bool(_as_condition(value))
    except OperatorNotAllowedInGraphError:
        raise NotImplementedError(message) from None


def _probe(test: Callable[[], Any]) -> Any:
    """Evaluate a loop condition to see whether it is a tensor, without adding its ops to the graph."""
    if state.graph is None:
        return _as_condition(test())
    scratch = TracingGraph("probe", outer=state.graph, autograph=state.graph.autograph)
    with graph_scope(scratch):
        value = _as_condition(test())
    if isinstance(value, SymbolicTensor) and value.graph is scratch:
        return value
    return _as_condition(test()) if not _is_symbolic(value) else value


def while_stmt(
    test: Callable[[], Any],
    body: Callable[[], None],
    get_state: Callable[[], tuple],
    set_state: Callable[[tuple], None],
    names: tuple[str, ...],
) -> None:
    first = _probe(test)
    if not _is_symbolic(first):
        while _python_bool(test(), _WHILE_BECAME_TENSOR):
            body()
        return
    _check_scalar_bool(first, "while loop")
    _graph_loop(lambda: _as_condition(test()), body, get_state, set_state, names)


def range_(*args: Any) -> Any:
    """`range(...)` in converted code: a Python range for ints (unrolled), `tf.range` for symbolic tensors."""
    if any(isinstance(a, Tensor) and _is_symbolic(a) for a in args):
        return tf_range(*args)
    return range(*[int(a) for a in args])


def for_stmt(
    iterable: Any,
    extra_test: Callable[[], Any] | None,
    body: Callable[[Any], None],
    get_state: Callable[[], tuple],
    set_state: Callable[[tuple], None],
    names: tuple[str, ...],
) -> None:
    """A converted `for` loop: a Python loop over Python values, a graph loop over a tensor (or tf.range).

    Hook for other iterables (tf.data datasets): while tracing, an object whose class defines
    `_minitf_for_stmt(self, extra_test, body, get_state, set_state, names)` builds its own graph loop, with
    the same arguments as this function (`body(element)` runs one iteration; the state functions read and
    write the loop's variables, see `_graph_loop`).
    """
    custom = getattr(type(iterable), "_minitf_for_stmt", None)
    if custom is not None and state.graph is not None:
        custom(iterable, extra_test, body, get_state, set_state, names)
        return
    if hasattr(iterable, "_as_tensor") and not isinstance(iterable, Tensor) and state.graph is not None:
        iterable = iterable.read_value()
    if not _is_symbolic(iterable):
        for item in iterable:
            if extra_test is not None and not _python_bool(extra_test(), _FOR_BREAK_ON_TENSOR):
                break
            body(item)
        return
    _tensor_for(iterable, extra_test, body, get_state, set_state, names)


def _tensor_for(
    iterable: SymbolicTensor,
    extra_test: Callable[[], Any] | None,
    body: Callable[[Any], None],
    get_state: Callable[[], tuple],
    set_state: Callable[[tuple], None],
    names: tuple[str, ...],
) -> None:
    """`for x in tensor`: a While over the iterations; for tf.range the iterate is computed, not indexed."""
    op = iterable.op
    if op.type == "Range":
        start, limit, delta = op.inputs
        span = subtract(limit, start)
        count = add(floordiv(span, delta), cast(not_equal(floormod(span, delta), 0), span.dtype))
        count = maximum(count, cast(0, count.dtype))
        first: Tensor = start

        def step(extra: list[Any]) -> list[Any]:
            itr = extra[0]
            body(itr)
            return [itr + delta]
    else:
        if iterable.shape.rank == 0:
            raise TypeError("Cannot iterate over a scalar tensor.")
        count = tf_shape(iterable)[0]
        first = convert_to_tensor(0)

        def step(extra: list[Any]) -> list[Any]:
            k = extra[0]
            body(iterable[k])
            return [k + 1]

    test = (
        (lambda *extra: _as_condition(extra_test()))
        if extra_test is not None
        else (lambda *extra: convert_to_tensor(True))
    )
    _graph_loop(
        test,
        lambda: None,
        get_state,
        set_state,
        names,
        extra_vars=[first],
        extra_step=step,
        max_iterations=cast(count, dtypes.int32),
    )
