"""Clustering: the maximal regions of a graph that one loop nest can compute.

XLA's fusion joins elementwise operations, broadcasts and reductions whose inputs and outputs have known
shapes into one "fusion" that runs as one loop over memory. This module finds such regions in minitf's
optimised graph, walking it in program order:

* an elementwise op (with a lowering rule, lowering.py) joins the region of an input's producer when that
  input has the op's own (fully known) output shape, which is the region's *iteration shape*, and the region
  is still open; when it reads from several such regions, they merge into one;
* a reduction (`Sum`, `Mean`, `Max`, `Min`, `Prod`) joins the region of its input the same way and closes it:
  what follows a reduction reads its result at another shape, so it starts a new region;
* a region closes too when an op outside it reads one of its values (that op must run after the region);
* an op never joins a region that one of its other inputs depends on (that would be a cycle).

Inputs at a smaller shape are read with broadcasting; every value read outside the region (or returned by
the graph) becomes an output of the region, so a region may have several (XLA's multi-output fusion).
A region that only moves data or only reduces (no arithmetic) is left to NumPy, whose reductions and
broadcasting views are already as fast as a loop.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from minitf.core import dtypes
from minitf.function.compiling.jit.lowering import DATA_MOVEMENT, REDUCTIONS, lowerable, static_shape, value_inputs
from minitf.function.tracing.graph import FuncGraph, Operation, SymbolicTensor

LOOP_DTYPES = frozenset({dtypes.float32, dtypes.float64, dtypes.int32, dtypes.int64, dtypes.bool})


@dataclass
class Region:
    """Ops that one loop nest computes: their iteration shape, what they read from outside and what escapes."""

    number: int
    shape: tuple[int, ...]
    ops: list[Operation] = field(default_factory=list)
    closed: bool = False

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

    def outputs(self, graph: FuncGraph) -> list[SymbolicTensor]:
        """Values of the region that something outside reads (or the graph returns), in program order."""
        mine = {id(op) for op in self.ops}
        read_outside = {id(t) for t in graph.outputs}
        for op in graph.get_operations():
            if id(op) not in mine:
                read_outside.update(id(t) for t in op.inputs)
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
                joined.closed = True
        below = set().union(*(depends.get(id(t), set()) for t in op.inputs))
        if joined is not None:
            below.add(joined.number)
        for t in op.outputs:
            depends[id(t)] = below
    kept = [r for r in regions if r.ops and any(op.type not in DATA_MOVEMENT for op in r.ops)]
    for number, region in enumerate(kept):
        region.number = number
    return kept


def _open_with_shape(t: SymbolicTensor, shape: tuple[int, ...], region_of: dict[int, Region]) -> Region | None:
    region = region_of.get(id(t.op))
    if region is None or region.closed or region.shape != shape or _known_shape(t) != shape:
        return None
    return region


def _join(op: Operation, region_of: dict[int, Region], depends: dict[int, set[int]],
          regions: list[Region]) -> Region:
    """The region `op` joins: the open region of an input's producer at the op's shape (merged with the other
    such regions it reads from, where no cycle follows), or a new one."""
    shape = _known_shape(op.inputs[0] if op.type in REDUCTIONS else op.outputs[0])
    assert shape is not None
    found: list[Region] = []
    for t in value_inputs(op):
        region = _open_with_shape(t, shape, region_of)
        if region is not None and all(region is not r for r in found):
            found.append(region)
    chosen: Region | None = None
    for region in found:
        together = [region] if chosen is None else [chosen, region]
        numbers = {r.number for r in together}
        members = {id(m) for r in together for m in r.ops}
        outside = [t for m in (op, *(m for r in together for m in r.ops)) for t in m.inputs
                   if id(t.op) not in members]
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
    for numbers in depends.values():
        if other.number in numbers:
            numbers.discard(other.number)
            numbers.add(into.number)
