"""Drawing graphs (minitf/function/drawing/svg.py, minitf-only): what the SVG and HTML contain, and that the
layout stays readable (no overlapping boxes, arrows pointing down, no needless crossings).

The drawings are parsed as XML: the SVG must be well formed (a browser shows nothing otherwise), and so
is the HTML around it, which lets these tests walk its structure.
"""

from __future__ import annotations

import itertools
import xml.etree.ElementTree as ET
from html.parser import HTMLParser
from pathlib import Path
from types import SimpleNamespace

import nbformat
import numpy as np
import pytest

import minitf as tf
from minitf.core import dtypes
from minitf.function.concrete_function import ConcreteFunction
from minitf.function.drawing.layout import count_crossings, lay_out
from minitf.function.drawing.nodes import STYLES, is_fused
from minitf.function.drawing.svg import GraphDrawing, SideBySide, draw, side_by_side
from minitf.function.function import Function
from minitf.function.tracing.func_graph import FuncGraph

SVG = "{http://www.w3.org/2000/svg}"
REPO = Path(__file__).resolve().parents[2]


# --- helpers: reading a drawing back ---


def svg_root(drawing: GraphDrawing) -> ET.Element:
    return ET.fromstring(drawing.svg)


def node_groups(svg: ET.Element) -> list[ET.Element]:
    return [g for g in svg.iter(f"{SVG}g") if "node" in g.get("class", "").split()]


def edge_groups(svg: ET.Element) -> list[ET.Element]:
    return [g for g in svg.iter(f"{SVG}g") if "edge" in g.get("class", "").split()]


def node(svg: ET.Element, name: str) -> ET.Element:
    (found,) = [g for g in node_groups(svg) if g.get("data-name") == name]
    return found


def classes(group: ET.Element) -> set[str]:
    return set(group.get("class", "").split())


def label(group: ET.Element) -> list[str]:
    return [t.text or "" for t in group.findall(f"{SVG}text")]


def box(group: ET.Element) -> tuple[float, float, float, float]:
    rect = group.find(f"{SVG}rect")
    assert rect is not None
    return tuple(float(rect.get(k)) for k in ("x", "y", "width", "height"))  # type: ignore[return-value]


def operation_count(graph: FuncGraph) -> int:
    return len(graph.get_operations())


def html_root(markup: str) -> ET.Element:
    """The HTML this module writes is also well-formed XML (no bare attributes, every tag closed)."""
    return ET.fromstring(markup.replace('xmlns="http://www.w3.org/2000/svg"', ""))


# --- graphs to draw ---


def arithmetic_function() -> Function:
    @tf.function
    def affine(x, w):
        return tf.matmul(x, w) * 2.0 + 1.0

    affine(tf.ones([2, 3]), tf.ones([3, 4]))
    return affine


def stateful_function() -> tuple:
    v = tf.Variable([1.0, 2.0, 3.0])

    @tf.function
    def step(x):
        tf.print("x is", x)
        v.assign_add(x * tf.random.uniform([3]))
        return v.read_value() + 1.0

    step(tf.ones([3]))
    return step, v


def control_flow_function() -> Function:
    @tf.function
    def loop(x, n):
        i = 0
        while i < n:
            if tf.reduce_sum(x) > 10.0:
                x = x * 0.5
            else:
                x = x + 1.0
            i += 1
        return x

    loop(tf.ones([3]), tf.constant(4))
    return loop


def big_function(stages: int = 16) -> Function:
    """At least 150 operations: the input is read at every stage, and stages feed one another."""
    v = tf.Variable(tf.ones([4, 4]))

    @tf.function
    def deep(x):
        h = x
        for i in range(stages):
            a = tf.tanh(tf.matmul(h, v) * float(i) + 1.0)
            b = tf.sigmoid(h - 0.5) if i % 2 else tf.nn.relu(x)
            h = a * b + x / 3.0
        return h, tf.reduce_sum(h)

    deep(tf.ones([4, 4]))
    return deep


# --- what draw() accepts ---


def test_draw_accepts_a_function_its_concrete_function_and_its_graph_alike() -> None:
    f = arithmetic_function()
    concrete = f.get_concrete_function(tf.ones([2, 3]), tf.ones([3, 4]))
    assert draw(f).svg == draw(concrete).svg == draw(concrete.graph).svg


def test_an_untraced_function_cannot_be_drawn_and_the_error_says_what_to_do() -> None:
    @tf.function
    def never_called(x):
        return x + 1

    with pytest.raises(ValueError, match=r"has not been traced yet.*Call it once.*get_concrete_function"):
        draw(never_called)


def test_draw_rejects_what_is_not_a_graph() -> None:
    with pytest.raises(TypeError, match="FuncGraph, a ConcreteFunction or a tf.function, not int"):
        draw(3)


class GraphView:
    """Not a FuncGraph, but with its reading API: what a rewritten (optimised) graph might be."""

    def __init__(self, graph: FuncGraph) -> None:
        self.name = f"{graph.name}_view"
        self.inputs, self.outputs = graph.inputs, graph.outputs
        self._operations = graph.get_operations()

    def get_operations(self) -> list:
        return list(self._operations)


def test_anything_with_the_graph_reading_api_can_be_drawn() -> None:
    f = arithmetic_function()
    graph = f._concrete[-1].graph
    drawing = draw(GraphView(graph))
    assert drawing.svg == draw(graph).svg.replace(f"graph {graph.name}:", f"graph {graph.name}_view:")


def test_the_same_graph_draws_to_the_same_svg_every_time() -> None:
    f = control_flow_function()
    assert draw(f).html == draw(f).html


# --- the SVG: one box per operation, labelled ---


def test_svg_is_well_formed_with_one_node_per_operation() -> None:
    f = arithmetic_function()
    svg = svg_root(draw(f))
    graph = f.get_concrete_function(tf.ones([2, 3]), tf.ones([3, 4])).graph
    assert svg.tag == f"{SVG}svg"
    assert [g.get("data-name") for g in node_groups(svg)] == [op.name for op in graph.get_operations()]
    assert [g.get("data-type") for g in node_groups(svg)] == [op.type for op in graph.get_operations()]


def test_labels_show_op_type_name_and_output_dtype_and_shape() -> None:
    @tf.function(input_signature=[tf.TensorSpec([None, 3], tf.float32)])
    def scale(x):
        return tf.reduce_sum(x * 2.0, axis=1)

    svg = svg_root(draw(scale.get_concrete_function()))
    assert label(node(svg, "x")) == ["Placeholder", "x", "float32[?,3]"]
    assert label(node(svg, "mul")) == ["Mul", "mul", "float32[?,3]"]
    assert label(node(svg, "Sum"))[:2] == ["Sum", "float32[?]"]


def test_constants_show_small_values_and_a_count_for_large_ones() -> None:
    @tf.function
    def f(x):
        return x * 2.0 + tf.constant(np.arange(12.0, dtype=np.float32))

    f(tf.ones([12]))
    svg = svg_root(draw(f))
    assert label(node(svg, "mul/y"))[-1] == "= 2.0"
    large = [g for g in node_groups(svg) if g.get("data-type") == "Const" and g.get("data-name") != "mul/y"]
    assert label(large[0])[-1] == "= <12 values>"


def test_long_labels_are_shortened_but_the_tooltip_keeps_the_full_text() -> None:
    graph = FuncGraph("g")
    x = graph.placeholder([2], dtypes.float32, name="a_really_long_argument_name_for_a_tensor")
    graph.outputs = [x]
    group = node(svg_root(draw(graph)), "a_really_long_argument_name_for_a_tensor")
    assert label(group)[1].endswith("…") and len(label(group)[1]) == 30
    assert "a_really_long_argument_name_for_a_tensor" in group.findtext(f"{SVG}title")


def test_text_from_the_program_is_escaped() -> None:
    @tf.function
    def f():
        return tf.constant("<b> & </b>")

    f()
    svg = svg_root(draw(f))  # parses: "<" and "&" were escaped
    assert label(node(svg, "Const"))[-1] == "= b'<b> & </b>'"  # bytes, as TensorFlow shows strings


def test_every_input_of_every_operation_is_one_arrow() -> None:
    f = big_function(4)
    graph = f._concrete[-1].graph
    svg = svg_root(draw(f))
    edges = edge_groups(svg)
    assert len(edges) == sum(len(op.inputs) for op in graph.get_operations())
    wanted = sorted((t.op.name, op.name) for op in graph.get_operations() for t in op.inputs)
    assert sorted((e.get("data-from"), e.get("data-to")) for e in edges) == wanted
    assert all(len(e.findall(f"{SVG}path")) == 2 for e in edges)  # the line and its arrowhead


def test_hovering_an_edge_names_the_tensor_it_carries() -> None:
    svg = svg_root(draw(arithmetic_function()))
    titles = {e.findtext(f"{SVG}title") for e in edge_groups(svg)}
    assert "MatMul:0 float32[2,4] -> mul, input 0" in titles
    assert "mul/y:0 float32[] -> mul, input 1" in titles


# --- node categories ---


def test_arguments_variables_reads_writes_prints_and_random_ops_look_different() -> None:
    step, _ = stateful_function()
    svg = svg_root(draw(step))
    kind = {g.get("data-name"): classes(g) - {"node", "output"} for g in node_groups(svg)}
    by_type = {g.get("data-type"): classes(g) - {"node", "output"} for g in node_groups(svg)}
    assert kind["x"] == {"argument"}
    assert kind["resource"] == {"variable"}
    assert by_type["ReadVariableOp"] == by_type["AssignAddVariableOp"] == {"variable-io"}
    assert by_type["PrintV2"] == by_type["RandomUniform"] == {"stateful"}
    assert by_type["Const"] == {"constant"}
    assert by_type["AddV2"] == {"op"}
    fills = {g.find(f"{SVG}rect").get("fill") for g in node_groups(svg)}
    assert {STYLES[k].fill for k in ("argument", "variable", "variable-io", "stateful", "constant", "op")} <= fills


def test_a_variable_handle_names_the_variable_with_its_dtype_and_shape() -> None:
    step, v = stateful_function()
    assert label(node(svg_root(draw(step)), "resource")) == [
        "Placeholder",
        "resource",
        "resource[]",
        f"{v.name} float32[3]",
    ]


def test_edges_carrying_a_variable_handle_are_dashed() -> None:
    step, _ = stateful_function()
    edges = edge_groups(svg_root(draw(step)))
    dashed = [e for e in edges if e.find(f"{SVG}path").get("stroke-dasharray")]
    assert dashed and dashed == [e for e in edges if e.get("data-from") == "resource"]


def test_a_captured_tensor_is_drawn_apart_from_the_arguments() -> None:
    offset = tf.constant([1.0, 2.0])

    @tf.function
    def f(x):
        return x + offset

    f(tf.ones([2]))
    graph = f._concrete[-1].graph
    captured = graph.captures[0][1].op.name
    assert classes(node(svg_root(draw(f)), captured)) == {"node", "captured"}


def test_the_ops_a_function_returns_are_marked_as_outputs() -> None:
    f = big_function(2)
    graph = f._concrete[-1].graph
    outputs = {g.get("data-name") for g in node_groups(svg_root(draw(f))) if "output" in classes(g)}
    assert outputs == {t.op.name for t in graph.outputs}
    assert label(node(svg_root(draw(f)), graph.outputs[1].op.name))[-1] == "returned as output 1"


def optimised_dense() -> ConcreteFunction:
    @tf.function
    def dense(x, w, b):
        return tf.nn.relu(tf.matmul(x, w) + b) * 2.0 + 1.0

    return dense.get_concrete_function(tf.TensorSpec([None, 3]), tf.TensorSpec([3, 4]), tf.TensorSpec([4]))


def test_fused_kernels_made_by_the_optimiser_are_drawn_as_fused_with_the_ops_they_fused() -> None:
    graph = optimised_dense().optimized_graph
    svg = svg_root(draw(graph))
    fused = {g.get("data-type"): g for g in node_groups(svg) if "fused" in classes(g)}
    assert set(fused) == {"_FusedMatMul", "FusedElementwise"}
    assert "fused: MatMul + AddV2 + Relu" in label(fused["_FusedMatMul"])
    assert "fused: Mul + AddV2" in label(fused["FusedElementwise"])
    assert {g.find(f"{SVG}rect").get("fill") for g in fused.values()} == {STYLES["fused"].fill}


@pytest.mark.parametrize(
    ("op_type", "fused"),
    [
        ("_FusedMatMul", True),
        ("FusedElementwise", True),
        ("_FusedConv2D", True),
        ("FusedBatchNormV3", True),
        ("MatMul", False),
        ("Unfused", False),
    ],
)
def test_any_op_type_starting_with_fused_counts_as_a_fused_kernel(op_type: str, fused: bool) -> None:
    assert is_fused(SimpleNamespace(type=op_type)) is fused


# --- control flow: bodies nested and collapsible ---


def test_cond_and_while_bodies_are_drawn_in_collapsible_blocks_nested_like_the_program() -> None:
    drawing = draw(control_flow_function())
    page = html_root(drawing.html)
    outer = [d for d in page.iter("details") if d.get("class") == "minitf-graph-body"]
    top_level = page.findall("./details")
    assert len(top_level) == 2  # the while loop's cond and body
    assert [d.findtext("summary").split(" · ")[1].split(":")[0] for d in top_level] == ["cond", "body"]
    body = top_level[1]
    branches = body.findall("./details")
    assert [d.findtext("summary").split(" · ")[1].split(":")[0] for d in branches] == ["then_branch", "else_branch"]
    assert len(outer) == 4
    for block in outer:  # closed until clicked, and each holds a drawing of its own
        assert block.get("open") is None
        assert block.find("./div/svg") is not None
    assert "StatelessWhile" in {g.get("data-type") for g in node_groups(svg_root(drawing))}


def test_the_control_flow_node_names_its_bodies() -> None:
    svg = svg_root(draw(control_flow_function()))
    (loop,) = [g for g in node_groups(svg) if g.get("data-type") == "StatelessWhile"]
    assert "control-flow" in classes(loop)
    assert "bodies: cond, body" in label(loop)


def test_open_bodies_unfolds_every_block() -> None:
    page = html_root(draw(control_flow_function(), open_bodies=True).html)
    assert all(d.get("open") is not None for d in page.iter("details"))


def test_a_nested_tf_function_call_is_drawn_with_its_body() -> None:
    @tf.function
    def inner(x):
        return x * 3.0

    @tf.function
    def outer(x):
        return inner(x) + 1.0

    outer(tf.ones([2]))
    drawing = draw(outer)
    (call,) = [g for g in node_groups(svg_root(drawing)) if "PartitionedCall" in g.get("data-type")]
    assert "control-flow" in classes(call)
    ((_, key, body),) = drawing.bodies
    assert key == "f" and "Mul" in {g.get("data-type") for g in node_groups(svg_root(body))}


def test_a_gradient_taken_inside_a_function_is_drawn_with_its_gradient_ops() -> None:
    w = tf.Variable([[0.5], [-0.5]])

    @tf.function
    def grads(x):
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.tanh(tf.matmul(x, w)))
        return tape.gradient(loss, w)

    grads(tf.ones([3, 2]))
    graph = grads._concrete[-1].graph
    svg = svg_root(draw(grads))
    assert len(node_groups(svg)) == operation_count(graph)
    types = {g.get("data-type") for g in node_groups(svg)}
    assert {"TanhGrad", "MatMul", "ReadVariableOp"} <= types


# --- layout ---


def test_no_two_boxes_overlap_in_a_graph_of_150_operations() -> None:
    f = big_function()
    svg = svg_root(draw(f))
    boxes = [box(g) for g in node_groups(svg)]
    assert len(boxes) == operation_count(f._concrete[-1].graph) >= 150
    for (x1, y1, w1, h1), (x2, y2, w2, h2) in itertools.combinations(boxes, 2):
        apart = x1 + w1 <= x2 or x2 + w2 <= x1 or y1 + h1 <= y2 or y2 + h2 <= y1
        assert apart, ((x1, y1, w1, h1), (x2, y2, w2, h2))
    width, height = float(svg.get("width")), float(svg.get("height"))
    assert all(min(x, y) >= 0 and x + w <= width and y + h <= height for x, y, w, h in boxes)


def test_edges_never_pass_through_a_box() -> None:
    """Within each layer, the boxes and the waypoints long edges pass through keep their distance."""
    layout = lay_out(big_function()._concrete[-1].graph)
    for layer in layout.layers:
        spans = sorted(
            (layout.boxes[n].x - layout.boxes[n].width / 2, layout.boxes[n].x + layout.boxes[n].width / 2)
            for n in layer
        )
        assert all(right <= next_left for (_, right), (next_left, _) in zip(spans, spans[1:]))


def test_every_arrow_points_down_from_producer_to_consumer() -> None:
    f = big_function(6)
    svg = svg_root(draw(f))
    boxes = {g.get("data-name"): box(g) for g in node_groups(svg)}
    for edge in edge_groups(svg):
        _, source_top, _, source_height = boxes[edge.get("data-from")]
        _, target_top, _, _ = boxes[edge.get("data-to")]
        assert source_top + source_height < target_top


def test_constants_sit_just_above_their_first_reader() -> None:
    f = big_function(6)
    layout = lay_out(f._concrete[-1].graph)
    for producer in layout.boxes:
        if producer.kind == "constant":
            readers = [link.other for link in producer.down]
            assert min(layout.boxes[r].layer for r in readers) == producer.layer + 1


def test_ordering_removes_crossings_that_the_creation_order_would_draw() -> None:
    @tf.function
    def swap(a, b):
        return -b, -a  # Neg(b) is made first: in creation order, the two edges would cross

    graph = swap.get_concrete_function(tf.TensorSpec([]), tf.TensorSpec([])).graph
    layout = lay_out(graph)
    assert count_crossings(layout.layers, layout.boxes) == 0
    svg = svg_root(draw(graph))
    assert (box(node(svg, "a"))[0] < box(node(svg, "b"))[0]) == (box(node(svg, "Neg_1"))[0] < box(node(svg, "Neg"))[0])


def test_a_value_read_in_many_places_runs_down_one_shared_trunk() -> None:
    f = big_function(8)
    layout = lay_out(f._concrete[-1].graph)
    x = next(i for i, b in enumerate(layout.boxes) if b.op is not None and b.op.name == "x")
    from_x = [e for e in layout.edges if e.chain[0] == x]
    waypoints = {n for e in from_x for n in e.chain[1:-1]}
    layers = [layout.boxes[n].layer for n in waypoints]
    assert len(from_x) > 8
    assert len(layers) == len(set(layers))  # one waypoint per layer, whatever the number of readers


def test_a_chain_of_stages_is_drawn_as_one_straight_column() -> None:
    """Following each op's first input back from the result, every box sits at the same x."""
    graph = big_function(8)._concrete[-1].graph
    layout = lay_out(graph)
    x_of = {id(b.op): b.x for b in layout.boxes if b.op is not None}
    chain, op = [], graph.outputs[0].op.inputs[0].op  # the Identity of the output sits beside: Sum reads h too
    while op.inputs and op.inputs[0].op.type != "Placeholder":
        chain.append(op)
        op = op.inputs[0].op
    assert len(chain) > 40
    assert {round(x_of[id(op)], 6) for op in chain} == {round(x_of[id(chain[0])], 6)}


def test_a_long_edge_runs_straight_down_with_few_breaks() -> None:
    layout = lay_out(big_function(8)._concrete[-1].graph)
    x = next(i for i, b in enumerate(layout.boxes) if b.op is not None and b.op.name == "x")
    trunk = {n for e in layout.edges if e.chain[0] == x for n in e.chain[1:-1]}
    steps = [(layout.boxes[n].x, layout.boxes[n].below) for n in trunk if layout.boxes[n].below in trunk]
    bends = [x for x, below in steps if abs(layout.boxes[below].x - x) > 1e-6]
    assert len(trunk) > 20
    assert len(steps) >= 0.8 * len(trunk) and not bends  # a few breaks where trunks cross, never a bend


def test_a_constant_sits_beside_the_op_that_reads_it() -> None:
    layout = lay_out(big_function(8)._concrete[-1].graph)
    for constant in (b for b in layout.boxes if b.kind == "constant"):
        (reader,) = [layout.boxes[link.other] for link in constant.down]
        assert abs(constant.x - reader.x) < (constant.width + reader.width) / 2 + 60


def random_graph(seed: int, size: int = 50) -> FuncGraph:
    """The graph of a random program: ops with one to four inputs, some with two outputs, reading any
    earlier value."""
    rng = np.random.default_rng(seed)
    plan = [(int(rng.integers(0, 4)), rng.integers(0, 1_000_000, size=4)) for _ in range(size)]

    def program(a, b, c):
        values = [a, b, c, tf.constant(1.0), tf.constant(2.0)]
        for kind, picks in plan:
            x, y, z, w = (values[int(p) % len(values)] for p in picks)
            if kind == 0:
                values.append(tf.tanh(x))
            elif kind == 1:
                values.append(x * y)
            elif kind == 2:
                values.append(tf.add_n([x, y, z, w]))
            else:
                values.extend(tf.unstack(tf.stack([x, y])))
        return values[-1], values[len(values) // 2]

    spec = tf.TensorSpec([])
    return tf.function(program).get_concrete_function(spec, spec, spec).graph


@pytest.mark.parametrize("seed", range(8))
def test_graphs_of_any_shape_draw_without_overlaps_and_with_every_arrow_pointing_down(seed: int) -> None:
    graph = random_graph(seed)
    svg = svg_root(draw(graph))
    boxes = {g.get("data-name"): box(g) for g in node_groups(svg)}
    assert len(boxes) == operation_count(graph)
    for (x1, y1, w1, h1), (x2, y2, w2, h2) in itertools.combinations(boxes.values(), 2):
        assert x1 + w1 <= x2 or x2 + w2 <= x1 or y1 + h1 <= y2 or y2 + h2 <= y1
    for edge in edge_groups(svg):
        _, source_top, _, source_height = boxes[edge.get("data-from")]
        assert source_top + source_height < boxes[edge.get("data-to")][1]
    layout = lay_out(graph)
    for layer in layout.layers:  # waypoints too: no edge runs through a box
        spans = sorted(
            (layout.boxes[n].x - layout.boxes[n].width / 2, layout.boxes[n].x + layout.boxes[n].width / 2)
            for n in layer
        )
        assert all(right <= next_left + 1e-6 for (_, right), (next_left, _) in zip(spans, spans[1:]))


def test_an_empty_graph_draws_as_an_empty_picture() -> None:
    svg = svg_root(draw(FuncGraph("empty")))
    assert node_groups(svg) == [] and edge_groups(svg) == []


# --- HTML: title, legend, side by side, saving, notebooks ---


def test_html_has_title_legend_of_the_categories_drawn_and_a_scroll_box() -> None:
    step, _ = stateful_function()
    page = html_root(draw(step, title="one step", max_height=300).html)
    text = "".join(page.itertext())
    assert "one step" in text and f"{operation_count(step._concrete[-1].graph)} operations" in text
    legend = page.find(".//div[@class='minitf-legend']")
    entries = "".join(legend.itertext())
    for kind in ("argument", "variable", "variable-io", "stateful", "constant", "op"):
        assert STYLES[kind].description in entries
    assert STYLES["fused"].description not in entries  # only what this drawing has
    scroll = page.find(".//div[@class='minitf-graph-scroll']")
    assert "overflow:auto" in scroll.get("style") and "max-height:300px" in scroll.get("style")


def test_ipython_displays_a_drawing_as_html() -> None:
    from IPython.core.formatters import format_display_data

    data, _ = format_display_data(draw(arithmetic_function()))
    assert data["text/html"].startswith('<div class="minitf-graph-drawing"')
    assert "<GraphDrawing 'affine'" in data["text/plain"]


def test_side_by_side_shows_two_drawings_with_their_titles_and_one_legend() -> None:
    before = arithmetic_function()
    after = big_function(2)
    pair = side_by_side(before, draw(after, title="already drawn"), titles=("before", "after"))
    assert isinstance(pair, SideBySide) and pair.right.title == "already drawn"
    page = html_root(pair._repr_html_())
    columns = page.findall("./div[@style]/div")
    assert len(columns) == 2
    assert [len(c.findall(".//svg")) for c in columns] == [1, 1]
    assert "before" in "".join(columns[0].itertext())
    assert len(page.findall(".//div[@class='minitf-legend']")) == 1


def test_side_by_side_counts_what_changed_by_op_type() -> None:
    @tf.function
    def before(x):
        return tf.nn.relu(x * 2.0 + 1.0)

    @tf.function
    def after(x):
        return tf.nn.relu(x)

    spec = tf.TensorSpec([3])
    pair = side_by_side(before.get_concrete_function(spec), after.get_concrete_function(spec))
    assert pair.changes() == "7 -> 3 operations; fewer: Const x2, AddV2, Mul"
    assert pair.changes() in "".join(html_root(pair.html).itertext())
    assert side_by_side(after.get_concrete_function(spec), before.get_concrete_function(spec)).changes() == (
        "3 -> 7 operations; more: Const x2, AddV2, Mul"
    )


def test_side_by_side_shows_a_graph_before_and_after_optimisation() -> None:
    concrete = optimised_dense()
    pair = side_by_side(concrete.graph, concrete.optimized_graph)
    assert pair.changes().startswith(
        f"{operation_count(concrete.graph)} -> {operation_count(concrete.optimized_graph)} operations"
    )
    assert "more: FusedElementwise, _FusedMatMul" in pair.changes()


def test_save_writes_an_svg_file_or_an_html_page(tmp_path: Path) -> None:
    drawing = draw(control_flow_function())
    svg_file = drawing.save(tmp_path / "graph.svg")
    assert ET.parse(svg_file).getroot().tag == f"{SVG}svg"
    page = drawing.save(tmp_path / "graph.html").read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>") and page.count("<svg") == 1 + len(list(_all_bodies(drawing)))
    pair = side_by_side(drawing, drawing).save(tmp_path / "pair.html").read_text(encoding="utf-8")
    assert pair.count('<div class="minitf-graph-scroll"') == 2 * (1 + len(list(_all_bodies(drawing))))


def _all_bodies(drawing: GraphDrawing):
    for _, _, body in drawing.bodies:
        yield body
        yield from _all_bodies(body)


class StartTags(HTMLParser):
    """Every start tag of an HTML page with its attributes, as a browser's parser reads them."""

    def __init__(self, page: str) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.feed(page)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))

    def with_class(self, tag: str, name: str) -> list[dict[str, str | None]]:
        return [attrs for t, attrs in self.tags if t == tag and name in (attrs.get("class") or "").split()]


def test_html_export_with_nbconvert_keeps_the_svg_and_the_collapsible_bodies() -> None:
    """nbconvert rewrites the markup (attribute order and case, which HTML parsers undo for SVG), but every
    drawing, node and edge is still in the page."""
    from IPython.core.formatters import format_display_data
    from nbconvert import HTMLExporter

    drawing = draw(control_flow_function())
    data, metadata = format_display_data(drawing)
    cell = nbformat.v4.new_code_cell(
        "draw(loop)", outputs=[nbformat.v4.new_output("display_data", data=data, metadata=metadata)]
    )
    exported, _ = HTMLExporter().from_notebook_node(nbformat.v4.new_notebook(cells=[cell]))
    drawings = [drawing, *_all_bodies(drawing)]
    page = StartTags(exported)
    assert len(page.with_class("svg", "minitf-graph")) == len(drawings) == 5
    assert len(page.with_class("details", "minitf-graph-body")) == 4
    assert [g["data-name"] for g in page.with_class("g", "node")] == [
        g.get("data-name") for d in drawings for g in node_groups(svg_root(d))
    ]
    assert len(page.with_class("g", "edge")) == sum(len(edge_groups(svg_root(d))) for d in drawings)
    # HTMLParser lowercases attribute names, as nbconvert's output has them; browsers restore viewBox.
    assert [svg["viewbox"] for svg in page.with_class("svg", "minitf-graph")] == [
        svg_root(d).get("viewBox") for d in drawings
    ]


@pytest.mark.slow
def test_a_notebook_cell_that_draws_exports_to_html_with_the_drawing(tmp_path: Path) -> None:
    """End to end: a kernel runs the cell, IPython picks the HTML, nbconvert writes it into the page."""
    import os

    from nbclient import NotebookClient
    from nbconvert import HTMLExporter

    from grader.sandbox.kernel_client import with_rechecking_waits

    source = (
        "import minitf as tf\nfrom minitf.function.drawing.svg import draw\n"
        "@tf.function\ndef f(x):\n    return tf.nn.relu(x * 2.0)\n"
        "f(tf.ones([2, 2]))\ndraw(f)"
    )
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(source)])
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")])))
    with_rechecking_waits(
        NotebookClient(notebook, timeout=120, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}})
    ).execute(env=env)
    (output,) = notebook.cells[0].outputs
    assert output["output_type"] == "execute_result" and "text/html" in output["data"]
    exported, _ = HTMLExporter().from_notebook_node(notebook)
    page = StartTags(exported)
    assert len(page.with_class("svg", "minitf-graph")) == 1
    assert [g["data-type"] for g in page.with_class("g", "node")] == ["Placeholder", "Const", "Mul", "Relu", "Identity"]
