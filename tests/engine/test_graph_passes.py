"""The optimiser's passes: what each one removes, merges or fuses, what it must leave alone, and that the
optimised graph computes exactly what the traced graph computes."""

from __future__ import annotations

import io
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import redirect_stdout
from typing import Any

import numpy as np
import pytest

import minitf as tf
from minitf.function.compiling import optimizer
from minitf.function.compiling.execute import run_graph
from minitf.function.compiling.optimizer import GraphVerificationError, custom_pass, optimize
from minitf.function.compiling.rewrite_rules import RULES, Rule
from minitf.function.tracing.func_graph import FuncGraph
from minitf.ops.state_ops import variable_of


@pytest.fixture(autouse=True)
def default_switches() -> Iterator[None]:
    """Every test starts and ends with all passes on."""
    saved = dict(optimizer._options)
    optimizer._options.clear()
    optimizer._version[0] += 1
    yield
    optimizer._options.clear()
    optimizer._options.update(saved)
    optimizer._version[0] += 1


def concrete(fn: Callable[..., Any], *args: Any) -> Any:
    return tf.function(fn).get_concrete_function(*args)


def types_of(graph: FuncGraph) -> Counter:
    return Counter(op.type for op in graph.get_operations())


def run_both(fn: Callable[..., Any], *args: Any) -> tuple[Any, Any]:
    """The function's result with every pass on, and with the optimiser switched off."""
    on = tf.function(fn)(*args)
    tf.config.optimizer.set_experimental_options({"disable_meta_optimizer": True})
    off = tf.function(fn)(*args)
    tf.config.optimizer.set_experimental_options({"disable_meta_optimizer": False})
    return on, off


X = tf.constant([[1.0, -2.0, 3.0], [0.5, 0.0, -0.25]])


# --- the rewriting helpers a pass uses ---


def test_bypass_makes_the_readers_and_outputs_read_the_replacement_and_removes_the_op() -> None:
    traced = concrete(lambda x: tf.sin(x * 1.0) + x * 1.0, tf.TensorSpec([None], tf.float32)).graph
    graph = traced.copy()
    ones = [op for op in graph.get_operations() if op.type == "Mul"]
    x = graph.get_operations()[0].outputs[0]
    for op in ones:
        graph.bypass(op, x)
    assert "Mul" not in types_of(graph)
    sine, total = (next(op for op in graph.get_operations() if op.type == kind) for kind in ("Sin", "AddV2"))
    assert sine.inputs[0] is x and total.inputs[1] is x, "the readers of x * 1.0 read x itself"
    optimizer.verify(graph, [], after="bypass")
    assert len(graph.get_operations()) == len(traced.get_operations()) - 2, "only the bypassed ops go"


def test_rebuild_moves_a_rewritten_copy_into_the_graph_others_hold_with_the_captured_values_it_is_given() -> None:
    v = tf.Variable(2.0)
    traced = concrete(lambda x: tf.sin(x * 1.0) + v.read_value(), tf.TensorSpec([], tf.float32)).graph
    held = traced.copy()
    rewritten = held.copy()
    rewritten.bypass(
        next(op for op in rewritten.get_operations() if op.type == "Mul"), rewritten.get_operations()[0].outputs[0]
    )
    w = tf.Variable(5.0)
    held.rebuild(rewritten, [w])
    assert "Mul" not in types_of(held) and all(op.graph is held for op in held.get_operations())
    ((outside, holder),) = held.captures
    assert outside is w and variable_of(holder) is w, "its resource placeholder stands for the Variable given"
    assert np.isclose(run_graph(held, [np.float32(0.5), *held.external_captures()])[0], np.sin(0.5) + 5.0)


def test_rebuild_refuses_more_captured_values_than_inputs() -> None:
    graph = concrete(lambda x: x * 2.0, tf.TensorSpec([], tf.float32)).graph.copy()
    with pytest.raises(ValueError, match="captured values for a graph of 1 inputs"):
        graph.rebuild(graph, [1.0, 2.0])


def test_bypass_of_an_op_by_its_own_result_is_refused() -> None:
    graph = concrete(lambda x: x * 1.0, tf.TensorSpec([], tf.float32)).graph.copy()
    multiply = next(op for op in graph.get_operations() if op.type == "Mul")
    with pytest.raises(ValueError, match="which it computes"):
        graph.bypass(multiply, multiply.outputs[0])


# --- constant folding ---


def test_constant_folding_computes_constant_subexpressions_once() -> None:
    cf = concrete(lambda x: x + tf.constant(2.0) * tf.constant(3.0), X)
    optimized = cf.optimized_graph
    assert "Mul" in types_of(cf.graph) and "Mul" not in types_of(optimized)
    folded = [op for op in optimized.get_operations() if op.type == "Const"]
    assert [float(op.attrs["value"]) for op in folded] == [6.0]
    assert any("folded mul" in change for p in cf.optimization_report.passes for change in p.changes)


def test_constant_folding_turns_a_known_shape_into_a_constant() -> None:
    cf = concrete(lambda x: tf.cast(tf.shape(x), tf.float32) * tf.reduce_sum(x), X)
    assert "Shape" in types_of(cf.graph)
    assert "Shape" not in types_of(cf.optimized_graph)
    np.testing.assert_array_equal(cf(X).numpy(), np.array([2.0, 3.0], np.float32) * X.numpy().sum())


def test_an_op_that_would_fail_is_not_folded_and_fails_when_called() -> None:
    cf = concrete(lambda x: tf.gather(tf.constant([1.0, 2.0]), tf.constant(5)) + x, tf.constant(1.0))
    assert "GatherV2" in types_of(cf.optimized_graph)
    with pytest.raises(tf.errors.InvalidArgumentError, match="node GatherV2"):
        cf(tf.constant(1.0))


# --- arithmetic simplification ---


@pytest.mark.parametrize(
    "expression, gone",
    [
        (lambda x: x * 1.0, "Mul"),
        (lambda x: 1.0 * x, "Mul"),
        (lambda x: x + 0.0, "AddV2"),
        (lambda x: 0.0 + x, "AddV2"),
        (lambda x: x - 0.0, "Sub"),
        (lambda x: x / 1.0, "RealDiv"),
        (lambda x: tf.negative(tf.negative(x)), "Neg"),
        (lambda x: tf.transpose(tf.transpose(x)), "Transpose"),
        (lambda x: tf.cast(x, tf.float32), "Cast"),
        (lambda x: tf.reshape(x, [2, 3]), "Reshape"),
        (lambda x: tf.identity(x), "Identity"),
    ],
    ids=[
        "x*1",
        "1*x",
        "x+0",
        "0+x",
        "x-0",
        "x/1",
        "--x",
        "transpose-transpose",
        "cast-same",
        "reshape-same",
        "identity",
    ],
)
def test_arithmetic_simplification_removes_ops_that_return_their_input(expression: Callable, gone: str) -> None:
    cf = concrete(lambda x: tf.sin(expression(x)), X)
    assert types_of(cf.optimized_graph)[gone] == 0, cf.optimized_graph.listing()
    np.testing.assert_array_equal(cf(X).numpy(), np.sin(X.numpy()))


@pytest.mark.parametrize(
    "expression",
    [
        lambda x: x * tf.ones([4, 2, 3]),  # the ones make the result bigger: not the same tensor
        lambda x: 0.0 - x,  # that is -x
        lambda x: 1.0 / x,
        lambda x: x * 2.0,
        lambda x: tf.transpose(tf.transpose(tf.reshape(x, [1, 2, 3]), [1, 0, 2]), [0, 2, 1]),
    ],
    ids=["broadcasting-ones", "0-x", "1/x", "x*2", "two-different-transposes"],
)
def test_arithmetic_simplification_keeps_ops_that_change_the_value_or_shape(expression: Callable) -> None:
    on, off = run_both(expression, X)
    assert on.shape == off.shape
    np.testing.assert_array_equal(on.numpy(), off.numpy())


def test_reshape_of_a_reshape_becomes_one_reshape() -> None:
    cf = concrete(lambda x: tf.reshape(tf.reshape(x, [3, 2]), [6]), X)
    assert types_of(cf.optimized_graph)["Reshape"] == 1
    np.testing.assert_array_equal(cf(X).numpy(), X.numpy().reshape(6))


# --- common-subexpression elimination ---


def test_cse_merges_duplicate_subgraphs() -> None:
    cf = concrete(lambda x: tf.exp(tf.sin(x) * 2.0) + tf.exp(tf.sin(x) * 2.0), X)
    assert types_of(cf.graph)["Sin"] == 2
    tf.config.optimizer.set_experimental_options({"elementwise_fusion": False})
    optimized = cf.optimized_graph
    assert types_of(optimized)["Sin"] == 1 and types_of(optimized)["Exp"] == 1 and types_of(optimized)["Mul"] == 1
    expected = 2 * np.exp(np.sin(X.numpy()) * np.float32(2.0))
    np.testing.assert_allclose(cf(X).numpy(), expected, rtol=1e-6)


def test_cse_never_merges_variable_reads_around_an_assignment() -> None:
    v = tf.Variable(1.0)

    def f(x: Any) -> Any:
        before = v.read_value() * x
        v.assign_add(1.0)
        after = v.read_value() * x
        return before, after

    cf = concrete(f, tf.constant(3.0))
    assert types_of(cf.optimized_graph)["ReadVariableOp"] == 2
    before, after = cf(tf.constant(3.0))
    assert (float(before), float(after)) == (3.0, 6.0)


def test_cse_never_merges_random_ops() -> None:
    tf.random.set_seed(1)
    cf = concrete(lambda: tf.random.uniform([4]) - tf.random.uniform([4]))
    assert types_of(cf.optimized_graph)["RandomUniform"] == 2
    assert np.any(cf().numpy() != 0)


# --- pruning ---


def test_pruning_removes_what_nothing_uses_and_keeps_every_effect_in_order() -> None:
    v = tf.Variable(0.0)

    def f(x: Any) -> Any:
        unused = tf.exp(x) * 3.0  # noqa: F841 - the pass must remove it
        tf.print("first")
        v.assign(5.0)
        tf.print("second", v)
        return x + 1.0

    cf = concrete(f, tf.constant(1.0))
    optimized = cf.optimized_graph
    assert "Exp" not in types_of(optimized)
    effects = [op.type for op in optimized.get_operations() if op.stateful]
    assert effects == ["PrintV2", "AssignVariableOp", "ReadVariableOp", "PrintV2"]
    out = io.StringIO()
    with redirect_stdout(out):
        tf.print("x", output_stream="stdout")  # (stdout is where this test listens)
    assert out.getvalue() == "x\n"


# --- fusion ---


def test_elementwise_chain_becomes_one_fused_kernel() -> None:
    def chain(x: Any) -> Any:
        for _ in range(5):
            x = tf.tanh(tf.sin(x) * 1.01 + 0.5)
        return x

    cf = concrete(chain, X)
    fused = [op for op in cf.optimized_graph.get_operations() if op.type == "FusedElementwise"]
    assert len(fused) == 1
    assert fused[0].attrs["fused_ops"] == ("Sin", "Mul", "AddV2", "Tanh") * 5
    on, off = run_both(chain, X)
    np.testing.assert_array_equal(on.numpy(), off.numpy())


def test_a_result_read_twice_is_not_fused_away() -> None:
    def f(x: Any) -> Any:
        s = tf.sin(x)
        return tf.exp(s) + tf.cos(s), s

    cf = concrete(f, X)
    names = {t.op.type for t in cf.optimized_graph.outputs}
    assert names <= {"Sin", "FusedElementwise"}
    on, off = run_both(f, X)
    for a, b in zip(on, off):
        np.testing.assert_array_equal(a.numpy(), b.numpy())


def test_large_fused_chains_reuse_buffers_and_small_ones_do_not() -> None:
    def chain(x: Any) -> Any:
        return tf.tanh(tf.sin(x) * 2.0 + 1.0)

    big = tf.constant(np.linspace(-1, 1, 10_000, dtype=np.float32))
    small = tf.constant(np.linspace(-1, 1, 10, dtype=np.float32))
    assert "out=" in concrete(chain, big).generated_code()
    assert "out=" not in concrete(chain, small).generated_code()
    expected = chain(big).numpy()  # eager: the fused kernel must give the same bits as op-by-op execution
    np.testing.assert_array_equal(tf.function(chain)(big).numpy(), expected)
    np.testing.assert_array_equal(big.numpy(), np.linspace(-1, 1, 10_000, dtype=np.float32))  # input untouched


def test_matmul_bias_and_activation_become_one_fused_matmul() -> None:
    w = tf.constant(np.arange(12, dtype=np.float32).reshape(3, 4) / 10)
    b = tf.constant([0.5, -1.0, 0.0, 2.0])

    def dense(x: Any) -> Any:
        return tf.nn.relu(tf.matmul(x, w) + b)

    cf = concrete(dense, X)
    fused = [op for op in cf.optimized_graph.get_operations() if op.type == "_FusedMatMul"]
    assert [op.attrs["fused_ops"] for op in fused] == [("MatMul", "AddV2", "Relu")]
    expected = np.maximum(X.numpy() @ w.numpy() + b.numpy(), 0)
    np.testing.assert_allclose(cf(X).numpy(), expected, rtol=1e-6)


# --- passes inside bodies and on gradient graphs ---


def test_passes_run_inside_branches() -> None:
    def f(x: Any) -> Any:
        return tf.cond(tf.reduce_sum(x) > 0, lambda: tf.sin(x * 1.0), lambda: x + 0.0)

    cf = concrete(f, X)
    branch_reports = [p for p in cf.optimization_report.passes if p.graph != cf.graph.name and p.changes]
    assert branch_reports, str(cf.optimization_report)
    on, off = run_both(f, X)
    np.testing.assert_array_equal(on.numpy(), off.numpy())


def test_passes_run_on_the_gradient_a_function_computes() -> None:
    def f(x: Any) -> Any:
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.reduce_sum(tf.tanh(x * 1.0) ** 2)
        return tape.gradient(y, x)

    cf = concrete(f, X)
    assert len(cf.optimized_graph.get_operations()) < len(cf.graph.get_operations())
    on, off = run_both(f, X)
    np.testing.assert_array_equal(on.numpy(), off.numpy())
    with tf.GradientTape() as tape:
        tape.watch(X)
        y = tf.reduce_sum(tf.tanh(X) ** 2)
    np.testing.assert_allclose(on.numpy(), tape.gradient(y, X).numpy(), rtol=1e-6)


# --- switches, checks and reports ---


def test_switches_use_tensorflows_keys() -> None:
    f = lambda x: x + tf.constant(2.0) * tf.constant(3.0)  # noqa: E731
    tf.config.optimizer.set_experimental_options({"elementwise_fusion": False})
    assert "Mul" not in types_of(concrete(f, X).optimized_graph)
    tf.config.optimizer.set_experimental_options({"constant_folding": False})
    assert tf.config.optimizer.get_experimental_options() == {
        "elementwise_fusion": False,
        "constant_folding": False,
        "disable_model_pruning": False,
        "disable_meta_optimizer": False,
    }
    assert "Mul" in types_of(concrete(f, X).optimized_graph)
    tf.config.optimizer.set_experimental_options({"constant_folding": True})
    assert "Mul" not in types_of(concrete(f, X).optimized_graph)


def test_switching_a_pass_off_reoptimises_an_existing_function() -> None:
    cf = concrete(lambda x: x * 1.0, X)
    assert len(cf.optimized_graph.get_operations()) == 1  # only the argument is left
    tf.config.optimizer.set_experimental_options({"disable_meta_optimizer": True})
    assert len(cf.optimized_graph.get_operations()) == len(cf.graph.get_operations())


def test_the_report_counts_nodes_before_and_after() -> None:
    cf = concrete(lambda x: tf.sin(x) + tf.sin(x), X)
    report = cf.optimization_report
    assert report.nodes_before == len(cf.graph.get_operations())
    assert report.nodes_after == len(cf.optimized_graph.get_operations())
    assert str(report).startswith(
        f"Graph size before: {report.nodes_before} nodes. Graph size after: {report.nodes_after} nodes."
    )
    assert "<table>" in report._repr_html_()


def test_the_traced_graph_is_never_changed_by_optimising() -> None:
    cf = concrete(lambda x: tf.sin(x) * 1.0 + tf.sin(x), X)
    before = cf.graph.listing()
    _ = cf.optimized_graph
    assert cf.graph.listing() == before


def test_verification_catches_a_pass_that_drops_an_effect() -> None:
    v = tf.Variable(0.0)

    def f(x: Any) -> Any:
        v.assign(x)
        return x * 2.0

    def drop_assignments(graph: FuncGraph) -> list[str]:
        gone = [op for op in graph.get_operations() if op.type == "AssignVariableOp"]
        graph.remove_ops(gone)
        return [f"dropped {op.name}" for op in gone]

    with pytest.raises(GraphVerificationError, match="stateful ops changed"):
        optimize(concrete(f, tf.constant(1.0)).graph, extra_passes=(custom_pass(drop_assignments),))


def test_verification_catches_a_use_before_definition() -> None:
    def swap_first_two(graph: FuncGraph) -> list[str]:
        ops = graph._operations
        i = next(k for k, op in enumerate(ops) if op.type == "Sin")
        ops[i], ops[i + 1] = ops[i + 1], ops[i]
        graph.changed()
        return ["swapped"]

    with pytest.raises(GraphVerificationError, match="before it is computed"):
        optimize(
            concrete(lambda x: tf.exp(tf.sin(x)), X).graph,
            {"disable_model_pruning": True},
            extra_passes=(custom_pass(swap_first_two),),
        )


def test_a_pass_of_your_own_takes_part() -> None:
    def no_double_negation(graph: FuncGraph) -> list[str]:
        changes = []
        for op in graph.get_operations():
            if op.type == "Neg" and op.inputs[0].op.type == "Neg":
                graph.replace_uses({id(op.outputs[0]): op.inputs[0].op.inputs[0]})
                changes.append(op.name)
        return changes

    options = {"arithmetic_optimization": False, "elementwise_fusion": False}
    graph, report = optimize(
        concrete(lambda x: tf.sin(tf.negative(tf.negative(x))), X).graph,
        options,
        extra_passes=(custom_pass(no_double_negation),),
    )
    assert "Neg" not in types_of(graph)
    assert any(p.title == "no double negation" and p.changes for p in report.passes)


# --- the table of rewrite rules ---


@pytest.fixture
def rules() -> Iterator[list[Rule]]:
    """The simplification table, restored after the test."""
    saved = list(RULES)
    yield RULES
    RULES[:] = saved


def test_a_rule_added_to_the_table_fires(rules: list[Rule]) -> None:
    def twice_abs(x: Any) -> Any:
        return tf.abs(tf.abs(x)) * 3.0

    tf.config.optimizer.set_experimental_options({"elementwise_fusion": False})  # (to count the Abs nodes)
    assert types_of(concrete(twice_abs, X).optimized_graph)["Abs"] == 2
    rules.append(Rule("Abs(Abs)", lambda op: op.inputs[0]))  # abs(abs(x)) is abs(x)
    cf = concrete(twice_abs, X)
    assert types_of(cf.optimized_graph)["Abs"] == 1
    assert any("(Abs) is just Abs" in change for p in cf.optimization_report.passes for change in p.changes)
    np.testing.assert_array_equal(cf(X).numpy(), np.abs(X.numpy()) * 3.0)


def test_the_first_rule_that_rewrites_an_op_wins_and_a_rule_can_decline(rules: list[Rule]) -> None:
    seen: list[str] = []

    def declines(op: Any) -> None:
        seen.append(op.name)
        return None

    rules.insert(0, Rule("Mul", declines))
    graph = concrete(lambda x: tf.sin(x * 1.0), X).optimized_graph
    assert seen and "Mul" not in types_of(graph)  # declined, then the neutral-operand rule removed it


def test_a_rule_that_breaks_the_graph_is_caught_when_it_fires(rules: list[Rule]) -> None:
    rules.append(Rule("Sum", lambda op: op.inputs[0]))  # wrong: a sum is not its input
    with pytest.raises(GraphVerificationError, match="arithmetic simplification"):
        optimize(concrete(lambda x: tf.sin(tf.reduce_sum(x)), X).graph)
