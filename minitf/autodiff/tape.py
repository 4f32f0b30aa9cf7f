"""`tf.GradientTape`: reverse-mode automatic differentiation by recording ops as they run.

While a tape is recording, `core.bind` hands it every op call (`record`) and every variable read
(`record_read`). The tape keeps only calls that depend on something it watches. `gradient` then walks
those calls backwards, applying each op's gradient rule (defined next to the op). The rules are written
with minitf ops, so an outer tape records the inner tape's backward pass: that is how second derivatives
work.

Around this file: minitf/autodiff/tape_order.py keeps the record of a variable read and picks the order of the
backward walk, minitf/autodiff/tape_arguments.py checks what `gradient` is given and shapes what it returns, and
minitf/autodiff/jacobians.py builds `jacobian` and `batch_jacobian` from one backward pass per target entry.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from minitf.autodiff.tape_arguments import (
    PERSISTENT_INSIDE,
    UnconnectedGradients,
    differentiable,
    numpy_scalar,
    unconnected,
    warn_first_n,
)
from minitf.autodiff.tape_order import VariableRead, backward_order
from minitf.composite.indexed_slices import IndexedSlices, add_gradients, dense
from minitf.core import nest
from minitf.core.context import state
from minitf.core.conversion import convert_to_tensor
from minitf.core.op import GradContext, Op
from minitf.core.provided import Provided
from minitf.core.tensor import Tensor
from minitf.ops.array.creation import ones, ones_like, zeros
from minitf.ops.state_ops import ReadVariableOp, variable_of

_new = object.__new__


def _key(x: Any) -> int:
    # A mirrored variable (tf.distribute) stands for the copy of the replica running now, which its reads read.
    return id(getattr(x, "_tape_target", x))


def _is_composite(x: Any) -> bool:
    """A RaggedTensor (or another composite of tensors with flat values): differentiated through its values."""
    return not isinstance(x, Tensor) and hasattr(x, "flat_values") and hasattr(x, "with_flat_values")


def _values_of(x: Any) -> Any:
    return x.flat_values if _is_composite(x) else x


class Jacobians(Provided):
    """`GradientTape.jacobian` and `batch_jacobian`, provided by minitf/autodiff/jacobians.py."""

    jacobian: Callable[..., Any]
    batch_jacobian: Callable[..., Any]


JACOBIANS = Jacobians()


class GradientTape:
    """Records operations on watched tensors and variables, then differentiates them.

    A tape can compute one set of gradients unless `persistent=True`. Trainable variables are watched
    as soon as they are read (unless `watch_accessed_variables=False`); tensors need `tape.watch(x)`.
    """

    # `tape.jacobian` and `tape.batch_jacobian` repeat the backward walk once per target entry, in a
    # tf.while_loop when sizes are unknown; a while loop differentiates itself with a GradientTape, so they are
    # written in minitf/autodiff/jacobians.py, which provides them (minitf/core/provided.py).
    def jacobian(
        self,
        target: Any,
        sources: Any,
        unconnected_gradients: UnconnectedGradients | str = UnconnectedGradients.NONE,
        parallel_iterations: int | None = None,
        experimental_use_pfor: bool = True,
    ) -> Any:
        """d target[i] / d source[j] for every i and j, in the sources' structure (target.shape + source.shape)."""
        return JACOBIANS.jacobian(
            self, target, sources, unconnected_gradients, parallel_iterations, experimental_use_pfor
        )

    def batch_jacobian(
        self,
        target: Any,
        source: Any,
        unconnected_gradients: UnconnectedGradients | str = UnconnectedGradients.NONE,
        parallel_iterations: int | None = None,
        experimental_use_pfor: bool = True,
    ) -> Any:
        """The Jacobian of each example: [batch, target dims, source dims]."""
        return JACOBIANS.batch_jacobian(
            self, target, source, unconnected_gradients, parallel_iterations, experimental_use_pfor
        )

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
        self._calls: list[GradContext | VariableRead] = []  # a recorded op call is the context its rule gets
        # The watched and recorded values the recorded calls read, and whether one of them is read twice (or may
        # be: a value watched after calls were recorded); only then does the backward walk need to find its order.
        self._reads: set[int] = set()
        self._read_twice = False

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
            raise AttributeError(
                "'NoneType' object has no attribute '_tape': this GradientTape is not active "
                "(it was never entered, or it already computed its one set of gradients).\n"
                "Hint: call tape.watch(x) inside `with tf.GradientTape() as tape:`."
            )
        for t in nest.flatten(tensor):
            if _is_composite(t):  # a RaggedTensor: its floating values are what is watched (never its splits)
                t = t.flat_values
            is_variable = hasattr(t, "_as_tensor") and not isinstance(t, Tensor)
            if not (is_variable or isinstance(t, Tensor)):
                raise ValueError(
                    f"Passed in object {t!r} of type {type(t).__name__!r}, not tf.Tensor or "
                    f"tf.Variable or ExtensionType.\nHint: watch tensors (tf.constant(...)) or "
                    f"variables; Python and NumPy values are not recorded."
                )
            if not (t.dtype.is_floating or t.dtype.is_complex):
                warn_first_n(5, "The dtype of the watched tensor must be floating (e.g. tf.float32), got %r", t.dtype)
            if is_variable:
                self._watch_variable(t)
            else:
                self._tracked[_key(t)] = t
                # a recorded call may have read it before it was watched: let the walk count the reads
                self._read_twice = self._read_twice or bool(self._calls)

    def _watch_variable(self, variable: Any) -> None:
        self._variables.setdefault(_key(variable), variable)
        self._tracked[_key(variable)] = variable  # (no recorded call reads a variable itself: nothing to recount)

    def record_read(self, variable: Any, out: Tensor) -> None:
        """A read of `variable` gave `out` (a ReadVariableOp, or a control-flow op reading it inside)."""
        key = _key(variable)
        if key not in self._variables:
            if not (self._watch_accessed_variables and variable.trainable):
                return
            self._watch_variable(variable)
        self._tracked[_key(out)] = out
        if id(variable) in self._reads:
            self._read_twice = True
        self._reads.add(id(variable))
        self._calls.append(VariableRead(variable, out))

    def record(self, op: Op, inputs: tuple, attrs: dict, outputs: Any) -> None:
        """Called by `core.bind` for every op while this tape records; keeps those that touch watched values."""
        if op.grad is None:
            if op is ReadVariableOp:  # reading a variable is how a tape starts watching it
                self.record_read(variable_of(inputs[0]), outputs)
            return  # not differentiable: nothing flows back through it
        tracked = self._tracked
        reads = self._reads
        touched = False
        for t in inputs:
            key = id(t)
            if key in tracked:
                touched = True
                if key in reads:  # a value read twice: its gradient is a sum, added in the order the walk picks
                    self._read_twice = True
                reads.add(key)
        if not touched:
            return
        if type(outputs) is tuple:
            for o in outputs:
                tracked[id(o)] = o
        else:
            tracked[id(outputs)] = outputs
            outputs = (outputs,)
        # The context its rule will get, filled in without a call to __init__ (this runs for every recorded op).
        call = _new(GradContext)
        call.op = op
        call.inputs = inputs
        call.outputs = outputs
        call.attrs = attrs
        self._calls.append(call)

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
        variables = self._consumed_variables if not self._live else self._variables.values()
        return tuple(sorted(variables, key=lambda v: getattr(v, "_uid", 0)))

    # --- differentiating ---
    def _begin_answer(self) -> None:
        """Checks made before every gradient/jacobian: the tape must be live; a non-persistent tape stops."""
        if not self._live:
            raise RuntimeError(
                "A non-persistent GradientTape can only be used to compute one set of gradients (or "
                "jacobians)\nHint: create the tape with tf.GradientTape(persistent=True) to ask it "
                "more than once, or record again in a new `with tf.GradientTape()` block."
            )
        if self._recording:
            if not self._persistent:
                self._pop()  # as in TensorFlow: a one-shot tape stops recording when it answers
            else:
                warn_first_n(1, PERSISTENT_INSIDE)

    def _end_answer(self) -> None:
        """A non-persistent tape has given its one answer: drop the records (TensorFlow frees its tape)."""
        if not self._persistent:
            self._consumed_variables = tuple(self._variables.values())  # (sorted when asked for)
            self._live = False
            self._reset_records()

    def gradient(
        self,
        target: Any,
        sources: Any,
        output_gradients: Any = None,
        unconnected_gradients: UnconnectedGradients | str = UnconnectedGradients.NONE,
    ) -> Any:
        """d(sum of targets)/d(source) for every source, in the sources' structure (None where unconnected)."""
        self._begin_answer()
        if target is None:
            raise TypeError(
                "Argument `target` should be a list or nested structure of Tensors, Variables or "
                "CompositeTensors to be differentiated, but received None."
            )
        if_unconnected = unconnected(unconnected_gradients)
        targets = [differentiable(_values_of(t), "target") for t in nest.flatten(target)]
        leaves = nest.flatten(sources)
        flat_sources = [differentiable(_values_of(s), "source") for s in leaves]
        seeds = None if output_gradients is None else [_values_of(g) for g in nest.flatten(output_gradients)]
        grads = self._backward(targets, seeds)
        result = [self._source_gradient(grads, s, if_unconnected) for s in flat_sources]
        result = [
            leaf.with_flat_values(g) if _is_composite(leaf) and g is not None else g for leaf, g in zip(leaves, result)
        ]  # a RaggedTensor's gradient: its rows, with the values' one
        self._end_answer()
        return nest.pack_sequence_as(sources, result)

    def _source_gradient(self, grads: dict, source: Any, unconnected: UnconnectedGradients) -> Any:
        g = grads.get(_key(source))
        if g is not None and not (source.dtype.is_floating or source.dtype.is_complex):
            g = None  # integer sources have no gradient
        if g is None:
            if unconnected is UnconnectedGradients.ZERO:
                return zeros(source.shape, dtype=source.dtype)
            return None
        return numpy_scalar(g)

    def _backward(self, targets: list[Any], seeds: list[Any] | None) -> dict[int, Tensor]:
        """Walk the recorded calls backwards, accumulating gradients by id.

        Every target gets its seed, recorded or not (the gradient of `x` with respect to `x` is 1). A
        persistent tape that is still recording records its own backward pass, as TensorFlow's does, so
        it can differentiate its gradients again. The calls run in TensorFlow's order (`backward_order`).
        """
        grads: dict[int, Tensor] = {}
        for i, t in enumerate(targets):
            if seeds is not None and i < len(seeds) and seeds[i] is not None:
                seed = convert_to_tensor(seeds[i])
            elif isinstance(t, Tensor):
                seed = ones_like(t)
            else:  # a Variable: its gradient is keyed by the variable itself
                seed = ones(t.shape, dtype=t.dtype)
            _accumulate(grads, _key(t), seed)
        for call in backward_order(self._calls, self._tracked, targets, self._read_twice):
            if type(call) is VariableRead:
                g = grads.get(_key(call.out))
                if g is not None:
                    _accumulate(grads, _key(call.variable), g)
                continue
            self._backward_call(call, grads)
        return grads

    def _backward_call(self, call: GradContext, grads: dict[int, Tensor]) -> None:
        """Apply one op's gradient rule; runs once per recorded op, so it is kept short."""
        g: Any  # one gradient, or a list of them for an op with several outputs
        g = grads.get(id(call.outputs[0])) if call.op.num_outputs == 1 else _output_gradients(call, grads)
        if g is None:
            return
        if type(g) is IndexedSlices and call.op.name != "Identity":
            g = g._to_dense()  # sparse gradients pass through tf.identity; other rules want them dense
        tracked = self._tracked
        inputs = call.inputs
        # Is input i's gradient wanted? (one or two inputs are the common cases; a comprehension is a call)
        needs: Sequence[bool]
        if len(inputs) == 1:
            needs = call.needs = (id(inputs[0]) in tracked,)
        elif len(inputs) == 2:
            needs = call.needs = (id(inputs[0]) in tracked, id(inputs[1]) in tracked)
        else:
            needs = call.needs = [id(t) in tracked for t in inputs]
        in_grads = call.op.grad(call, g)  # type: ignore[misc]
        for inp, need, ig in zip(inputs, needs, in_grads):
            if need and ig is not None:
                key = id(inp)
                previous = grads.get(key)
                grads[key] = ig if previous is None else add_gradients(previous, ig)


def _output_gradients(call: GradContext, grads: dict[int, Tensor]) -> list | None:
    """The gradients of an op with several outputs, dense (None where none flowed); None if none flowed at all."""
    g = [grads.get(id(o)) for o in call.outputs]
    return [dense(x) for x in g] if any(x is not None for x in g) else None


def _accumulate(grads: dict[int, Tensor], key: int, g: Tensor) -> None:
    previous = grads.get(key)
    grads[key] = g if previous is None else add_gradients(previous, g)
