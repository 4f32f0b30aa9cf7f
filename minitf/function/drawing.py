"""Drawing a graph: `draw(f)` shows a traced graph as a picture (SVG), inline in JupyterLab.

minitf-only: TensorFlow has no such function. In TensorFlow you look at graphs with TensorBoard (its Graphs
dashboard, fed by `tf.summary.trace_on` and `tf.summary.trace_export`); here a cell is enough:

    draw(f)                                # a tf.function: its last trace (call it once first)
    cf = f.get_concrete_function(tf.TensorSpec([None, 3]))
    draw(cf)                               # the traced graph (draw(cf.graph) is the same)
    side_by_side(cf.graph, cf.optimized_graph)  # before and after the optimisation passes, with what changed
    draw(f).save("graph.html")             # a page that opens in any browser (or "graph.svg": the picture)

Every operation is one box, labelled with its op type, name, and output dtype and shape (`float32[?,3]`,
`?` is a dimension unknown while tracing). The fill colour says what kind of node it is (function argument,
captured variable, constant, variable read or write, side effect, fused kernel, control flow; the legend
lists them) and a thick black border marks the ops whose values the function returns. An arrow goes from
the op that makes a tensor to each op that reads it, into the reader's top edge in argument order.
Control-flow bodies (`tf.cond` branches, `tf.while_loop` condition and body) are drawn below the graph
in blocks that open and close with a click.

How the picture is laid out (the classic "layered" drawing, in four small steps):

1. layers: each op sits one layer below the deepest op it reads (longest path); then every op but the
   arguments moves down to just above its first reader, so that a constant or a variable read sits next
   to where it is used instead of sending a long edge down from the top.
2. an edge spanning several layers passes through invisible waypoints, one per layer it crosses, which
   take space in their layers like small nodes do: so edges never run through a box. The edges leaving
   one output share their waypoints: a value read in many places is one trunk with branches.
3. order in a layer: every node moves to the mean position of its neighbours (its barycentre), sweeping
   down and up several times; the order with the fewest edge crossings wins.
4. x positions: each op is stacked in a column under the op that makes its first input, and each waypoint
   under the previous one, so a chain of ops and a long edge are straight vertical lines; the columns are
   packed as far left as possible, then as far right, and each takes the mean of the two; last, every
   column slides towards the boxes it is linked to, as far as its neighbours leave room.

It is pure Python: no graphviz, no JavaScript. The blocks that open and close are HTML `<details>`
elements, which work without scripts in JupyterLab and in HTML exported by nbconvert. Colours are inline
attributes, not a stylesheet, so a drawing never restyles the rest of the page. JupyterLab renders HTML
outputs of a notebook it does not trust (one downloaded, not run by you) without the SVG: run the cell.
"""

from __future__ import annotations

import html
import textwrap
from bisect import bisect_right, insort
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from minitf.function.graph import FuncGraph, Operation, SymbolicTensor

__all__ = ["GraphDrawing", "SideBySide", "draw", "side_by_side"]

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
CONTROL_FLOW_TYPES = frozenset({"If", "StatelessIf", "While", "StatelessWhile", "PartitionedCall",
                                "StatefulPartitionedCall"})
VARIABLE_IO_TYPES = frozenset({"ReadVariableOp", "AssignVariableOp", "AssignAddVariableOp", "AssignSubVariableOp",
                               "VarHandleOp", "ResourceGather"})
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


def _shorten(line: str) -> str:
    return line if len(line) <= MAX_LABEL_CHARS else line[:MAX_LABEL_CHARS - 1] + "…"


# ---------------------------------------------------------------------------------------------------
# Layout
# ---------------------------------------------------------------------------------------------------

@dataclass
class Link:
    """One step of an edge between two adjacent layers, as seen from one of its two ends."""

    other: int  # the box at the other end
    other_dx: float  # where the edge meets that box, from its centre
    own_dx: float  # where it meets this box, from its centre


@dataclass
class Box:
    """A node of the drawing: an operation's box, or a waypoint that long edges pass through."""

    op: Operation | None
    kind: str
    lines: list[str]
    width: float
    height: float
    is_output: bool = False
    layer: int = 0
    x: float = 0.0  # centre
    y: float = 0.0  # top
    up: list[Link] = field(default_factory=list)  # links to the layer above
    down: list[Link] = field(default_factory=list)  # links to the layer below
    above: int | None = None  # the box right above this one in its column (see align_columns)
    below: int | None = None


@dataclass
class Edge:
    """One input of one op: from the producing box, through waypoints, to the consuming box."""

    chain: list[int]
    value_index: int
    input_index: int
    dtype: str


@dataclass
class Layout:
    """A graph laid out: boxes (ops, then waypoints) with positions, edges, and the boxes of each layer."""

    boxes: list[Box]
    edges: list[Edge]
    layers: list[list[int]]
    bands: list[tuple[float, float]]  # per layer: top and bottom of its tallest box
    width: float
    height: float


def _op_box(op: Operation, graph: FuncGraph, output_indices: list[int]) -> Box:
    kind = category(op, graph)
    lines = label_lines(op, kind, output_indices)
    shown = [_shorten(line) for line in lines]
    width = max(len(line) for line in shown) * CHAR_WIDTH + 2 * PADDING
    return Box(op, kind, lines, max(width, 56.0), len(shown) * LINE_HEIGHT + 2 * PADDING,
               is_output=bool(output_indices))


def _edges_of(ops: list[Operation]) -> list[tuple[int, int, int, int, str]]:
    """(producer, consumer, output index, input index, dtype) for every input of every op in the graph."""
    index = {id(op): i for i, op in enumerate(ops)}
    edges = []
    for consumer, op in enumerate(ops):
        for position, t in enumerate(op.inputs):
            producer = index.get(id(t.op))
            if producer is not None:
                edges.append((producer, consumer, t.value_index, position, t.dtype.name))
    return edges


def _topological_order(count: int, edges: Sequence[tuple[int, int, Any, Any, Any]]) -> list[int]:
    """Producers before consumers (a graph's own list usually is, but a rewritten graph need not be)."""
    readers: list[list[int]] = [[] for _ in range(count)]
    waiting = [0] * count
    for producer, consumer, *_ in edges:
        readers[producer].append(consumer)
        waiting[consumer] += 1
    ready = [i for i in range(count) if waiting[i] == 0]
    order = []
    while ready:
        node = ready.pop()
        order.append(node)
        for reader in readers[node]:
            waiting[reader] -= 1
            if waiting[reader] == 0:
                ready.append(reader)
    return order


def assign_layers(boxes: list[Box], edges: Sequence[tuple[int, int, Any, Any, Any]]) -> None:
    """Longest-path layering (each op one layer below its deepest input); then, from the bottom up, every
    op but the arguments moves down to just above its first reader, so that a constant or a variable read
    sits next to where it is used instead of sending a long edge from the top."""
    producers: list[list[int]] = [[] for _ in boxes]
    consumers: list[list[int]] = [[] for _ in boxes]
    for producer, consumer, *_ in edges:
        producers[consumer].append(producer)
        consumers[producer].append(consumer)
    order = _topological_order(len(boxes), edges)
    for node in order:
        boxes[node].layer = 1 + max((boxes[p].layer for p in producers[node]), default=-1)
    for node in reversed(order):
        if consumers[node] and boxes[node].kind != "argument":
            boxes[node].layer = min(boxes[c].layer for c in consumers[node]) - 1


def port_dx(box: Box, index: int, count: int) -> float:
    """Where the index-th of `count` inputs (or outputs) meets a box, from its centre: spread evenly."""
    if box.op is None or count <= 1:
        return 0.0
    return box.width * ((index + 1) / (count + 1) - 0.5)


def add_waypoints(boxes: list[Box], edges: Sequence[tuple[int, int, int, int, str]]) -> list[Edge]:
    """Cut every edge into one-layer steps through waypoints, and link the boxes of adjacent layers.

    All edges leaving one output share their waypoints: a value read in many places is one trunk with
    branches, not a bundle of parallel lines.
    """
    trunks: dict[tuple[int, int], dict[int, int]] = {}  # (producer, output index) -> layer -> waypoint
    linked: set[tuple[int, int, float, float]] = set()
    result = []
    for producer, consumer, value_index, input_index, dtype in edges:
        trunk = trunks.setdefault((producer, value_index), {})
        chain = [producer]
        for layer in range(boxes[producer].layer + 1, boxes[consumer].layer):
            if layer not in trunk:
                boxes.append(Box(None, "waypoint", [], WAYPOINT_WIDTH, 0.0, layer=layer))
                trunk[layer] = len(boxes) - 1
            chain.append(trunk[layer])
        chain.append(consumer)
        source = boxes[producer]
        source_dx = port_dx(source, value_index, len(source.op.outputs))  # type: ignore[union-attr]
        target_dx = port_dx(boxes[consumer], input_index, len(boxes[consumer].op.inputs))  # type: ignore[union-attr]
        for upper, lower in zip(chain, chain[1:]):
            upper_dx = source_dx if upper == producer else 0.0
            lower_dx = target_dx if lower == consumer else 0.0
            if (upper, lower, upper_dx, lower_dx) not in linked:
                linked.add((upper, lower, upper_dx, lower_dx))
                boxes[upper].down.append(Link(lower, lower_dx, upper_dx))
                boxes[lower].up.append(Link(upper, upper_dx, lower_dx))
        result.append(Edge(chain, value_index, input_index, dtype))
    return result


def _slot(position: int, box: Box, dx: float) -> float:
    """A port's place in its layer's order: the box's position, plus a fraction for where on the box."""
    return position + dx / (box.width + NODE_GAP)


def _crossings_between(upper: list[int], lower: list[int], boxes: list[Box]) -> int:
    """How many links cross between two adjacent layers: list the lower ends in the order of the upper
    ends, and count the pairs out of order (ports count: two edges into one box can cross too)."""
    lower_position = {node: i for i, node in enumerate(lower)}
    ends = [end for node in upper
            for _, end in sorted((link.own_dx, _slot(lower_position[link.other], boxes[link.other], link.other_dx))
                                 for link in boxes[node].down)]
    seen: list[float] = []
    crossings = 0
    for end in ends:
        crossings += len(seen) - bisect_right(seen, end)
        insort(seen, end)
    return crossings


def count_crossings(layers: list[list[int]], boxes: list[Box]) -> int:
    return sum(_crossings_between(upper, lower, boxes) for upper, lower in zip(layers, layers[1:]))


def _barycentre_sort(layer: list[int], boxes: list[Box], links_of: Any, position: dict[int, int]) -> list[int]:
    """Order a layer by the mean position of each node's neighbours (a node without any stays put)."""
    def key(item: tuple[int, int]) -> float:
        index, node = item
        links = links_of(boxes[node])
        if not links:
            return float(index)
        return sum(_slot(position[k.other], boxes[k.other], k.other_dx) for k in links) / len(links)
    return [node for _, node in sorted(enumerate(layer), key=key)]


def order_layers(boxes: list[Box]) -> list[list[int]]:
    """Barycentric ordering, sweeping down then up; keeps the order with the fewest crossings."""
    depth = 1 + max((b.layer for b in boxes), default=-1)
    layers: list[list[int]] = [[] for _ in range(depth)]
    for node, box in enumerate(boxes):
        layers[box.layer].append(node)
    best, fewest = [list(layer) for layer in layers], count_crossings(layers, boxes)
    for _ in range(ORDERING_SWEEPS):
        if fewest == 0:
            break
        for i in range(1, depth):
            position = {n: p for p, n in enumerate(layers[i - 1])}
            layers[i] = _barycentre_sort(layers[i], boxes, lambda b: b.up, position)
        for i in range(depth - 2, -1, -1):
            position = {n: p for p, n in enumerate(layers[i + 1])}
            layers[i] = _barycentre_sort(layers[i], boxes, lambda b: b.down, position)
        crossings = count_crossings(layers, boxes)
        if crossings < fewest:
            best, fewest = [list(layer) for layer in layers], crossings
    return best


def _crosses(pairs: list[tuple[int, int]], upper: int, lower: int) -> bool:
    """Would the pair (upper, lower), as positions in two adjacent layers, cross one of `pairs`?"""
    return any((u < upper) != (w < lower) or u == upper or w == lower for u, w in pairs)


def align_columns(boxes: list[Box], layers: list[list[int]]) -> None:
    """Pair boxes into vertical columns, one layer at a time, pairs never crossing each other:

    - an op goes under the op that makes its first input, which is usually the main flow of data (the `h`
      of `h = tf.matmul(h, w) + b`): a chain of stages becomes one straight column; an op with more than
      two inputs (a loop, a call) goes under the middle one;
    - a waypoint goes under the waypoint before it: a long edge becomes a straight line.
    """
    for upper, layer in zip(layers, layers[1:]):
        upper_position = {node: i for i, node in enumerate(upper)}
        pairs: list[tuple[int, int]] = []
        ops_first = sorted(range(len(layer)), key=lambda i: boxes[layer[i]].op is None)
        for lower_position in ops_first:
            node = layer[lower_position]
            if boxes[node].op is None:
                above = [link.other for link in boxes[node].up if boxes[link.other].op is None]
            else:
                inputs = [link.other for link in sorted(boxes[node].up, key=lambda k: k.own_dx)
                          if boxes[link.other].op is not None]
                main = 0 if len(inputs) <= 2 else len(inputs) // 2  # many inputs (a loop's): the middle one
                above = inputs[main:main + 1]
            if above and boxes[above[0]].below is None \
                    and not _crosses(pairs, upper_position[above[0]], lower_position):
                boxes[node].above, boxes[above[0]].below = above[0], node
                pairs.append((upper_position[above[0]], lower_position))


def _column_tops(boxes: list[Box]) -> list[int]:
    """For every box, the top box of its column (itself when it is in no column)."""
    tops = []
    for node in range(len(boxes)):
        top = node
        while (above := boxes[top].above) is not None:
            top = above
        tops.append(top)
    return tops


def _packed(boxes: list[Box], layers: list[list[int]], column: list[int], leftwards: bool) -> dict[int, float]:
    """Columns pushed as far left (or right) as the boxes beside them in every layer allow.

    Each pair of neighbours in a layer says "this column is at least so far right of that one"; taking the
    columns in an order where every such constraint's left side comes first places each just far enough.
    """
    right_of: dict[int, list[tuple[int, float]]] = {top: [] for top in set(column)}
    waiting = dict.fromkeys(right_of, 0)
    for layer in layers:
        ordered = layer if leftwards else layer[::-1]
        for a, b in zip(ordered, ordered[1:]):
            right_of[column[a]].append((column[b], _distance(boxes[a], boxes[b])))
            waiting[column[b]] += 1
    x = dict.fromkeys(right_of, 0.0)
    ready = [top for top, count in waiting.items() if count == 0]
    while ready:
        top = ready.pop()
        for neighbour, distance in right_of[top]:
            x[neighbour] = max(x[neighbour], x[top] + distance)
            waiting[neighbour] -= 1
            if waiting[neighbour] == 0:
                ready.append(neighbour)
    return x if leftwards else {top: -value for top, value in x.items()}


def _relax(boxes: list[Box], layers: list[list[int]], column: list[int]) -> None:
    """Slide each column towards the mean x of the boxes it is linked to outside itself, as far as the
    boxes beside it in its layers leave room (so a constant moves next to the op that reads it)."""
    members: dict[int, list[int]] = {}
    for node, top in enumerate(column):
        members.setdefault(top, []).append(node)
    beside: dict[int, tuple[int | None, int | None]] = {}
    for layer in layers:
        for i, node in enumerate(layer):
            beside[node] = (layer[i - 1] if i > 0 else None, layer[i + 1] if i + 1 < len(layer) else None)
    for top, nodes in members.items():
        outside = [boxes[k.other].x for n in nodes for k in boxes[n].up + boxes[n].down if column[k.other] != top]
        if not outside:
            continue
        lowest, highest = -float("inf"), float("inf")
        for node in nodes:
            left_box, right_box = beside[node]
            if left_box is not None:
                lowest = max(lowest, boxes[left_box].x + _distance(boxes[left_box], boxes[node]))
            if right_box is not None:
                highest = min(highest, boxes[right_box].x - _distance(boxes[node], boxes[right_box]))
        shift = min(max(sum(outside) / len(outside), lowest), highest) - boxes[top].x
        for node in nodes:
            boxes[node].x += shift


def _distance(left: Box, right: Box) -> float:
    """How far apart two neighbours in a layer must at least be, centre to centre."""
    return (left.width + right.width) / 2 + NODE_GAP


def place(boxes: list[Box], layers: list[list[int]]) -> tuple[list[tuple[float, float]], float, float]:
    """x and y of every box; returns each layer's vertical band, and the drawing's width and height.

    Every column gets one x: the mean of where it lands when all columns are packed to the left and when
    they are packed to the right. Both keep the order and the gaps, so their mean does too, and a box that
    is in no column (a constant, a side branch) ends up halfway between its neighbours. Then columns slide
    towards what they are linked to, within the room they have.
    """
    align_columns(boxes, layers)
    column = _column_tops(boxes)
    to_left, to_right = _packed(boxes, layers, column, True), _packed(boxes, layers, column, False)
    shift = min(to_right.values(), default=0.0)  # both packings start at 0
    for box, top in zip(boxes, column):
        box.x = (to_left[top] + to_right[top] - shift) / 2
    for _ in range(RELAX_PASSES):
        _relax(boxes, layers, column)
    left = min((b.x - b.width / 2 for b in boxes), default=0.0)
    right = max((b.x + b.width / 2 for b in boxes), default=0.0)
    for box in boxes:
        box.x += MARGIN - left
    top, bands = MARGIN, []
    for layer in layers:
        band = max((boxes[n].height for n in layer), default=0.0)
        for node in layer:
            boxes[node].y = top + (band - boxes[node].height) / 2
        bands.append((top, top + band))
        top += band + LAYER_GAP
    return bands, right - left + 2 * MARGIN, top - LAYER_GAP + MARGIN


def lay_out(graph: FuncGraph) -> Layout:
    """Boxes, edges and positions for one graph (its bodies are laid out separately)."""
    ops = graph.get_operations()
    returned: dict[int, list[int]] = {}
    for i, t in enumerate(graph.outputs):
        returned.setdefault(id(t.op), []).append(i)
    boxes = [_op_box(op, graph, returned.get(id(op), [])) for op in ops]
    op_edges = _edges_of(ops)
    assign_layers(boxes, op_edges)
    edges = add_waypoints(boxes, op_edges)
    layers = order_layers(boxes)
    bands, width, height = place(boxes, layers)
    return Layout(boxes, edges, layers, bands, max(width, 120.0), max(height, 40.0))


# ---------------------------------------------------------------------------------------------------
# SVG
# ---------------------------------------------------------------------------------------------------

def _f(value: float) -> str:
    return f"{value:.1f}".rstrip("0").rstrip(".")


def _edge_points(edge: Edge, layout: Layout) -> list[tuple[float, float]]:
    boxes = layout.boxes
    source, target = boxes[edge.chain[0]], boxes[edge.chain[-1]]
    assert source.op is not None and target.op is not None
    points = [(source.x + port_dx(source, edge.value_index, len(source.op.outputs)), source.y + source.height)]
    for node in edge.chain[1:-1]:  # straight down through each waypoint's layer
        band_top, band_bottom = layout.bands[boxes[node].layer]
        points += [(boxes[node].x, band_top), (boxes[node].x, band_bottom)]
    points.append((target.x + port_dx(target, edge.input_index, len(target.op.inputs)), target.y))
    return points


def _path_data(points: list[tuple[float, float]]) -> str:
    """Smooth S-curves across the gaps between layers, straight lines through layers."""
    (x0, y0), parts = points[0], [f"M{_f(points[0][0])},{_f(points[0][1])}"]
    for i, (x1, y1) in enumerate(points[1:]):
        if i % 2 == 0:  # across a gap between layers
            middle = (y0 + y1) / 2
            parts.append(f"C{_f(x0)},{_f(middle)} {_f(x1)},{_f(middle)} {_f(x1)},{_f(y1)}")
        else:
            parts.append(f"L{_f(x1)},{_f(y1)}")
        x0, y0 = x1, y1
    return " ".join(parts)


def _deepest_edges(edges: list[Edge]) -> set[int]:
    """For each output that edges leave from, the index of the edge that runs down its whole trunk."""
    deepest: dict[tuple[int, int], int] = {}
    for i, edge in enumerate(edges):
        key = (edge.chain[0], edge.value_index)
        if key not in deepest or len(edge.chain) > len(edges[deepest[key]].chain):
            deepest[key] = i
    return set(deepest.values())


def _edge_svg(edge: Edge, layout: Layout, whole: bool) -> str:
    """One edge with its arrowhead. Only one edge per output draws the shared trunk (`whole`); the others
    start where they branch off it, so a value read in a hundred places is not a hundred stacked lines."""
    boxes = layout.boxes
    points = _edge_points(edge, layout)
    if not whole:
        points = points[-2:]
    x, y = points[-1]
    points[-1] = (x, y - 6)  # the arrowhead covers the last pixels
    resource = edge.dtype == "resource"
    colour = STYLES["variable"].stroke if resource else "#6b7280"
    dash = ' stroke-dasharray="5 3"' if resource else ""
    source, target = boxes[edge.chain[0]].op, boxes[edge.chain[-1]].op
    assert source is not None and target is not None
    tensor = source.outputs[edge.value_index]
    parts = [f'<g class="edge" data-from="{html.escape(source.name)}" data-to="{html.escape(target.name)}">',
             f"<title>{html.escape(f'{tensor.name} {spec_text(tensor)} -> {target.name}, input {edge.input_index}')}"
             "</title>",
             f'<path d="{_path_data(points)}" fill="none" stroke="{colour}" stroke-width="1.2"{dash}/>',
             f'<path d="M{_f(x - 4)},{_f(y - 7)} L{_f(x + 4)},{_f(y - 7)} L{_f(x)},{_f(y)} Z" fill="{colour}"/>']
    if whole and len(source.outputs) > 1:
        sx, sy = points[0]
        parts.append(f'<text x="{_f(sx + 5)}" y="{_f(sy + 9)}" font-size="9" fill="{colour}">:'
                     f'{edge.value_index}</text>')
    parts.append("</g>")
    return "".join(parts)


def _node_svg(box: Box) -> str:
    assert box.op is not None
    style = STYLES[box.kind]
    stroke, stroke_width = (OUTPUT_STROKE, OUTPUT_STROKE_WIDTH) if box.is_output else (style.stroke,
                                                                                       style.stroke_width)
    dash = f' stroke-dasharray="{style.dash}"' if style.dash and not box.is_output else ""
    classes = f"node {box.kind}" + (" output" if box.is_output else "")
    left = box.x - box.width / 2
    parts = [f'<g class="{classes}" data-type="{html.escape(box.op.type)}" data-name="{html.escape(box.op.name)}">',
             f"<title>{html.escape(chr(10).join(box.lines))}</title>",
             f'<rect x="{_f(left)}" y="{_f(box.y)}" width="{_f(box.width)}" height="{_f(box.height)}" '
             f'rx="{style.corner}" fill="{style.fill}" stroke="{stroke}" stroke-width="{stroke_width}"{dash}/>']
    for i, line in enumerate(box.lines):
        weight = ' font-weight="bold"' if i == 0 else ""
        baseline = box.y + PADDING + (i + 1) * LINE_HEIGHT - 3.5
        parts.append(f'<text x="{_f(box.x)}" y="{_f(baseline)}" text-anchor="middle"{weight}>'
                     f"{html.escape(_shorten(line))}</text>")
    parts.append("</g>")
    return "".join(parts)


def render_svg(layout: Layout, name: str) -> str:
    """A standalone SVG document (also valid inline in HTML): edges first, boxes drawn over them."""
    ops = [b for b in layout.boxes if b.op is not None]
    whole = _deepest_edges(layout.edges)
    width, height = _f(layout.width), _f(layout.height)
    return "".join([
        f'<svg xmlns="http://www.w3.org/2000/svg" class="minitf-graph" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" style="max-width:none;display:block" '
        f'font-family="DejaVu Sans Mono, Menlo, Consolas, monospace" font-size="{FONT_SIZE}" fill="#111827">',
        f"<title>graph {html.escape(name)}: {len(ops)} operations</title>",
        '<g class="edges">', *(_edge_svg(e, layout, i in whole) for i, e in enumerate(layout.edges)), "</g>",
        '<g class="nodes">', *(_node_svg(b) for b in ops), "</g>",
        "</svg>",
    ])


# ---------------------------------------------------------------------------------------------------
# HTML around it: title, legend, scroll box, collapsible bodies
# ---------------------------------------------------------------------------------------------------

def _swatch(style: Style, stroke: str | None = None, stroke_width: float | None = None) -> str:
    border = "dashed" if style.dash and stroke is None else "solid"
    return (f'<span style="display:inline-block;width:14px;height:10px;vertical-align:middle;margin-right:4px;'
            f"background:{style.fill};border:{stroke_width or max(style.stroke_width, 1):.1f}px {border} "
            f'{stroke or style.stroke};border-radius:{min(style.corner, 5)}px"></span>')


def legend_html(kinds: set[str], has_outputs: bool) -> str:
    """One entry per category present in the drawing, in a fixed order."""
    entries = [f'<span style="margin-right:12px;white-space:nowrap">{_swatch(style)}{html.escape(style.description)}'
               "</span>" for kind, style in STYLES.items() if kind in kinds]
    if has_outputs:
        entries.append(f'<span style="white-space:nowrap">{_swatch(STYLES["op"], OUTPUT_STROKE, 3)}returned '
                       "(graph output)</span>")
    # On a white card like the drawings, so that it reads the same in a light or a dark notebook theme.
    return ('<div class="minitf-legend" style="font-size:12px;margin:2px 0 6px 0;line-height:1.8;padding:0 6px;'
            f'background:#ffffff;color:#111827;border-radius:4px;width:fit-content">{"".join(entries)}</div>')


def _kinds(drawing: GraphDrawing) -> set[str]:
    kinds = {b.kind for b in drawing.layout.boxes if b.op is not None}
    for _, _, body in drawing.bodies:
        kinds |= _kinds(body)
    return kinds


def _has_outputs(drawing: GraphDrawing) -> bool:
    return any(b.is_output for b in drawing.layout.boxes) or any(_has_outputs(d) for _, _, d in drawing.bodies)


def _scroll_box(svg: str, max_height: int) -> str:
    return ('<div class="minitf-graph-scroll" style="overflow:auto;width:fit-content;max-width:100%;'
            f'max-height:{max_height}px;border:1px solid #d1d5db;border-radius:4px;background:#ffffff">{svg}</div>')


# ---------------------------------------------------------------------------------------------------
# Public API
# ---------------------------------------------------------------------------------------------------

def _is_graph(value: Any) -> bool:
    """A FuncGraph, or anything with its reading API (a rewritten graph need not be a FuncGraph)."""
    return isinstance(value, FuncGraph) or all(hasattr(value, a) for a in ("get_operations", "outputs", "name"))


def graph_of(graph_or_function: Any) -> FuncGraph:
    """The graph behind a FuncGraph, a ConcreteFunction or a traced `tf.function`."""
    from minitf.function.function import ConcreteFunction, Function

    if _is_graph(graph_or_function):
        return graph_or_function
    if isinstance(graph_or_function, ConcreteFunction):
        return graph_or_function.graph
    if isinstance(graph_or_function, Function):
        traces = graph_or_function._concrete
        if not traces:
            raise ValueError(f"tf.function '{graph_or_function.name}' has not been traced yet, so it has no graph to "
                             f"draw. Call it once, or draw f.get_concrete_function(...) for the input signature "
                             f"you want.")
        return traces[-1].graph
    if _is_graph(getattr(graph_or_function, "graph", None)):
        return graph_or_function.graph
    raise TypeError(f"draw() takes a FuncGraph, a ConcreteFunction or a tf.function, not "
                    f"{type(graph_or_function).__name__}.")


class GraphDrawing:
    """A drawn graph. Shown inline by JupyterLab (`_repr_html_`); `.svg` is the picture of the top-level
    graph alone, `.html` adds title, legend, a scroll box and the control-flow bodies; `save(path)` writes
    either (`.svg` or `.html`)."""

    def __init__(self, graph: FuncGraph, title: str | None = None, max_height: int = 640,
                 open_bodies: bool = False) -> None:
        self.graph = graph
        self.title = title if title is not None else f"graph {graph.name}"
        self.max_height = max_height
        self.open_bodies = open_bodies
        self.layout = lay_out(graph)
        self.svg = render_svg(self.layout, graph.name)
        self.bodies: list[tuple[Operation, str, GraphDrawing]] = [
            (op, key, GraphDrawing(body, f"{op.name} ({op.type}) · {key}: {body.name}", max_height, open_bodies))
            for op in graph.get_operations() for key, body in bodies(op)]

    @property
    def operation_count(self) -> int:
        return len(self.graph.get_operations())

    @property
    def width(self) -> float:
        return self.layout.width

    @property
    def height(self) -> float:
        return self.layout.height

    def header_html(self) -> str:
        return (f'<div style="font-weight:bold;font-size:13px">{html.escape(self.title)} '
                f'<span style="font-weight:normal;color:#6b7280">· {self.operation_count} operations</span></div>')

    def body_html(self) -> str:
        """The scroll box and, below it, one collapsible block per control-flow body (nested the same way)."""
        parts = [_scroll_box(self.svg, self.max_height)]
        is_open = ' open=""' if self.open_bodies else ""
        for _, _, drawing in self.bodies:
            parts.append(f'<details class="minitf-graph-body"{is_open} style="margin:6px 0 0 16px">'
                         f'<summary style="cursor:pointer;font-size:12px">{html.escape(drawing.title)} '
                         f'<span style="color:#6b7280">· {drawing.operation_count} operations</span></summary>'
                         f"{drawing.body_html()}</details>")
        return "".join(parts)

    @property
    def html(self) -> str:
        return (f'<div class="minitf-graph-drawing" style="font-family:sans-serif">'
                f"{self.header_html()}{legend_html(_kinds(self), _has_outputs(self))}{self.body_html()}</div>")

    def _repr_html_(self) -> str:
        return self.html

    def save(self, path: str | Path) -> Path:
        """Write `.svg` (the top-level graph) or, for any other suffix, a standalone HTML page."""
        path = Path(path)
        if path.suffix.lower() == ".svg":
            path.write_text('<?xml version="1.0" encoding="UTF-8"?>\n' + self.svg, encoding="utf-8")
        else:
            path.write_text(_page(self.title, self.html), encoding="utf-8")
        return path

    def __repr__(self) -> str:
        return (f"<GraphDrawing '{self.graph.name}': {self.operation_count} operations, "
                f"{self.width:.0f}x{self.height:.0f} px>")


class SideBySide:
    """Two drawings next to each other (before and after a rewrite), each in its own scroll box."""

    def __init__(self, left: GraphDrawing, right: GraphDrawing) -> None:
        self.left = left
        self.right = right

    @property
    def html(self) -> str:
        kinds = _kinds(self.left) | _kinds(self.right)
        outputs = _has_outputs(self.left) or _has_outputs(self.right)
        columns = "".join(f'<div style="flex:1 1 0;min-width:0">{d.header_html()}{d.body_html()}</div>'
                          for d in (self.left, self.right))
        return (f'<div class="minitf-graph-side-by-side" style="font-family:sans-serif">'
                f'<div class="minitf-graph-changes" style="font-size:13px">{html.escape(self.changes())}</div>'
                f"{legend_html(kinds, outputs)}"
                f'<div style="display:flex;gap:12px;align-items:flex-start">{columns}</div></div>')

    def changes(self) -> str:
        """What changed, counted by op type: `24 -> 15 operations; fewer: Mul x2, AddV2; more: FusedElementwise`."""
        before, after = _type_counts(self.left.graph), _type_counts(self.right.graph)
        fewer = _counted({t: n - after.get(t, 0) for t, n in before.items()})
        more = _counted({t: n - before.get(t, 0) for t, n in after.items()})
        text = f"{self.left.operation_count} -> {self.right.operation_count} operations"
        if fewer:
            text += f"; fewer: {fewer}"
        if more:
            text += f"; more: {more}"
        return text

    def _repr_html_(self) -> str:
        return self.html

    def save(self, path: str | Path) -> Path:
        path = Path(path)
        path.write_text(_page(f"{self.left.title} | {self.right.title}", self.html), encoding="utf-8")
        return path

    def __repr__(self) -> str:
        return (f"<SideBySide {self.left.title!r}: {self.left.operation_count} operations | "
                f"{self.right.title!r}: {self.right.operation_count} operations>")


def _type_counts(graph: FuncGraph) -> dict[str, int]:
    counts: dict[str, int] = {}
    for op in graph.get_operations():
        counts[op.type] = counts.get(op.type, 0) + 1
    return counts


def _counted(differences: dict[str, int]) -> str:
    """`Mul x2, AddV2`: the op types whose count went up (or down), most changed first."""
    changed = sorted(((n, t) for t, n in differences.items() if n > 0), key=lambda item: (-item[0], item[1]))
    return ", ".join(t if n == 1 else f"{t} x{n}" for n, t in changed)


def _page(title: str, body: str) -> str:
    return (f'<!DOCTYPE html>\n<html><head><meta charset="utf-8"><title>{html.escape(title)}</title></head>'
            f"<body>{body}</body></html>\n")


def draw(graph_or_function: Any, *, title: str | None = None, max_height: int = 640,
         open_bodies: bool = False) -> GraphDrawing:
    """Draw a FuncGraph, a ConcreteFunction (its `.graph`) or a `tf.function` (its last trace).

    `max_height` is the height in pixels of the scroll box a large graph is shown in; `open_bodies=True`
    shows control-flow bodies unfolded (for a printed page), instead of closed until clicked.
    """
    return GraphDrawing(graph_of(graph_or_function), title, max_height, open_bodies)


def side_by_side(before: Any, after: Any, titles: tuple[str, str] = ("before", "after"),
                 max_height: int = 640) -> SideBySide:
    """Two graphs next to each other, e.g. a graph before and after an optimisation pass."""
    def drawing(value: Any, title: str) -> GraphDrawing:
        if isinstance(value, GraphDrawing):
            return value
        return GraphDrawing(graph_of(value), title, max_height)
    return SideBySide(drawing(before, titles[0]), drawing(after, titles[1]))
