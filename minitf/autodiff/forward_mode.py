"""`tf.autodiff.ForwardAccumulator`: forward-mode differentiation (Jacobian-vector products).

Inside the `with` block every op that reads a watched value gets, next to its output, the output's
*tangent*: the directional derivative along the tangents given for the primals. `acc.jvp(y)` returns it.

minitf has no separate forward rule per op. It reuses each op's reverse-mode rule (the vector-Jacobian
product u -> J^T u, linear in u) and takes its transpose by differentiating once more: for tangents t of
the inputs, J t is the gradient with respect to u of <J^T u, t>. That is the "double backward" trick; it
works for every op that has a gradient rule, and since it is computed with minitf ops, an enclosing
GradientTape or ForwardAccumulator sees it (Hessian-vector products, forward-over-forward).
"""

from __future__ import annotations

from typing import Any

from minitf.autodiff.custom_gradients import variable_behind
from minitf.autodiff.tape import GradientTape
from minitf.autodiff.tape_arguments import UnconnectedGradients, unconnected
from minitf.core import logs, nest
from minitf.core.context import state
from minitf.core.conversion import convert_to_tensor
from minitf.core.op import GradContext, Op
from minitf.core.tensor import Tensor
from minitf.ops.array.creation import zeros_like
from minitf.ops.math.binary_math import add_n, multiply
from minitf.ops.math.reductions import reduce_sum


def _is_variable(value: Any) -> bool:
    return hasattr(value, "_as_tensor") and not isinstance(value, Tensor)


class ForwardAccumulator:
    """Computes Jacobian-vector products of what runs in its `with` block along `tangents` of `primals`."""

    def __init__(self, primals: Any, tangents: Any) -> None:
        self._tangents: dict[int, tuple[Any, Tensor]] = {}  # id(value) -> (value kept alive, tangent)
        self._recording = False
        self._paused = False
        self._watch(primals, tangents)

    # --- recording ---
    def __enter__(self) -> ForwardAccumulator:
        if self._recording:
            raise ValueError(
                "Accumulator is already recording.\nHint: a ForwardAccumulator can be entered once at "
                "a time; nest two accumulators for higher-order derivatives."
            )
        self._recording = True
        state.tapes.append(self)
        state.refresh()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._recording = False
        if self in state.tapes:
            state.tapes.remove(self)
        state.refresh()

    def _watch(self, primals: Any, tangents: Any) -> None:
        """Give `primals` (tensors or variables, any nesting) their `tangents` (same nesting)."""
        flat_primals, flat_tangents = nest.flatten(primals), nest.flatten(tangents)
        if len(flat_primals) != len(flat_tangents):
            raise ValueError(
                f"The two structures don't have the same nested structure.\n\nFirst structure: "
                f"{primals}\n\nSecond structure: {tangents}\nHint: give one tangent per primal, in the "
                f"same structure."
            )
        for primal, tangent in zip(flat_primals, flat_tangents):
            dtype = primal.dtype
            if not (dtype.is_floating or dtype.is_complex):
                logs.warning("The dtype of the watched primal must be floating (e.g. tf.float32), got %r", dtype)
            tangent = convert_to_tensor(tangent, dtype=dtype)
            self._tangents[id(primal)] = (primal, tangent)

    def record_read(self, variable: Any, out: Tensor) -> None:
        """A read of a watched variable carries the variable's tangent."""
        entry = self._tangents.get(id(variable))
        if entry is not None and not self._paused:
            self._tangents[id(out)] = (out, entry[1])

    def record(self, op: Op, inputs: tuple, attrs: dict, outputs: Any) -> None:
        """Called by `core.bind` for every op in the block: work out the tangents of its outputs."""
        if self._paused:
            return
        if op.name == "ReadVariableOp":  # where reading a variable is an op bound like the others
            self.record_read(variable_behind(inputs[0]), outputs)
            return
        if op.grad is None:
            return
        tangents = [self._tangents.get(id(t)) for t in inputs]
        if all(t is None for t in tangents):
            return
        outputs = outputs if type(outputs) is tuple else (outputs,)
        # The computation below is not part of what this accumulator differentiates (outer tapes and
        # accumulators do see it). The accumulator stays in its place on the tape stack, which `bind` is
        # iterating over right now.
        self._paused = True
        try:
            out_tangents = _jvp(op, inputs, attrs, outputs, [None if t is None else t[1] for t in tangents])
        finally:
            self._paused = False
        for o, t in zip(outputs, out_tangents):
            if t is not None:
                self._tangents[id(o)] = (o, t)

    # --- answering ---
    def jvp(self, primals: Any, unconnected_gradients: Any = "none") -> Any:
        """The tangent of each of `primals` (same nesting): None, or zeros with `unconnected_gradients="zero"`."""

        zero = unconnected(unconnected_gradients) is UnconnectedGradients.ZERO

        def tangent(value: Any) -> Any:
            entry = self._tangents.get(id(value))
            if entry is not None:
                return entry[1]
            return zeros_like(value) if zero else None

        return nest.map_structure(tangent, primals)


def _jvp(op: Op, inputs: tuple, attrs: dict, outputs: tuple, tangents: list[Any]) -> list[Any]:
    """J t for one op call: the gradient with respect to u of <vjp(u), t>, with u a stand-in cotangent."""

    differentiable = [o.dtype.is_floating or o.dtype.is_complex for o in outputs]
    if not any(differentiable):
        return [None] * len(outputs)
    stand_ins = [zeros_like(o) for o in outputs]
    with GradientTape(persistent=True) as tape:
        tape.watch(stand_ins)
        ctx = GradContext(op, inputs, outputs, attrs, needs=[t is not None for t in tangents])
        in_grads = op.grad(ctx, stand_ins if op.num_outputs != 1 else stand_ins[0])  # type: ignore[misc]
        products = [
            reduce_sum(multiply(convert_to_tensor(g), t))
            for g, t in zip(in_grads, tangents)
            if g is not None and t is not None
        ]
        total = add_n(products) if len(products) > 1 else (products[0] if products else None)
    if total is None:
        return [None] * len(outputs)
    result = tape.gradient(total, stand_ins)
    return [r if ok else None for r, ok in zip(result, differentiable)]
