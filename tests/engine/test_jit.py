"""`tf.function(jit_compile=True)`: minitf's regions, their loops and every stage a student can print.

Numba compiles each region in 0.1 to 1 s, so the fast tier keeps the checks whose regions run NumPy on
blocks (a logarithm: float32 tanh and exp are compiled as formulas) or are compiled once for the whole file;
the others are `slow`.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

import minitf as tf
from minitf.exact import exp_log
from minitf.function.compiling import optimizer
from minitf.function.compiling.jit import backend, lowering, python_source
from minitf.function.compiling.jit import loop_ir as ir

X = np.linspace(-2, 2, 24, dtype=np.float32).reshape(4, 6)


def chain(x: Any, b: Any) -> Any:
    """Elementwise ops with a broadcast row, then a row sum and a whole mean: three kinds of region."""
    y = x * 0.5 + b
    return tf.reduce_sum(y * y, axis=1), tf.reduce_mean(tf.maximum(y, 0.0))


def transcendental(x: Any) -> Any:
    """A logarithm keeps the region on NumPy blocks, and the tanh beside it an np.tanh per block."""
    return tf.reduce_sum(tf.tanh(x) * tf.math.log(1.0 + tf.abs(x)) / 2.0, axis=0)


def both(fn: Any, *args: Any) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """The results of `fn` as a plain tf.function and as a jit-compiled one."""

    def listed(out: Any) -> list[np.ndarray]:
        return [o.numpy() for o in (out if isinstance(out, tuple) else (out,))]

    return listed(tf.function(fn)(*args)), listed(tf.function(fn, jit_compile=True)(*args))


@pytest.fixture
def jit_setting() -> Iterator[None]:
    yield
    optimizer.set_jit(False)


def test_a_region_with_transcendentals_agrees_with_the_plain_function_to_float_precision() -> None:
    plain, jitted = both(transcendental, tf.constant(X))
    np.testing.assert_allclose(jitted[0], plain[0], rtol=1e-6, atol=1e-6)


def test_a_block_of_one_row_writes_into_the_regions_output() -> None:
    one_row = tf.constant(X[:1])
    plain, jitted = both(transcendental, one_row)
    np.testing.assert_allclose(jitted[0], plain[0], rtol=1e-6, atol=1e-6)
    f = tf.function(lambda x: tf.reduce_sum(tf.exp(x), axis=1), jit_compile=True)
    np.testing.assert_allclose(f(one_row).numpy(), np.exp(X[:1]).sum(axis=1), rtol=1e-6)


def test_blocks_that_share_buffers_between_temporaries_agree_with_the_plain_function() -> None:
    def dag(x: Any, b: Any) -> Any:
        t, e = tf.tanh(x), tf.math.log1p(tf.abs(x))
        y = t * e + t / (1.0 + e) + b
        return y, tf.reduce_sum(y * t, axis=1), tf.reduce_max(tf.sigmoid(y) * e, axis=0)

    big = np.linspace(-3, 3, 300 * 128, dtype=np.float32).reshape(300, 128)  # blocks of 128 rows, buffers
    plain, jitted = both(dag, tf.constant(big), tf.constant(big[0]))
    for p, j in zip(plain, jitted):
        np.testing.assert_allclose(j, p, rtol=1e-5, atol=1e-5)
    source = tf.function(dag, jit_compile=True).experimental_get_compiler_ir(tf.constant(big), tf.constant(big[0]))(
        stage="python"
    )
    assert "buffer0 = np.empty((128, 128), np.float32)" in source and "out=buffer0_rows)" in source


def test_transcendental_regions_call_numpys_vectorised_kernels_on_blocks() -> None:
    f = tf.function(transcendental, jit_compile=True)
    source = f.experimental_get_compiler_ir(tf.constant(X))(stage="python")
    assert "def fusion_0_blocks(in0, out0):" in source
    # tanh stays one np.tanh call per block beside log: the rational function pays only in a compiled loop
    assert "np.log(" in source and "np.tanh(" in source and "for lo in range(0, 4, " in source


def test_the_loop_ir_has_loops_loads_scalar_ops_stores_and_accumulators() -> None:
    ir = tf.function(transcendental, jit_compile=True).experimental_get_compiler_ir(tf.constant(X))(stage="loop_ir")
    lines = ir.splitlines()
    assert lines[0] == "kernel fusion_0(in0: f32[4,6]) -> (out0: f32[1,6]):"
    assert "  for i1 in 0..6:" in lines and "    acc0 = sum.identity:f64" in lines
    assert "    for i0 in 0..4:" in lines
    assert "      t0 = load in0[i0, i1]" in lines
    assert any(line.strip().startswith("t") and "= tanh(t0)" in line for line in lines)
    assert any(line.strip().startswith("t") and "= log(" in line for line in lines)
    assert "    store out0[0, i1] = acc0" in lines


def test_the_loop_irs_text_and_the_generated_loops_are_one_walk_with_two_renderings() -> None:
    x, out, row = (
        ir.Buffer("in0", (2, 100), "float32"),
        ir.Buffer("out0", (2, 1), "float32"),
        ir.Buffer("row0", (100,), "float32"),
    )
    inner = ir.Loop(
        "i1",
        100,
        [
            ir.Let("t0", ir.Load(x, ("i0", "i1"))),
            ir.Let("t1", ir.Apply("mul", ("t0", "t0"))),
            ir.Store(row, ("i1",), "t1"),
        ],
    )
    lanes = ir.AccLanes("acc0", "sum", row, ("i1",), "i1", 100, 4)
    body: list[ir.Stmt] = [
        ir.Loop("i0", 2, [ir.AccInit("acc0", "sum", "float64"), inner, lanes, ir.AccStore(out, ("i0", "0"), "acc0")])
    ]
    kernel = ir.Kernel("fusion_0", (2, 100), (1,), [x], [out], body, transcendental=False, rows=[row])
    assert ir.pretty(kernel).splitlines() == [
        "kernel fusion_0(in0: f32[2,100]) -> (out0: f32[2,1]) rows (row0: f32[100]):",
        "  for i0 in 0..2:",
        "    acc0 = sum.identity:f64",
        "    for i1 in 0..100:",
        "      t0 = load in0[i0, i1]",
        "      t1 = mul(t0, t0)",
        "      store row0[i1] = t1",
        "    acc0 = sum(acc0, row0[i1] for i1 in 4 lanes)",
        "    store out0[i0, 0] = acc0",
    ]
    source = python_source.loops_function(kernel)
    assert source.splitlines()[:7] == [
        "def fusion_0_loops(in0, out0):",
        "    row0 = np.empty(100, np.float32)",
        "    for i0 in range(2):",
        "        acc0 = np.float64(0.0)",
        "        for i1 in range(100):",
        "            t0 = in0[i0, i1]",
        "            t1 = (t0 * t0)",
    ]
    assert "        acc0_0 = acc0_0 + acc0_2" in source.splitlines()
    assert source.splitlines()[-2:] == ["        acc0 = acc0 + acc0_0", "        out0[i0, 0] = acc0"]
    namespace: dict[str, Any] = {"np": np}
    exec(source, namespace)  # the generated loops, run by Python itself on a small kernel
    values, result = np.arange(200, dtype=np.float32).reshape(2, 100), np.empty((2, 1), np.float32)
    namespace["fusion_0_loops"](values, result)
    np.testing.assert_allclose(result[:, 0], (values.astype(np.float64) ** 2).sum(axis=1), rtol=1e-7)


def test_float32_tanh_becomes_a_rational_function_compiled_as_a_loop() -> None:
    f = tf.function(lambda x: tf.tanh(x * 1.5 + 0.5) * 2.0, jit_compile=True)
    special = [0.0, -0.0, 1e-30, np.inf, -np.inf, np.nan]
    values = np.concatenate([np.linspace(-12, 12, 2001), special]).astype(np.float32)
    got = f(tf.constant(values)).numpy()
    expected = np.tanh(values * np.float32(1.5) + np.float32(0.5)) * np.float32(2)
    np.testing.assert_allclose(got, expected, rtol=4e-6, atol=1e-7)  # the approximation is within a few ulps
    assert np.isnan(got[-1]) and list(got[-3:-1]) == [2.0, -2.0]
    assert "def fusion_0_loops(in0, out0):" in f.experimental_get_compiler_ir(tf.constant(values))(stage="python")
    # near the clamp, where fused multiply-adds round differently: never beyond 1, exactly 1 from the clamp on
    bits = np.arange(np.float32(7.5).view(np.int32), np.float32(9.5).view(np.int32), 97, dtype=np.int32)
    near = np.concatenate([bits.view(np.float32), -bits.view(np.float32)])
    saturated = tf.function(lambda x: tf.tanh(x) * 2.0, jit_compile=True)(tf.constant(near)).numpy() / 2
    assert np.abs(saturated).max() == 1.0 and np.all(saturated[near >= 8.05] == 1.0)
    assert np.all(saturated[near <= -8.05] == -1.0)


def test_hlo_stages_show_the_graph_before_and_after_fusion() -> None:
    ir = tf.function(transcendental, jit_compile=True).experimental_get_compiler_ir(tf.constant(X))
    hlo = ir()  # "hlo" is the default, as in TensorFlow
    assert hlo.startswith("HloModule a_inference_transcendental, entry_computation_layout={(f32[4,6]{1,0})->")
    assert "  %Tanh = f32[4,6]{1,0} tanh(f32[4,6] %x)" in hlo and "fusion(" not in hlo
    optimized = ir(stage="optimized_hlo")
    assert "%fused_computation.fusion_0 (param_0: f32[4,6]) -> f32[6] {" in optimized
    assert "  %fusion_0 = f32[6]{0} fusion(%x), kind=kInput, calls=%fused_computation.fusion_0" in optimized
    assert ir(stage="optimized_hlo_serialized") == optimized.encode()
    dot = ir(stage="optimized_hlo_dot")
    assert dot.startswith("digraph G {") and "subgraph cluster_fusion_0 {" in dot and dot.rstrip().endswith("}")


def test_an_unknown_stage_is_tensorflows_value_error_with_the_valid_names() -> None:
    ir = tf.function(transcendental, jit_compile=True).experimental_get_compiler_ir(tf.constant(X))
    with pytest.raises(
        ValueError,
        match=r"Invalid stage selected: 'bogus'\. Valid values are: 'hlo', "
        r"'hlo_serialized'.*minitf adds 'loop_ir', 'python', 'llvm', 'asm'",
    ):
        ir(stage="bogus")


def test_a_python_call_inside_a_jit_function_fails_the_call_with_xlas_error() -> None:
    f = tf.function(lambda x: tf.py_function(lambda a: a * 2, [x], tf.float32) + 1.0, jit_compile=True)
    with pytest.raises(tf.errors.InvalidArgumentError, match="No registered 'EagerPyFunc' OpKernel for XLA_CPU_JIT"):
        f(tf.constant([1.0]))


def test_autoclustering_compiles_plain_functions_and_leaves_python_calls_outside(jit_setting: None) -> None:
    optimizer.set_jit(True)
    assert optimizer.get_jit() == "autoclustering"
    f = tf.function(lambda x: tf.py_function(lambda a: a * 2, [x], tf.float32) + tf.exp(x) * 2.0)
    np.testing.assert_allclose(f(tf.constant([0.0, 1.0])).numpy(), [2.0, 2 + 2 * np.e], rtol=1e-6)
    kinds = [op.type for op in f.get_concrete_function(tf.constant([0.0, 1.0])).optimized_graph.get_operations()]
    assert "XlaFusion" in kinds and "EagerPyFunc" in kinds


def test_jit_compile_keeps_tensorflows_retracing_rules() -> None:
    f = tf.function(transcendental, jit_compile=True)
    f(tf.constant(X))
    f(tf.constant(X + 1))
    f(tf.constant(X[:2]))
    assert f.experimental_get_tracing_count() == 2


def test_gradients_flow_through_a_jit_function_and_inside_one() -> None:
    x = tf.constant(X)
    f = tf.function(transcendental, jit_compile=True)
    with tf.GradientTape() as tape:
        tape.watch(x)
        loss = tf.reduce_sum(f(x))
    through = tape.gradient(loss, x).numpy()

    @tf.function(jit_compile=True)
    def inside(x: Any) -> Any:
        with tf.GradientTape() as inner:
            inner.watch(x)
            loss = tf.reduce_sum(transcendental(x))
        return inner.gradient(loss, x)

    np.testing.assert_allclose(inside(x).numpy(), through, rtol=1e-5, atol=1e-6)
    with tf.GradientTape() as tape:
        tape.watch(x)
        loss = tf.reduce_sum(transcendental(x))
    np.testing.assert_allclose(through, tape.gradient(loss, x).numpy(), rtol=1e-5, atol=1e-6)


@pytest.mark.slow
def test_compiled_loops_agree_with_the_plain_function_to_float_precision() -> None:
    plain, jitted = both(chain, tf.constant(X), tf.constant(X[0]))
    for p, j in zip(plain, jitted):
        np.testing.assert_allclose(j, p, rtol=1e-6, atol=1e-6)


@pytest.mark.slow
def test_compiled_regions_are_cached_per_dtypes_and_shapes() -> None:
    args = (tf.constant(X), tf.constant(X[0]))
    tf.function(chain, jit_compile=True)(*args)
    before = len(backend._compiled)
    tf.function(chain, jit_compile=True)(*args)  # another function, the same regions: nothing compiled again
    assert len(backend._compiled) == before
    tf.function(chain, jit_compile=True)(tf.constant(X[:2]), tf.constant(X[0]))
    assert len(backend._compiled) > before


@pytest.mark.slow
def test_llvm_and_asm_stages_show_the_compiled_loop() -> None:
    ir = tf.function(chain, jit_compile=True).experimental_get_compiler_ir(tf.constant(X), tf.constant(X[0]))
    python = ir(stage="python")
    assert "def fusion_0_loops(in0, in1, out0, out1):" in python and "for i0 in range(4):" in python
    llvm = ir(stage="llvm")
    # a multiply whose product feeds an add may be fused with it (only that: `contract`, as XLA allows)
    assert llvm.startswith("; fusion_0\n") and "define " in llvm and "fmul contract float" in llvm
    assert "fast " not in llvm and "reassoc" not in llvm and "nnan" not in llvm
    asm = ir(stage="asm")
    assert "; fusion_0" in asm and any(word in asm for word in ("mulps", "mulss", "vfmadd"))


@pytest.mark.slow
def test_a_broken_lowering_rule_makes_the_jit_disagree(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(lowering.RULES, "Mul", lowering.RULES["AddV2"])  # the bug: multiply lowered as add
    monkeypatch.setattr(backend, "_compiled", {})
    plain, jitted = both(chain, tf.constant(X), tf.constant(X[0]))
    assert not np.allclose(jitted[0], plain[0], rtol=1e-3)


@pytest.mark.slow
def test_a_cross_entropys_gradient_reuses_the_forward_exponential_and_agrees_with_numpy() -> None:
    logits = tf.constant(np.linspace(-3, 3, 4 * 100, dtype=np.float32).reshape(4, 100))
    labels = tf.one_hot([1, 3, 5, 99], 100)

    @tf.function(jit_compile=True)
    def loss_and_gradient(logits: Any, labels: Any) -> Any:
        with tf.GradientTape() as tape:
            tape.watch(logits)
            loss = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits(labels, logits))
        return loss, tape.gradient(loss, logits)

    loss, gradient = loss_and_gradient(logits, labels)
    x, y = logits.numpy().astype(np.float64), labels.numpy()
    softmax = np.exp(x - x.max(axis=1, keepdims=True))
    softmax /= softmax.sum(axis=1, keepdims=True)
    np.testing.assert_allclose(loss.numpy(), -(y * np.log(softmax)).sum(axis=1).mean(), rtol=1e-6)
    np.testing.assert_allclose(gradient.numpy(), (softmax - y) / 4, rtol=1e-5, atol=1e-7)
    hlo = loss_and_gradient.experimental_get_compiler_ir(logits, labels)(stage="hlo")
    assert hlo.count(" exponential(") == 1  # the forward's, reused by the gradient (which reads exp(log_softmax))
    assert "  %Exp.reused = f32[4,100]{1,0} divide(f32[4,100] %LogSoftmax.Exp, f32[4,1] %LogSoftmax.Sum)" in hlo


@pytest.mark.slow
def test_a_lone_arithmetic_op_stays_one_numpy_call_and_a_cheap_value_read_by_two_regions_is_computed_twice() -> None:
    def program(x: Any, m: Any) -> Any:
        shifted = x - m  # read by two reductions' regions: each computes it, no region writes it to memory
        return tf.reduce_sum(tf.exp(shifted), axis=1), tf.reduce_max(shifted * 3.0, axis=0), x * 2.0

    x, m = tf.constant(X), tf.constant(X[:, :1])
    plain, jitted = both(program, x, m)
    for p, j in zip(plain, jitted):
        np.testing.assert_allclose(j, p, rtol=1e-6)
    f = tf.function(program, jit_compile=True)
    report = f.get_concrete_function(x, m).optimization_report
    duplication = [p.changes for p in report.passes if p.title.startswith("duplication")]
    assert duplication == [["sub (Sub) computed again for mul"]]
    optimized = f.experimental_get_compiler_ir(x, m)(stage="optimized_hlo")
    assert optimized.count(" fusion(%x, %m)") == 2 and "  %mul_1 = f32[4,6]{1,0} multiply(" in optimized

    @tf.function(jit_compile=True)
    def relu_gradient(x: Any, dy: Any) -> Any:  # a lone ReluGrad: its NumPy kernel is an np.where, slower
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.nn.relu(x)
        return tape.gradient(y, x, output_gradients=dy)

    np.testing.assert_array_equal(relu_gradient(x, m * x).numpy(), np.where(X > 0, X[:, :1] * X, 0))
    fused = relu_gradient.experimental_get_compiler_ir(x, m * x)(stage="optimized_hlo")
    assert 'custom_call_target="ReluGrad"' in fused and "calls=%fused_computation.fusion_0" in fused


@pytest.mark.slow
def test_a_softmax_is_one_row_kernel_a_loop_per_reduction_and_the_exponential_kept_in_a_row_buffer() -> None:
    rows = np.linspace(-5, 5, 6 * 100, dtype=np.float32).reshape(6, 100)
    f = tf.function(lambda x: tf.nn.softmax(x * 2.0), jit_compile=True)
    x = rows.astype(np.float64) * 2
    expected = np.exp(x - x.max(axis=1, keepdims=True))
    np.testing.assert_allclose(
        f(tf.constant(rows)).numpy(), expected / expected.sum(axis=1, keepdims=True), rtol=2e-6, atol=1e-9
    )
    ir = f.experimental_get_compiler_ir(tf.constant(rows))
    assert ir(stage="optimized_hlo").count(" fusion(") == 1
    text = ir(stage="loop_ir")
    assert text.startswith("kernel fusion_0(in0: f32[6,100]) -> (out0: f32[6,100]) rows (")
    lines = text.splitlines()
    assert lines.count("    for i1 in 0..100:") == 3  # x * 2 for the max, then exp and its sum, then the division
    assert "    acc0 = max(acc0, row0[i1] for i1 in 8 lanes)" in lines
    assert "    acc1 = sum(acc1, row1[i1] for i1 in 8 lanes)" in lines
    casts = [line.strip() for line in lines if "cast_float32(acc" in line]
    assert [c.split(" = ")[1] for c in casts] == ["cast_float32(acc0)", "cast_float32(acc1)"]
    assert text.count("store row1[i1] = t") == 1  # the exponential, kept for its sum ...
    assert any(line.startswith("      t") and line.endswith(" = load row1[i1]") for line in lines)  # ... read again
    # a row reduction of an input reads the input itself, with no loop of its own
    kernel = (
        tf.function(lambda x: tf.nn.softmax(x), jit_compile=True)
        .experimental_get_compiler_ir(tf.constant(rows))(stage="loop_ir")
        .splitlines()
    )
    assert kernel.count("    for i1 in 0..100:") == 2
    assert "    acc0 = max(acc0, in0[i0, i1] for i1 in 8 lanes)" in kernel


@pytest.mark.slow
def test_row_maxima_and_minima_in_lanes_keep_nan_and_infinities_as_numpy_does() -> None:
    x = np.random.default_rng(0).normal(size=(5, 200)).astype(np.float32)
    x[1, 7], x[2, 199], x[3, :], x[4, 3] = np.nan, np.nan, -np.inf, np.inf  # a NaN in a lane and in the rest
    f = tf.function(
        lambda x: tf.reduce_max(x, axis=1, keepdims=True) * 2.0 + tf.reduce_min(x, axis=1, keepdims=True),
        jit_compile=True,
    )
    np.testing.assert_array_equal(f(tf.constant(x)).numpy()[:, 0], np.max(x, axis=1) * 2 + np.min(x, axis=1))
    lines = f.experimental_get_compiler_ir(tf.constant(x))(stage="loop_ir").splitlines()
    assert "    acc0 = max(acc0, in0[i0, i1] for i1 in 8 lanes)" in lines
    assert "    acc1 = min(acc1, in0[i0, i1] for i1 in 8 lanes)" in lines


def _exp_ulps(values: np.ndarray) -> np.ndarray:
    """How many float32 steps the compiled exp is from np.exp on each value (NaN where both are NaN: 0); the
    exp is doubled (exactly), so that a region of two ops is compiled: a lone op runs as one NumPy call."""
    got = tf.function(lambda x: tf.exp(x) * 2.0, jit_compile=True)(tf.constant(values)).numpy()
    with np.errstate(over="ignore"):
        expected = np.exp(values) * np.float32(2)
    steps = np.abs(got.view(np.int32).astype(np.int64) - expected.view(np.int32).astype(np.int64))
    return np.where(np.isnan(got) & np.isnan(expected), 0, steps)


SPECIAL = np.array(
    [np.inf, -np.inf, np.nan, 0.0, -0.0, 1e-30, 88.72, 88.73, 89.0, 1e4, -87.3, -100.0, -103.9, -104.0, -1e4],
    np.float32,
)


@pytest.mark.slow
def test_float32_exp_in_a_compiled_loop_is_within_3_ulps_of_numpy_including_inf_nan_overflow_and_underflow(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    values = np.concatenate([np.linspace(-104, 89, 200_001, dtype=np.float32), SPECIAL])
    assert _exp_ulps(values).max() <= 3
    f = tf.function(lambda x: tf.exp(x) * 2.0, jit_compile=True)
    python = f.experimental_get_compiler_ir(tf.constant(SPECIAL))(stage="python")
    assert "def fusion_0_loops(in0, out0):" in python and "bits_as_float32(" in python and "np.exp(" not in python
    # a broken coefficient of the formula is caught by the same check
    broken = (*exp_log.EXP_POLYNOMIAL32[:-1], exp_log.EXP_POLYNOMIAL32[-1] * 2)
    monkeypatch.setattr(lowering, "EXP_POLYNOMIAL32", broken)
    monkeypatch.setattr(backend, "_compiled", {})
    assert _exp_ulps(values).max() > 3


@pytest.mark.slow
def test_a_long_row_sum_folds_its_row_in_8_lanes_of_partial_sums() -> None:
    rows = np.linspace(-3, 3, 300 * 130, dtype=np.float32).reshape(300, 130)
    f = tf.function(lambda x: tf.reduce_sum(tf.exp(x) * 2.0, axis=1), jit_compile=True)
    expected = (np.exp(rows.astype(np.float64)) * 2).sum(axis=1)
    np.testing.assert_allclose(f(tf.constant(rows)).numpy(), expected, rtol=1e-6)
    ir = f.experimental_get_compiler_ir(tf.constant(rows))
    lines = ir(stage="loop_ir").splitlines()
    assert lines[0] == "kernel fusion_0(in0: f32[300,130]) -> (out0: f32[300,1]) rows (row0: f32[130]):"
    assert "    acc0 = sum(acc0, row0[i1] for i1 in 8 lanes)" in lines and "    store out0[i0, 0] = acc0" in lines
    assert any(line.startswith("      store row0[i1] = t") for line in lines)
    python = ir(stage="python")
    assert "        for j in range(0, 128, 8):" in python and "            acc0_7 = acc0_7 + row0[j + 7]" in python
    assert "        for j in range(128, 130):" in python
    pairwise = [
        "acc0_0 = acc0_0 + acc0_1",
        "acc0_2 = acc0_2 + acc0_3",
        "acc0_4 = acc0_4 + acc0_5",
        "acc0_6 = acc0_6 + acc0_7",
        "acc0_0 = acc0_0 + acc0_2",
        "acc0_4 = acc0_4 + acc0_6",
        "acc0_0 = acc0_0 + acc0_4",
        "acc0 = acc0 + acc0_0",
    ]
    assert "\n".join(f"        {line}" for line in pairwise) in python


@pytest.mark.slow
def test_a_long_elementwise_loop_runs_four_interleaved_streams_and_agrees_with_numpy() -> None:
    def rounds(x: Any) -> Any:
        for _ in range(3):
            x = tf.abs(tf.exp(tf.tanh(x))) / 2.0
        return x

    values = np.linspace(-1, 1, 1000, dtype=np.float32)
    expected = values
    for _ in range(3):
        expected = np.abs(np.exp(np.tanh(expected))) / np.float32(2)
    f = tf.function(rounds, jit_compile=True)
    np.testing.assert_allclose(f(tf.constant(values)).numpy(), expected, rtol=2e-6)
    ir = f.experimental_get_compiler_ir(tf.constant(values))
    assert "  for i0 in 0..1000 in 4 streams:" in ir(stage="loop_ir").splitlines()
    python = ir(stage="python")
    assert "    for i0 in range(250):  # 4 streams, 250 apart" in python and "        i0_3 = i0 + 750" in python
    assert "        t0_3 = in0[i0_3]" in python and "        out0[i0_3] = " in python


NO_NUMBA = textwrap.dedent("""
    import sys
    sys.modules["numba"] = None  # as where Numba is not installed: importing it fails
    import numpy as np
    import minitf as tf
    x = tf.constant(np.linspace(-2, 2, 24, dtype=np.float32).reshape(4, 6))
    f = tf.function(lambda x: tf.reduce_sum(x * 0.5 + 1.0, axis=1), jit_compile=True)
    print(f(x).numpy().tolist())
    softmax = tf.function(lambda x: tf.nn.softmax(x * 2.0), jit_compile=True)  # a row kernel, on blocks
    print(float(np.abs(softmax(x).numpy() - tf.nn.softmax(x * 2.0).numpy()).max()))
    ir = f.experimental_get_compiler_ir(x)
    for stage in ("hlo", "optimized_hlo", "optimized_hlo_dot", "loop_ir", "python"):
        print(stage, len(ir(stage=stage)))
    print("def fusion_0_blocks" in ir(stage="python"))
    try:
        ir(stage="llvm")
    except ValueError as exc:
        print(str(exc).splitlines()[0])
""")


@pytest.mark.slow
def test_without_numba_regions_run_as_blocked_numpy_with_a_one_line_notice() -> None:
    done = subprocess.run([sys.executable, "-c", NO_NUMBA], capture_output=True, text=True, timeout=120, check=True)
    lines = done.stdout.splitlines()
    expected = (np.linspace(-2, 2, 24, dtype=np.float32).reshape(4, 6) * 0.5 + 1.0).sum(axis=1)
    np.testing.assert_allclose(eval(lines[0]), expected, rtol=1e-6)  # a list of floats we printed
    assert float(lines[1]) < 1e-6
    assert all(int(line.split()[1]) > 0 for line in lines[2:7])
    assert lines[7] == "True"
    assert lines[8].startswith("Stage 'llvm' needs Numba, which is not installed")
    assert done.stderr.strip().splitlines() == [backend.NOTICE]
