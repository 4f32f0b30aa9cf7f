"""Row kernels: a softmax, a cross-entropy, a normalisation as one loop nest per region.

regions.py keeps a region open after a reduction along the last axis for the ops that read the row's result
(softmax's `x - max`, `log(sum)`). Such a region needs more than one loop along the row: the maximum must be
known before the exponentials are summed, the sum before they are divided. For each row (the outer loops)
the kernel runs one loop along the row per reduction and one for what follows the last, and computes what
is needed once per row between them. The row stays in the cache from one loop to the next, where separate
regions would each stream the whole array through memory.
"""

from __future__ import annotations

from collections.abc import Sequence

from minitf.function.compiling.jit import loop_ir as ir
from minitf.function.compiling.jit.lowering import (
    REDUCTIONS,
    Builder,
    Nest,
    dtype_name,
    in_lanes,
    index_of,
    padded,
    rule,
    scalar_constant,
    static_shape,
    transcendental,
    value_inputs,
)
from minitf.function.tracing.graph import Operation, SymbolicTensor


def is_row_kernel(ops: Sequence[Operation]) -> bool:
    """Does an op of the region read a reduction's result computed in the region?"""
    made = {id(op.outputs[0]) for op in ops if op.type in REDUCTIONS}
    return any(id(t) in made for op in ops for t in value_inputs(op))


def lower_rows(
    name: str,
    ops: Sequence[Operation],
    inputs: Sequence[SymbolicTensor],
    outputs: Sequence[SymbolicTensor],
    shape: tuple[int, ...],
    builder: Builder,
) -> ir.Kernel:
    """A row kernel: for each row (the outer loops), one loop along the row per reduction and one for what
    follows the last, with what is computed once per row between them (a reduction's result, `log(sum)`).

    A value of one row loop that a later one reads is kept in a row buffer of the kernel (softmax's exp,
    summed by one loop and divided by the next), an input is loaded again (the row is in the cache), and
    constants are set once, before all loops."""
    rank, last = len(shape), len(shape) - 1
    nest = Nest(shape, (last,), in_lanes(builder, shape[last]))
    hoisted: list[ir.Stmt] = []
    builder.hoisted = hoisted
    loops: list[list[ir.Stmt]] = [[]]  # the statements of each loop along the row
    between: list[list[ir.Stmt]] = [[]]  # after each of those loops: lanes, then what is computed once per row
    buffers: dict[int, ir.Buffer] = {}
    temps: dict[int, str] = {}
    phase_of: dict[int, int] = {}  # id(tensor) -> the loop computing it (absent: once per row, or a constant)
    accumulators: dict[int, tuple[str, int]] = {}  # id(reduction's result) -> its accumulator, its loop
    again: dict[tuple[int, int], str] = {}  # (id(tensor), loop) -> its temporary loaded in that loop
    for t in inputs:
        value = scalar_constant(t)
        if value is not None:
            temps[id(t)] = builder.const(value, dtype_name(t))
        else:
            buffers[id(t)] = ir.Buffer(f"in{len(buffers)}", padded(static_shape(t), rank), dtype_name(t))
    along = f"i{last}"

    def read(t: SymbolicTensor, per_row: bool) -> str:
        """`t`'s temporary where the current statements run (the last loop, or between it and the one before)."""
        k = len(loops) - 1
        here = between[k - 1] if per_row else loops[k]
        if id(t) in buffers or (id(t) in phase_of and phase_of[id(t)] != k):
            key = (id(t), -1 if per_row else k)
            if key not in again:
                if id(t) in buffers:
                    load = ir.Load(buffers[id(t)], index_of(buffers[id(t)], shape))
                else:  # a value of an earlier loop along the row: kept in a row buffer there (a sum's in lanes)
                    earlier = loops[phase_of[id(t)]]
                    row = next(
                        (
                            s.buffer
                            for s in earlier
                            if isinstance(s, ir.Store) and s.buffer in nest.rows and s.value == temps[id(t)]
                        ),
                        None,
                    )
                    if row is None:
                        row = nest.row(dtype_name(t))
                        earlier.append(ir.Store(row, (along,), temps[id(t)]))
                    load = ir.Load(row, (along,))
                builder.body = here
                again[key] = builder.let(load)
            return again[key]
        if id(t) in accumulators and id(t) not in temps:  # a row's result, as the output's dtype
            acc, j = accumulators[id(t)]
            builder.body = between[j]
            temps[id(t)] = builder.apply(f"cast_{dtype_name(t)}", acc)
        return temps[id(t)]

    wanted = {id(t) for t in outputs}
    for op in ops:
        out = op.outputs[0]
        per_row = static_shape(out) != shape and op.type not in REDUCTIONS
        args = [read(t, per_row) for t in value_inputs(op)]
        k = len(loops) - 1
        if op.type in REDUCTIONS:
            direct = next(
                (
                    s.value
                    for s in loops[k]
                    if isinstance(s, ir.Let) and s.target == args[0] and isinstance(s.value, ir.Load)
                ),
                None,
            )
            if nest.in_lanes and direct is not None and len(loops[k]) == 1:  # the loop only loads the row:
                loops[k].clear()  # the lanes read it themselves
            acc = nest.accumulate(op, args[0], loops[k], between[k], id(out) in wanted, direct)
            accumulators[id(out)] = (acc, k)
            loops.append([])
            between.append([])
            continue
        builder.body = between[k - 1] if per_row else loops[k]
        temps[id(out)] = rule(op, builder, args)
        if not per_row:
            phase_of[id(out)] = k
        if id(out) in wanted:
            index = tuple(f"i{a}" for a in range(last)) + ("0" if per_row else along,)
            builder.body.append(ir.Store(nest.output(padded(static_shape(out), rank), out), index, temps[id(out)]))
    row: list[ir.Stmt] = list(nest.inits)
    for statements, after in zip(loops, between):
        row += [ir.Loop(along, shape[last], statements)] if statements else []
        row += after
    body: list[ir.Stmt] = [*row, *nest.finals]
    for axis in range(last - 1, -1, -1):
        body = [ir.Loop(f"i{axis}", shape[axis], body)]
    calls = any(transcendental(statements) for statements in loops)  # (those between the loops run once a row)
    return ir.Kernel(name, shape, (last,), list(buffers.values()), nest.outputs, [*hoisted, *body], calls, nest.rows)
