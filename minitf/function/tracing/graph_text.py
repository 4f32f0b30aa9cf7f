"""A graph as text: `as_graph_def()` (TensorFlow's GraphDef view, one NodeDef per operation) and
`FuncGraph.listing()` (one readable line per operation, branch and loop bodies indented below their op).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from minitf.core import dtypes

# The graphs, operations and tensors described here are graph.py's Graph (func_graph.py's FuncGraph), Operation and
# SymbolicTensor; graph.py describes itself with these functions, so this module reads them by their attributes
# (typed `Any`).


def _is_graph(value: Any) -> bool:
    """A FuncGraph (an op's branch or body), told by its reading API."""
    return hasattr(value, "get_operations") and hasattr(value, "outputs")


class NodeDef:
    """The GraphDef view of an operation: name, op type, inputs as "name" or "name:index", attrs."""

    def __init__(self, name: str, op: str, inputs: list[str], attr: dict[str, Any]) -> None:
        self.name = name
        self.op = op
        self.input = inputs
        self.attr = attr
        self.device = ""

    def __repr__(self) -> str:
        lines = [f'name: "{self.name}"', f'op: "{self.op}"'] + [f'input: "{i}"' for i in self.input]
        for key, value in self.attr.items():
            lines.append(f'attr {{ key: "{key}" value: {value} }}')
        return "\n".join(lines) + "\n"

    __str__ = __repr__


class GraphDef:
    """`graph.as_graph_def()`: the serialisable description of a graph (here: its list of NodeDefs)."""

    def __init__(self, node: list[NodeDef]) -> None:
        self.node = node

    def __str__(self) -> str:
        return "".join(f"node {{\n{_indent(str(n))}}}\n" for n in self.node)

    __repr__ = __str__


def _indent(text: str) -> str:
    return "".join("  " + line + "\n" for line in text.splitlines())


def attr_text(value: Any) -> str:
    """An attribute as a NodeDef shows it: a branch or body by its function's name, dtypes as DT_*."""
    if _is_graph(value):
        return f'func {{ name: "{value.name}" }}'
    if isinstance(value, dtypes.DType):
        return f"type: DT_{value.name.upper()}"
    if isinstance(value, np.ndarray | np.generic):
        return f"tensor {{ {np.array2string(np.asarray(value), threshold=6)} }}"
    return repr(value)


def format_graph(graph: Any, indent: str = "") -> str:
    """The pretty-printer behind `FuncGraph.listing()`: nested branch and loop graphs are indented."""
    lines = [f"{indent}graph {graph.name}(" + ", ".join(f"{t.op.name}: {_spec_text(t)}" for t in graph.inputs) + ") {"]
    for op in graph.get_operations():
        if op.type == "Placeholder":
            continue
        args = ", ".join(t.name for t in op.inputs)
        if op.type == "Const":
            value = np.asarray(op.attrs["value"])
            args = repr(value.item()) if value.ndim == 0 else np.array2string(value, threshold=6, separator=", ")
        outs = ", ".join(_spec_text(t) for t in op.outputs) or "()"
        lines.append(f"{indent}  {op.name} = {op.type}({args}) -> {outs}")
        for key in ("then_branch", "else_branch", "cond", "body", "f"):
            sub = op.attrs.get(key)
            if _is_graph(sub):
                lines.append(f"{indent}    {key}:")
                lines.append(format_graph(sub, indent + "      "))
    lines.append(f"{indent}  return " + ", ".join(t.name for t in graph.outputs))
    lines.append(f"{indent}}}")
    return "\n".join(lines)


def _spec_text(t: Any) -> str:
    return f"{t.dtype.name}{list(t.shape) if t.shape.rank is not None else '[?]'}".replace("None", "?")
