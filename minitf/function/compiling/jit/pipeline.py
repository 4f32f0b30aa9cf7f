"""`jit_compile=True` from end to end: which graphs can be compiled, and the passes that compile them.

    traced graph ─> the optimiser's passes (folding, simplification, CSE, pruning; no elementwise or MatMul
                    fusion: the jit fuses those itself) ─> expansion (softmax) ─> [duplication] (cheap values
                    read by several regions) ─> jit fusion (regions.py, lowering.py, python_source.py,
                    backend.py) ─> one XlaFusion node per region, the rest NumPy/BLAS

The stages make correct code; what makes it fast is in optional passes (bracketed here, the others woven into
lowering and the backend at the points they act), each named with its reason in optional.py.

TensorFlow compiles the whole function when `jit_compile=True`, so an op XLA has no kernel for (Python
calls, strings) fails the call, with XLA's message; under `tf.config.optimizer.set_jit(True)` (auto-
clustering) such ops simply stay outside the regions.
"""

from __future__ import annotations

from typing import Any

from minitf.core import dtypes
from minitf.core.errors import InvalidArgumentError
from minitf.function.compiling import optimizer
from minitf.function.compiling.jit.duplication import duplicate
from minitf.function.compiling.jit.expansion import expand
from minitf.function.compiling.jit.optional import enabled
from minitf.function.compiling.jit.rewrite import jit_fusion
from minitf.function.tracing.func_graph import FuncGraph
from minitf.function.tracing.graph import Operation

EXPAND = optimizer.PassInfo("jit_expansion", "expansion (softmax into its parts)", expand)
DUPLICATE = optimizer.PassInfo("jit_duplication", "duplication (cheap values computed by each region)", duplicate)
JIT_PASS = optimizer.PassInfo("jit_fusion", "jit fusion (loops compiled per region)", jit_fusion)
NOT_COMPILABLE = frozenset({"EagerPyFunc", "PyFunc", "PyFuncStateless"})  # run Python: no XLA kernel


def jit_options() -> dict[str, Any]:
    """The optimiser's switches as set, less its own fusions (the jit fuses elementwise ops and bias adds)."""
    return {**optimizer._options, "elementwise_fusion": False, "remapping": False}


def clustered(graph: FuncGraph) -> tuple[FuncGraph, optimizer.OptimizationReport]:
    """The graph the jit clusters: `graph` after the optimiser's passes and expansion, before fusion."""
    optimized, report = optimizer.optimize(graph, jit_options())
    optimizer.run_pass(EXPAND, optimized, report)
    if enabled("duplication"):
        optimizer.run_pass(DUPLICATE, optimized, report)
    return optimized, report


def compile_graph(graph: FuncGraph) -> tuple[FuncGraph, optimizer.OptimizationReport]:
    """`graph` optimised and fused into compiled regions, and the report of every pass (the jit's last)."""
    optimized, report = clustered(graph)
    optimizer.run_pass(JIT_PASS, optimized, report)
    report.nodes_after = optimizer.count_nodes(optimized)
    return optimized, report


def _placeholder_type(op: Operation) -> str:
    return "_Arg" if op.type == "Placeholder" else op.type


def uncompilable(graph: FuncGraph) -> Operation | None:
    """The first op XLA cannot compile: one that calls Python, or any op on strings."""
    for op in graph.get_operations():
        strings = any(t.dtype is dtypes.string for t in (*op.inputs, *op.outputs))
        if op.type in NOT_COMPILABLE or strings:
            return op
        for value in op.attrs.values():
            if isinstance(value, FuncGraph):
                inner = uncompilable(value)
                if inner is not None:
                    return inner
    return None


def check_compilable(graph: FuncGraph, function_name: str) -> None:
    """TensorFlow's error for a `jit_compile=True` function with an op XLA has no kernel for."""
    op = uncompilable(graph)
    if op is None:
        return
    kind = _placeholder_type(op)
    name = f"__inference_{function_name}"
    detail = f"No registered '{kind}' OpKernel for XLA_CPU_JIT devices compatible with node {{{{node {op.name}}}}}"
    runs_python = op.type in NOT_COMPILABLE
    if not runs_python:
        detail += "\n\t (OpKernel was found, but attributes didn't match) Requested Attributes: T=DT_STRING"
    raise InvalidArgumentError(
        None,
        None,
        f"Detected unsupported operations when trying to compile graph {name} on XLA_CPU_JIT: {kind} ({detail})"
        f"{{{{node {op.name}}}}}\n\ttf2xla conversion failed while converting {name}. [Op:{name}]\n"
        f"Hint: jit_compile=True compiles the whole function, and XLA has no kernel for {op.type} "
        f"({'it calls Python' if runs_python else 'on strings'}); move it out of the function, or drop "
        f"jit_compile=True.",
    )
