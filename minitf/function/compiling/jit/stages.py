"""`f.experimental_get_compiler_ir(*args)(stage=...)`: every stage of the jit as text.

TensorFlow's stages, where they mean something here: `hlo` (the optimised graph before fusion, as HLO-like
text), `optimized_hlo` (after fusion: one `fusion` per region), `optimized_hlo_dot` (that as Graphviz);
the `_serialized` variants give the same text as bytes (TensorFlow gives a protocol buffer). minitf's own:
`loop_ir` (each region's loop nest), `python` (the generated code: the graph's function, each region's
loops or blocks), `llvm` and `asm` (what Numba and LLVM made of each region's loops, for this processor).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from minitf.function.compiling import codegen
from minitf.function.compiling.execute import compiled
from minitf.function.compiling.jit import backend, hlo, pipeline
from minitf.function.compiling.jit.loop_ir import pretty
from minitf.function.compiling.jit.lowering import static_shape
from minitf.function.compiling.jit.rewrite import FUSION
from minitf.function.tracing.func_graph import FuncGraph
from minitf.function.tracing.graph import Operation

TENSORFLOW_STAGES = ("hlo", "hlo_serialized", "optimized_hlo", "optimized_hlo_serialized", "optimized_hlo_dot")
MINITF_STAGES = ("loop_ir", "python", "llvm", "asm")


def fusions(graph: FuncGraph) -> list[Operation]:
    """The XlaFusion nodes of `graph` and of the bodies inside it."""
    found: list[Operation] = []
    for op in graph.get_operations():
        if op.type == FUSION:
            found.append(op)
        for value in op.attrs.values():
            if isinstance(value, FuncGraph):
                found.extend(fusions(value))
    return found


def machine_code(graph: FuncGraph, stage: str) -> str:
    """LLVM IR or assembly of every region compiled to loops (compiling each now, on zeros, if not yet)."""
    if backend.numba_module() is None:
        raise ValueError(
            f"Stage {stage!r} needs Numba, which is not installed: regions run as blocked NumPy code, "
            "so there is no machine code of minitf's own to show.\nHint: pip install numba; every "
            "other stage works without it."
        )
    parts = []
    for op in fusions(graph):
        region = op.attrs["_compiled"]
        name = op.attrs["_loop_ir"].name
        if region.target != "loops":
            parts.append(
                f"; {name}: NumPy's vectorised kernels on blocks (transcendental functions), no loop of its own"
            )
            continue
        op.attrs["_kernel"](*[np.zeros(static_shape(t), t.dtype._np) for t in op.inputs])
        parts.append(f"; {name}\n{backend.machine_code(region, stage)}")
    return "\n\n".join(parts) if parts else "; no fused region: every op runs as a NumPy or BLAS call"


def stage_text(concrete: Any, stage: str) -> str | bytes:
    """The text of one stage for one trace."""
    if stage not in TENSORFLOW_STAGES + MINITF_STAGES:
        valid = ", ".join(repr(s) for s in TENSORFLOW_STAGES)
        raise ValueError(
            f"Invalid stage selected: {stage!r}. Valid values are: {valid}; minitf adds "
            f"{', '.join(repr(s) for s in MINITF_STAGES)}\nHint: pass one of these names as stage=."
        )
    if stage.startswith("hlo"):
        text = hlo.module_text(pipeline.clustered(concrete.graph)[0], optimized=False)
        return text.encode() if stage.endswith("_serialized") else text
    fused = concrete.optimized_graph if concrete._jit() else pipeline.compile_graph(concrete.graph)[0]
    if stage.startswith("optimized_hlo"):
        if stage == "optimized_hlo_dot":
            return hlo.dot_text(fused)
        text = hlo.module_text(fused, optimized=True)
        return text.encode() if stage.endswith("_serialized") else text
    if stage == "loop_ir":
        kernels = [pretty(op.attrs["_loop_ir"]) for op in fusions(fused)]
        return "\n\n".join(kernels) if kernels else "(no fused region: every op runs as a NumPy or BLAS call)"
    if stage == "python":
        return codegen.source_of(fused, compiled)
    return machine_code(fused, stage)


def compiler_ir(concrete: Any) -> Callable[..., str | bytes]:
    """What `Function.experimental_get_compiler_ir(*args)` returns: stage name -> text."""

    def get(stage: str = "hlo", device_name: str | None = None, platform_name: str | None = None) -> str | bytes:
        return stage_text(concrete, stage)

    return get
