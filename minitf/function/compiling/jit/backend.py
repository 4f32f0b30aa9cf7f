"""Running generated region code: Numba compiles the `loops` target to machine code; without Numba, or
for regions of transcendental functions, the `blocks` target runs on NumPy.

Numba is imported the first time a region is compiled, never by `import minitf` (it takes about a second
and a hundred MB). Where it cannot be imported (a Python in the browser, a lighter install), regions run
as blocked NumPy code and a one-line notice says so, once.

Compiled regions are kept by their generated source, which spells out every dtype and shape: a function
traced again for the same shapes, or another function with the same region, reuses the machine code.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from minitf.function.compiling.jit import python_source
from minitf.function.compiling.jit.loop_ir import Kernel
from minitf.function.compiling.jit.optional import enabled, switches
from minitf.function.compiling.jit.parallel import parallel_for, parallel_loop

_numba: list[Any] = []  # [module or None], once looked for
_compiled: dict[tuple[str, frozenset[str]], CompiledRegion] = {}
_bits: list[Any] = []  # [bits_as_float32], made with the first compiled loop
# Of LLVM's fast-math flags only `contract`: a multiply and the add that reads it may become one fused
# multiply-add (FMA), rounded once instead of twice. XLA's CPU compiler allows exactly that for everything it
# compiles ("this increases precision instead of decreasing it"); nothing is reordered, no NaN or infinity is
# assumed away. A 20-op multiply/add chain on 10^6 float32 values: 240 us without it, 171 us with it.
CONTRACT = {"contract"}
NOTICE = (
    "minitf: Numba is not installed, so jit_compile=True runs each fused region as blocked NumPy code "
    "(pip install numba to compile regions to machine code)."
)


@dataclass
class CompiledRegion:
    """A region's generated module: the function calls run, the target's function, and their source."""

    run: Callable[..., Any]
    target_function: Any  # a Numba dispatcher for the loops target, a Python function for blocks
    target: str
    source: str


def numba_module() -> Any:
    """Numba, imported on first use (None where it cannot be imported)."""
    if not _numba:
        numba: Any
        try:
            import numba  # imported lazily: it costs a second, and only jit functions need it
        except ImportError:
            numba = None
            print(NOTICE, file=sys.stderr)
        _numba.append(numba)
    return _numba[0]


def _bits_as_float32() -> Any:
    """A Numba function that reads an int32's bits as a float32 (one LLVM bitcast, free in a vector loop):
    the exp formula builds 2**m from its exponent bits (lowering.py), as XLA's CPU compiler does."""
    from llvmlite import ir  # comes with Numba, imported as lazily
    from numba.core import types  # as lazily
    from numba.extending import intrinsic  # as lazily

    @intrinsic
    def bits_as_float32(typingctx: Any, bits: Any) -> Any:
        def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
            return builder.bitcast(args[0], ir.FloatType())

        return types.float32(types.int32), codegen

    return bits_as_float32


def _compile_now(function: Any, kernel: Kernel) -> Any:
    """Compile the loops for C-ordered arrays of the kernel's dtypes and ranks (what the wrapper passes), with
    LLVM's SLP vectoriser on: it packs the 8 partial sums of a reduction in lanes (loop_ir.AccLanes) into
    one vector register, where Numba, by default, leaves it off. It reorders nothing (no reassociation), so it is
    on only while minitf compiles its own loops, not for other Numba code in the process. Returns the
    compiled function's entry point."""
    numba = numba_module()
    arrays = [
        numba.types.Array(numba.from_dtype(np.dtype(b.dtype)), len(b.shape), "C")
        for b in (*kernel.inputs, *kernel.outputs)
    ]
    if parallel_loop(kernel) is not None:
        arrays += [numba.types.uint64, numba.types.uint64]  # the part lo..hi of the parallel loop (python_source)
    config = numba.core.config
    before = config.SLP_VECTORIZE
    config.SLP_VECTORIZE = 1 if enabled("slp_vectorize") else before
    try:
        function.compile(tuple(arrays))
    finally:
        config.SLP_VECTORIZE = before
    return function.overloads[tuple(arrays)].entry_point


def target_for(kernel: Kernel) -> str:
    """`loops` (compiled by Numba) unless Numba is absent or the region's time goes to transcendentals."""
    return "blocks" if kernel.transcendental or numba_module() is None else "loops"


def compile_region(kernel: Kernel, output_shapes: list[tuple[int, ...]], target: str | None = None) -> CompiledRegion:
    """The region's module, generated and compiled once per source (so per dtypes and shapes)."""
    target = target or target_for(kernel)
    code = python_source.module_source(kernel, target, output_shapes)
    source = code.text
    key = (source, switches())  # the backend's switches do not show in the source
    found = _compiled.get(key)
    if found is not None:
        return found
    namespace: dict[str, Any] = {"np": np}
    if target == "loops":
        if not _bits:
            _bits.append(_bits_as_float32())
        namespace["bits_as_float32"] = _bits[0]
        namespace["parallel_for"] = parallel_for
    env = code.compile(**namespace)
    function = env[f"{kernel.name}_{target}"]
    if target == "loops":
        fastmath = CONTRACT if enabled("fma_contraction") else set()
        function = numba_module().njit(fastmath=fastmath, error_model="numpy", nogil=True)(function)
        entry_point = _compile_now(function, kernel)
        if enabled("dispatcher_bypass"):
            # the machine code's entry point: called with the arrays it was compiled for, it skips the
            # dispatcher's look-up of the argument types (a third of a microsecond per call)
            env[f"{kernel.name}_{target}"] = entry_point
    region = CompiledRegion(env[kernel.name], function, target, source)
    _compiled[key] = region
    return region


def machine_code(region: CompiledRegion, stage: str) -> str:
    """Numba's LLVM IR (`llvm`) or assembly (`asm`) of a compiled region's loop function."""
    inspect = region.target_function.inspect_llvm if stage == "llvm" else region.target_function.inspect_asm
    texts = inspect()
    return "\n".join(texts.values())
