"""Tracing one call of a `tf.function`: from a Python function and a cache key to a graph.

Each argument whose key entry is a tensor spec becomes a `Placeholder` (named after the parameter, as in
TensorFlow: `x`, list items `x`, `x_1`, ..., `*args` items `args_0`, `args_1`, ...); Python values are
passed as they are. The Python function then runs with the new graph as the current one, so every op it
calls becomes a node. Each returned tensor goes through an `Identity` op, and a graph that has effects or
reads variables ends with a `NoOp`, as TensorFlow's graphs do. An error raised by the user's code is
re-raised in TensorFlow's "in user code:" form (user_code.py).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from types import TracebackType
from typing import Any, cast

from minitf.composite.indexed_slices import IndexedSlices
from minitf.core import nest
from minitf.core.context import state
from minitf.core.conversion import convert_to_tensor
from minitf.core.dtypes import resource
from minitf.core.tensor import Tensor
from minitf.function.cache_keys import Literal, TensorSpec, VariableSpec
from minitf.function.concrete_function import components
from minitf.function.tracing.func_graph import FuncGraph
from minitf.function.tracing.graph import SymbolicTensor
from minitf.function.tracing.trace import TracingGraph, graph_scope
from minitf.function.tracing.user_code import in_user_code
from minitf.ops.array.shape_ops import Identity
from minitf.ops.state_ops import NoOp


def trace_graph(
    name: str,
    fn: Callable,
    sig: inspect.Signature,
    arguments: dict[str, Any],
    key: tuple,
    autograph: bool,
    allow_variable_creation: bool,
) -> TracingGraph:
    """Run `fn` (already converted by AutoGraph when `autograph`) on placeholders for the arguments whose key
    entries are tensors; its results become the graph's outputs."""
    graph = TracingGraph(name, autograph=autograph, allow_variable_creation=allow_variable_creation)
    graph.enclosing = state.graph  # TensorFlow's outer graph: its tensors may be captured, fed by the call op
    call_args: dict[str, Any] = {}
    specs_in: list[Any] = []
    for (param, value), expected in zip(arguments.items(), key):
        kind = sig.parameters[param].kind if param in sig.parameters else None
        if kind is inspect.Parameter.VAR_POSITIONAL:
            # TensorFlow names the placeholders of `*p` p_0, p_1, ... (a list argument x gets x, x_1, ...)
            call_args[param] = tuple(
                _placeholders(graph, f"{param}_{i}", v, t) for i, (v, t) in enumerate(zip(value, expected[1:]))
            )
            specs_in.extend(_input_spec(f"{param}_{i}", t) for i, t in enumerate(expected[1:]))
        else:
            call_args[param] = _placeholders(graph, param, value, expected)
            specs_in.append(_input_spec(param, expected))
    graph.structured_input_signature = (tuple(specs_in), {})
    args, kwargs = _rebuild_call(sig, call_args)
    with graph_scope(graph):
        try:
            result = fn(*args, **kwargs)
        except Exception as exc:
            if not autograph:
                raise
            raise in_user_code(exc, cast(TracebackType, exc.__traceback__).tb_next) from None
        outputs = []
        packed: list[Any] = []
        for leaf in nest.flatten(result, expand_composites=True):
            if leaf is None:
                packed.append(None)
                continue
            if isinstance(leaf, IndexedSlices):  # a composite: its component tensors are the outputs
                parts = [_output_identity(graph, t) for t in components(leaf)]
                outputs.extend(parts)
                packed.append(IndexedSlices(*parts))
                continue
            if hasattr(leaf, "_as_tensor") and not isinstance(leaf, Tensor):
                leaf = leaf.read_value()
            if not isinstance(leaf, Tensor):
                leaf = _output_tensor(leaf, fn)
            ident = _output_identity(graph, leaf)
            outputs.append(ident)
            packed.append(ident)
        if graph.control_outputs or any(op.type == "ReadVariableOp" for op in graph.get_operations()):
            graph.create_op(NoOp, [])
    graph.outputs = outputs
    graph.structured_outputs = nest.pack_sequence_as(result, packed, expand_composites=True)
    return graph


def _output_identity(graph: FuncGraph, leaf: Tensor) -> SymbolicTensor:
    """A returned tensor goes through an Identity op, as in TensorFlow's graphs."""
    leaf = graph.capture(leaf) if not (isinstance(leaf, SymbolicTensor) and leaf.graph is graph) else leaf
    return graph.create_op(Identity, [leaf]).outputs[0]


def _input_spec(name: str, expected: Any) -> Any:
    """One entry of `structured_input_signature`: specs named after the argument (`d_a`, `lst_0` inside
    containers), Python values as they are."""
    if isinstance(expected, VariableSpec):
        return expected
    if isinstance(expected, TensorSpec):
        return TensorSpec(expected.shape, expected.dtype, name)
    if isinstance(expected, Literal):
        return expected.value
    if isinstance(expected, tuple) and expected and expected[0] == "Dict":
        return {k: _input_spec(f"{name}_{k}", t) for k, t in expected[1:]}
    if isinstance(expected, tuple) and expected and expected[0] in ("List", "Tuple"):
        items = [_input_spec(f"{name}_{i}", t) for i, t in enumerate(expected[1:])]
        return items if expected[0] == "List" else tuple(items)
    return expected


def _placeholders(graph: FuncGraph, name: str, value: Any, expected: Any) -> Any:
    """What the Python function sees for one argument while tracing: placeholders where tensors go."""

    if isinstance(expected, VariableSpec):
        handle = graph.placeholder([], resource, name=name)
        handle._variable = value
        graph.inputs.append(handle)
        graph._captured[id(value)] = handle  # reads of this variable use the input
        return value
    if hasattr(expected, "_placeholders"):  # RaggedTensorSpec, SparseTensorSpec
        return expected._placeholders(graph, name)
    if isinstance(expected, TensorSpec):
        holder = graph.placeholder(expected.shape, expected.dtype, name=name)
        graph.inputs.append(holder)
        return holder
    if isinstance(expected, tuple) and expected and expected[0] in ("List", "Tuple"):
        items = [_placeholders(graph, name, v, t) for v, t in zip(value, expected[1:])]
        return type(value)(items) if not hasattr(value, "_fields") else type(value)(*items)
    if isinstance(expected, tuple) and expected and expected[0] == "Dict":
        return {k: _placeholders(graph, name, value[k], t) for k, t in expected[1:]}
    return value


def _rebuild_call(sig: inspect.Signature, arguments: dict[str, Any]) -> tuple[list[Any], dict[str, Any]]:
    args: list[Any] = []
    kwargs: dict[str, Any] = {}
    for name, param in sig.parameters.items():
        if name not in arguments:
            continue
        value = arguments[name]
        if param.kind is inspect.Parameter.VAR_POSITIONAL:
            args.extend(value)
        elif param.kind is inspect.Parameter.VAR_KEYWORD:
            kwargs.update(value)
        elif param.kind is inspect.Parameter.KEYWORD_ONLY:
            kwargs[name] = value
        else:
            args.append(value)
    return args, kwargs


def _output_tensor(value: Any, fn: Any) -> Tensor:
    """A returned Python value as a tensor (numbers, strings, fully known shapes), or TensorFlow's TypeError."""
    try:
        return convert_to_tensor(value)
    except (TypeError, ValueError):
        raise TypeError(
            f"To be compatible with tf.function, Python functions must return zero or more Tensors or "
            f"ExtensionTypes or None values; in compilation of {fn}, found return value of type "
            f"{type(value).__name__}, which is not a Tensor or ExtensionType.\nHint: return tensors (or "
            f"numbers); values such as dtypes or partly unknown shapes stay outside the "
            f"function."
        ) from None
