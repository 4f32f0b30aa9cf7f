"""From the loop IR to Python source, for one of two targets.

* `loops`: the loop nest as it is, element by element (`for i0 in range(1000): ...`). Numba compiles this
  function to machine code (backend.py); run by Python itself it would be far too slow.
* `blocks`: the same statements, each applied to a block of rows at once with NumPy's vectorised kernels
  (`t2 = t0 * t1` on 16,384 elements). The block stays in the processor's cache while every op of the
  region runs on it, instead of each op streaming the whole array through memory. This target runs where
  Numba is absent, and for regions with transcendental functions: a scalar loop calls the C library's
  `tanhf` once per element, while NumPy's kernels compute 8 or 16 at a time.

Both targets come with the same wrapper, which allocates the outputs, gives every array the kernel's rank
(NumPy views) and returns the outputs at their own shapes. The module is written with a `Source`
(compiling/source.py), as graphs and fused kernels are.
"""

from __future__ import annotations

from collections.abc import Sequence

from minitf.function.compiling.buffers import REUSE_MIN_ELEMENTS
from minitf.function.compiling.jit.loop_ir import (
    AccInit,
    AccLanes,
    AccStore,
    AccUpdate,
    Apply,
    Buffer,
    Const,
    Kernel,
    Let,
    Load,
    Loop,
    Rendering,
    Stmt,
    Store,
    renamed,
    render,
)
from minitf.function.compiling.jit.parallel import parallel_loop
from minitf.function.compiling.source import Source

BLOCK_ELEMENTS = 16384  # 64 KiB of float32 per block: the region's temporaries fit in the L2 cache together

INFIX = {
    "add": "+",
    "sub": "-",
    "mul": "*",
    "div": "/",
    "lt": "<",
    "le": "<=",
    "gt": ">",
    "ge": ">=",
    "eq": "==",
    "ne": "!=",
}
NUMPY = {
    "max": "np.maximum",
    "min": "np.minimum",
    "abs": "np.abs",
    "sqrt": "np.sqrt",
    "exp": "np.exp",
    "log": "np.log",
    "tanh": "np.tanh",
    "log1p": "np.log1p",
    "expm1": "np.expm1",
    "sin": "np.sin",
    "cos": "np.cos",
    "floor": "np.floor",
    "and": "np.logical_and",
    "or": "np.logical_or",
    "not": "np.logical_not",
}
UFUNCS = {
    "add": "np.add",
    "sub": "np.subtract",
    "mul": "np.multiply",
    "div": "np.divide",
    "neg": "np.negative",
    "lt": "np.less",
    "le": "np.less_equal",
    "gt": "np.greater",
    "ge": "np.greater_equal",
    "eq": "np.equal",
    "ne": "np.not_equal",
    **NUMPY,
}
BOOLEAN = frozenset({"lt", "le", "gt", "ge", "eq", "ne", "and", "or", "not"})
FOLD = {"sum": "np.add", "prod": "np.multiply", "max": "np.maximum", "min": "np.minimum"}
IDENTITY = {"sum": "0.0", "prod": "1.0", "max": "-np.inf", "min": "np.inf"}


def expression(value: Apply, vectorised: bool) -> str:
    """One scalar operation as Python: the same text works on NumPy scalars and arrays, except select and cast."""
    args = value.args
    if value.op in INFIX:
        return f"({args[0]} {INFIX[value.op]} {args[1]})"
    if value.op == "neg":
        return f"(-{args[0]})"
    if value.op == "select":
        if vectorised:
            return f"np.where({args[0]}, {args[1]}, {args[2]})"
        return f"({args[1]} if {args[0]} else {args[2]})"
    if value.op.startswith("cast_"):
        dtype = value.op.removeprefix("cast_")
        return f"{args[0]}.astype(np.{dtype})" if vectorised else f"np.{dtype}({args[0]})"
    if value.op == "bitcast_float32":  # an int32's bits read as a float32 (backend.py gives Numba the function)
        return f"{args[0]}.view(np.float32)" if vectorised else f"bits_as_float32({args[0]})"
    return f"{NUMPY[value.op]}({', '.join(args)})"


def _constant(value: Const) -> str:
    return f"np.{value.dtype}({value.value!r})"


def _subscript(index: Sequence[str]) -> str:
    return ", ".join(index)


# ---------------------------------------------------------------------------------------------------
# loops: element by element
# ---------------------------------------------------------------------------------------------------


def _combine(kind: str, acc: str, value: str) -> str:
    """`acc` with one more value folded in. A maximum keeps `acc` where it is at least `value` or NaN (so a NaN
    stays, as with np.maximum): comparisons and a choice, a fifth cheaper in a reduction than Numba's
    np.maximum of two numbers (measured on rows of 1,000 float32 values)."""
    if kind in ("max", "min"):
        return f"({acc} if ({acc} {'>=' if kind == 'max' else '<='} {value} or {acc} != {acc}) else {value})"
    return f"{acc} + {value}" if kind == "sum" else f"{acc} * {value}"


class Loops(Rendering):
    """The loop nest as Python that Numba compiles: the same walk as the loop IR's text (loop_ir.render)."""

    indent = "    "

    def __init__(self) -> None:
        self.dtypes: dict[str, str] = {}  # accumulator -> dtype, for its partials

    def loop(self, s: Loop) -> list[str]:
        """A loop; a parallel one runs over its part `lo`..`hi` (whose length its streams divide). Its bounds
        are unsigned (uint64, and so is every index computed from them): with a signed index Numba checks each
        access for a negative index to wrap around, and LLVM no longer vectorises the loop (6x slower)."""
        if s.streams == 1:
            return [f"for {s.var} in range(lo, hi):" if s.parallel else f"for {s.var} in range({s.extent}):"]
        if s.parallel:
            step = f"{s.var}_step"
            return [
                f"{step} = (hi - lo) // np.uint64({s.streams})",
                f"for {s.var} in range(lo, lo + {step}):  # {s.streams} streams, {step} apart",
                *(f"{self.indent}{s.var}_{k} = {s.var} + np.uint64({k}) * {step}" for k in range(1, s.streams)),
            ]
        step_size = s.extent // s.streams
        return [
            f"for {s.var} in range({step_size}):  # {s.streams} streams, {step_size} apart",
            *(f"{self.indent}{s.var}_{k} = {s.var} + {k * step_size}" for k in range(1, s.streams)),
        ]

    def loop_body(self, s: Loop) -> Sequence[Stmt]:
        """A loop in streams: each statement once per stream (temporaries t3_1, t3_2, ...), interleaved;
        constants once, shared by the streams."""
        if s.streams == 1:
            return s.body
        constants = [t for t in s.body if isinstance(t, Let) and isinstance(t.value, Const)]
        statements = [t for t in s.body if isinstance(t, Let | Store) and t not in constants]
        temporaries = [t.target for t in statements if isinstance(t, Let)]
        copies = [statements] + [
            [renamed(t, {s.var: f"{s.var}_{k}", **{n: f"{n}_{k}" for n in temporaries}}) for t in statements]
            for k in range(1, s.streams)
        ]
        return [*constants, *(t for group in zip(*copies) for t in group)]

    def let(self, s: Let) -> list[str]:
        v = s.value
        text = (
            f"{v.buffer.name}[{_subscript(v.index)}]"
            if isinstance(v, Load)
            else _constant(v)
            if isinstance(v, Const)
            else expression(v, vectorised=False)
        )
        return [f"{s.target} = {text}"]

    def store(self, s: Store) -> list[str]:
        return [f"{s.buffer.name}[{_subscript(s.index)}] = {s.value}"]

    def accinit(self, s: AccInit) -> list[str]:
        self.dtypes[s.acc] = s.dtype
        return [f"{s.acc} = np.{s.dtype}({IDENTITY[s.kind]})"]

    def accupdate(self, s: AccUpdate) -> list[str]:
        return [f"{s.acc} = {_combine(s.kind, s.acc, s.value)}"]

    def accstore(self, s: AccStore) -> list[str]:
        scale = f" * {s.scale!r}" if s.scale is not None else ""
        return [f"{s.buffer.name}[{_subscript(s.index)}] = {s.acc}{scale}"]

    def acclanes(self, s: AccLanes) -> list[str]:
        """`lanes` partial accumulators over the row, unrolled, the rest of the row into the first one, then
        the partials combined pairwise and into the accumulator.

        A maximum or minimum in lanes compares and chooses without looking for NaN (a NaN may be passed
        over), and notes in a flag per lane whether it saw one: the accumulator becomes NaN if any did,
        as np.maximum's would. Two cheap operations per value, where one NaN-aware choice costs more."""
        n, k = s.extent, s.lanes
        whole = n // k * k
        partials = [f"{s.acc}_{lane}" for lane in range(k)]
        flags = [f"{s.acc}_nan{lane}" for lane in range(k)] if s.kind in ("max", "min") else []
        lines = [f"{p} = np.{self.dtypes[s.acc]}({IDENTITY[s.kind]})" for p in partials]
        lines += [f"{f} = False" for f in flags]

        def fold(partial: str, flag: str | None, element: str) -> list[str]:
            if flag is None:
                return [f"{partial} = {_combine(s.kind, partial, element)}"]
            better = ">=" if s.kind == "max" else "<="
            return [
                f"v = {element}",
                f"{partial} = {partial} if {partial} {better} v else v",
                f"{flag} = {flag} | (v != v)",
            ]

        lines.append(f"for j in range(0, {whole}, {k}):")
        for lane, partial in enumerate(partials):
            lines += [f"    {line}" for line in fold(partial, flags[lane] if flags else None, s.element(f"j + {lane}"))]
        if whole < n:
            lines.append(f"for j in range({whole}, {n}):")
            lines += [f"    {line}" for line in fold(partials[0], flags[0] if flags else None, s.element("j"))]
        while len(partials) > 1:  # pairwise: ((0, 1), (2, 3)), ((4, 5), (6, 7))
            lines += [f"{a} = {_combine(s.kind, a, b)}" for a, b in zip(partials[0::2], partials[1::2])]
            partials = partials[0::2]
        folded = _combine(s.kind, s.acc, partials[0])
        if flags:
            return [*lines, f"{s.acc} = np.{self.dtypes[s.acc]}(np.nan) if {' | '.join(flags)} else {folded}"]
        return [*lines, f"{s.acc} = {folded}"]


def write_loops(code: Source, kernel: Kernel) -> None:
    """`def <name>_loops(in0, ..., out0, ...)`: the loop nest, element by element (`lo, hi` last: the part of
    a parallel loop to run)."""
    params = [b.name for b in (*kernel.inputs, *kernel.outputs)] + (["lo", "hi"] if parallel_loop(kernel) else [])
    with code.block(f"def {kernel.name}_loops({', '.join(params)}):"):
        for b in kernel.rows:
            code.line(f"{b.name} = np.empty({b.shape[0]}, np.{b.dtype})")
        render(kernel.body, Loops(), code.depth, code.lines)


def loops_function(kernel: Kernel) -> str:
    """The loops function's text on its own."""
    code = Source(f"jit {kernel.name}")
    write_loops(code, kernel)
    return code.text.rstrip("\n")


# ---------------------------------------------------------------------------------------------------
# blocks: NumPy's kernels on a block of rows
# ---------------------------------------------------------------------------------------------------


def _flat(body: Sequence[Stmt]) -> list[Stmt]:
    found: list[Stmt] = []
    for s in body:
        found.extend(_flat(s.body) if isinstance(s, Loop) else [s])
    return found


def _rows(buffer: Buffer, kernel: Kernel, written: bool = False) -> str:
    """A buffer's rows of the current block (all of it where it broadcasts along the first axis; written
    through `[...]`, so that an assignment fills the buffer instead of naming another array). A row buffer
    of a row kernel is the block's temporary itself."""
    if buffer in kernel.rows:
        return buffer.name
    if buffer.shape[0] == kernel.shape[0] and kernel.shape[0] > 1:
        return f"{buffer.name}[lo:hi]"
    return f"{buffer.name}[...]" if written else buffer.name


def temporary_dtypes(statements: Sequence[Stmt]) -> dict[str, str]:
    """The dtype of every temporary: a load's buffer's, a constant's, a comparison's bool, a cast's target,
    else its first operand's (select: its second's)."""
    found: dict[str, str] = {}
    for s in statements:
        if not isinstance(s, Let):
            continue
        v = s.value
        if isinstance(v, Load):
            found[s.target] = v.buffer.dtype
        elif isinstance(v, Const):
            found[s.target] = v.dtype
        elif v.op in BOOLEAN:
            found[s.target] = "bool"
        else:
            converted = v.op.startswith(("cast_", "bitcast_"))
            found[s.target] = v.op.split("_")[-1] if converted else found[v.args[1] if v.op == "select" else v.args[0]]
    return found


def _per_row(statements: Sequence[Stmt], kernel: Kernel) -> set[str]:
    """The temporaries of a row kernel that hold one value per row (a reduction's result, what is computed
    from it once per row): their blocks are one column wide."""
    found = {s.acc for s in statements if isinstance(s, AccInit)}
    for s in statements:
        if not isinstance(s, Let):
            continue
        if isinstance(s.value, Load):
            shape = s.value.buffer.shape
            if s.value.buffer not in kernel.rows and len(shape) > 1 and shape[-1] == 1 < kernel.shape[-1]:
                found.add(s.target)
        elif isinstance(s.value, Apply) and all(a in found or a not in _defined(statements) for a in s.value.args):
            found.add(s.target)
    return found


def _defined(statements: Sequence[Stmt]) -> set[str]:
    """Temporaries that are not constants."""
    return {s.target for s in statements if isinstance(s, Let) and not isinstance(s.value, Const)}


def _buffers(statements: Sequence[Stmt], kernel: Kernel) -> dict[str, str]:
    """A buffer of the call for each ufunc's temporary, shared once a temporary is read for the last time:
    a few buffers a block long, used in turn, stay in the cache (where one per temporary would not).
    Temporaries of one value per row need none."""
    types = temporary_dtypes(statements)
    per_row = _per_row(statements, kernel)
    last_use: dict[str, int] = {}
    for k, s in enumerate(statements):
        reads = (
            s.value.args
            if isinstance(s, Let) and isinstance(s.value, Apply)
            else (s.value,)
            if isinstance(s, Store | AccUpdate)
            else ()
        )
        for name in reads:
            last_use[name] = k
    stored = {s.value for s in statements if isinstance(s, Store | AccUpdate)}  # read after their block's loop
    free: dict[str, list[str]] = {}
    assigned: dict[str, str] = {}
    count = 0
    for k, s in enumerate(statements):
        if isinstance(s, Let) and isinstance(s.value, Apply):
            for name in s.value.args:  # operands read for the last time: their buffers are free after this op
                if name in assigned and last_use.get(name) == k and name not in stored:
                    free.setdefault(types[name], []).append(assigned[name])
            if s.value.op in UFUNCS and s.target not in stored and s.target not in per_row:
                pool = free.get(types[s.target], [])
                if pool:  # (a ufunc may write over its own operand: each element is read before it is written)
                    assigned[s.target] = pool.pop()
                else:
                    assigned[s.target] = f"buffer{count}"
                    count += 1
    return assigned


def _block_statement(s: Let, kernel: Kernel, buffers: dict[str, str]) -> str:
    """One statement on the block: a load's rows, a constant, or a ufunc writing into its buffer of the call."""
    v = s.value
    if isinstance(v, Load):
        return f"{s.target} = {_rows(v.buffer, kernel)}"
    if isinstance(v, Const):
        return f"{s.target} = {_constant(v)}"
    if s.target in buffers:
        return f"{s.target} = {UFUNCS[v.op]}({', '.join(v.args)}, out={buffers[s.target]}_rows)"
    return f"{s.target} = {expression(v, vectorised=True)}"


def write_blocks(code: Source, kernel: Kernel) -> None:
    """`def <name>_blocks(in0, ..., out0, ...)`: every statement on `rows` rows of the iteration shape at a time."""
    params = [b.name for b in (*kernel.inputs, *kernel.outputs)]
    inner = 1
    for d in kernel.shape[1:]:
        inner *= d
    rows = max(1, BLOCK_ELEMENTS // max(inner, 1))
    first_reduced = 0 in kernel.reduced_axes
    axes = tuple(kernel.reduced_axes)
    statements = _flat(kernel.body)
    accumulators = {s.acc: s for s in statements if isinstance(s, AccInit)}
    block = (min(rows, kernel.shape[0]), *kernel.shape[1:])
    buffers = _buffers(statements, kernel) if block[0] * inner >= REUSE_MIN_ELEMENTS else {}
    types = temporary_dtypes(statements)
    block_shape = f"(hi - lo, {', '.join(str(d) for d in kernel.shape[1:])})"
    with code.block(f"def {kernel.name}_blocks({', '.join(params)}):"):
        if first_reduced:  # the accumulators span blocks: they are the outputs, started at the identity
            for s in statements:
                if isinstance(s, AccStore):
                    code.line(f"{s.buffer.name}[...] = {IDENTITY[accumulators[s.acc].kind]}")
        for name in dict.fromkeys(buffers.values()):
            temp = next(t for t, b in buffers.items() if b == name)
            code.line(f"{name} = np.empty({block!r}, np.{types[temp]})")
        with code.block(f"for lo in range(0, {kernel.shape[0]}, {rows}):"):
            code.line(f"hi = min(lo + {rows}, {kernel.shape[0]})")
            for name in dict.fromkeys(buffers.values()):
                code.line(f"{name}_rows = {name}[:hi - lo]")
            for s in statements:
                if isinstance(s, Let):
                    code.line(_block_statement(s, kernel, buffers))
                elif isinstance(s, Store):
                    code.line(f"{_rows(s.buffer, kernel, written=s.buffer not in kernel.rows)} = {s.value}")
                elif isinstance(s, AccUpdate):
                    code.line(
                        f"{s.acc} = {FOLD[s.kind]}.reduce(np.broadcast_to({s.value}, {block_shape}), "
                        f"axis={axes}, keepdims=True)"
                    )
                elif isinstance(s, AccStore):
                    kind = accumulators[s.acc].kind
                    if first_reduced:
                        code.line(f"{FOLD[kind]}({s.buffer.name}, {s.acc}, out={s.buffer.name})")
                    else:
                        scale = f" * {s.scale!r}" if s.scale is not None else ""
                        code.line(f"{_rows(s.buffer, kernel, written=True)} = {s.acc}{scale}")
        if first_reduced:  # a mean's sum is complete only after the last block
            for s in statements:
                if isinstance(s, AccStore) and s.scale is not None:
                    code.line(f"{s.buffer.name} *= {s.scale!r}")


def write_wrapper(code: Source, kernel: Kernel, target: str, output_shapes: Sequence[tuple[int, ...]]) -> None:
    """`def <name>(x, y)`: outputs allocated, arrays at the kernel's rank, the target called, outputs shaped."""
    params = [f"x{k}" for k in range(len(kernel.inputs))]
    with code.block(f"def {kernel.name}({', '.join(params)}):"):
        for b in kernel.outputs:
            code.line(f"{b.name} = np.empty({b.shape!r}, np.{b.dtype})")
        args = [f"np.ascontiguousarray(x{k}).reshape({b.shape!r})" for k, b in enumerate(kernel.inputs)]
        args += [b.name for b in kernel.outputs]
        split = parallel_loop(kernel) if target == "loops" else None
        if split is not None:  # parts of the outer loop on the intra-op threads (parallel.py)
            code.line(f"parallel_for({kernel.name}_{target}, ({', '.join(args)},), {split.extent}, {split.streams})")
        else:
            code.line(f"{kernel.name}_{target}({', '.join(args)})")
        results = [
            b.name if tuple(shape) == b.shape else f"{b.name}.reshape({shape!r})"
            for b, shape in zip(kernel.outputs, output_shapes)
        ]
        code.line(f"return ({', '.join(results)},)")  # a tuple, one or more: XlaFusion has a varying number


def module_source(kernel: Kernel, target: str, output_shapes: Sequence[tuple[int, ...]]) -> Source:
    """The whole generated module for one region: the target function and its wrapper."""
    code = Source(f"jit {kernel.name}")
    (write_loops if target == "loops" else write_blocks)(code, kernel)
    code.line("")
    code.line("")
    write_wrapper(code, kernel, target, output_shapes)
    return code
