"""Clustering: the maximal regions of a graph that one loop nest can compute.

XLA's fusion joins elementwise operations, broadcasts and reductions whose inputs and outputs have known
shapes into one "fusion" that runs as one loop over memory. This module finds such regions in minitf's
optimised graph, walking it in program order:

* an elementwise op (with a lowering rule, lowering.py) joins the region of an input's producer when that
  input has the op's own (fully known) output shape, which is the region's *iteration shape*, and the region
  is still open; when it reads from several such regions, they merge into one;
* a reduction (`Sum`, `Mean`, `Max`, `Min`, `Prod`) joins the region of its input the same way and closes it:
  what follows a reduction reads its result at another shape, so it starts a new region; except a row
  reduction (`Sum`, `Max`, `Min`, `Prod` along the last axis, keepdims, rank >= 2): the region stays open
  for ops that read the row's result, at the iteration shape (broadcast along the row, as softmax's
  `x - max`) or at the row's shape (`log(sum)`, once per row). Such a region is a *row kernel*: for each
  row, one loop per reduction, then the next (lowering.py), the row in the cache all along;
* a region closes too when an op outside it reads one of its values (that op must run after the region);
* an op never joins a region that one of its other inputs depends on (that would be a cycle).

Inputs at a smaller shape are read with broadcasting; every value read outside the region (or returned by
the graph) becomes an output of the region, so a region may have several (XLA's multi-output fusion).
A region that only moves data or only reduces (no arithmetic) is left to NumPy, whose reductions and
broadcasting views are already as fast as a loop; so is a region of one arithmetic op (with broadcasts):
one NumPy call makes the same one pass over memory, without the cost of calling a compiled region
(unless the op's kernel is several NumPy calls itself, as `ReluGrad`'s np.where).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from minitf.core import dtypes
from minitf.function.compiling.jit.lowering import DATA_MOVEMENT, REDUCTIONS, lowerable, static_shape, value_inputs
from minitf.function.tracing.func_graph import FuncGraph
from minitf.function.tracing.graph import Operation, SymbolicTensor

MOVES = frozenset({"Identity", "BroadcastTo", "BroadcastLike"})
ROW_REDUCTIONS = frozenset({"Sum", "Max", "Min", "Prod"})
SEVERAL_CALLS = frozenset({"ReluGrad", "TanhGrad", "SigmoidGrad", "SquaredDifference", "Rsqrt"})
LOOP_DTYPES = frozenset({dtypes.float32, dtypes.float64, dtypes.int32, dtypes.int64, dtypes.bool})


@dataclass
class Region:
    """Ops that one loop nest computes: their iteration shape, what they read from outside and what escapes."""

    number: int
    shape: tuple[int, ...]
    ops: list[Operation] = field(default_factory=list)
    closed: bool = False
    rows: bool = False  # a row reduction joined: ops may read its result (a row kernel)

    @property
    def row_shape(self) -> tuple[int, ...]:
        """The shape of a row's result: the iteration shape with the last axis kept as 1."""
        return (*self.shape[:-1], 1)

    @property
    def name(self) -> str:
        return f"fusion_{self.number}"

    @property
    def reduction(self) -> Operation | None:
        return next((op for op in self.ops if op.type in REDUCTIONS), None)

    def inputs(self) -> list[SymbolicTensor]:
        """Tensors the region reads from outside, in the order they are first read."""
        inside = {id(t) for op in self.ops for t in op.outputs}
        found: list[SymbolicTensor] = []
        for op in self.ops:
            for t in value_inputs(op):
                if id(t) not in inside and all(t is not u for u in found):
                    found.append(t)
        return found

    def outputs(self, graph: FuncGraph, fused: frozenset[int] = frozenset()) -> list[SymbolicTensor]:
        """Values of the region that something outside reads (or the graph returns), in program order. An op
        of another region (ids in `fused`) reads only its value inputs: `BroadcastLike(x, like)` in a loop
        needs no `like`, so `like` need not be written to memory for it."""
        mine = {id(op) for op in self.ops}
        read_outside = {id(t) for t in graph.outputs}
        for op in graph.get_operations():
            if id(op) not in mine:
                read_outside.update(id(t) for t in (value_inputs(op) if id(op) in fused else op.inputs))
        return [t for op in self.ops for t in op.outputs if id(t) in read_outside]


def _known_shape(t: SymbolicTensor) -> tuple[int, ...] | None:
    if not t.shape.is_fully_defined() or t.dtype not in LOOP_DTYPES:
        return None
    return static_shape(t)


def candidate(op: Operation) -> bool:
    """Can `op` be part of a loop region at all? (A rule for it, loop dtypes and known shapes.)"""
    if op.stateful or len(op.outputs) != 1 or not lowerable(op):
        return False
    return all(_known_shape(t) is not None for t in (*op.inputs, *op.outputs))


def find_regions(graph: FuncGraph) -> list[Region]:
    """The regions of `graph` with arithmetic in them, in program order of their first op."""
    region_of: dict[int, Region] = {}  # id(op) -> its region
    depends: dict[int, set[int]] = {}  # id(tensor) -> numbers of the regions it is computed from
    regions: list[Region] = []
    for op in graph.get_operations():
        joined = _join(op, region_of, depends, regions) if candidate(op) else None
        for t in op.inputs:  # an op outside a region reads its value: that region must finish first
            producer = region_of.get(id(t.op))
            if producer is not None and producer is not joined:
                producer.closed = True
        if joined is not None:
            joined.ops.append(op)
            region_of[id(op)] = joined
            if op.type in REDUCTIONS:
                joined.rows = row_reduction(op, joined.shape)
                joined.closed = not joined.rows
        below = set().union(*(depends.get(id(t), set()) for t in op.inputs))
        if joined is not None:
            below.add(joined.number)
        for t in op.outputs:
            depends[id(t)] = below
    kept = [r for r in regions if _worth_a_loop(r)]
    for number, region in enumerate(kept):
        region.number = number
    return kept


def _worth_a_loop(region: Region) -> bool:
    """Arithmetic, and at least two ops that are not broadcasts (two arithmetic ops, or one and a reduction),
    or one op whose NumPy kernel is several calls (`ReluGrad` is an np.where, `TanhGrad` three ufuncs)."""
    computing = [op for op in region.ops if op.type not in MOVES]
    if len(computing) == 1 and computing[0].type in SEVERAL_CALLS:
        return True
    return len(computing) >= 2 and any(op.type not in DATA_MOVEMENT for op in computing)


def row_reduction(op: Operation, shape: tuple[int, ...]) -> bool:
    """A reduction along the last axis of `shape` (keepdims, rank >= 2) whose result later ops may read."""
    axis = op.attrs.get("axis")
    last = axis is not None and len(axis) == 1 and axis[0] % len(shape) == len(shape) - 1
    return op.type in ROW_REDUCTIONS and len(shape) >= 2 and last and bool(op.attrs.get("keepdims"))


def _open_with_shape(
    t: SymbolicTensor, op: Operation, shape: tuple[int, ...], region_of: dict[int, Region]
) -> Region | None:
    """The region computing `t`, if `op` (at `shape`) may join it: at the region's iteration shape, or in a row
    kernel at the row's shape or reading a row's result (a further reduction only along the same rows)."""
    region = region_of.get(id(t.op))
    if region is None or region.closed:
        return None
    if region.shape == shape and _known_shape(t) == shape:
        return region
    if not region.rows or _known_shape(t) != region.row_shape:
        return None
    if op.type in REDUCTIONS:
        axis = op.attrs.get("axis")
        along_rows = axis is not None and len(axis) == 1 and axis[0] % len(shape) == len(shape) - 1
        return region if shape == region.shape and along_rows and op.type != "Mean" else None
    return region if shape in (region.shape, region.row_shape) else None


def _join(op: Operation, region_of: dict[int, Region], depends: dict[int, set[int]], regions: list[Region]) -> Region:
    """The region `op` joins: the open region of an input's producer at the op's shape (merged with the other
    such regions it reads from, where no cycle follows), or a new one."""
    shape = _known_shape(op.inputs[0] if op.type in REDUCTIONS else op.outputs[0])
    assert shape is not None
    found: list[Region] = []
    for t in value_inputs(op):
        region = _open_with_shape(t, op, shape, region_of)
        if region is not None and all(region is not r for r in found):
            found.append(region)
    chosen: Region | None = None
    for region in found:
        if chosen is not None and region.shape != chosen.shape:
            continue  # (a row kernel and a region at its row's shape: one loop nest cannot hold both)
        together = [region] if chosen is None else [chosen, region]
        numbers = {r.number for r in together}
        members = {id(m) for r in together for m in r.ops}
        outside = [t for m in (op, *(m for r in together for m in r.ops)) for t in m.inputs if id(t.op) not in members]
        if any(numbers & depends.get(id(t), set()) for t in outside):
            continue  # joining would read a value computed from the region itself
        if chosen is None:
            chosen = region
        else:
            _merge(chosen, region, region_of, depends)
    if chosen is None:
        chosen = Region(len(regions), shape)
        regions.append(chosen)
    return chosen


def _merge(into: Region, other: Region, region_of: dict[int, Region], depends: dict[int, set[int]]) -> None:
    """Move `other`'s ops into `into` (keeping program order: `into`'s first op may come later)."""
    position = {id(m): i for i, m in enumerate(into.ops[0].graph.get_operations())}
    into.ops = sorted((*into.ops, *other.ops), key=lambda m: position[id(m)])
    for m in other.ops:
        region_of[id(m)] = into
    other.ops = []
    into.rows = into.rows or other.rows
    for numbers in depends.values():
        if other.number in numbers:
            numbers.discard(other.number)
            numbers.add(into.number)
