"""Lowering: each op of a region becomes scalar operations inside one loop nest (loop_ir.py).

`RULES` says, per TensorFlow op type, which scalar operations compute one element of its result from one
element of each input; composite ops expand here (sigmoid is 1 / (1 + exp(-x)), `TanhGrad` is
dy * (1 - y * y), a mean is a sum scaled once at the end). The scalar operations are the primitives that
python_source.py knows how to write: arithmetic, comparisons, select, casts, floor, an int32's bits read as
a float32, and the transcendental functions `TRANSCENDENTAL` names.

Where a region is compiled as a loop, float32 tanh and exp become formulas of multiplies and adds, as XLA's
CPU compiler writes them, and reductions along a long innermost axis fold their row in lanes of partial
accumulators (loop_ir.AccLanes): both let LLVM keep the loop fast.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import SupportsFloat, cast

import numpy as np

from minitf.core import dtypes
from minitf.exact.exp_log import EXP_POLYNOMIAL32
from minitf.exact.tanh import DENOMINATOR32, NUMERATOR32
from minitf.function.compiling.jit import loop_ir as ir
from minitf.function.compiling.jit.backend import numba_module
from minitf.function.compiling.jit.optional import enabled
from minitf.function.compiling.jit.parallel import parallelise
from minitf.function.tracing.graph import Operation, SymbolicTensor

REDUCTIONS = {"Sum": "sum", "Mean": "sum", "Prod": "prod", "Max": "max", "Min": "min"}
DATA_MOVEMENT = frozenset({"Identity", "BroadcastTo", "BroadcastLike", *REDUCTIONS})
TRANSCENDENTAL = frozenset({"exp", "log", "tanh", "log1p", "expm1", "sin", "cos"})
FLOATS = frozenset({dtypes.float32, dtypes.float64})
LANES = 8  # partial accumulators of a reduction along a long innermost axis
LANES_FROM = 64  # shorter rows: one accumulator (the partials' setup would cost more than they save)
STREAMS = (4, 2)  # iterations an elementwise loop with a long body runs side by side (loop_ir.Loop)
STREAMS_FROM = 100  # statements: shorter bodies, the processor overlaps iterations by itself


class Builder:
    """Collects the innermost loop's statements; names temporaries t0, t1, ... and constants c0, c1, ..."""

    def __init__(self, compiled: bool = True) -> None:
        self.body: list[ir.Stmt] = []
        self.constants: dict[tuple[str, str], str] = {}
        self.count = 0
        self.compiled = compiled  # a loop compiled by Numba: float32 tanh and exp as formulas, sums in lanes
        self.hoisted: list[ir.Stmt] | None = None  # where constants go, if not with the other statements

    def let(self, value: ir.Load | ir.Const | ir.Apply) -> str:
        target = f"t{self.count}"
        self.count += 1
        self.body.append(ir.Let(target, value))
        return target

    def const(self, value: float, dtype: str) -> str:
        key = (repr(value), dtype)
        if key not in self.constants:
            body = self.body
            self.body = body if self.hoisted is None else self.hoisted
            self.constants[key] = self.let(ir.Const(value, dtype))
            self.body = body
        return self.constants[key]

    def apply(self, op: str, *args: str) -> str:
        return self.let(ir.Apply(op, args))


Rule = Callable[[Builder, Sequence[str], str], str]  # (builder, input temporaries, dtype) -> result temporary
NestLowering = Callable[
    [str, Sequence[Operation], Sequence[SymbolicTensor], Sequence[SymbolicTensor], tuple[int, ...], Builder], ir.Kernel
]


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


# Where the jit's tanh formula is clamped: it gives exactly 1.0 there and at most 1.0 below, whether LLVM fuses
# its multiplies and adds (backend.CONTRACT, on processors with FMA) or not. Every float32 from 7.5 to 9.5 was
# tried both ways; 7 values from 8.0326 to 8.0739 give exactly 1.0 in both. Eigen's clamp (CLAMP32, that of
# TensorFlow's kernel) is right only without fused multiply-adds: with them the formula gives 0.9999997 there,
# and tanh(inf) would not be 1. XLA, too, clamps differently with FMA.
TANH_CLAMP32 = 8.047392845153809


def _tanh(b: Builder, xs: Sequence[str], dt: str) -> str:
    """float32 tanh as XLA's CPU compiler emits it: a clamped rational function, (x + x^3 P(x^2)) / Q(x^2)
    (Eigen's coefficients, as in minitf/exact/tanh.py), a dozen multiplies and adds the processor does 8 or 16 at
    a time, where a call of the C library's tanhf per value would keep the loop scalar. Other dtypes: tanh."""
    if dt != "float32" or not b.compiled or not enabled("tanh_formula"):
        return b.apply("tanh", xs[0])
    x = b.apply("min", b.apply("max", xs[0], b.const(-TANH_CLAMP32, dt)), b.const(TANH_CLAMP32, dt))
    x2 = b.apply("mul", x, x)
    numerator = b.apply("add", x, b.apply("mul", b.apply("mul", x2, x), _horner(b, x2, NUMERATOR32, dt)))
    return b.apply("div", numerator, _horner(b, x2, DENOMINATOR32, dt))


def _exp(b: Builder, xs: Sequence[str], dt: str) -> str:
    """float32 exp as XLA's CPU compiler emits it, so that the loop stays vectorised: x = m ln 2 + r with
    m = floor(x / ln 2 + 1/2) and |r| <= ln(2) / 2, exp(r) by a polynomial (Eigen's coefficients, as in
    minitf/exact/exp_log.py), and 2**m built from its bits: the exponent field of a float32 is m + 127.
    2**m is applied in two halves, so that exp overflows to inf (m up to 128) and underflows through the
    subnormal numbers to 0 (m down to -150) as np.exp does; x is clamped to [-104, 89] first, beyond which
    the result is 0 or inf anyway, and a NaN is returned as it is. Within 3 ulps of np.exp. Other dtypes: exp."""
    if dt != "float32" or not b.compiled or not enabled("exp_formula"):
        return b.apply("exp", xs[0])
    x = xs[0]
    number = b.apply("eq", x, x)  # False for NaN: computed on 0 instead, the NaN returned at the end
    zero = b.const(0.0, dt)
    clamped = b.apply("min", b.apply("max", b.apply("select", number, x, zero), b.const(-104.0, dt)), b.const(89.0, dt))
    m = b.apply("floor", b.apply("add", b.apply("mul", clamped, b.const(1.4426950408889634, dt)), b.const(0.5, dt)))
    r = b.apply(
        "sub",
        b.apply("sub", clamped, b.apply("mul", m, b.const(0.693359375, dt))),
        b.apply("mul", m, b.const(-2.12194440e-4, dt)),
    )
    p = b.const(float(EXP_POLYNOMIAL32[-1]), dt)
    for c in reversed(EXP_POLYNOMIAL32[:-1]):
        p = b.apply("add", b.apply("mul", p, r), b.const(float(c), dt))
    p = b.apply("add", b.apply("add", b.apply("mul", p, b.apply("mul", r, r)), r), b.const(1.0, dt))
    half = b.apply("floor", b.apply("mul", m, b.const(0.5, dt)))
    for part in (half, b.apply("sub", m, half)):  # 2**part from the bits (part + 127) << 23
        biased = b.apply("mul", b.apply("add", part, b.const(127.0, dt)), b.const(8388608.0, dt))
        p = b.apply("mul", p, b.apply("bitcast_float32", b.apply("cast_int32", biased)))
    return b.apply("select", number, p, x)


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
    "AddV2": _prim("add"),
    "Sub": _prim("sub"),
    "Mul": _prim("mul"),
    "RealDiv": _prim("div"),
    "Div": _prim("div"),
    "Maximum": _prim("max"),
    "Minimum": _prim("min"),
    "Neg": _prim("neg"),
    "Abs": _prim("abs"),
    "Sqrt": _prim("sqrt"),
    "Exp": _exp,
    "Log": _prim("log"),
    "Tanh": _tanh,
    "Log1p": _prim("log1p"),
    "Expm1": _prim("expm1"),
    "Sin": _prim("sin"),
    "Cos": _prim("cos"),
    "Square": lambda b, xs, dt: b.apply("mul", xs[0], xs[0]),
    "Reciprocal": lambda b, xs, dt: b.apply("div", b.const(1.0, dt), xs[0]),
    "Rsqrt": lambda b, xs, dt: b.apply("div", b.const(1.0, dt), b.apply("sqrt", xs[0])),
    "Relu": lambda b, xs, dt: b.apply("max", xs[0], b.const(0.0, dt)),
    "Sigmoid": _sigmoid,
    "TanhGrad": _tanh_grad,
    "SigmoidGrad": _sigmoid_grad,
    "ReluGrad": _relu_grad,
    "SquaredDifference": _squared_difference,
    "Less": _prim("lt"),
    "LessEqual": _prim("le"),
    "Greater": _prim("gt"),
    "GreaterEqual": _prim("ge"),
    "Equal": _prim("eq"),
    "NotEqual": _prim("ne"),
    "LogicalAnd": _prim("and"),
    "LogicalOr": _prim("or"),
    "LogicalNot": _prim("not"),
    "SelectV2": _prim("select"),
    "Identity": lambda b, xs, dt: xs[0],
    "BroadcastTo": lambda b, xs, dt: xs[0],
    "BroadcastLike": lambda b, xs, dt: xs[0],
}
TRANSCENDENTAL_OPS = frozenset({"Exp", "Log", "Tanh", "Log1p", "Expm1", "Sin", "Cos", "Sigmoid", "Sqrt", "Rsqrt"})
FLOAT_ONLY = frozenset(
    {
        "RealDiv",
        "Div",
        "Sqrt",
        "Exp",
        "Log",
        "Tanh",
        "Log1p",
        "Expm1",
        "Sin",
        "Cos",
        "Reciprocal",
        "Rsqrt",
        "Sigmoid",
        "TanhGrad",
        "SigmoidGrad",
    }
)
SHAPE_ONLY_INPUTS = {"BroadcastLike": 1}  # BroadcastLike(x, like) reads `like` for its shape only


def value_inputs(op: Operation) -> tuple[SymbolicTensor, ...]:
    """The inputs whose values the op reads element by element."""
    return op.inputs[: SHAPE_ONLY_INPUTS.get(op.type, len(op.inputs))]


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


def index_of(buffer: ir.Buffer, shape: tuple[int, ...]) -> tuple[str, ...]:
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


def lower(
    name: str,
    ops: Sequence[Operation],
    inputs: Sequence[SymbolicTensor],
    outputs: Sequence[SymbolicTensor],
    shape: tuple[int, ...],
    nest: NestLowering | None = None,
) -> ir.Kernel:
    """The loop nest that computes `outputs` of the region `ops` from `inputs` over the iteration `shape`
    (one-element constants among `inputs` become literals; the others, buffers in0, in1, ...), made by `nest`
    (row_kernels.lower_rows for a row kernel; by default one nest with the reduced axes innermost).

    A float32 tanh or exp becomes a formula where the region is compiled as a loop; where the region runs
    on NumPy blocks anyway (other transcendentals, or no Numba), one `np.tanh` or `np.exp` per block costs
    less than the formula's dozen calls, so the region is lowered again with them as calls."""
    how = nest or _lower
    if numba_module() is not None:
        kernel = how(name, ops, inputs, outputs, shape, Builder(compiled=True))
        if not kernel.transcendental:
            return parallelise(kernel) if enabled("parallel_regions") else kernel
    return how(name, ops, inputs, outputs, shape, Builder(compiled=False))


def _streams(builder: Builder, extent: int) -> int:
    """How many iterations of a compiled elementwise loop run side by side (1 for a short body, or where no
    count in STREAMS divides the extent)."""
    if not builder.compiled or len(builder.body) < STREAMS_FROM or not enabled("streams"):
        return 1
    return next((k for k in STREAMS if extent % k == 0 and extent >= 16 * k), 1)


def in_lanes(builder: Builder, extent: int) -> bool:
    """Does a compiled reduction along `extent` values fold its row in lanes of partial accumulators?"""
    return builder.compiled and extent >= LANES_FROM and enabled("accumulator_lanes")


@dataclass
class Nest:
    """What a loop nest collects besides its loops' statements: accumulators (started before the reduced
    loops, written after them), the kernel's row buffers and its output buffers."""

    shape: tuple[int, ...]
    reduced: tuple[int, ...]
    in_lanes: bool  # reductions fold their rows in lanes of partial accumulators (loop_ir.AccLanes)
    inits: list[ir.Stmt] = field(default_factory=list)
    finals: list[ir.Stmt] = field(default_factory=list)
    rows: list[ir.Buffer] = field(default_factory=list)
    outputs: list[ir.Buffer] = field(default_factory=list)

    def accumulate(
        self,
        op: Operation,
        value: str,
        body: list[ir.Stmt],
        after: list[ir.Stmt],
        wanted: bool,
        loaded: ir.Load | None = None,
    ) -> str:
        """The reduction `op` of `value`: its update in `body` (the innermost loop), its lanes in `after` (right
        after that loop), its output written at the end if `wanted`. Returns the accumulator's name. In lanes,
        a value `loaded` from an input is read from the input itself, other values from a row buffer."""
        kind = REDUCTIONS[op.type]
        acc = f"acc{len(self.inits)}"
        self.inits.append(ir.AccInit(acc, kind, "float64" if kind in ("sum", "prod") else dtype_name(op.outputs[0])))
        along, extent = f"i{self.reduced[-1]}", self.shape[self.reduced[-1]]
        if self.in_lanes and loaded is not None:
            after.append(ir.AccLanes(acc, kind, loaded.buffer, loaded.index, along, extent, LANES))
        elif self.in_lanes:
            row = self.row(dtype_name(op.inputs[0]))
            body.append(ir.Store(row, (along,), value))
            after.append(ir.AccLanes(acc, kind, row, (along,), along, extent, LANES))
        else:
            body.append(ir.AccUpdate(acc, kind, value))
        if not wanted:
            return acc
        rank = len(self.shape)
        buffer = self.output(tuple(1 if k in self.reduced else d for k, d in enumerate(self.shape)), op.outputs[0])
        scale = 1.0 / float(np.prod([self.shape[k] for k in self.reduced])) if op.type == "Mean" else None
        index = tuple("0" if k in self.reduced else f"i{k}" for k in range(rank))
        self.finals.append(ir.AccStore(buffer, index, acc, scale))
        return acc

    def row(self, dtype: str) -> ir.Buffer:
        """A new row buffer of the kernel, as long as the innermost (reduced) axis."""
        buffer = ir.Buffer(f"row{len(self.rows)}", (self.shape[self.reduced[-1]],), dtype)
        self.rows.append(buffer)
        return buffer

    def output(self, shape: tuple[int, ...], t: SymbolicTensor) -> ir.Buffer:
        buffer = ir.Buffer(f"out{len(self.outputs)}", shape, dtype_name(t))
        self.outputs.append(buffer)
        return buffer


def _lower(
    name: str,
    ops: Sequence[Operation],
    inputs: Sequence[SymbolicTensor],
    outputs: Sequence[SymbolicTensor],
    shape: tuple[int, ...],
    builder: Builder,
) -> ir.Kernel:
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
        temps[id(t)] = builder.let(ir.Load(buffer, index_of(buffer, shape)))
    stores: list[ir.Stmt] = []
    lanes: list[ir.Stmt] = []  # after the innermost loop: its rows folded in lanes
    nest = Nest(shape, reduced, in_lanes(builder, shape[reduced[-1]]) if reduced else False)
    wanted = {id(t) for t in outputs}
    for op in ops:
        args = [temps[id(t)] for t in value_inputs(op)]
        out = op.outputs[0]
        if op.type in REDUCTIONS:
            nest.accumulate(op, args[0], builder.body, lanes, wanted=True)
            continue
        temps[id(out)] = rule(op, builder, args)
        if id(out) in wanted:
            stores.append(ir.Store(nest.output(shape, out), tuple(f"i{k}" for k in range(rank)), temps[id(out)]))
    order = [k for k in range(rank) if k not in reduced] + list(reduced)
    body: list[ir.Stmt] = builder.body + stores
    for depth in range(rank - 1, -1, -1):
        axis = order[depth]
        streams = _streams(builder, shape[axis]) if depth == rank - 1 and not reduced else 1
        body = [ir.Loop(f"i{axis}", shape[axis], body, streams)]
        if depth == rank - 1:
            body += lanes
        if depth == rank - len(reduced):  # outside the reduced loops: start, then write, the accumulators
            body = [*nest.inits, *body, *nest.finals]
    return ir.Kernel(name, shape, reduced, in_buffers, nest.outputs, body, transcendental(builder.body), nest.rows)


def rule(op: Operation, builder: Builder, args: Sequence[str]) -> str:
    """The scalar operations of one elementwise op; its result's temporary."""
    if op.type == "Cast":
        return builder.apply(f"cast_{dtype_name(op.outputs[0])}", *args)
    return RULES[op.type](builder, args, dtype_name(op.outputs[0]))


def transcendental(statements: Sequence[ir.Stmt]) -> bool:
    """Does a statement call exp, log, tanh, ...? (Then NumPy's vectorised kernels on blocks beat a loop.)"""
    return any(
        isinstance(s, ir.Let) and isinstance(s.value, ir.Apply) and s.value.op in TRANSCENDENTAL for s in statements
    )
