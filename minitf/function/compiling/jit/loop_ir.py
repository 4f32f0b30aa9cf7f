"""The loop IR: what a region becomes before any Python or machine code exists.

A `Kernel` is one loop nest over a region's iteration shape. Its statements are few on purpose:

    Loop(var, extent, body)            for var in 0..extent
    Let(target, Load(buffer, index))   read one element of an input
    Let(target, Const(value, dtype))   a typed constant
    Let(target, Apply(op, args))       one scalar operation (add, mul, exp, select, cast_float32, ...)
    Store(buffer, index, value)        write one element of an output
    AccInit / AccUpdate / AccStore     an accumulator: start it, fold a value into it, write it out

An index names a loop variable per axis ("i1") or "0" where a buffer is broadcast along that axis.
Reduced axes are the innermost loops, so an accumulator lives in a register while they run. `pretty`
prints a kernel the way a student reads a loop nest.
"""

from __future__ import annotations

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


@dataclass
class Loop:
    var: str
    extent: int
    body: list[Stmt] = field(default_factory=list)


Stmt = Loop | Let | Store | AccInit | AccUpdate | AccStore


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
    return f"{SHORT_DTYPES.get(dtype, dtype)}[{','.join(str(d) for d in shape)}]"


def _index(index: tuple[str, ...]) -> str:
    return ", ".join(index)


def _statement(s: Stmt, depth: int, out: list[str]) -> None:
    pad = "  " * depth
    if isinstance(s, Loop):
        out.append(f"{pad}for {s.var} in 0..{s.extent}:")
        for inner in s.body:
            _statement(inner, depth + 1, out)
    elif isinstance(s, Let):
        v = s.value
        if isinstance(v, Load):
            text = f"load {v.buffer.name}[{_index(v.index)}]"
        elif isinstance(v, Const):
            text = f"{v.value!r}:{SHORT_DTYPES.get(v.dtype, v.dtype)}"
        else:
            text = f"{v.op}({', '.join(v.args)})"
        out.append(f"{pad}{s.target} = {text}")
    elif isinstance(s, Store):
        out.append(f"{pad}store {s.buffer.name}[{_index(s.index)}] = {s.value}")
    elif isinstance(s, AccInit):
        out.append(f"{pad}{s.acc} = {s.kind}.identity:{SHORT_DTYPES.get(s.dtype, s.dtype)}")
    elif isinstance(s, AccUpdate):
        out.append(f"{pad}{s.acc} = {s.kind}({s.acc}, {s.value})")
    else:
        scale = f" * {s.scale!r}" if s.scale is not None else ""
        out.append(f"{pad}store {s.buffer.name}[{_index(s.index)}] = {s.acc}{scale}")


def pretty(kernel: Kernel) -> str:
    """The kernel as text: its signature, then the loop nest."""
    ins = ", ".join(str(b) for b in kernel.inputs)
    outs = ", ".join(str(b) for b in kernel.outputs)
    lines = [f"kernel {kernel.name}({ins}) -> ({outs}):"]
    for s in kernel.body:
        _statement(s, 1, lines)
    return "\n".join(lines)
