"""The loop IR: what a region becomes before any Python or machine code exists.

A `Kernel` is one loop nest over a region's iteration shape. Its statements are few on purpose:

    Loop(var, extent, body)            for var in 0..extent (`parallel for`: in parts, on the intra-op threads)
    Let(target, Load(buffer, index))   read one element of an input
    Let(target, Const(value, dtype))   a typed constant
    Let(target, Apply(op, args))       one scalar operation (add, mul, exp, select, cast_float32, ...)
    Store(buffer, index, value)        write one element of an output
    AccInit / AccUpdate / AccStore     an accumulator: start it, fold a value into it, write it out
    Store(row, (var,), value)          a reduction in lanes: the innermost loop stores each value in a row
    AccLanes(acc, kind, row, ...)      buffer of the kernel, then `lanes` partial accumulators fold the row

An index names a loop variable per axis ("i1") or "0" where a buffer is broadcast along that axis.
Reduced axes are the innermost loops, so an accumulator lives in a register while they run.

`render` is the one walk over a loop nest: it indents each loop's body and asks a `Rendering` for the
lines of every statement. `pretty` is the rendering a student reads; python_source.py has the one that
Numba compiles.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

SHORT_DTYPES = {"float16": "f16", "float32": "f32", "float64": "f64", "int32": "s32", "int64": "s64", "bool": "pred"}


@dataclass(frozen=True)
class Buffer:
    """An array a kernel reads or writes, at the kernel's rank (size-1 axes where it broadcasts)."""

    name: str
    shape: tuple[int, ...]
    dtype: str

    def __str__(self) -> str:
        return f"{self.name}: {type_text(self.dtype, self.shape)}"


@dataclass(frozen=True)
class Load:
    buffer: Buffer
    index: tuple[str, ...]


@dataclass(frozen=True)
class Const:
    value: float | int | bool
    dtype: str


@dataclass(frozen=True)
class Apply:
    op: str
    args: tuple[str, ...]


@dataclass(frozen=True)
class Let:
    target: str
    value: Load | Const | Apply


@dataclass(frozen=True)
class Store:
    buffer: Buffer
    index: tuple[str, ...]
    value: str


@dataclass(frozen=True)
class AccInit:
    acc: str
    kind: str  # sum, prod, max, min
    dtype: str


@dataclass(frozen=True)
class AccUpdate:
    acc: str
    kind: str
    value: str


@dataclass(frozen=True)
class AccStore:
    buffer: Buffer
    index: tuple[str, ...]
    acc: str
    scale: float | None = None  # a mean divides by the count once, at the end


@dataclass(frozen=True)
class AccLanes:
    """After the innermost loop along `var` (which stores each value of the reduction in a row buffer of the
    kernel, unless the value is an input's element): fold the row `source[index]`, `index` running along
    `var`, into `acc` through `lanes` partial accumulators.

    One accumulator adds one value at a time, and each add waits for the one before (4 cycles for a
    float64 add), so a row sum runs at a quarter of what the processor can do. Partial accumulator k takes
    elements k, k + lanes, k + 2 lanes, ... and the partials are added pairwise at the end: `lanes` adds are
    in flight at once. That reorders the sum, which LLVM may not do by itself without fast-math; XLA reduces
    rows in vectors of partial sums the same way, and the result stays within the tolerance of a sum (at most
    sqrt(n) epsilons times the sum of |x|, docs/testing.md). For max and min the order changes nothing."""

    acc: str
    kind: str
    source: Buffer
    index: tuple[str, ...]
    var: str
    extent: int
    lanes: int

    def element(self, position: str) -> str:
        """The element at `position` along the row, as `source[...]` text."""
        return f"{self.source.name}[{_index(tuple(position if i == self.var else i for i in self.index))}]"


@dataclass
class Loop:
    """`for var in 0..extent`. With `streams` > 1 (an elementwise loop with a long body), the iterations
    var, var + extent / streams, ... run side by side, their statements interleaved: one iteration's long
    chain of dependent operations leaves the processor waiting for each result, and the chains of
    independent iterations fill that wait (each stream is still vectorised by LLVM). A `parallel` loop (the
    outermost, of a large region: parallel.py) is cut into parts that run at once on the intra-op threads."""

    var: str
    extent: int
    body: list[Stmt] = field(default_factory=list)
    streams: int = 1
    parallel: bool = False


Stmt = Loop | Let | Store | AccInit | AccUpdate | AccStore | AccLanes


@dataclass
class Kernel:
    """One region as a loop nest: inputs, outputs (each at the iteration rank) and the nest itself."""

    name: str
    shape: tuple[int, ...]
    reduced_axes: tuple[int, ...]
    inputs: list[Buffer]
    outputs: list[Buffer]
    body: list[Stmt]
    transcendental: bool  # exp, log, tanh...: NumPy's vectorised kernels beat a scalar loop on these
    rows: list[Buffer] = field(default_factory=list)  # the kernel's own row buffers (reductions in lanes)

    def innermost(self) -> list[Stmt]:
        """The statements of the innermost loop (where loads, scalar ops and stores are)."""
        body = self.body
        while True:
            loops = [s for s in body if isinstance(s, Loop)]
            if not loops:
                return body
            body = loops[-1].body


def type_text(dtype: str, shape: tuple[int, ...]) -> str:
    """XLA's way of writing a type: f32[4096,1000]."""
    return f"{short(dtype)}[{','.join(str(d) for d in shape)}]"


def _index(index: tuple[str, ...]) -> str:
    return ", ".join(index)


class Rendering:
    """How each kind of statement is written: one method per kind, named after it, returning its lines
    (a loop: its header line only; `render` writes the body below it, indented)."""

    indent = "  "

    def lines(self, s: Stmt) -> list[str]:
        return getattr(self, type(s).__name__.lower())(s)

    def loop_body(self, s: Loop) -> Sequence[Stmt]:
        """The statements written inside a loop (as they are; a rendering may interleave streams)."""
        return s.body


def render(body: Sequence[Stmt], rendering: Rendering, depth: int, out: list[str]) -> None:
    """The one walk over a loop nest: each statement's lines at its depth, loop bodies one level deeper."""
    pad = rendering.indent * depth
    for s in body:
        out.extend(pad + line for line in rendering.lines(s))
        if isinstance(s, Loop):
            render(rendering.loop_body(s), rendering, depth + 1, out)


def renamed(s: Let | Store, names: dict[str, str]) -> Let | Store:
    """A statement of an elementwise loop with its temporaries and loop variables renamed (another stream)."""

    def name(n: str) -> str:
        return names.get(n, n)

    if isinstance(s, Store):
        return Store(s.buffer, tuple(name(i) for i in s.index), name(s.value))
    v = s.value
    if isinstance(v, Load):
        v = Load(v.buffer, tuple(name(i) for i in v.index))
    elif isinstance(v, Apply):
        v = Apply(v.op, tuple(name(a) for a in v.args))
    return Let(name(s.target), v)


def short(dtype: str) -> str:
    return SHORT_DTYPES.get(dtype, dtype)


class Text(Rendering):
    """The loop IR as a student reads it."""

    def loop(self, s: Loop) -> list[str]:
        streams = f" in {s.streams} streams" if s.streams > 1 else ""
        return [f"{'parallel ' if s.parallel else ''}for {s.var} in 0..{s.extent}{streams}:"]

    def let(self, s: Let) -> list[str]:
        v = s.value
        if isinstance(v, Load):
            text = f"load {v.buffer.name}[{_index(v.index)}]"
        elif isinstance(v, Const):
            text = f"{v.value!r}:{short(v.dtype)}"
        else:
            text = f"{v.op}({', '.join(v.args)})"
        return [f"{s.target} = {text}"]

    def store(self, s: Store) -> list[str]:
        return [f"store {s.buffer.name}[{_index(s.index)}] = {s.value}"]

    def accinit(self, s: AccInit) -> list[str]:
        return [f"{s.acc} = {s.kind}.identity:{short(s.dtype)}"]

    def accupdate(self, s: AccUpdate) -> list[str]:
        return [f"{s.acc} = {s.kind}({s.acc}, {s.value})"]

    def accstore(self, s: AccStore) -> list[str]:
        scale = f" * {s.scale!r}" if s.scale is not None else ""
        return [f"store {s.buffer.name}[{_index(s.index)}] = {s.acc}{scale}"]

    def acclanes(self, s: AccLanes) -> list[str]:
        return [f"{s.acc} = {s.kind}({s.acc}, {s.element(s.var)} for {s.var} in {s.lanes} lanes)"]


def pretty(kernel: Kernel) -> str:
    """The kernel as text: its signature (and row buffers), then the loop nest."""
    ins = ", ".join(str(b) for b in kernel.inputs)
    outs = ", ".join(str(b) for b in kernel.outputs)
    rows = f" rows ({', '.join(str(b) for b in kernel.rows)})" if kernel.rows else ""
    lines = [f"kernel {kernel.name}({ins}) -> ({outs}){rows}:"]
    render(kernel.body, Text(), 1, lines)
    return "\n".join(lines)
