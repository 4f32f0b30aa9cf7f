"""Graph optimisation passes: each a small function that rewrites a graph and lists what it changed.

They follow TensorFlow's graph optimiser (Grappler), which rewrites every traced function before it runs:

* `constant_folding`: an op whose inputs are all constants is computed now and becomes a constant (so are
  `tf.shape`, `tf.size` and `tf.rank` of tensors whose shape is fully known);
* arithmetic simplification (`x * 1`, `x + 0`, `-(-x)`, `Identity`, ...: the result is `x`) is a table of
  rewrite rules of its own, in rewrite_rules.py;
* `common_subexpression_elimination`: two ops of the same type, inputs and attributes compute the same
  thing, so the second one goes and its users read the first (duplicate subgraphs merge bottom-up);
* `prune`: ops nothing needs are removed; stateful ops (variable reads and writes, prints, random numbers)
  always stay, in their order.

A pass takes the graph it rewrites (the optimiser gives it a working copy, never the traced graph) and
returns one line of text per change. Passes never touch a stateful op, so the program's effects and their
order survive every pass; `optimizer.verify` checks that after each one.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from minitf.core import dtypes
from minitf.core.errors import OpError
from minitf.core.tensor_shape import TensorShape
from minitf.function.compiling.execute import run_kernel
from minitf.function.tracing.func_graph import FuncGraph
from minitf.function.tracing.graph import Operation, SymbolicTensor
from minitf.ops import state_ops

MAX_FOLDED_BYTES = 10 * 1024 * 1024  # as TensorFlow: a constant larger than 10 MB is not worth storing
Changes = list[str]


# ---------------------------------------------------------------------------------------------------
# Helpers shared by the passes
# ---------------------------------------------------------------------------------------------------


def const_value(t: SymbolicTensor) -> Any:
    """The value of a tensor made by a Const op (None for any other tensor)."""
    return t.op.attrs["value"] if t.op.type == "Const" else None


def has_subgraphs(op: Operation) -> bool:
    return any(isinstance(v, FuncGraph) for v in op.attrs.values())


def add_constant(graph: FuncGraph, value: Any, dtype: dtypes.DType, name: str, before: Operation) -> SymbolicTensor:
    """A new Const op placed right before `before` (where its value is first needed)."""
    array = np.asarray(value, dtype=dtype._np)
    node = graph.create_op(
        state_ops.Const, [], {"value": array[()] if array.ndim == 0 else array, "dtype": dtype}, name=name
    )
    graph.move_to(node, before)
    return node.outputs[0]


# ---------------------------------------------------------------------------------------------------
# Constant folding
# ---------------------------------------------------------------------------------------------------


def _static_shape_value(op: Operation) -> Any:
    """`tf.shape(x)`, `tf.size(x)`, `tf.rank(x)` are known before running when x's shape is fully known."""
    shape = op.inputs[0].shape if op.inputs else TensorShape(None)
    if op.type == "Rank" and shape.rank is not None:
        return np.int32(shape.rank)
    if not shape.is_fully_defined():
        return None
    if op.type == "Shape":
        return np.array(shape.as_list(), dtype=op.attrs["out_type"]._np)
    if op.type == "Size":
        return op.attrs["out_type"]._np.type(shape.num_elements())
    return None


# Ops that read some inputs for their shape only (gradient plumbing: the ones a mean's gradient starts from,
# keeping and broadcasting its dims): with those shapes fully known and the other inputs constant, they fold.
SHAPE_ONLY_INPUTS = {
    "OnesLike": (0,),
    "ZerosLike": (0,),
    "KeepDims": (1,),
    "BroadcastLike": (1,),
    "SumToShape": (1,),
    "ReshapeLike": (1,),
}


def _shape_only_values(op: Operation) -> list[Any] | None:
    """The inputs of a shape-reading op when it can fold: constants, and zeros of the known shape in place of
    the inputs read for their shape (their values never matter), else None."""
    shape_only = SHAPE_ONLY_INPUTS.get(op.type, ())
    values = []
    for i, t in enumerate(op.inputs):
        if i in shape_only:
            if not t.shape.is_fully_defined() or t.dtype.name in ("string", "resource", "variant"):
                return None
            values.append(np.zeros([int(d or 0) for d in t.shape.as_list()], dtype=t.dtype._np))  # fully defined
        elif t.op.type == "Const":
            values.append(const_value(t))
        else:
            return None
    return values


def _folding_inputs(op: Operation) -> list[Any] | None:
    """The values to compute `op` with now, or None when it must wait for the call."""
    if op.type in SHAPE_ONLY_INPUTS:
        return _shape_only_values(op)
    if all(t.op.type == "Const" for t in op.inputs):
        return [const_value(t) for t in op.inputs]
    return None


def constant_folding(graph: FuncGraph) -> Changes:
    """Compute now every op whose inputs are all constants, and put a constant in its place."""

    changes: Changes = []
    for op in graph.get_operations():
        if op.type in ("Const", "Placeholder") or op.stateful or not op.outputs or has_subgraphs(op):
            continue
        static = _static_shape_value(op) if op.type in ("Shape", "Size", "Rank") else None
        if static is not None:
            values: Any = [static]
        elif (inputs := _folding_inputs(op)) is not None:
            try:
                values = run_kernel(op, inputs)
            except OpError:
                continue  # it fails when it runs, as it would have without folding
            if sum(np.asarray(v).nbytes for v in values) > MAX_FOLDED_BYTES:
                continue
        else:
            continue
        replacements = {}
        for t, value in zip(op.outputs, values):
            replacements[id(t)] = add_constant(graph, value, t.dtype, f"{op.name}/folded", before=op)
        graph.replace_uses(replacements)
        graph.remove_ops([op])
        changes.append(f"folded {op.name} ({op.type}) into a constant")
    return changes


# ---------------------------------------------------------------------------------------------------
# Common-subexpression elimination
# ---------------------------------------------------------------------------------------------------


def _attr_key(value: Any) -> Any:
    """A hashable stand-in for an attribute value: equal attributes give equal keys."""
    if isinstance(value, np.ndarray | np.generic):
        array = np.asarray(value)
        return ("array", array.dtype.str, array.shape, array.tobytes() if array.dtype.kind != "O" else repr(array))
    if isinstance(value, list | tuple):
        return tuple(_attr_key(v) for v in value)
    if isinstance(value, dict):
        return tuple(sorted((k, _attr_key(v)) for k, v in value.items()))
    if isinstance(value, TensorShape):
        return ("shape", tuple(value.as_list()) if value.rank is not None else None)
    if isinstance(value, float) and value != value:
        return ("nan",)
    try:
        hash(value)
    except TypeError:
        return ("id", id(value))
    return (type(value).__name__, value)


def _node_key(op: Operation) -> Any:
    generated = ("_kernel", "_kernel_name", "_source")  # a fused node's code: equal when its fused_ops are
    attrs = tuple(sorted((k, _attr_key(v)) for k, v in op.attrs.items() if k not in generated))
    return (op.type, tuple(id(t) for t in op.inputs), attrs)


def common_subexpression_elimination(graph: FuncGraph) -> Changes:
    """Merge ops that compute the same thing: same type, same inputs, same attributes (never stateful ones).

    Walking in program order merges whole duplicate subgraphs: once two constants merge, the ops that used
    them have the same inputs and merge next.
    """
    changes: Changes = []
    first: dict[Any, Operation] = {}
    for op in graph.get_operations():
        if op.stateful or op.type == "Placeholder":
            continue
        key = _node_key(op)
        original = first.get(key)
        if original is None:
            first[key] = op
            continue
        graph.replace_uses({id(t): u for t, u in zip(op.outputs, original.outputs)})
        graph.remove_ops([op])
        changes.append(f"{op.name} ({op.type}) merged into {original.name}")
    return changes


# ---------------------------------------------------------------------------------------------------
# Pruning
# ---------------------------------------------------------------------------------------------------


def prune(graph: FuncGraph) -> Changes:
    """Remove ops that neither an output nor a stateful op needs (the function's inputs always stay)."""
    needed = {id(op) for op in graph.execution_plan()} | {id(t.op) for t in graph.inputs}
    unused = [op for op in graph.get_operations() if id(op) not in needed]
    graph.remove_ops(unused)
    return [f"removed {op.name} ({op.type}), which nothing uses" for op in unused]


Pass = Callable[[FuncGraph], Changes]
