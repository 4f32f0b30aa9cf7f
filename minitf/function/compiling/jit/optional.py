"""The jit's optional passes: what makes the compiled loops fast, named, each with why, each switchable.

The jit's stages (pipeline.py) are enough to compile correct code: expansion, clustering into regions,
lowering each op to scalar operations in one loop nest, writing the nest as Python, Numba compiling it. Each
pass below only makes that code faster; switched off, results stay equal to float precision (each pass has a
test that says so: tests/engine/test_jit_optional.py) and with all of them off the code is still correct.
As XLA lists its HLO passes, `OPTIONAL` lists them in the order they act:

graph      duplication         before clustering
lowering   exp_formula, tanh_formula, accumulator_lanes, streams, parallel_regions    (loop IR)
backend    fma_contraction, slp_vectorize, dispatcher_bypass                          (Numba and LLVM)

A switch changes the loop IR or Numba's options: compiled regions are cached per source and switches
(backend.py). Switch before a function's first call; a function compiled already keeps its regions.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass


@dataclass(frozen=True)
class OptionalPass:
    name: str
    stage: str  # "graph", "lowering" or "backend"
    reason: str  # why it is there, in one line


OPTIONAL: tuple[OptionalPass, ...] = (
    OptionalPass(
        "duplication",
        "graph",
        "a cheap value read by several regions is computed in each, instead of written to memory and read back",
    ),
    OptionalPass(
        "exp_formula",
        "lowering",
        "float32 exp as XLA's polynomial of multiplies and adds, vectorised where a call of expf per value is not",
    ),
    OptionalPass(
        "tanh_formula",
        "lowering",
        "float32 tanh as XLA's clamped rational function, which vectorises where a call of tanhf per value does not",
    ),
    OptionalPass(
        "accumulator_lanes",
        "lowering",
        "a long row is summed in 8 partial accumulators, 8 adds in flight instead of each waiting for the last",
    ),
    OptionalPass(
        "streams",
        "lowering",
        "a long loop body runs 4 iterations side by side, whose independent chains fill each other's waits",
    ),
    OptionalPass(
        "parallel_regions",
        "lowering",
        "a large region's outer loop is split over the intra-op threads, as TensorFlow's kernels split theirs",
    ),
    OptionalPass(
        "fma_contraction",
        "backend",
        "a multiply and the add reading it may become one fused multiply-add (LLVM's `contract`, as XLA allows)",
    ),
    OptionalPass(
        "slp_vectorize",
        "backend",
        "LLVM's SLP vectoriser packs the partial accumulators of a row into one vector register",
    ),
    OptionalPass(
        "dispatcher_bypass",
        "backend",
        "a region calls its machine code's entry point, skipping Numba's look-up of argument types per call",
    ),
)
NAMES = frozenset(p.name for p in OPTIONAL)
_off: set[str] = set()


def enabled(name: str) -> bool:
    """Is the optional pass `name` on? (All are, unless switched off.)"""
    if name not in NAMES:
        raise KeyError(f"no optional jit pass {name!r}; the passes are {', '.join(p.name for p in OPTIONAL)}")
    return name not in _off


def switches() -> frozenset[str]:
    """The passes switched off now: part of a compiled region's cache key."""
    return frozenset(_off)


@contextmanager
def switched_off(*names: str) -> Iterator[None]:
    """Compile without the named optional passes (all of them with no names) inside the block."""
    for name in names:
        enabled(name)  # a typo raises
    before = set(_off)
    _off.update(names or NAMES)
    try:
        yield
    finally:
        _off.clear()
        _off.update(before)
