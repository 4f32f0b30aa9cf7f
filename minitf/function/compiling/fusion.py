"""Operator fusion: several nodes become one node whose kernel is a small generated Python function.

* `elementwise_fusion` joins chains of elementwise ops (`sin`, `*`, `+`, `tanh`, ...) whose intermediate
  results nobody else uses into one `FusedElementwise` node;
* `fuse_matmul` (TensorFlow's "remapper") turns `MatMul` followed by adding a bias and, optionally, an
  activation into one `_FusedMatMul` node, as TensorFlow does on CPUs.

The fused kernel calls the same kernels in the same order, so it computes exactly the same values. What it
saves is memory traffic: each intermediate result of a large tensor is written into the buffer of the one
before it (NumPy's `out=`), instead of a fresh array per op, where buffers.py finds that safe. The kernel is
generated as the graph's code is (`codegen.compile_kernel`), and its source is kept (`attrs["_source"]`) so
that it can be read.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from minitf.core import dtypes
from minitf.core.op import Op
from minitf.core.tensor_shape import TensorShape
from minitf.function.compiling.buffers import only_reader, readers
from minitf.function.compiling.codegen import compile_kernel
from minitf.function.compiling.passes import Changes
from minitf.function.tracing.func_graph import FuncGraph
from minitf.function.tracing.graph import Operation, SymbolicTensor

ACTIVATIONS = frozenset({"Relu", "Relu6", "Elu", "Tanh", "Sigmoid", "LeakyRelu"})


def _run_fused(*values: Any, _kernel: Any, **attrs: Any) -> Any:
    return _kernel(*values)


def _fused_spec(shapes: Sequence[TensorShape], types: Sequence[dtypes.DType], attrs: dict) -> list:
    return [attrs["_spec"]]


FusedElementwise = Op("FusedElementwise", _run_fused, shape=_fused_spec)
FusedMatMul = Op("_FusedMatMul", _run_fused, shape=_fused_spec)


def replace_with_fused(
    graph: FuncGraph, op_def: Op, members: list[Operation], name: str, attrs: dict[str, Any]
) -> Operation:
    """Put one fused node in place of `members` (its inputs: everything they read from outside)."""
    inside = {id(t) for op in members for t in op.outputs}
    inputs: list[SymbolicTensor] = []
    for op in members:
        for t in op.inputs:
            if id(t) not in inside and all(t is not u for u in inputs):
                inputs.append(t)
    result = members[-1].outputs[0]
    kernel, source = compile_kernel(members, inputs, result, name.replace("/", "_"))
    fused = graph.create_op(
        op_def,
        inputs,
        {
            **attrs,
            "fused_ops": tuple(op.type for op in members),
            "_kernel": kernel,
            "_kernel_name": kernel.__name__,
            "_source": source,
            "_spec": (result.shape, result.dtype),
        },
        name=name,
    )
    graph.move_to(fused, members[-1])
    graph.replace_uses({id(result): fused.outputs[0]})
    graph.remove_ops(members)
    return fused


# ---------------------------------------------------------------------------------------------------
# Elementwise chains
# ---------------------------------------------------------------------------------------------------


def _fusable(op: Operation) -> bool:
    return op.op_def.elementwise and not op.stateful and len(op.outputs) == 1


def elementwise_fusion(graph: FuncGraph) -> Changes:
    """Fuse each tree of elementwise ops whose inner results have one reader into one FusedElementwise node.

    Walking in program order, an elementwise op joins the group of an input's producer when that input is
    an elementwise result read by this op alone (and is not an output of the graph). A group is then a tree
    with one result, and all of its outside inputs exist before its last op, where the fused node goes.
    """
    found = readers(graph.get_operations(), graph.outputs)
    group_of: dict[int, list[Operation]] = {}
    for op in graph.get_operations():
        if not _fusable(op):
            continue
        group = [op]
        for t in op.inputs:
            producer = t.op
            reading = found[id(t)]  # the ops that read t, and None where the graph returns it
            joins = id(producer) in group_of and None not in reading and all(r is op for r in reading)
            if joins and group_of[id(producer)] is not group:
                earlier = group_of[id(producer)]
                group[:0] = earlier  # program order: the producer's group ran before this op
                for member in earlier:
                    group_of[id(member)] = group
        for member in group:
            group_of[id(member)] = group
    changes: Changes = []
    seen: set[int] = set()
    for group in group_of.values():
        if id(group) in seen or len(group) < 2:
            continue
        seen.add(id(group))
        order = {id(op): i for i, op in enumerate(graph.get_operations())}
        group.sort(key=lambda op: order[id(op)])
        fused = replace_with_fused(graph, FusedElementwise, group, f"{group[-1].name}/fused", {})
        changes.append(
            f"fused {len(group)} elementwise ops ({' -> '.join(fused.attrs['fused_ops'])}) into {fused.name}"
        )
    return changes


# ---------------------------------------------------------------------------------------------------
# MatMul + bias + activation (TensorFlow's remapper)
# ---------------------------------------------------------------------------------------------------


def _is_bias_add(op: Operation | None, matmul: SymbolicTensor) -> bool:
    """`matmul + bias` with a 1-D bias along the last axis: the result keeps the matmul's shape."""
    if op is None or op.type not in ("AddV2", "BiasAdd") or len(op.inputs) != 2:
        return False
    bias = op.inputs[1] if op.inputs[0] is matmul else op.inputs[0]
    return (
        bias is not matmul
        and bias.shape.rank == 1
        and matmul.shape.rank == 2
        and op.outputs[0].shape.as_list() == matmul.shape.as_list()
        and bias.dtype is matmul.dtype
    )


def fuse_matmul(graph: FuncGraph) -> Changes:
    """MatMul -> add a bias -> optional activation becomes one _FusedMatMul (float32/float64 only)."""
    found = readers(graph.get_operations(), graph.outputs)
    changes: Changes = []
    for op in graph.get_operations():
        if op.type != "MatMul" or op.outputs[0].dtype not in (dtypes.float32, dtypes.float64):
            continue
        product = op.outputs[0]
        add = only_reader(product, found)
        if not _is_bias_add(add, product):
            continue
        assert add is not None
        members = [op, add]
        activation = only_reader(add.outputs[0], found)
        if activation is not None and activation.type in ACTIVATIONS and not activation.stateful:
            members.append(activation)
        fused = replace_with_fused(
            graph,
            FusedMatMul,
            members,
            f"{op.name}/fused",
            {"transpose_a": op.attrs.get("transpose_a", False), "transpose_b": op.attrs.get("transpose_b", False)},
        )
        changes.append(f"fused {' + '.join(fused.attrs['fused_ops'])} into {fused.name}")
        found = readers(graph.get_operations(), graph.outputs)
    return changes
