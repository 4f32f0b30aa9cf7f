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

Three files: nodes.py (what kind each node is, its colours and label), layout.py (where
the boxes go: a layered layout in four steps) and this one (the SVG, the HTML around it, the public API).
It is pure Python: no graphviz, no JavaScript. The blocks that open and close are HTML `<details>`
elements, which work without scripts in JupyterLab and in HTML exported by nbconvert. Colours are inline
attributes, not a stylesheet, so a drawing never restyles the rest of the page. JupyterLab renders HTML
outputs of a notebook it does not trust (one downloaded, not run by you) without the SVG: run the cell.
"""

from __future__ import annotations

import html
from pathlib import Path
from typing import Any

from minitf.function.drawing.layout import Box, Edge, Layout, lay_out, port_dx
from minitf.function.drawing.nodes import (
    FONT_SIZE,
    LINE_HEIGHT,
    OUTPUT_STROKE,
    OUTPUT_STROKE_WIDTH,
    PADDING,
    STYLES,
    Style,
    bodies,
    shorten,
    spec_text,
)
from minitf.function.tracing.func_graph import FuncGraph
from minitf.function.tracing.graph import Operation

__all__ = ["GraphDrawing", "SideBySide", "draw", "side_by_side"]

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
    parts = [
        f'<g class="edge" data-from="{html.escape(source.name)}" data-to="{html.escape(target.name)}">',
        f"<title>{html.escape(f'{tensor.name} {spec_text(tensor)} -> {target.name}, input {edge.input_index}')}"
        "</title>",
        f'<path d="{_path_data(points)}" fill="none" stroke="{colour}" stroke-width="1.2"{dash}/>',
        f'<path d="M{_f(x - 4)},{_f(y - 7)} L{_f(x + 4)},{_f(y - 7)} L{_f(x)},{_f(y)} Z" fill="{colour}"/>',
    ]
    if whole and len(source.outputs) > 1:
        sx, sy = points[0]
        parts.append(
            f'<text x="{_f(sx + 5)}" y="{_f(sy + 9)}" font-size="9" fill="{colour}">:{edge.value_index}</text>'
        )
    parts.append("</g>")
    return "".join(parts)


def _node_svg(box: Box) -> str:
    assert box.op is not None
    style = STYLES[box.kind]
    stroke, stroke_width = (OUTPUT_STROKE, OUTPUT_STROKE_WIDTH) if box.is_output else (style.stroke, style.stroke_width)
    dash = f' stroke-dasharray="{style.dash}"' if style.dash and not box.is_output else ""
    classes = f"node {box.kind}" + (" output" if box.is_output else "")
    left = box.x - box.width / 2
    parts = [
        f'<g class="{classes}" data-type="{html.escape(box.op.type)}" data-name="{html.escape(box.op.name)}">',
        f"<title>{html.escape(chr(10).join(box.lines))}</title>",
        f'<rect x="{_f(left)}" y="{_f(box.y)}" width="{_f(box.width)}" height="{_f(box.height)}" '
        f'rx="{style.corner}" fill="{style.fill}" stroke="{stroke}" stroke-width="{stroke_width}"{dash}/>',
    ]
    for i, line in enumerate(box.lines):
        weight = ' font-weight="bold"' if i == 0 else ""
        baseline = box.y + PADDING + (i + 1) * LINE_HEIGHT - 3.5
        parts.append(
            f'<text x="{_f(box.x)}" y="{_f(baseline)}" text-anchor="middle"{weight}>{html.escape(shorten(line))}</text>'
        )
    parts.append("</g>")
    return "".join(parts)


def render_svg(layout: Layout, name: str) -> str:
    """A standalone SVG document (also valid inline in HTML): edges first, boxes drawn over them."""
    ops = [b for b in layout.boxes if b.op is not None]
    whole = _deepest_edges(layout.edges)
    width, height = _f(layout.width), _f(layout.height)
    return "".join(
        [
            f'<svg xmlns="http://www.w3.org/2000/svg" class="minitf-graph" width="{width}" height="{height}" '
            f'viewBox="0 0 {width} {height}" style="max-width:none;display:block" '
            f'font-family="DejaVu Sans Mono, Menlo, Consolas, monospace" font-size="{FONT_SIZE}" fill="#111827">',
            f"<title>graph {html.escape(name)}: {len(ops)} operations</title>",
            '<g class="edges">',
            *(_edge_svg(e, layout, i in whole) for i, e in enumerate(layout.edges)),
            "</g>",
            '<g class="nodes">',
            *(_node_svg(b) for b in ops),
            "</g>",
            "</svg>",
        ]
    )


# ---------------------------------------------------------------------------------------------------
# HTML around it: title, legend, scroll box, collapsible bodies
# ---------------------------------------------------------------------------------------------------


def _swatch(style: Style, stroke: str | None = None, stroke_width: float | None = None) -> str:
    border = "dashed" if style.dash and stroke is None else "solid"
    return (
        f'<span style="display:inline-block;width:14px;height:10px;vertical-align:middle;margin-right:4px;'
        f"background:{style.fill};border:{stroke_width or max(style.stroke_width, 1):.1f}px {border} "
        f'{stroke or style.stroke};border-radius:{min(style.corner, 5)}px"></span>'
    )


def legend_html(kinds: set[str], has_outputs: bool) -> str:
    """One entry per category present in the drawing, in a fixed order."""
    entries = [
        f'<span style="margin-right:12px;white-space:nowrap">{_swatch(style)}{html.escape(style.description)}</span>'
        for kind, style in STYLES.items()
        if kind in kinds
    ]
    if has_outputs:
        entries.append(
            f'<span style="white-space:nowrap">{_swatch(STYLES["op"], OUTPUT_STROKE, 3)}returned (graph output)</span>'
        )
    # On a white card like the drawings, so that it reads the same in a light or a dark notebook theme.
    return (
        '<div class="minitf-legend" style="font-size:12px;margin:2px 0 6px 0;line-height:1.8;padding:0 6px;'
        f'background:#ffffff;color:#111827;border-radius:4px;width:fit-content">{"".join(entries)}</div>'
    )


def _kinds(drawing: GraphDrawing) -> set[str]:
    kinds = {b.kind for b in drawing.layout.boxes if b.op is not None}
    for _, _, body in drawing.bodies:
        kinds |= _kinds(body)
    return kinds


def _has_outputs(drawing: GraphDrawing) -> bool:
    return any(b.is_output for b in drawing.layout.boxes) or any(_has_outputs(d) for _, _, d in drawing.bodies)


def _scroll_box(svg: str, max_height: int) -> str:
    return (
        '<div class="minitf-graph-scroll" style="overflow:auto;width:fit-content;max-width:100%;'
        f'max-height:{max_height}px;border:1px solid #d1d5db;border-radius:4px;background:#ffffff">{svg}</div>'
    )


# ---------------------------------------------------------------------------------------------------
# Public API
# ---------------------------------------------------------------------------------------------------


def _is_graph(value: Any) -> bool:
    """A FuncGraph, or anything with its reading API (a rewritten graph need not be a FuncGraph)."""
    return isinstance(value, FuncGraph) or all(hasattr(value, a) for a in ("get_operations", "outputs", "name"))


def graph_of(graph_or_function: Any) -> FuncGraph:
    """The graph behind a FuncGraph, a ConcreteFunction (its `graph`) or a traced `tf.function` (its last trace)."""
    if _is_graph(graph_or_function):
        return graph_or_function
    if _is_graph(getattr(graph_or_function, "graph", None)):
        return graph_or_function.graph
    traces = getattr(graph_or_function, "_concrete", None)
    if traces is not None and hasattr(graph_or_function, "python_function"):
        if not traces:
            raise ValueError(
                f"tf.function '{graph_or_function.name}' has not been traced yet, so it has no graph to "
                f"draw. Call it once, or draw f.get_concrete_function(...) for the input signature "
                f"you want."
            )
        return traces[-1].graph
    raise TypeError(
        f"draw() takes a FuncGraph, a ConcreteFunction or a tf.function, not {type(graph_or_function).__name__}."
    )


class GraphDrawing:
    """A drawn graph. Shown inline by JupyterLab (`_repr_html_`); `.svg` is the picture of the top-level
    graph alone, `.html` adds title, legend, a scroll box and the control-flow bodies; `save(path)` writes
    either (`.svg` or `.html`)."""

    def __init__(
        self, graph: FuncGraph, title: str | None = None, max_height: int = 640, open_bodies: bool = False
    ) -> None:
        self.graph = graph
        self.title = title if title is not None else f"graph {graph.name}"
        self.max_height = max_height
        self.open_bodies = open_bodies
        self.layout = lay_out(graph)
        self.svg = render_svg(self.layout, graph.name)
        self.bodies: list[tuple[Operation, str, GraphDrawing]] = [
            (op, key, GraphDrawing(body, f"{op.name} ({op.type}) · {key}: {body.name}", max_height, open_bodies))
            for op in graph.get_operations()
            for key, body in bodies(op)
        ]

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
        return (
            f'<div style="font-weight:bold;font-size:13px">{html.escape(self.title)} '
            f'<span style="font-weight:normal;color:#6b7280">· {self.operation_count} operations</span></div>'
        )

    def body_html(self) -> str:
        """The scroll box and, below it, one collapsible block per control-flow body (nested the same way)."""
        parts = [_scroll_box(self.svg, self.max_height)]
        is_open = ' open=""' if self.open_bodies else ""
        for _, _, drawing in self.bodies:
            parts.append(
                f'<details class="minitf-graph-body"{is_open} style="margin:6px 0 0 16px">'
                f'<summary style="cursor:pointer;font-size:12px">{html.escape(drawing.title)} '
                f'<span style="color:#6b7280">· {drawing.operation_count} operations</span></summary>'
                f"{drawing.body_html()}</details>"
            )
        return "".join(parts)

    @property
    def html(self) -> str:
        return (
            f'<div class="minitf-graph-drawing" style="font-family:sans-serif">'
            f"{self.header_html()}{legend_html(_kinds(self), _has_outputs(self))}{self.body_html()}</div>"
        )

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
        return (
            f"<GraphDrawing '{self.graph.name}': {self.operation_count} operations, "
            f"{self.width:.0f}x{self.height:.0f} px>"
        )


class SideBySide:
    """Two drawings next to each other (before and after a rewrite), each in its own scroll box."""

    def __init__(self, left: GraphDrawing, right: GraphDrawing) -> None:
        self.left = left
        self.right = right

    @property
    def html(self) -> str:
        kinds = _kinds(self.left) | _kinds(self.right)
        outputs = _has_outputs(self.left) or _has_outputs(self.right)
        columns = "".join(
            f'<div style="flex:1 1 0;min-width:0">{d.header_html()}{d.body_html()}</div>'
            for d in (self.left, self.right)
        )
        return (
            f'<div class="minitf-graph-side-by-side" style="font-family:sans-serif">'
            f'<div class="minitf-graph-changes" style="font-size:13px">{html.escape(self.changes())}</div>'
            f"{legend_html(kinds, outputs)}"
            f'<div style="display:flex;gap:12px;align-items:flex-start">{columns}</div></div>'
        )

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
        return (
            f"<SideBySide {self.left.title!r}: {self.left.operation_count} operations | "
            f"{self.right.title!r}: {self.right.operation_count} operations>"
        )


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
    return (
        f'<!DOCTYPE html>\n<html><head><meta charset="utf-8"><title>{html.escape(title)}</title></head>'
        f"<body>{body}</body></html>\n"
    )


def draw(
    graph_or_function: Any, *, title: str | None = None, max_height: int = 640, open_bodies: bool = False
) -> GraphDrawing:
    """Draw a FuncGraph, a ConcreteFunction (its `.graph`) or a `tf.function` (its last trace).

    `max_height` is the height in pixels of the scroll box a large graph is shown in; `open_bodies=True`
    shows control-flow bodies unfolded (for a printed page), instead of closed until clicked.
    """
    return GraphDrawing(graph_of(graph_or_function), title, max_height, open_bodies)


def side_by_side(
    before: Any, after: Any, titles: tuple[str, str] = ("before", "after"), max_height: int = 640
) -> SideBySide:
    """Two graphs next to each other, e.g. a graph before and after an optimisation pass."""

    def drawing(value: Any, title: str) -> GraphDrawing:
        if isinstance(value, GraphDrawing):
            return value
        return GraphDrawing(graph_of(value), title, max_height)

    return SideBySide(drawing(before, titles[0]), drawing(after, titles[1]))
