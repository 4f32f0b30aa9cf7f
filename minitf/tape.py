"""`tf.GradientTape`: reverse-mode automatic differentiation by recording ops as they run.

While a tape is recording, `core.bind` hands it every op call (`record`) and every variable read
(`record_read`). The tape keeps only calls that depend on something it watches. `gradient` then walks
those calls backwards, applying each op's gradient rule (defined next to the op). The rules are written
with minitf ops, so an outer tape records the inner tape's backward pass: that is how second derivatives
work.
"""

from __future__ import annotations

import enum
import logging
from collections import deque
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, cast, final

import numpy as np

from minitf import jacobians, nest
from minitf.core import GradContext, Op, convert_to_tensor, state
from minitf.indexed_slices import IndexedSlices, add_gradients, dense
from minitf.ops import array_ops
from minitf.ops.state_ops import ReadVariableOp, variable_of
from minitf.tensor import EagerTensor, Tensor

log = logging.getLogger("minitf")


class UnconnectedGradients(enum.Enum):
    """What `gradient` returns for a source the target does not depend on."""

    NONE = "none"
    ZERO = "zero"


@final  # never subclassed, so `type(call) is not _Read` tells a checker the call is a GradContext
class _Read:
    """A recorded variable read: gradient flowing into `out` flows on to `variable`."""

    __slots__ = ("variable", "out")

    def __init__(self, variable: Any, out: Tensor) -> None:
        self.variable = variable
        self.out = out


def _key(x: Any) -> int:
    return id(x)


class GradientTape:
    """Records operations on watched tensors and variables, then differentiates them.

    A tape can compute one set of gradients unless `persistent=True`. Trainable variables are watched
    as soon as they are read (unless `watch_accessed_variables=False`); tensors need `tape.watch(x)`.
    """

    def __init__(self, persistent: bool = False, watch_accessed_variables: bool = True) -> None:
        self._persistent = persistent
        self._watch_accessed_variables = watch_accessed_variables
        self._reset_records()
        # TensorFlow's tape object exists from the first `with` until a non-persistent tape has answered
        # (or `reset` starts a new one); `_live` mirrors "tape is not None", `_recording` "on the stack".
        self._live = False
        self._recording = False
        self._consumed_variables: tuple = ()

    def _reset_records(self) -> None:
        self._tracked: dict[int, Any] = {}  # id -> tensor/variable whose gradient we may need (kept alive)
        self._variables: dict[int, Any] = {}  # watched variables (listed in creation order)
        self._calls: list[GradContext | _Read] = []  # a recorded op call is the context its rule gets

    # --- recording ---
    def __enter__(self) -> GradientTape:
        self._push()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._pop()

    def _push(self) -> None:
        if self._recording:
            raise ValueError("Tape is still recording, This can happen if you try to re-enter an already-active tape.")
        if not self._live:
            self._reset_records()  # a fresh tape: the first `with`, or re-entering a tape that has answered
            self._live = True
        self._recording = True
        state.tapes.append(self)
        state.refresh()

    def _pop(self) -> None:
        if self in state.tapes:
            state.tapes.remove(self)
        self._recording = False
        state.refresh()

    def watch(self, tensor: Any) -> None:
        """Ensure `tensor` (or each tensor/variable in a nested structure) is traced by this tape."""
        if not self._live:
            raise AttributeError("'NoneType' object has no attribute '_tape': this GradientTape is not active "
                                 "(it was never entered, or it already computed its one set of gradients).\n"
                                 "Hint: call tape.watch(x) inside `with tf.GradientTape() as tape:`.")
        for t in nest.flatten(tensor):
            is_variable = hasattr(t, "_as_tensor") and not isinstance(t, Tensor)
            if not (is_variable or isinstance(t, Tensor)):
                raise ValueError(f"Passed in object {t!r} of type {type(t).__name__!r}, not tf.Tensor or "
                                 f"tf.Variable or ExtensionType.\nHint: watch tensors (tf.constant(...)) or "
                                 f"variables; Python and NumPy values are not recorded.")
            if not (t.dtype.is_floating or t.dtype.is_complex):
                _warn_first_n(5, "The dtype of the watched tensor must be floating (e.g. tf.float32), got %r",
                              t.dtype)
            if is_variable:
                self._watch_variable(t)
            else:
                self._tracked[_key(t)] = t

    def _watch_variable(self, variable: Any) -> None:
        self._variables.setdefault(_key(variable), variable)
        self._tracked[_key(variable)] = variable

    def record_read(self, variable: Any, out: Tensor) -> None:
        """A read of `variable` gave `out` (a ReadVariableOp, or a control-flow op reading it inside)."""
        key = _key(variable)
        if key not in self._variables:
            if not (self._watch_accessed_variables and variable.trainable):
                return
            self._watch_variable(variable)
        self._tracked[_key(out)] = out
        self._calls.append(_Read(variable, out))

    def record(self, op: Op, inputs: tuple, attrs: dict, outputs: Any) -> None:
        """Called by `core.bind` for every op while this tape records; keeps those that touch watched values."""
        if op is ReadVariableOp:  # reading a variable is how a tape starts watching it
            self.record_read(variable_of(inputs[0]), outputs)
            return
        if op.grad is None:
            return  # not differentiable: nothing flows back through it
        tracked = self._tracked
        for t in inputs:
            if id(t) in tracked:
                break
        else:
            return
        if type(outputs) is tuple:
            for o in outputs:
                tracked[id(o)] = o
        else:
            tracked[id(outputs)] = outputs
            outputs = (outputs,)
        self._calls.append(GradContext(op, inputs, outputs, attrs))

    @contextmanager
    def stop_recording(self) -> Iterator[None]:
        """Temporarily stop recording: ops in this block are invisible to the tape."""
        if not self._live:
            raise RuntimeError("Trying to stop recording a tape which is not recording.")
        self._require_recording("stop_recording()")
        self._pop()
        try:
            yield
        finally:
            self._push()

    def reset(self) -> None:
        """Forget everything recorded and watched so far; the tape goes on recording afresh."""
        self._require_recording("reset()")
        self._reset_records()
        self._live = True

    def _require_recording(self, what: str) -> None:
        if not self._recording:
            raise ValueError(f"Tape is not recording.\nHint: call tape.{what} inside the tape's `with` block.")

    def watched_variables(self) -> tuple:
        """The variables this tape watches, in the order they were created (as TensorFlow lists them)."""
        if not self._live:
            return self._consumed_variables
        return tuple(sorted(self._variables.values(), key=lambda v: getattr(v, "_uid", 0)))

    # --- differentiating ---
    def _begin_answer(self) -> None:
        """Checks made before every gradient/jacobian: the tape must be live; a non-persistent tape stops."""
        if not self._live:
            raise RuntimeError("A non-persistent GradientTape can only be used to compute one set of gradients (or "
                               "jacobians)\nHint: create the tape with tf.GradientTape(persistent=True) to ask it "
                               "more than once, or record again in a new `with tf.GradientTape()` block.")
        if self._recording:
            if not self._persistent:
                self._pop()  # as in TensorFlow: a one-shot tape stops recording when it answers
            else:
                _warn_first_n(1, _PERSISTENT_INSIDE)

    def _end_answer(self) -> None:
        """A non-persistent tape has given its one answer: drop the records (TensorFlow frees its tape)."""
        if not self._persistent:
            self._consumed_variables = self.watched_variables()
            self._live = False
            self._reset_records()

    def gradient(self, target: Any, sources: Any, output_gradients: Any = None,
                 unconnected_gradients: UnconnectedGradients | str = UnconnectedGradients.NONE) -> Any:
        """d(sum of targets)/d(source) for every source, in the sources' structure (None where unconnected)."""
        self._begin_answer()
        if target is None:
            raise TypeError("Argument `target` should be a list or nested structure of Tensors, Variables or "
                            "CompositeTensors to be differentiated, but received None.")
        unconnected = _unconnected(unconnected_gradients)
        targets = [_differentiable(t, "target") for t in nest.flatten(target)]
        flat_sources = [_differentiable(s, "source") for s in nest.flatten(sources)]
        seeds = None if output_gradients is None else nest.flatten(output_gradients)
        grads = self._backward(targets, seeds)
        result = [self._source_gradient(grads, s, unconnected) for s in flat_sources]
        self._end_answer()
        return nest.pack_sequence_as(sources, result)

    def _source_gradient(self, grads: dict, source: Any, unconnected: UnconnectedGradients) -> Any:
        g = grads.get(_key(source))
        if g is not None and not (source.dtype.is_floating or source.dtype.is_complex):
            g = None  # integer sources have no gradient
        if g is None:
            if unconnected is UnconnectedGradients.ZERO:
                return array_ops.zeros(source.shape, dtype=source.dtype)
            return None
        return _scalar_as_numpy_scalar(g)

    def _backward(self, targets: list[Any], seeds: list[Any] | None) -> dict[int, Tensor]:
        """Walk the recorded calls backwards, accumulating gradients by id.

        Every target gets its seed, recorded or not (the gradient of `x` with respect to `x` is 1). A
        persistent tape that is still recording records its own backward pass, as TensorFlow's does, so
        it can differentiate its gradients again. The calls run in TensorFlow's order (see `_schedule`).
        """
        grads: dict[int, Tensor] = {}
        for i, t in enumerate(targets):
            if seeds is not None and i < len(seeds) and seeds[i] is not None:
                seed = convert_to_tensor(seeds[i])
            elif isinstance(t, Tensor):
                seed = array_ops.ones_like(t)
            else:  # a Variable: its gradient is keyed by the variable itself
                seed = array_ops.ones(t.shape, dtype=t.dtype)
            _accumulate(grads, _key(t), seed)
        for call in self._schedule(targets):
            if isinstance(call, _Read):
                g = grads.get(_key(call.out))
                if g is not None:
                    _accumulate(grads, _key(call.variable), g)
                continue
            self._backward_call(call, grads)
        return grads

    def _schedule(self, targets: list[Any]) -> list[GradContext | _Read]:
        """The recorded calls the targets depend on, in the order TensorFlow's tape runs them backwards.

        A call is ready once every recorded use of its outputs has been processed; ready calls wait in a
        first-in first-out queue (the first ones in recording order). Any such order gives the same
        gradients; this one also adds the gradients of a value in TensorFlow's order, which shows in the
        rows of IndexedSlices and in the last bits of float sums.
        """
        calls = self._calls
        tracked = self._tracked
        read = [id(t) for call in calls if type(call) is not _Read for t in call.inputs if id(t) in tracked]
        read += [id(call.variable) for call in calls if type(call) is _Read]
        if len(set(read)) == len(read):
            # No recorded call reads a recorded value or watched source another one reads (or reads it
            # twice), so no gradient is a sum whose order could show: the reverse of the recording order is
            # TensorFlow's order as far as anyone can tell. Calls the targets do not depend on get no
            # gradient and are skipped.
            return calls[::-1]
        producer: dict[int, int] = {}
        for index, call in enumerate(calls):
            if type(call) is _Read:
                producer[id(call.out)] = index
            else:
                for o in call.outputs:
                    producer[id(o)] = index
        uses: dict[int, int] = {}  # recorded values and watched sources the reached calls read, and how often
        reached: set[int] = set()
        stack = [producer[id(t)] for t in targets if id(t) in producer]
        while stack:
            index = stack.pop()
            if index in reached:
                continue
            reached.add(index)
            for key in _input_keys(calls[index]):
                maker = producer.get(key)
                if maker is not None or key in tracked:  # a recorded value, or a watched source
                    uses[key] = uses.get(key, 0) + 1
                    if maker is not None:
                        stack.append(maker)
        if all(n == 1 for n in uses.values()):  # only calls the targets do not depend on read a value twice
            return [calls[index] for index in sorted(reached, reverse=True)]
        missing: dict[int, int] = {}
        for key in uses:  # a call waits for each of its outputs that recorded calls use
            maker = producer.get(key)
            if maker is not None:
                missing[maker] = missing.get(maker, 0) + 1
        ready = deque(index for index in sorted(reached) if index not in missing)
        order = []
        while ready:
            index = ready.popleft()
            order.append(calls[index])
            for key in _input_keys(calls[index]):
                maker = producer.get(key)
                if maker is None:
                    continue
                uses[key] -= 1
                if uses[key] == 0:
                    missing[maker] -= 1
                    if missing[maker] == 0:
                        ready.append(maker)
        return order

    def _backward_call(self, call: GradContext, grads: dict[int, Tensor]) -> None:
        """Apply one op's gradient rule; runs once per recorded op, so it is kept short."""
        outputs = call.outputs
        g: Any  # one gradient, or a list of them for an op with several outputs
        if call.op.num_outputs == 1:
            g = grads.get(id(outputs[0]))
            if g is None:
                return
        else:
            g = [grads.get(id(o)) for o in outputs]
            if not any(x is not None for x in g):
                return
        if type(g) is IndexedSlices:  # sparse gradients pass through tf.identity; other rules want them dense
            if call.op.name != "Identity":
                g = g._to_dense()
        elif type(g) is list and any(type(x) is IndexedSlices for x in g):
            g = [dense(x) for x in g]
        tracked = self._tracked
        inputs = call.inputs
        needs = call.needs = [id(t) in tracked for t in inputs]
        in_grads = call.op.grad(call, g)  # type: ignore[misc]
        for inp, need, ig in zip(inputs, needs, in_grads):
            if need and ig is not None:
                key = id(inp)
                previous = grads.get(key)
                grads[key] = ig if previous is None else add_gradients(previous, ig)

    def jacobian(self, target: Any, sources: Any,
                 unconnected_gradients: UnconnectedGradients | str = UnconnectedGradients.NONE,
                 parallel_iterations: int | None = None, experimental_use_pfor: bool = True) -> Any:
        """Every partial derivative d target[i] / d source[j]; shape = target.shape + source.shape.

        One backward pass per element of the target, each seeded with a one-hot cotangent.
        """
        if not experimental_use_pfor and not self._persistent:
            raise RuntimeError("GradientTape must be created with persistent=True to compute the jacobian with eager "
                               "execution enabled and with  experimental_use_pfor set to False.\nHint: use "
                               "tf.GradientTape(persistent=True), or leave experimental_use_pfor at True.")
        self._begin_answer()
        unconnected = _unconnected(unconnected_gradients)
        target = _differentiable(target, "target")
        flat_sources = [_differentiable(s, "source") for s in nest.flatten(sources)]
        if state.graph is not None and jacobians.needs_loop(target, *flat_sources):  # unknown sizes: a graph loop
            looped = jacobians.jacobian(self, target, flat_sources, unconnected is UnconnectedGradients.NONE)
            self._end_answer()
            return nest.pack_sequence_as(sources, looped)
        target_shape = target.shape.as_list()
        n = int(np.prod(target_shape))
        rows: list[list[Any]] = [[] for _ in flat_sources]
        connected = [False for _ in flat_sources]
        for i in range(n):
            seed = np.zeros(n, dtype=target.dtype._np)
            seed[i] = 1
            grads = self._backward([target], [seed.reshape(target_shape)])
            for k, s in enumerate(flat_sources):
                connected[k] = connected[k] or self._source_gradient(grads, s, UnconnectedGradients.NONE) is not None
                rows[k].append(dense(self._source_gradient(grads, s, UnconnectedGradients.ZERO)))
        result: list[Tensor | None] = []
        for k, s in enumerate(flat_sources):
            if not connected[k] and unconnected is UnconnectedGradients.NONE:
                result.append(None)
                continue
            shape = target_shape + s.shape.as_list()
            stacked = array_ops.stack(rows[k]) if n else array_ops.zeros(shape, dtype=s.dtype)
            result.append(_scalar_as_numpy_scalar(array_ops.reshape(stacked, shape)))
        self._end_answer()
        return nest.pack_sequence_as(sources, result)

    def batch_jacobian(self, target: Any, source: Any,
                       unconnected_gradients: UnconnectedGradients | str = UnconnectedGradients.NONE,
                       parallel_iterations: int | None = None, experimental_use_pfor: bool = True) -> Any:
        """Jacobian per example: target [B, ...] and source [B, ...] give [B, target dims..., source dims...].

        As in TensorFlow, examples are assumed independent: one backward pass per target entry j seeds
        entry j of *every* example at once, so d target[b, j] / d source[b', ...] for b != b' is added in.
        """
        target = _differentiable(target, "target")
        if target.shape.rank == 0:
            raise IndexError("list index out of range\nHint: batch_jacobian needs a target of shape [batch, ...] "
                             "(rank >= 2); for a scalar target use tape.gradient or tape.jacobian.")
        for t in (target, source):
            if t.shape.rank < 2:
                raise ValueError(f"Shape {t.shape} must have rank at least 2\nHint: batch_jacobian wants target "
                                 f"and source of shape [batch, ...] with at least one more axis; use tape.jacobian "
                                 f"otherwise.")
        if None not in (target.shape[0], source.shape[0]) and target.shape[0] != source.shape[0]:
            raise ValueError(f"Need first dimension of target shape ({target.shape}) and source shape "
                             f"({source.shape}) to match.")
        if not experimental_use_pfor and not self._persistent:
            raise RuntimeError("GradientTape must be created with persistent=True to compute the batch_jacobian with "
                               "eager execution enabled and  with experimental_use_pfor set to False.\nHint: use "
                               "tf.GradientTape(persistent=True), or leave experimental_use_pfor at True.")
        self._begin_answer()
        _unconnected(unconnected_gradients)  # validated; TensorFlow's batch_jacobian gives zeros either way
        if state.graph is not None and jacobians.needs_loop(target, source):  # unknown sizes: a graph loop
            looped = jacobians.batch_jacobian(self, target, source)
            self._end_answer()
            return looped
        target_shape, source_shape = target.shape.as_list(), source.shape.as_list()
        batch = target_shape[0]
        row_size = int(np.prod(target_shape[1:]))
        columns: list[Tensor] = []
        connected = False
        for j in range(row_size):
            seed = np.zeros((batch, row_size), dtype=target.dtype._np)
            seed[:, j] = 1
            grads = self._backward([target], [seed.reshape(target_shape)])
            g = self._source_gradient(grads, source, UnconnectedGradients.NONE)
            connected = connected or g is not None
            columns.append(array_ops.zeros(source_shape, dtype=source.dtype) if g is None else dense(g))
        self._end_answer()
        shape = target_shape + source_shape[1:]
        if not connected or not columns:
            return array_ops.zeros(shape, dtype=target.dtype)  # even for UnconnectedGradients.NONE, as in TensorFlow
        return array_ops.reshape(array_ops.stack(columns, axis=1), shape)


_PERSISTENT_INSIDE = (
    "Calling GradientTape.gradient on a persistent tape inside its context is significantly less efficient than "
    "calling it outside the context (it causes the gradient ops to be recorded on the tape, leading to increased CPU "
    "and memory usage). Only call GradientTape.gradient inside the context if you actually want to trace the "
    "gradient in order to compute higher order derivatives.")
_warned: dict[str, int] = {}


def _warn_first_n(n: int, message: str, *args: Any) -> None:
    """Log `message` only its first `n` times in this process, as TensorFlow's `log_first_n` does."""
    count = _warned.get(message, 0)
    if count < n:
        _warned[message] = count + 1
        log.warning(message, *args)


def _unconnected(value: UnconnectedGradients | str) -> UnconnectedGradients:
    try:
        return UnconnectedGradients(value)
    except ValueError:
        raise ValueError(f"Unknown value for unconnected_gradients: {value!r}\nHint: use "
                         f"tf.UnconnectedGradients.NONE (the default) or tf.UnconnectedGradients.ZERO.") from None


def _differentiable(value: Any, role: str) -> Any:
    """A target or source as given (tensor or variable); anything else fails with TensorFlow's error class.

    TensorFlow reads `value.dtype` first (AttributeError for Python numbers and NumPy arrays, whose `dtype`
    is not a TensorFlow dtype) or converts it to a dtype (TypeError for strings and None).
    """
    if isinstance(value, Tensor) or hasattr(value, "_as_tensor"):
        return value
    hint = (f"\nHint: the {role}s of a gradient must be tf.Tensors or tf.Variables recorded by the tape, not "
            f"{type(value).__name__} values like {value!r}. "
            + ("Wrap the value with tf.constant(...) and tape.watch(...) it before computing with it."
               if role == "source" else "Compute the target with TensorFlow ops inside the tape's `with` block."))
    if value is None or isinstance(value, str | bytes):
        raise TypeError(f"Cannot convert the argument `type_value`: {value!r} to a TensorFlow DType.{hint}")
    kind = type(value)
    kind_name = kind.__name__ if kind.__module__ == "builtins" else f"{kind.__module__}.{kind.__name__}"
    attribute = "_id" if isinstance(value, np.ndarray) else "dtype"
    raise AttributeError(f"{kind_name!r} object has no attribute {attribute!r}{hint}")


def _scalar_as_numpy_scalar(t: Tensor) -> Tensor:
    """Rank-0 gradients hold a NumPy scalar, as every eager scalar does (some kernels return 0-d arrays).

    The same tensor object is kept (only its storage changes, not its value), so that an outer tape that
    recorded it can still differentiate it.
    """
    v = getattr(t, "_value", None)  # (IndexedSlices have none)
    if type(v) is np.ndarray and v.ndim == 0:
        cast(EagerTensor, t)._value = v[()]
    return t


def _input_keys(call: GradContext | _Read) -> list[int]:
    return [id(call.variable)] if isinstance(call, _Read) else [id(t) for t in call.inputs]


def _accumulate(grads: dict[int, Tensor], key: int, g: Tensor) -> None:
    previous = grads.get(key)
    grads[key] = g if previous is None else add_gradients(previous, g)

