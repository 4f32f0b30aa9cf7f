"""The optimiser: runs the passes over a traced graph, checks the graph after each one, and reports.

`optimize(graph)` copies the traced graph (which stays as traced: gradients and `cf.graph` use it, as in
TensorFlow) and runs, in order, the passes that are switched on:

    pruning -> constant folding -> arithmetic simplification -> common-subexpression elimination
    (these four again, until nothing changes) -> MatMul fusion -> elementwise fusion -> pruning

Each pass also runs inside branch, loop and called-function bodies. After every pass `verify` checks the
graph: every input is computed before it is used, every output's shape and dtype still follow its op's rule,
and the stateful ops are the same ones in the same order.

Switches use TensorFlow's keys (`tf.config.optimizer.set_experimental_options`): `constant_folding`,
`arithmetic_optimization` (simplification), `remapping` (MatMul fusion), `disable_model_pruning`,
`disable_meta_optimizer` (everything off), `min_graph_nodes`. Two passes have no key in TensorFlow, where
they happen inside other optimisers or in XLA; minitf's own keys for them are `common_subgraph_elimination`
and `elementwise_fusion`.
"""

from __future__ import annotations

import html
from dataclasses import dataclass, field
from typing import Any

from minitf.function.compiling import fusion, passes, rewrite_rules
from minitf.function.tracing.func_graph import FuncGraph
from minitf.function.tracing.shape_inference import infer_specs


@dataclass(frozen=True)
class PassInfo:
    """One optimisation pass: the key that switches it, and its function."""

    key: str
    title: str
    run: passes.Pass


SIMPLIFY = (
    PassInfo("constant_folding", "constant folding", passes.constant_folding),
    PassInfo("arithmetic_optimization", "arithmetic simplification", rewrite_rules.arithmetic_simplification),
    PassInfo(
        "common_subgraph_elimination", "common-subexpression elimination", passes.common_subexpression_elimination
    ),
)
PRUNE = PassInfo("pruning", "pruning", passes.prune)
FUSE = (
    PassInfo("remapping", "MatMul fusion", fusion.fuse_matmul),
    PassInfo("elementwise_fusion", "elementwise fusion", fusion.elementwise_fusion),
)
ALL_PASSES = (PRUNE, *SIMPLIFY, *FUSE)
MAX_ROUNDS = 3

# Options as set with tf.config.optimizer.set_experimental_options (TensorFlow ignores unknown keys).
_options: dict[str, Any] = {}
_version = [0]  # bumped at every change, so functions know to optimise again
_REPORTED_ALWAYS = {"disable_model_pruning": False, "disable_meta_optimizer": False}
_KNOWN_KEYS = frozenset(
    {
        "layout_optimizer",
        "constant_folding",
        "shape_optimization",
        "remapping",
        "arithmetic_optimization",
        "dependency_optimization",
        "loop_optimization",
        "function_optimization",
        "debug_stripper",
        "disable_model_pruning",
        "scoped_allocator_optimization",
        "pin_to_host_optimization",
        "implementation_selector",
        "auto_mixed_precision",
        "use_plugin_optimizers",
        "disable_meta_optimizer",
        "auto_mixed_precision_onednn_bfloat16",
        "auto_mixed_precision_mkl",
        "min_graph_nodes",
        "common_subgraph_elimination",
        "elementwise_fusion",
    }
)


def set_experimental_options(options: dict[str, Any]) -> None:
    """`tf.config.optimizer.set_experimental_options`: switch passes on (True) or off (False) by key."""
    _options.update({k: v for k, v in dict(options).items() if k in _KNOWN_KEYS})
    invalidate()


def invalidate() -> None:
    """Every optimised graph and its generated code is out of date (a switch changed, or the kernels did)."""
    _version[0] += 1


_jit = [""]


def set_jit(enabled: bool | str) -> None:
    """`tf.config.optimizer.set_jit`: auto-clustering, i.e. every `tf.function` without `jit_compile=False` is
    compiled by the jit (function/jit/), and ops it cannot compile run as usual."""
    _jit[0] = "autoclustering" if enabled is True or enabled == "autoclustering" else ""
    invalidate()  # functions compile again (or stop compiling) at their next call


def get_jit() -> str:
    return _jit[0]


def get_experimental_options() -> dict[str, Any]:
    """`tf.config.optimizer.get_experimental_options`: the switches set so far (and the two always shown)."""
    shown = {k: v for k, v in _options.items() if k not in _REPORTED_ALWAYS and k != "min_graph_nodes"}
    shown.update({k: bool(_options.get(k, default)) for k, default in _REPORTED_ALWAYS.items()})
    if _options.get("min_graph_nodes"):
        shown["min_graph_nodes"] = _options["min_graph_nodes"]
    return shown


def options_version() -> int:
    """Changes whenever a switch is set: an optimised graph made under another version is out of date."""
    return _version[0]


def enabled(info: PassInfo, options: dict[str, Any] | None = None) -> bool:
    options = _options if options is None else options
    if options.get("disable_meta_optimizer"):
        return False
    if info.key == "pruning":
        return not options.get("disable_model_pruning", False)
    return bool(options.get(info.key, True))


# ---------------------------------------------------------------------------------------------------
# What changed
# ---------------------------------------------------------------------------------------------------


@dataclass
class PassReport:
    """One run of one pass on one graph."""

    title: str
    graph: str
    nodes_before: int
    nodes_after: int
    changes: list[str]


@dataclass
class OptimizationReport:
    """Everything the optimiser did to a function's graph, pass by pass (shown as a table in Jupyter)."""

    nodes_before: int = 0
    nodes_after: int = 0
    passes: list[PassReport] = field(default_factory=list)

    def __str__(self) -> str:
        lines = [f"Graph size before: {self.nodes_before} nodes. Graph size after: {self.nodes_after} nodes."]
        for p in self.passes:
            if not p.changes:
                continue
            lines.append(f"{p.title} on {p.graph}: {p.nodes_before} -> {p.nodes_after} nodes")
            lines.extend(f"    {change}" for change in p.changes)
        return "\n".join(lines)

    __repr__ = __str__

    def _repr_html_(self) -> str:
        rows = "".join(
            f"<tr><td>{html.escape(p.title)}</td><td>{html.escape(p.graph)}</td><td>{p.nodes_before}</td>"
            f"<td>{p.nodes_after}</td><td>{'<br>'.join(html.escape(c) for c in p.changes) or '-'}</td></tr>"
            for p in self.passes
        )
        return (
            f"<p>Graph size before: {self.nodes_before} nodes. Graph size after: {self.nodes_after} nodes.</p>"
            "<table><tr><th>pass</th><th>graph</th><th>nodes before</th><th>nodes after</th>"
            f"<th>what changed</th></tr>{rows}</table>"
        )


def count_nodes(graph: FuncGraph) -> int:
    return len(graph.get_operations())


# ---------------------------------------------------------------------------------------------------
# Checking a graph after a pass
# ---------------------------------------------------------------------------------------------------


class GraphVerificationError(AssertionError):
    """A pass left a graph that is not well formed (a bug in the pass)."""


def stateful_ops(graph: FuncGraph) -> list[str]:
    return [op.name for op in graph.get_operations() if op.stateful]


def verify(graph: FuncGraph, stateful_before: list[str], after: str) -> None:
    """Inputs computed before use, outputs that follow their op's shape rule, stateful ops kept in order."""
    computed = {id(t) for t in graph.inputs}
    for op in graph.get_operations():
        for t in op.inputs:
            if id(t) not in computed:
                raise GraphVerificationError(f"after {after}: {op.name} reads {t.name} before it is computed")
        specs = infer_specs(op.op_def, op.inputs, op.attrs)
        for t, (shape, dtype) in zip(op.outputs, specs):
            if dtype is not t.dtype or not shape.is_compatible_with(t.shape):
                raise GraphVerificationError(
                    f"after {after}: {t.name} is {t.dtype.name}{t.shape} but {op.type} gives {dtype.name}{shape}"
                )
            computed.add(id(t))
    for t in graph.outputs:
        if id(t) not in computed:
            raise GraphVerificationError(f"after {after}: the output {t.name} is never computed")
    if stateful_ops(graph) != stateful_before:
        raise GraphVerificationError(
            f"after {after}: stateful ops changed from {stateful_before} to {stateful_ops(graph)}"
        )


# ---------------------------------------------------------------------------------------------------
# Running the passes
# ---------------------------------------------------------------------------------------------------


def _all_graphs(graph: FuncGraph) -> list[FuncGraph]:
    """`graph` and every body inside it (branches, loops, called functions), innermost first."""
    found: list[FuncGraph] = []
    for op in graph.get_operations():
        for value in op.attrs.values():
            if isinstance(value, FuncGraph):
                found.extend(_all_graphs(value))
    found.append(graph)
    return found


def run_pass(info: PassInfo, graph: FuncGraph, report: OptimizationReport) -> bool:
    """Run one pass on `graph` and on every body inside it; True if it changed anything."""
    changed = False
    for g in _all_graphs(graph):
        before, stateful = count_nodes(g), stateful_ops(g)
        changes = info.run(g)
        verify(g, stateful, after=info.title)
        report.passes.append(PassReport(info.title, g.name, before, count_nodes(g), changes))
        changed = changed or bool(changes)
    return changed


def optimize(
    graph: FuncGraph, options: dict[str, Any] | None = None, extra_passes: tuple[PassInfo, ...] = ()
) -> tuple[FuncGraph, OptimizationReport]:
    """An optimised copy of `graph` and the report of what each pass did (the graph itself is not changed).

    `extra_passes` run after the built-in simplifications: a pass of your own, written as a function that
    rewrites a graph and returns the list of what it changed, can take part like the others.
    """
    options = _options if options is None else options
    optimized = graph.copy()
    report = OptimizationReport(nodes_before=count_nodes(graph))
    small = options.get("min_graph_nodes", 0) and count_nodes(graph) < options["min_graph_nodes"]
    if not small:

        def run(info: PassInfo) -> bool:
            return enabled(info, options) and run_pass(info, optimized, report)

        run(PRUNE)
        for _ in range(MAX_ROUNDS):
            changed = [run(info) for info in (*SIMPLIFY, *extra_passes)]
            if not any(changed):
                break
        for info in FUSE:
            run(info)
        run(PRUNE)
    report.nodes_after = count_nodes(optimized)
    return optimized, report


def custom_pass(function: passes.Pass, title: str | None = None) -> PassInfo:
    """Wrap a function of your own (graph -> list of changes) as a pass for `optimize(extra_passes=...)`."""
    name = title or function.__name__.replace("_", " ")
    return PassInfo(f"custom:{name}", name, function)
