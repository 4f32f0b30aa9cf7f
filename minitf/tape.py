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
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np

from minitf import nest
from minitf.core import GradContext, Op, convert_to_tensor, state
from minitf.ops import array_ops, math_ops
from minitf.tensor import Tensor

log = logging.getLogger("minitf")


class UnconnectedGradients(enum.Enum):
    """What `gradient` returns for a source the target does not depend on."""

    NONE = "none"
    ZERO = "zero"


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
        self._used = False
        self._recording = False

    def _reset_records(self) -> None:
        self._tracked: dict[int, Any] = {}  # id -> tensor/variable whose gradient we may need (kept alive)
        self._variables: dict[int, Any] = {}  # watched variables, in watch order
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
        for t in nest.flatten(tensor):
            if hasattr(t, "_as_tensor") and not isinstance(t, Tensor):  # a Variable
                self._watch_variable(t)
                continue
            if not isinstance(t, Tensor):
                raise ValueError(f"Passed in object {t!r} of type {type(t).__name__!r}, not tf.Tensor or "
                                 f"tf.Variable or ExtensionType.")
            if not (t.dtype.is_floating or t.dtype.is_complex):  # type: ignore[attr-defined]
                log.warning("The dtype of the watched tensor must be floating (e.g. tf.float32), got %r",
                            t.dtype)  # type: ignore[attr-defined]
            self._tracked[_key(t)] = t

    def _watch_variable(self, variable: Any) -> None:
        if not (variable.dtype.is_floating or variable.dtype.is_complex):
            log.warning("The dtype of the watched variable must be floating (e.g. tf.float32), got %r",
                        variable.dtype)
        self._variables.setdefault(_key(variable), variable)
        self._tracked[_key(variable)] = variable

    def record_read(self, variable: Any, out: Tensor) -> None:
        """Called by `Variable.read_value` while this tape records."""
        key = _key(variable)
        if key not in self._variables:
            if not (self._watch_accessed_variables and variable.trainable):
                return
            self._watch_variable(variable)
        self._tracked[_key(out)] = out
        self._calls.append(_Read(variable, out))

    def record(self, op: Op, inputs: tuple, attrs: dict, outputs: Any) -> None:
        """Called by `core.bind` for every op while this tape records; keeps those that touch watched values."""
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
        if not self._recording:
            raise ValueError("Tape must be recording when stop_recording is called.")
        self._pop()
        try:
            yield
        finally:
            self._push()

    def reset(self) -> None:
        """Forget everything recorded so far (the tape keeps recording if it was)."""
        self._reset_records()

    def watched_variables(self) -> tuple:
        return tuple(self._variables.values())

    # --- differentiating ---
    def _check_usable(self) -> None:
        if self._used and not self._persistent:
            raise RuntimeError("A non-persistent GradientTape can only be used to compute one set of gradients (or "
                               "jacobians)\nHint: create the tape with tf.GradientTape(persistent=True) to ask it "
                               "more than once, or record again in a new `with tf.GradientTape()` block.")
        self._used = True
        if self._recording and self._persistent:
            log.warning("Calling GradientTape.gradient on a persistent tape inside its context is significantly "
                        "less efficient than calling it outside the context (it causes the gradient ops to be "
                        "recorded on the tape, leading to increased CPU and memory usage). Only call "
                        "GradientTape.gradient inside the context if you actually want to trace the gradient "
                        "in order to compute higher order derivatives.")

    def gradient(self, target: Any, sources: Any, output_gradients: Any = None,
                 unconnected_gradients: UnconnectedGradients | str = UnconnectedGradients.NONE) -> Any:
        """d(sum of targets)/d(source) for every source, in the sources' structure (None where unconnected)."""
        self._check_usable()
        unconnected = UnconnectedGradients(unconnected_gradients)
        targets = [convert_to_tensor(t) for t in nest.flatten(target)]
        flat_sources = nest.flatten(sources)
        for s in flat_sources:
            if not (isinstance(s, Tensor) or hasattr(s, "_as_tensor")):
                raise ValueError(f"Passed in object {s!r} of type {type(s).__name__!r}, not tf.Tensor or tf.Variable "
                                 f"or ExtensionType.\nHint: sources must be the tensors or variables you watched.")
        seeds = None if output_gradients is None else nest.flatten(output_gradients)
        grads = self._backward(targets, seeds)
        result = [self._source_gradient(grads, s, unconnected) for s in flat_sources]
        return nest.pack_sequence_as(sources, result)

    def _source_gradient(self, grads: dict, source: Any, unconnected: UnconnectedGradients) -> Any:
        g = grads.get(_key(source))
        if g is not None and not (source.dtype.is_floating or source.dtype.is_complex):
            g = None  # integer sources have no gradient
        if g is None and unconnected is UnconnectedGradients.ZERO:
            return array_ops.zeros(source.shape, dtype=source.dtype)
        return g

    def _backward(self, targets: list[Tensor], seeds: list[Any] | None) -> dict[int, Tensor]:
        """Walk the recorded calls backwards, accumulating gradients by id; the tape does not record itself."""
        was_recording = self._recording
        if was_recording:
            self._pop()
        try:
            grads: dict[int, Tensor] = {}
            for i, t in enumerate(targets):
                if _key(t) not in self._tracked:
                    continue
                if seeds is not None and seeds[i] is not None:
                    seed = convert_to_tensor(seeds[i], dtype=t.dtype)  # type: ignore[attr-defined]
                else:
                    seed = array_ops.ones_like(t)
                _accumulate(grads, _key(t), seed)
            for call in reversed(self._calls):
                if isinstance(call, _Read):
                    g = grads.get(_key(call.out))
                    if g is not None:
                        _accumulate(grads, _key(call.variable), g)
                    continue
                self._backward_call(call, grads)
            return grads
        finally:
            if was_recording:
                self._push()

    def _backward_call(self, call: GradContext, grads: dict[int, Tensor]) -> None:
        """Apply one op's gradient rule; runs once per recorded op, so it is kept short."""
        outputs = call.outputs
        if call.op.num_outputs == 1:
            g = grads.get(id(outputs[0]))
            if g is None:
                return
        else:
            g = [grads.get(id(o)) for o in outputs]
            if not any(x is not None for x in g):
                return
        tracked = self._tracked
        inputs = call.inputs
        needs = call.needs = [id(t) in tracked for t in inputs]
        in_grads = call.op.grad(call, g)  # type: ignore[misc]
        for inp, need, ig in zip(inputs, needs, in_grads):
            if need and ig is not None:
                key = id(inp)
                previous = grads.get(key)
                grads[key] = ig if previous is None else math_ops.add(previous, ig)

    def jacobian(self, target: Any, sources: Any,
                 unconnected_gradients: UnconnectedGradients | str = UnconnectedGradients.NONE,
                 parallel_iterations: int | None = None, experimental_use_pfor: bool = True) -> Any:
        """Every partial derivative d target[i] / d source[j]; shape = target.shape + source.shape."""
        self._check_usable()
        unconnected = UnconnectedGradients(unconnected_gradients)
        target = convert_to_tensor(target)
        flat_sources = nest.flatten(sources)
        n = int(np.prod(target.shape.as_list()))
        rows: list[list[Any]] = [[] for _ in flat_sources]
        connected = [False for _ in flat_sources]
        for i in range(n):
            seed = np.zeros(n, dtype=target.dtype._np)  # type: ignore[attr-defined]
            seed[i] = 1
            grads = self._backward([target], [seed.reshape(target.shape.as_list())])
            for k, s in enumerate(flat_sources):
                connected[k] = connected[k] or self._source_gradient(grads, s, UnconnectedGradients.NONE) is not None
                rows[k].append(self._source_gradient(grads, s, UnconnectedGradients.ZERO))
        result = []
        for k, s in enumerate(flat_sources):
            if not connected[k] and unconnected is UnconnectedGradients.NONE:
                result.append(None)
                continue
            shape = target.shape.as_list() + s.shape.as_list()
            stacked = array_ops.stack(rows[k]) if n else array_ops.zeros(shape, dtype=s.dtype)
            result.append(array_ops.reshape(stacked, shape))
        return nest.pack_sequence_as(sources, result)

    def batch_jacobian(self, target: Any, source: Any,
                       unconnected_gradients: UnconnectedGradients | str = UnconnectedGradients.NONE,
                       parallel_iterations: int | None = None, experimental_use_pfor: bool = True) -> Any:
        """Jacobian per example: target [B, ...] and source [B, ...] give [B, target dims..., source dims...]."""
        target = convert_to_tensor(target)
        if target.shape[0] != source.shape[0]:
            raise ValueError(f"Need first dimension of target shape ({target.shape}) and source shape "
                             f"({source.shape}) to match.")
        full = self.jacobian(target, source, unconnected_gradients)
        if full is None:
            return None
        b = target.shape[0]
        t_rank = target.shape.rank
        per_example = [full[(i,) + (slice(None),) * (t_rank - 1) + (i,)] for i in range(b)]
        return array_ops.stack(per_example)


def _accumulate(grads: dict[int, Tensor], key: int, g: Tensor) -> None:
    previous = grads.get(key)
    grads[key] = g if previous is None else math_ops.add(previous, g)

