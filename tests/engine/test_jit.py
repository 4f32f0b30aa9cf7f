"""`tf.function(jit_compile=True)`: minitf's regions, their loops and every stage a student can print.

Numba compiles each region in 0.1 to 1 s, so the fast tier keeps the checks whose regions run NumPy on
blocks (transcendental functions) or are compiled once for the whole file; the others are `slow`.
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
from minitf.function.compiling import optimizer
from minitf.function.compiling.jit import backend, lowering

X = np.linspace(-2, 2, 24, dtype=np.float32).reshape(4, 6)


def chain(x: Any, b: Any) -> Any:
    """Elementwise ops with a broadcast row, then a row sum and a whole mean: three kinds of region."""
    y = x * 0.5 + b
    return tf.reduce_sum(y * y, axis=1), tf.reduce_mean(tf.maximum(y, 0.0))


def transcendental(x: Any) -> Any:
    return tf.reduce_sum(tf.tanh(x) * tf.exp(-tf.abs(x)) / 2.0, axis=0)


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
        t, e = tf.tanh(x), tf.exp(-x)
        y = t * e + t / (1.0 + e) + b
        return y, tf.reduce_sum(y * t, axis=1), tf.reduce_max(tf.sigmoid(y) * e, axis=0)
    big = np.linspace(-3, 3, 300 * 128, dtype=np.float32).reshape(300, 128)  # blocks of 128 rows, buffers
    plain, jitted = both(dag, tf.constant(big), tf.constant(big[0]))
    for p, j in zip(plain, jitted):
        np.testing.assert_allclose(j, p, rtol=1e-5, atol=1e-5)
    source = tf.function(dag, jit_compile=True).experimental_get_compiler_ir(tf.constant(big), tf.constant(big[0]))(
        stage="python")
    assert "buffer0 = np.empty((128, 128), np.float32)" in source and "out=buffer0_rows)" in source


def test_transcendental_regions_call_numpys_vectorised_kernels_on_blocks() -> None:
    f = tf.function(transcendental, jit_compile=True)
    source = f.experimental_get_compiler_ir(tf.constant(X))(stage="python")
    assert "def fusion_0_blocks(in0, out0):" in source
    # tanh stays one np.tanh call per block beside exp: the rational function pays only in a compiled loop
    assert "np.exp(" in source and "np.tanh(" in source and "for lo in range(0, 4, " in source


def test_the_loop_ir_has_loops_loads_scalar_ops_stores_and_accumulators() -> None:
    ir = tf.function(transcendental, jit_compile=True).experimental_get_compiler_ir(tf.constant(X))(stage="loop_ir")
    lines = ir.splitlines()
    assert lines[0] == "kernel fusion_0(in0: f32[4,6]) -> (out0: f32[1,6]):"
    assert "  for i1 in 0..6:" in lines and "    acc0 = sum.identity:f64" in lines
    assert "    for i0 in 0..4:" in lines
    assert "      t0 = load in0[i0, i1]" in lines
    assert any(line.strip().startswith("t") and "= tanh(t0)" in line for line in lines)
    assert any(line.strip().startswith("t") and "= exp(" in line for line in lines)
    assert "    store out0[0, i1] = acc0" in lines


def test_float32_tanh_becomes_a_rational_function_compiled_as_a_loop() -> None:
    f = tf.function(lambda x: tf.tanh(x * 1.5 + 0.5) * 2.0, jit_compile=True)
    special = [0.0, -0.0, 1e-30, np.inf, -np.inf, np.nan]
    values = np.concatenate([np.linspace(-12, 12, 2001), special]).astype(np.float32)
    got = f(tf.constant(values)).numpy()
    expected = np.tanh(values * np.float32(1.5) + np.float32(0.5)) * np.float32(2)
    np.testing.assert_allclose(got, expected, rtol=4e-6, atol=1e-7)  # the approximation is within a few ulps
    assert np.isnan(got[-1]) and list(got[-3:-1]) == [2.0, -2.0]
    assert "def fusion_0_loops(in0, out0):" in f.experimental_get_compiler_ir(tf.constant(values))(stage="python")


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
    with pytest.raises(ValueError, match=r"Invalid stage selected: 'bogus'\. Valid values are: 'hlo', "
                       r"'hlo_serialized'.*minitf adds 'loop_ir', 'python', 'llvm', 'asm'"):
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
    assert llvm.startswith("; fusion_0\n") and "define " in llvm and "fmul float" in llvm
    asm = ir(stage="asm")
    assert "; fusion_0" in asm and any(word in asm for word in ("mulps", "mulss"))


@pytest.mark.slow
def test_a_broken_lowering_rule_makes_the_jit_disagree(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(lowering.RULES, "Mul", lowering.RULES["AddV2"])  # the bug: multiply lowered as add
    monkeypatch.setattr(backend, "_compiled", {})
    plain, jitted = both(chain, tf.constant(X), tf.constant(X[0]))
    assert not np.allclose(jitted[0], plain[0], rtol=1e-3)


NO_NUMBA = textwrap.dedent("""
    import sys
    sys.modules["numba"] = None  # as where Numba is not installed: importing it fails
    import numpy as np
    import minitf as tf
    x = tf.constant(np.linspace(-2, 2, 24, dtype=np.float32).reshape(4, 6))
    f = tf.function(lambda x: tf.reduce_sum(x * 0.5 + 1.0, axis=1), jit_compile=True)
    print(f(x).numpy().tolist())
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
    np.testing.assert_allclose(eval(lines[0]), expected, rtol=1e-6)  # noqa: S307 - a list of floats we printed
    assert all(int(line.split()[1]) > 0 for line in lines[1:6])
    assert lines[6] == "True"
    assert lines[7].startswith("Stage 'llvm' needs Numba, which is not installed")
    assert done.stderr.strip().splitlines() == [backend.NOTICE]
