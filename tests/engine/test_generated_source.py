"""The one code generator: source written with `Source` and compiled with its text registered, so what
`generated_code()` prints is what runs; and the one buffer-reuse analysis (buffers.py), which decides from the
graph alone where generated code may write into a buffer."""

from __future__ import annotations

import inspect
import traceback
from typing import Any

import numpy as np
import pytest

import minitf as tf
from minitf.function.compiling import buffers, codegen
from minitf.function.compiling.execute import compiled
from minitf.function.compiling.source import Source
from minitf.function.tracing.func_graph import FuncGraph
from minitf.function.tracing.graph import Operation


def optimized(fn: Any, *args: Any) -> FuncGraph:
    return tf.function(fn).get_concrete_function(*args).optimized_graph


def ops_of(graph: FuncGraph, op_type: str) -> list[Operation]:
    return [op for op in graph.get_operations() if op.type == op_type]


# --- the source builder ---


def test_source_indents_blocks_and_compiles_with_its_text_registered() -> None:
    code = Source("sum of squares")
    with code.block("def sum_of_squares(values):"):
        code.line("total = 0")
        with code.block("for v in values:"):
            code.line("total += v * v")
        failing = code.line("return total / (len(values) - 3)")
    function = code.compile()["sum_of_squares"]
    assert function([1, 2]) == -5.0
    assert inspect.getsource(function) == code.text
    assert code.text.splitlines()[3] == "        total += v * v"
    with pytest.raises(ZeroDivisionError) as info:
        function([1, 2, 3])
    frame = traceback.extract_tb(info.value.__traceback__)[-1]
    assert (frame.lineno, frame.line) == (failing, "return total / (len(values) - 3)")


def test_values_that_are_not_literals_become_globals_of_the_generated_module() -> None:
    code = Source("globals")
    table = np.arange(3)
    with code.block("def look_up(i):"):
        code.line(f"return {code.value(table, 'table')}[i] + {code.value(10, 'ten')}")
    assert "table[i] + 10" in code.text
    assert code.compile()["look_up"](2) == 12


# --- what runs is what is printed ---


def test_the_graphs_printed_source_is_the_code_that_runs() -> None:
    @tf.function
    def f(x: Any, i: Any) -> Any:
        return tf.gather(tf.sin(x) * 2.0, i)

    x = tf.constant([1.0, 2.0])
    code = compiled(f.get_concrete_function(x, tf.constant(0)).optimized_graph)
    assert inspect.getsource(code.fn) == code.source
    assert code.source in f.get_concrete_function(x, tf.constant(0)).generated_code()
    with pytest.raises(tf.errors.InvalidArgumentError) as info:
        f(x, tf.constant(7))
    assert "{{node GatherV2}}" in str(info.value)


def test_a_fused_kernels_printed_source_is_the_code_that_runs() -> None:
    graph = optimized(lambda x: tf.tanh(tf.sin(x) * 2.0 + 1.0), tf.constant(np.ones(10_000, np.float32)))
    [fused] = ops_of(graph, "FusedElementwise")
    kernel = fused.attrs["_kernel"]
    assert inspect.getsource(kernel) == fused.attrs["_source"]
    assert "out=" in fused.attrs["_source"]


# --- one analysis decides reuse ---


@pytest.mark.parametrize(
    "elements, reused", [(buffers.REUSE_MIN_ELEMENTS, True), (buffers.REUSE_MIN_ELEMENTS - 1, False)]
)
def test_one_threshold_decides_reuse_in_fused_kernels_graph_code_and_variable_updates(
    elements: int, reused: bool
) -> None:
    x = tf.constant(np.linspace(-1, 1, elements, dtype=np.float32))
    fused_code = tf.function(lambda x: tf.tanh(tf.sin(x) * 2.0 + 1.0)).get_concrete_function(x).generated_code()
    column, row = tf.ones([elements, 1]), tf.ones([1, 1])  # a product of `elements` values, then one ufunc
    tf.config.optimizer.set_experimental_options({"elementwise_fusion": False, "remapping": False})
    try:
        product_code = tf.function(lambda a, b: tf.matmul(a, b) * 2.0).get_concrete_function(column, row)
        v = tf.Variable(np.zeros(elements, np.float32))
        update_code = tf.function(lambda g: v.assign_sub(0.5 * g)).get_concrete_function(x).generated_code()
        assert ("out=MatMul" in product_code.generated_code()) is reused
    finally:
        tf.config.optimizer.set_experimental_options({"elementwise_fusion": True, "remapping": True})
    assert ("out=" in fused_code) is reused
    assert ("assign_sub_into_delta(" in update_code) is reused


def test_a_product_that_is_also_returned_is_never_overwritten() -> None:
    a = tf.constant(np.ones([64, 64], np.float32))

    def scaled_and_product(a: Any) -> Any:
        product = tf.matmul(a, a)
        return tf.sin(product * 2.0), product

    code = tf.function(scaled_and_product).get_concrete_function(a).generated_code()
    assert "out=MatMul" not in code and "Sin(mul, out=mul)" in code  # the product stays; mul may go
    scaled, product = tf.function(scaled_and_product)(a)
    np.testing.assert_array_equal(product.numpy(), np.full([64, 64], 64.0, np.float32))
    np.testing.assert_allclose(scaled.numpy(), np.sin(np.full([64, 64], 128.0, np.float32)), rtol=1e-6)


def test_inputs_and_variable_values_are_never_written_into() -> None:
    values = np.linspace(-1, 1, 10_000, dtype=np.float32)
    x = tf.constant(values)
    v = tf.Variable(values)

    @tf.function
    def f(x: Any) -> Any:
        return tf.exp(x * 2.0) + tf.exp(v * 2.0)

    graph = f.get_concrete_function(x).optimized_graph
    found = buffers.readers(graph.execution_plan(), graph.outputs)
    made_here = {id(op) for op in graph.execution_plan()}
    for op in graph.get_operations():
        for t in op.inputs:
            if t.op.type in ("Placeholder", "ReadVariableOp", "Const"):
                assert not buffers.free_buffer(t, op, found, made_here), f"{op.name} may overwrite {t.name}"
    f(x)
    np.testing.assert_array_equal(x.numpy(), values)
    np.testing.assert_array_equal(v.numpy(), values)


def test_jit_regions_are_compiled_by_the_same_builder() -> None:
    @tf.function(jit_compile=True)
    def f(x: Any) -> Any:
        return tf.exp(x * 1.5 + 0.5) * 2.0

    x = tf.constant(np.linspace(-1, 1, 1000, dtype=np.float32))
    f(x)
    [region] = ops_of(f.get_concrete_function(x).optimized_graph, "XlaFusion")
    assert inspect.getsource(region.attrs["_kernel"]).startswith(f"def {region.attrs['_kernel'].__name__}(")
    np.testing.assert_allclose(f(x).numpy(), np.exp(x.numpy() * 1.5 + 0.5) * 2.0, rtol=1e-5)


def test_the_code_generators_docstring_shows_what_its_example_becomes() -> None:
    v = tf.Variable([1.0, 2.0])

    @tf.function
    def f(x: Any) -> Any:
        return x * 2.0 + v

    example = codegen.__doc__.split("a variable `v`):\n\n", 1)[1].split("\n\nWhere", 1)[0]
    shown = "\n".join(line.removeprefix("    ") for line in example.splitlines())
    assert f.get_concrete_function(tf.constant([1.0, 2.0])).generated_code().strip() == shown.strip()
