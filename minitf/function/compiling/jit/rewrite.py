"""The jit pass: each region (regions.py) becomes one `XlaFusion` node that calls its compiled loop.

The node's kernel is the region's generated wrapper (backend.py): the rest of minitf runs it like any
fused node, so the graph around it, matmuls and gathers included, still runs as generated straight-line
code calling NumPy and BLAS (codegen.py), as XLA calls its library kernels for what it does not fuse.
The node keeps its loop IR and generated module in attributes, for `experimental_get_compiler_ir`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from minitf.core import dtypes
from minitf.core.op import Op
from minitf.core.tensor_shape import TensorShape
from minitf.function.compiling.jit import backend
from minitf.function.compiling.jit.lowering import lower, scalar_constant, static_shape
from minitf.function.compiling.jit.regions import Region, find_regions
from minitf.function.compiling.jit.row_kernels import is_row_kernel, lower_rows
from minitf.function.tracing.func_graph import FuncGraph

FUSION = "XlaFusion"


def _run_region(*values: Any, _kernel: Any, **attrs: Any) -> Any:
    return _kernel(*values)


def _region_specs(shapes: Sequence[TensorShape], types: Sequence[dtypes.DType], attrs: dict) -> list:
    return list(attrs["_specs"])


# One op for every region: it returns a tuple of every value read outside the region (one or more).
XlaFusion = Op(FUSION, _run_region, shape=_region_specs, num_outputs=-1)


def replace_region(graph: FuncGraph, region: Region, fused: frozenset[int] = frozenset()) -> str:
    """Put one XlaFusion node in place of the region's ops (`fused`: the ids of every region's ops); say what
    was fused."""
    inputs = region.inputs()
    outputs = region.outputs(graph, fused)
    kernel = lower(
        region.name, region.ops, inputs, outputs, region.shape, lower_rows if is_row_kernel(region.ops) else None
    )
    shapes = [static_shape(t) for t in outputs]
    compiled = backend.compile_region(kernel, shapes)
    fed = [t for t in inputs if scalar_constant(t) is None]
    attrs = {
        "fused_ops": tuple(op.type for op in region.ops),
        "_kernel": compiled.run,
        "_kernel_name": re.sub(r"\W", "_", f"{graph.name}_{region.name}"),
        "_source": compiled.source,
        "_loop_ir": kernel,
        "_compiled": compiled,
        "_members": tuple(region.ops),
        "_results": tuple(outputs),
        "_specs": tuple((t.shape, t.dtype) for t in outputs),
    }
    node = graph.create_op(XlaFusion, fed, attrs, name=f"{region.ops[-1].name}/{region.name}")
    graph.move_to(node, region.ops[-1])
    graph.replace_uses({id(t): new for t, new in zip(outputs, node.outputs)})
    graph.remove_ops(region.ops)
    how = "one loop nest compiled by Numba" if compiled.target == "loops" else "NumPy calls on blocks"
    chain = " -> ".join(op.type for op in region.ops)
    return f"{region.name}: {len(region.ops)} ops ({chain}) over {list(region.shape)} as {how}"


def jit_fusion(graph: FuncGraph) -> list[str]:
    """The optimiser pass (after the others): every region of `graph` replaced by its compiled loop."""
    regions = find_regions(graph)
    fused = frozenset(id(op) for region in regions for op in region.ops)
    return [replace_region(graph, region, fused) for region in regions]
