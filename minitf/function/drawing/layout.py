"""Laying out a graph for drawing: where each box goes and the path of each edge.

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

The result is a `Layout`: boxes (operations, then waypoints) with positions, and edges as chains of boxes.
Rendering it is svg.py's job.
"""

from __future__ import annotations

from bisect import bisect_right, insort
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from minitf.function.drawing.nodes import (
    CHAR_WIDTH,
    LAYER_GAP,
    LINE_HEIGHT,
    MARGIN,
    NODE_GAP,
    ORDERING_SWEEPS,
    PADDING,
    RELAX_PASSES,
    WAYPOINT_WIDTH,
    category,
    label_lines,
    shorten,
)
from minitf.function.tracing.func_graph import FuncGraph
from minitf.function.tracing.graph import Operation


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
    shown = [shorten(line) for line in lines]
    width = max(len(line) for line in shown) * CHAR_WIDTH + 2 * PADDING
    return Box(
        op, kind, lines, max(width, 56.0), len(shown) * LINE_HEIGHT + 2 * PADDING, is_output=bool(output_indices)
    )


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
    ends = [
        end
        for node in upper
        for _, end in sorted(
            (link.own_dx, _slot(lower_position[link.other], boxes[link.other], link.other_dx))
            for link in boxes[node].down
        )
    ]
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
                inputs = [
                    link.other
                    for link in sorted(boxes[node].up, key=lambda k: k.own_dx)
                    if boxes[link.other].op is not None
                ]
                main = 0 if len(inputs) <= 2 else len(inputs) // 2  # many inputs (a loop's): the middle one
                above = inputs[main : main + 1]
            if (
                above
                and boxes[above[0]].below is None
                and not _crosses(pairs, upper_position[above[0]], lower_position)
            ):
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
    for box, column_top in zip(boxes, column):
        box.x = (to_left[column_top] + to_right[column_top] - shift) / 2
    for _ in range(RELAX_PASSES):
        _relax(boxes, layers, column)
    left = min((b.x - b.width / 2 for b in boxes), default=0.0)
    right = max((b.x + b.width / 2 for b in boxes), default=0.0)
    for box in boxes:
        box.x += MARGIN - left
    top: float = MARGIN
    bands: list[tuple[float, float]] = []
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
