"""How each node of a drawn graph looks: its kind (argument, constant, variable read, control flow, ...),
the colours of that kind, its label (op type, name, output dtypes and shapes) and the sizes everything is
measured in. The layout (layout.py) needs a box's size; the SVG (svg.py) its colours and text.
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass

import numpy as np

from minitf.function.tracing.func_graph import FuncGraph
from minitf.function.tracing.graph import Operation, SymbolicTensor

# --- sizes, in pixels (text is monospace, so a label's width is its length times one character's width) ---
FONT_SIZE = 11
CHAR_WIDTH = FONT_SIZE * 0.62
LINE_HEIGHT = 14
PADDING = 6
MAX_LABEL_CHARS = 30
NODE_GAP = 18  # between boxes in one layer
WAYPOINT_WIDTH = 8  # the room an edge passing through a layer takes there
LAYER_GAP = 40  # between layers, where edges bend
MARGIN = 12
ORDERING_SWEEPS = 8
RELAX_PASSES = 4


# ---------------------------------------------------------------------------------------------------
# What kind of node an operation is
# ---------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Style:
    """How one category of node looks; `description` is its legend entry."""

    description: str
    fill: str
    stroke: str
    stroke_width: float = 1.2
    dash: str = ""
    corner: int = 3


STYLES: dict[str, Style] = {
    "argument": Style("function argument", "#dbeafe", "#1d4ed8", corner=12),
    "captured": Style("captured tensor", "#e0f2fe", "#0369a1", dash="5 3", corner=12),
    "variable": Style("captured variable (resource handle)", "#fcd34d", "#92400e", 2.0, corner=12),
    "variable-io": Style("variable read / write", "#fef3c7", "#b45309", 1.6),
    "constant": Style("constant", "#f3f4f6", "#6b7280", dash="4 2"),
    "stateful": Style("side effect (print, random, ...)", "#fee2e2", "#b91c1c", 2.0),
    "fused": Style("fused kernel", "#ede9fe", "#6d28d9", 2.6),
    "control-flow": Style("control flow (bodies below)", "#dcfce7", "#15803d", 2.0),
    "op": Style("operation", "#ffffff", "#4b5563"),
}
OUTPUT_STROKE = "#111827"
OUTPUT_STROKE_WIDTH = 3.2
CONTROL_FLOW_TYPES = frozenset(
    {"If", "StatelessIf", "While", "StatelessWhile", "PartitionedCall", "StatefulPartitionedCall"}
)
VARIABLE_IO_TYPES = frozenset(
    {
        "ReadVariableOp",
        "AssignVariableOp",
        "AssignAddVariableOp",
        "AssignSubVariableOp",
        "VarHandleOp",
        "ResourceGather",
    }
)
# Ops known to have side effects even when they carry no Op definition saying so.
SIDE_EFFECT_TYPES = frozenset({"PrintV2"})


def is_fused(op: Operation) -> bool:
    """Kernels made by a fusion pass (`_FusedMatMul`, `FusedElementwise`, ...) carry this prefix."""
    return op.type.startswith(("_Fused", "Fused"))


def bodies(op: Operation) -> list[tuple[str, FuncGraph]]:
    """The graphs a control-flow op runs (`then_branch`, `else_branch`, `cond`, `body`, `f`), in attr order."""
    return [(key, value) for key, value in op.attrs.items() if isinstance(value, FuncGraph)]


def category(op: Operation, graph: FuncGraph) -> str:
    """The kind of node `op` is: a key of STYLES."""
    if op.type == "Placeholder":
        if op.outputs and op.outputs[0].dtype.name == "resource":
            return "variable"
        captured = any(inside.op is op for _, inside in getattr(graph, "captures", ()))
        return "captured" if captured else "argument"
    if op.type == "Const":
        return "constant"
    if is_fused(op):
        return "fused"
    if op.type in CONTROL_FLOW_TYPES or bodies(op):
        return "control-flow"
    if op.type in VARIABLE_IO_TYPES:
        return "variable-io"
    if getattr(op.op_def, "stateful", False) or op.type in SIDE_EFFECT_TYPES:
        return "stateful"
    return "op"


# ---------------------------------------------------------------------------------------------------
# Labels
# ---------------------------------------------------------------------------------------------------


def spec_text(t: SymbolicTensor) -> str:
    """`float32[?,3]`: dtype and static shape, `?` for a dimension unknown while tracing."""
    if t.shape.rank is None:
        return f"{t.dtype.name}[*]"
    dims = ",".join("?" if d is None else str(d) for d in t.shape.as_list())
    return f"{t.dtype.name}[{dims}]"


def _outputs_text(op: Operation) -> list[str]:
    specs = [spec_text(t) for t in op.outputs]
    if len(specs) <= 2:
        return [", ".join(specs)] if specs else []
    return [", ".join(specs[:2]) + f", +{len(specs) - 2} more"]


def _constant_text(op: Operation) -> str:
    value = np.asarray(op.attrs["value"])
    if value.size > 6:
        return f"= <{value.size} values>"
    if value.ndim == 0:
        return f"= {value.item()!r}"
    return "= " + np.array2string(value, separator=",").replace("\n", "")


def _variable_text(op: Operation) -> list[str]:
    """The variable a resource handle stands for: its name, dtype and shape (the handle itself is a scalar)."""
    variable = getattr(op.outputs[0], "_variable", None) if op.outputs else None
    if variable is None:
        return []
    dims = ",".join("?" if d is None else str(d) for d in variable.shape.as_list())
    return [f"{variable.name} {variable.dtype.name}[{dims}]"]


def label_lines(op: Operation, kind: str, output_indices: list[int]) -> list[str]:
    """The full text of a node, line by line: type, name, outputs, then what matters for its kind."""
    lines = [op.type]
    if op.name != op.type:
        lines.append(op.name)
    lines += _outputs_text(op)
    if kind == "constant" and "value" in op.attrs:
        lines.append(_constant_text(op))
    elif kind == "variable":
        lines += _variable_text(op)
    elif kind == "fused" and op.attrs.get("fused_ops"):
        lines += textwrap.wrap("fused: " + " + ".join(str(t) for t in op.attrs["fused_ops"]), MAX_LABEL_CHARS)
    elif kind == "control-flow":
        lines += textwrap.wrap("bodies: " + ", ".join(key for key, _ in bodies(op)), MAX_LABEL_CHARS)
    if output_indices:
        lines.append("returned as output " + ", ".join(str(i) for i in output_indices))
    return lines


def shorten(line: str) -> str:
    return line if len(line) <= MAX_LABEL_CHARS else line[: MAX_LABEL_CHARS - 1] + "…"
