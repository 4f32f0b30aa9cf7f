"""Lowering: each op of a region becomes scalar operations inside one loop nest (loop_ir.py).

`RULES` says, per TensorFlow op type, which scalar operations compute one element of its result from one
element of each input; composite ops expand here (sigmoid is 1 / (1 + exp(-x)), `TanhGrad` is
dy * (1 - y * y), a mean is a sum scaled once at the end). The scalar operations are the primitives that
python_source.py knows how to write: arithmetic, comparisons, select, casts, and the transcendental
functions `TRANSCENDENTAL` names.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import SupportsFloat, cast

import numpy as np

from minitf.core import dtypes
from minitf.exact.tanh import CLAMP32, DENOMINATOR32, NUMERATOR32
from minitf.function.compiling.jit import loop_ir as ir
from minitf.function.compiling.jit.backend import numba_module
from minitf.function.tracing.graph import Operation, SymbolicTensor

REDUCTIONS = {"Sum": "sum", "Mean": "sum", "Prod": "prod", "Max": "max", "Min": "min"}
DATA_MOVEMENT = frozenset({"Identity", "BroadcastTo", "BroadcastLike", *REDUCTIONS})
TRANSCENDENTAL = frozenset({"exp", "log", "tanh", "log1p", "expm1", "sin", "cos"})
FLOATS = frozenset({dtypes.float32, dtypes.float64})


class Builder:
    """Collects the innermost loop's statements; names temporaries t0, t1, ... and constants c0, c1, ..."""

    def __init__(self, tanh_formula: bool = True) -> None:
        self.body: list[ir.Stmt] = []
        self.constants: dict[tuple[str, str], str] = {}
        self.count = 0
        self.tanh_formula = tanh_formula  # float32 tanh as a rational function (only where the loop is compiled)

    def let(self, value: ir.Load | ir.Const | ir.Apply) -> str:
        target = f"t{self.count}"
        self.count += 1
        self.body.append(ir.Let(target, value))
        return target

    def const(self, value: float, dtype: str) -> str:
        key = (repr(value), dtype)
        if key not in self.constants:
            self.constants[key] = self.let(ir.Const(value, dtype))
        return self.constants[key]

    def apply(self, op: str, *args: str) -> str:
        return self.let(ir.Apply(op, args))


Rule = Callable[[Builder, Sequence[str], str], str]  # (builder, input temporaries, dtype) -> result temporary


def _prim(name: str) -> Rule:
    return lambda b, xs, dt: b.apply(name, *xs)


def _sigmoid(b: Builder, xs: Sequence[str], dt: str) -> str:
    one = b.const(1.0, dt)
    return b.apply("div", one, b.apply("add", one, b.apply("exp", b.apply("neg", xs[0]))))


def _horner(b: Builder, x2: str, coefficients: Sequence[SupportsFloat], dt: str) -> str:
    acc = b.const(float(coefficients[0]), dt)
    for c in coefficients[1:]:
        acc = b.apply("add", b.apply("mul", acc, x2), b.const(float(c), dt))
    return acc


def _tanh(b: Builder, xs: Sequence[str], dt: str) -> str:
    """float32 tanh as XLA's CPU compiler emits it: a clamped rational function, (x + x^3 P(x^2)) / Q(x^2)
    (Eigen's coefficients, as in minitf/exact/tanh.py), a dozen multiplies and adds the processor does 8 or 16 at
    a time, where a call of the C library's tanhf per value would keep the loop scalar. Other dtypes: tanh."""
    if dt != "float32" or not b.tanh_formula:
        return b.apply("tanh", xs[0])
    x = b.apply("min", b.apply("max", xs[0], b.const(-float(CLAMP32), dt)), b.const(float(CLAMP32), dt))
    x2 = b.apply("mul", x, x)
    numerator = b.apply("add", x, b.apply("mul", b.apply("mul", x2, x), _horner(b, x2, NUMERATOR32, dt)))
    return b.apply("div", numerator, _horner(b, x2, DENOMINATOR32, dt))


def _tanh_grad(b: Builder, xs: Sequence[str], dt: str) -> str:
    y, dy = xs
    return b.apply("mul", dy, b.apply("sub", b.const(1.0, dt), b.apply("mul", y, y)))


def _sigmoid_grad(b: Builder, xs: Sequence[str], dt: str) -> str:
    y, dy = xs
    return b.apply("mul", dy, b.apply("mul", y, b.apply("sub", b.const(1.0, dt), y)))


def _relu_grad(b: Builder, xs: Sequence[str], dt: str) -> str:
    dy, y = xs
    zero = b.const(0.0, dt)
    return b.apply("select", b.apply("gt", y, zero), dy, zero)


def _squared_difference(b: Builder, xs: Sequence[str], dt: str) -> str:
    d = b.apply("sub", *xs)
    return b.apply("mul", d, d)


RULES: dict[str, Rule] = {
    "AddV2": _prim("add"), "Sub": _prim("sub"), "Mul": _prim("mul"), "RealDiv": _prim("div"), "Div": _prim("div"),
    "Maximum": _prim("max"), "Minimum": _prim("min"), "Neg": _prim("neg"), "Abs": _prim("abs"),
    "Sqrt": _prim("sqrt"), "Exp": _prim("exp"), "Log": _prim("log"), "Tanh": _tanh,
    "Log1p": _prim("log1p"), "Expm1": _prim("expm1"), "Sin": _prim("sin"), "Cos": _prim("cos"),
    "Square": lambda b, xs, dt: b.apply("mul", xs[0], xs[0]),
    "Reciprocal": lambda b, xs, dt: b.apply("div", b.const(1.0, dt), xs[0]),
    "Rsqrt": lambda b, xs, dt: b.apply("div", b.const(1.0, dt), b.apply("sqrt", xs[0])),
    "Relu": lambda b, xs, dt: b.apply("max", xs[0], b.const(0.0, dt)),
    "Sigmoid": _sigmoid, "TanhGrad": _tanh_grad, "SigmoidGrad": _sigmoid_grad, "ReluGrad": _relu_grad,
    "SquaredDifference": _squared_difference,
    "Less": _prim("lt"), "LessEqual": _prim("le"), "Greater": _prim("gt"), "GreaterEqual": _prim("ge"),
    "Equal": _prim("eq"), "NotEqual": _prim("ne"), "LogicalAnd": _prim("and"), "LogicalOr": _prim("or"),
    "LogicalNot": _prim("not"), "SelectV2": _prim("select"),
    "Identity": lambda b, xs, dt: xs[0], "BroadcastTo": lambda b, xs, dt: xs[0],
    "BroadcastLike": lambda b, xs, dt: xs[0],
}
FLOAT_ONLY = frozenset({"RealDiv", "Div", "Sqrt", "Exp", "Log", "Tanh", "Log1p", "Expm1", "Sin", "Cos",
                        "Reciprocal", "Rsqrt", "Sigmoid", "TanhGrad", "SigmoidGrad"})
SHAPE_ONLY_INPUTS = {"BroadcastLike": 1}  # BroadcastLike(x, like) reads `like` for its shape only


def value_inputs(op: Operation) -> tuple[SymbolicTensor, ...]:
    """The inputs whose values the op reads element by element."""
    return op.inputs[:SHAPE_ONLY_INPUTS.get(op.type, len(op.inputs))]


def lowerable(op: Operation) -> bool:
    """Is there a rule for this op at its dtypes?"""
    if op.type in REDUCTIONS:  # (a reduction over no axis, or of a scalar, copies: NumPy does that best)
        axis = op.attrs.get("axis")
        return op.outputs[0].dtype in FLOATS and bool(op.inputs[0].shape.rank) and (axis is None or len(axis) > 0)
    if op.type == "Cast" or op.type not in RULES:
        return op.type == "Cast"
    return op.type not in FLOAT_ONLY or op.outputs[0].dtype in FLOATS


def static_shape(t: SymbolicTensor) -> tuple[int, ...]:
    """A fully known shape as a tuple of ints (regions only hold such tensors)."""
    return tuple(int(cast(int, d)) for d in t.shape.as_list())


def dtype_name(t: SymbolicTensor) -> str:
    return t.dtype.name


def padded(shape: Sequence[int], rank: int) -> tuple[int, ...]:
    """A shape with size-1 axes in front, up to `rank` (how NumPy broadcasts it against the iteration shape)."""
    return (1,) * (rank - len(shape)) + tuple(int(d) for d in shape)


def _index(buffer: ir.Buffer, shape: tuple[int, ...]) -> tuple[str, ...]:
    return tuple(f"i{k}" if d == shape[k] else "0" for k, d in enumerate(buffer.shape))


def scalar_constant(t: SymbolicTensor) -> float | int | bool | None:
    """The value of a constant that holds one value (one element, or one value repeated, as constant folding
    makes of a broadcast): written into the loop as a literal instead of read from memory. Else None."""
    if t.op.type != "Const":
        return None
    value = np.asarray(t.op.attrs["value"])
    if value.size == 0 or (value.size > 1 and not (value == value.flat[0]).all()):
        return None
    return value.flat[0].item()


def lower(name: str, ops: Sequence[Operation], inputs: Sequence[SymbolicTensor], outputs: Sequence[SymbolicTensor],
          shape: tuple[int, ...]) -> ir.Kernel:
    """The loop nest that computes `outputs` of the region `ops` from `inputs` over the iteration `shape`
    (one-element constants among `inputs` become literals; the others, buffers in0, in1, ...).

    A float32 tanh becomes a rational function where the region is compiled as a loop; where the region runs
    on NumPy blocks anyway (other transcendentals, or no Numba), one `np.tanh` per block costs less than the
    formula's dozen calls, so the region is lowered again with tanh as a call."""
    kernel = _lower(name, ops, inputs, outputs, shape, Builder(tanh_formula=True))
    if kernel.transcendental or numba_module() is None:
        kernel = _lower(name, ops, inputs, outputs, shape, Builder(tanh_formula=False))
    return kernel


def _lower(name: str, ops: Sequence[Operation], inputs: Sequence[SymbolicTensor], outputs: Sequence[SymbolicTensor],
           shape: tuple[int, ...], builder: Builder) -> ir.Kernel:
    shape = shape or (1,)
    rank = len(shape)
    reduction = next((op for op in ops if op.type in REDUCTIONS), None)
    reduced: tuple[int, ...] = ()
    if reduction is not None:
        axis = reduction.attrs["axis"]
        given = range(len(reduction.inputs[0].shape)) if axis is None else axis
        offset = rank - len(reduction.inputs[0].shape)
        reduced = tuple(sorted(offset + (a % len(reduction.inputs[0].shape)) for a in given))
    temps: dict[int, str] = {}
    in_buffers: list[ir.Buffer] = []
    for t in inputs:
        value = scalar_constant(t)
        if value is not None:
            temps[id(t)] = builder.const(value, dtype_name(t))
            continue
        buffer = ir.Buffer(f"in{len(in_buffers)}", padded(static_shape(t), rank), dtype_name(t))
        in_buffers.append(buffer)
        temps[id(t)] = builder.let(ir.Load(buffer, _index(buffer, shape)))
    out_buffers: list[ir.Buffer] = []
    stores: list[ir.Stmt] = []
    finals: list[ir.Stmt] = []
    inits: list[ir.Stmt] = []
    wanted = {id(t) for t in outputs}
    for op in ops:
        args = [temps[id(t)] for t in value_inputs(op)]
        out = op.outputs[0]
        if op.type in REDUCTIONS:
            kind = REDUCTIONS[op.type]
            acc = f"acc{len(inits)}"
            acc_dtype = "float64" if kind in ("sum", "prod") else dtype_name(out)
            inits.append(ir.AccInit(acc, kind, acc_dtype))
            builder.body.append(ir.AccUpdate(acc, kind, args[0]))
            kept = tuple(1 if k in reduced else d for k, d in enumerate(shape))
            buffer = ir.Buffer(f"out{len(out_buffers)}", kept, dtype_name(out))
            scale = 1.0 / float(np.prod([shape[k] for k in reduced])) if op.type == "Mean" else None
            finals.append(ir.AccStore(buffer, tuple("0" if k in reduced else f"i{k}" for k in range(rank)), acc, scale))
            out_buffers.append(buffer)
            continue
        if op.type == "Cast":
            temps[id(out)] = builder.apply(f"cast_{dtype_name(out)}", *args)
        else:
            temps[id(out)] = RULES[op.type](builder, args, dtype_name(out))
        if id(out) in wanted:
            buffer = ir.Buffer(f"out{len(out_buffers)}", shape, dtype_name(out))
            out_buffers.append(buffer)
            stores.append(ir.Store(buffer, tuple(f"i{k}" for k in range(rank)), temps[id(out)]))
    order = [k for k in range(rank) if k not in reduced] + list(reduced)
    body: list[ir.Stmt] = builder.body + stores
    for depth in range(rank - 1, -1, -1):
        axis = order[depth]
        body = [ir.Loop(f"i{axis}", shape[axis], body)]
        if depth == rank - len(reduced):  # outside the reduced loops: start, then write, the accumulators
            body = [*inits, *body, *finals]
    if not reduced:
        body = [*inits, *body, *finals] if inits else body
    transcendental = any(isinstance(s, ir.Let) and isinstance(s.value, ir.Apply) and s.value.op in TRANSCENDENTAL
                         for s in builder.body)
    return ir.Kernel(name, shape, reduced, in_buffers, out_buffers, body, transcendental)
