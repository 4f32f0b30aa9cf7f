"""The one door every computation goes through: `bind(op, *inputs, **attrs)`.

An `Op` is defined once (see `minitf/ops/`): its NumPy kernel, the checks TensorFlow makes on its inputs,
its shape rule and its gradient. `bind` then decides what running it means right now:

* eagerly: call the kernel on the NumPy values and wrap the result in an EagerTensor;
* while a `tf.function` is being traced: add a node to the graph under construction (the tracer sets
  `state.graph`);
* and, in both cases, tell every recording `GradientTape` (in `state.tapes`) so it can differentiate later.

Because eager execution, the tape and the tracer all go through here, they cannot disagree about what an
op does.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from minitf.core import dtypes
from minitf.core.context import state
from minitf.core.devices import log_placement
from minitf.core.errors import OpError, from_kernel, invalid_argument
from minitf.core.numpy_errors import QUIET, in_use
from minitf.core.shape_rules import Spec
from minitf.core.tensor import EagerTensor, Tensor, make

# A gradient rule: (the recorded call, the output's gradient, or a list of them for a multi-output op) -> one
# gradient (or None) per input. A shape rule: (input shapes, input dtypes, attrs[, values=]) -> one
# (TensorShape, DType) per output.
GradRule = Callable[["GradContext", Any], Sequence[Any]]
ShapeRule = Callable[..., Sequence[Spec]]


class Op:
    """A primitive operation, named as TensorFlow names it (`AddV2`, `MatMul`, ...).

    kernel:  NumPy implementation; takes the inputs' NumPy values and the attrs, returns NumPy value(s).
    check:   validates inputs and attrs before running (raises TensorFlow's error for bad dtypes etc.).
    shape:   shape and dtype rule for tracing, written beside the op (shared ones are in minitf/core/shape_rules.py):
             (input shapes, input dtypes, attrs) -> one (TensorShape, DType) per output; value-dependent ops also
             get `values=` (constant inputs' values, None where unknown). Required: the tracer never runs a
             kernel to learn a shape.
    grad:    gradient rule, written with minitf ops so that tapes can record it (higher order) and the
             tracer can trace it: grad(ctx, g) -> one gradient (or None) per input, where `ctx` is a
             GradContext and `g` the output's gradient (a list of them for multi-output ops).
             No rule means "not differentiable": the gradient is None, as TensorFlow says for argmax.
    num_outputs: how many tensors the kernel returns (-1: a tuple whose length depends on the attrs).
    stateful: the op has an effect beyond its outputs (writes a variable, prints, draws random numbers):
             graph passes never fold, merge or remove it, and it runs in program order.
    value_dependent: the output *shape* depends on the input *values* (`Range`, `StridedSlice` with tensor
             bounds): while tracing, the shape rule sees the values of constant inputs; the dimensions they
             decide stay unknown otherwise.
    elementwise: each output element depends on the inputs' elements at the same (broadcast) position, so
             a chain of such ops can run as one fused kernel.
    node:    the name TensorFlow's eager runtime gives the function that runs this kernel, from the number of
             inputs and the attrs (`ConcatV2_N_2`: list lengths are part of it); by default the op's name. An
             error the kernel (or `check`) finds starts with it (`errors.kernel_prefix`).
    accepts: the dtypes an elementwise op accepts, every input of one dtype: the eager path tests them inline
             and calls `check` (which raises the error) only when they do not fit.
    """

    __slots__ = (
        "name",
        "kernel",
        "check",
        "shape",
        "grad",
        "num_outputs",
        "explain",
        "stateful",
        "value_dependent",
        "elementwise",
        "accepts",
        "node",
    )

    def __init__(
        self,
        name: str,
        kernel: Callable[..., Any],
        *,
        check: Callable[[Sequence[Tensor], dict], None] | None = None,
        shape: ShapeRule | None = None,  # required; None only to raise a clear error
        grad: GradRule | None = None,
        num_outputs: int = 1,
        explain: Callable[[Sequence[EagerTensor], dict, Exception], str] | None = None,
        stateful: bool = False,
        value_dependent: bool = False,
        elementwise: bool = False,
        accepts: frozenset | None = None,
        node: Callable[[int, dict], str] | None = None,
    ) -> None:
        if shape is None:
            raise TypeError(
                f"Op {name!r} has no shape rule: pass shape=... (see minitf/core/shape_rules.py), so that "
                "tracing can work out its output shapes and dtypes without running it, and add the op "
                "to the table in tests/engine/test_shape_rules.py."
            )
        self.name = name
        self.kernel = kernel
        self.check = check
        self.shape = shape
        self.grad = grad
        self.num_outputs = num_outputs
        self.explain = explain
        self.stateful = stateful
        self.value_dependent = value_dependent
        self.elementwise = elementwise
        self.accepts = accepts
        self.node = node
        module = _defining_module()
        if name in REGISTRY:
            raise ValueError(
                f"Op {name!r} is defined twice: in {DEFINED_IN[name]} and again in {module}. Each op has one "
                "definition (kernel, checks, shape rule, gradient): import the Op from its module instead."
            )
        REGISTRY[name] = self
        DEFINED_IN[name] = module

    def __repr__(self) -> str:
        return f"Op({self.name})"


REGISTRY: dict[str, Op] = {}  # every op by its name, each defined once
DEFINED_IN: dict[str, str] = {}  # the module that defines each op, for the error on a second definition


def _defining_module() -> str:
    """The module whose top level is creating an op (through any factory such as `binary_op`)."""
    frame = sys._getframe(2)
    while frame.f_back is not None and frame.f_code.co_name != "<module>":
        if not str(frame.f_globals.get("__name__")).startswith("minitf."):
            break  # code outside minitf making an op
        frame = frame.f_back
    return str(frame.f_globals.get("__name__", "?"))


def bind(op: Op, *inputs: Tensor, **attrs: Any) -> Any:
    """Run `op` on `inputs` in the current mode (eager or tracing) and tell the recording tapes."""
    if not state.active:
        return run_eager(op, inputs, attrs)
    if state.graph is not None:
        outputs = state.graph.add_op(op, inputs, attrs)
    else:
        outputs = run_eager(op, inputs, attrs)
        if state.log_placement:
            log_placement(op.name, inputs)
    for tape in state.tapes:
        tape.record(op, inputs, attrs, outputs)
    return outputs


_BY_NUMPY = dtypes._BY_NUMPY
_new = object.__new__


def run_eager(op: Op, inputs: Sequence[Any], attrs: dict, run: Callable[..., Any] = QUIET.run) -> Any:
    """Execute the NumPy kernel; turn NumPy's complaints into the OpError TensorFlow raises.

    `inputs` are EagerTensors (typed loosely: `bind` hands over its tensors without a check on the hot path).
    `run(kernel, *values)` calls the kernel with NumPy's floating-point warnings off, as TensorFlow gives inf and
    nan silently (minitf/core/numpy_errors.py).

    This is the hot path of eager execution, so it avoids helper calls where one line will do.
    """
    n = len(inputs)
    accepts = op.accepts
    try:
        if accepts is not None:
            dtype = inputs[0]._dtype
            if (dtype not in accepts or n == 2 and inputs[1]._dtype is not dtype) and op.check is not None:
                op.check(inputs, attrs)  # raises TensorFlow's error
        elif op.check is not None:
            op.check(inputs, attrs)
        if attrs:
            out = run(op.kernel, *[t._value for t in inputs], **attrs)
        elif n == 1:  # most calls: one or two inputs, no attrs (spreading an empty dict costs a tenth of a call)
            out = run(op.kernel, inputs[0]._value)
        elif n == 2:
            out = run(op.kernel, inputs[0]._value, inputs[1]._value)
        else:
            out = run(op.kernel, *[t._value for t in inputs])
    except OpError as exc:
        raise from_kernel(exc, node_name(op, n, attrs)) from None
    except (ValueError, IndexError, TypeError, ZeroDivisionError, np.linalg.LinAlgError) as exc:
        message = op.explain(inputs, attrs, exc) if op.explain is not None else str(exc)
        raise invalid_argument(op.name, message, node_name(op, n, attrs)) from None
    except RuntimeError as exc:  # the quiet context is in use (a kernel running ops, or another thread)
        if not in_use(exc):
            raise
        return run_eager(op, inputs, attrs, QUIET.copy().run)
    if op.num_outputs == 1:
        t = _new(EagerTensor)
        try:
            t._dtype = _BY_NUMPY[out.dtype]
            t._value = out
        except (KeyError, AttributeError):  # strings; a Python bytes is a scalar read out of a string array
            t._value, t._dtype = as_result(out)
        return t
    if op.num_outputs == 0:
        return ()
    return tuple(make(*as_result(o)) for o in out)


def node_name(op: Op, n_inputs: int, attrs: dict) -> str:
    """The name of the function TensorFlow's eager runtime wraps `op`'s kernel in (see `Op.node`)."""
    return op.node(n_inputs, attrs) if op.node is not None else op.name


def as_result(value: Any) -> tuple[Any, dtypes.DType]:
    """A kernel's result as a tensor stores it, with its dtype. Strings are NumPy object arrays of `bytes`,
    and a string scalar is the `bytes` itself (TensorFlow's `.numpy()` gives `bytes`): NumPy turns bytes
    that a kernel stacks or joins into a fixed-width `|S` array, which is made an object array again here,
    so every op that accepts strings returns string tensors of one kind."""
    if isinstance(value, bytes):
        return value, dtypes.string
    if isinstance(value, str):
        return value.encode(), dtypes.string
    kind = value.dtype.kind
    if kind in "SU":
        if value.ndim == 0:
            return as_result(value[()])
        array = value.astype(object)
        if kind == "U":
            array = np.vectorize(str.encode, otypes=[object])(array) if array.size else array
        return array, dtypes.string
    return value, dtypes.from_numpy(value.dtype)


def make_output(value: Any, dtype: dtypes.DType) -> EagerTensor:
    """An eager tensor for a value a compiled graph computed as `dtype` (strings made one kind, as above)."""
    return make(*as_result(value)) if dtype is dtypes.string else make(value, dtype)


class GradContext:
    """What a gradient rule sees of the call it differentiates: the op, its inputs, outputs and attrs."""

    __slots__ = ("op", "inputs", "outputs", "attrs", "needs")
    op: Op
    inputs: Sequence[Tensor]
    outputs: Sequence[Tensor]
    attrs: dict[str, Any]
    needs: Sequence[bool]

    def __init__(
        self,
        op: Op,
        inputs: Sequence[Tensor],
        outputs: Sequence[Tensor],
        attrs: dict[str, Any],
        needs: Sequence[bool] = (True, True, True, True),
    ) -> None:
        self.op = op
        self.inputs = inputs
        self.outputs = outputs
        self.attrs = attrs
        # needs[i]: does anyone want the gradient of input i? (rules may skip the others)
        self.needs = needs

    @property
    def x(self) -> Tensor:
        return self.inputs[0]

    @property
    def y(self) -> Tensor:
        return self.inputs[1]

    @property
    def out(self) -> Tensor:
        return self.outputs[0]
