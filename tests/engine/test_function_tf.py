"""tf.function on minitf against real TensorFlow: results, tracing counts, printed text, graphs and errors.

The programs are those of TensorFlow's guides (function, intro_to_graphs, autograph) and of the course's
graph-execution chapter, written once against TensorFlow's API and run on both engines.
"""

from __future__ import annotations

import logging
import sys
from typing import Any

import numpy as np
import pytest
from harness import ENGINES, same_program

pytestmark = pytest.mark.tf


# --- tracing and retracing ---------------------------------------------------------------------------


def test_guide_double_traces_once_per_dtype_and_prints_symbolic_tensors() -> None:
    def case(tf: Any, seen: list) -> None:
        @tf.function
        def double(a):
            print("Tracing with", a)
            return a + a

        seen.append(double(tf.constant(1)))
        seen.append(double(tf.constant(1.1)))
        seen.append(double(tf.constant("a")))
        seen.append(double(tf.constant(2)))
        seen.append(double.experimental_get_tracing_count())
        print(double.pretty_printed_concrete_signatures())

    same_program(case)


def test_a_library_function_wrapped_directly_traces_and_runs() -> None:
    """tf.function(tf.tanh): the library's own functions are not converted by AutoGraph (minitf's once were, and
    the converted copy lost its module's names)."""

    def case(tf: Any, seen: list) -> None:
        x = tf.constant([-2.0, 0.5, 3.0])
        for fn in (tf.tanh, tf.nn.relu, tf.reduce_sum, tf.math.softplus):
            wrapped = tf.function(fn)
            seen.append(wrapped(x))
            seen.append(wrapped.experimental_get_tracing_count())
        seen.append(tf.function(tf.tanh, jit_compile=True)(tf.constant([100.0, -100.0])))

    same_program(case)


def test_python_scalars_key_by_value_and_one_equals_one_point_zero() -> None:
    def case(tf: Any, seen: list) -> None:
        @tf.function
        def f(x):
            print("tracing", x)
            return tf.constant(2) * x

        seen.append(f(1))
        seen.append(f(1.0))  # shares the int trace: an int32 result
        seen.append(f(2))
        seen.append(f(True))
        seen.append(f.experimental_get_tracing_count())

    same_program(case)


def test_shapes_retrace_unless_reduce_retracing_generalises_to_unknown_dims() -> None:
    def case(tf: Any, seen: list) -> None:
        for reduce in (False, True):

            @tf.function(reduce_retracing=reduce)
            def f(x):
                print("tracing", x)
                return tf.reduce_sum(x)

            for n in (1, 2, 3, 4):
                seen.append(f(tf.ones([n])))
            seen.append(f.experimental_get_tracing_count())

    same_program(case)


def test_lists_dicts_arrays_and_variables_in_the_cache_key() -> None:
    def case(tf: Any, seen: list) -> None:
        @tf.function
        def f(x):
            print("tracing", x)
            return 0

        f([1, 2])
        f([1, 2])
        f([2, 1])
        f({"a": 1, "b": 2})
        f({"b": 2, "a": 1})
        f(np.array([1, 2]))
        f(np.array([3, 4]))
        f(np.float32(1))
        f(np.float32(2))
        v, w = tf.Variable(1.0), tf.Variable(1.0)
        f(v)
        f(v)
        f(w)
        seen.append(f.experimental_get_tracing_count())

    same_program(case)


def test_input_signature_converts_arguments_and_rejects_the_wrong_dtype() -> None:
    def case(tf: Any, seen: list) -> None:
        @tf.function(input_signature=(tf.TensorSpec(shape=[None], dtype=tf.int32),))
        def next_collatz(x):
            print("Tracing with", x)
            return tf.where(x % 2 == 0, x // 2, 3 * x + 1)

        seen.append(next_collatz(tf.constant([1, 2])))
        seen.append(next_collatz(np.array([1, 2, 3, 4])))
        seen.append(next_collatz([5, 6]))
        seen.append(next_collatz.experimental_get_tracing_count())
        next_collatz(tf.constant([1.0, 2.0]))

    same_program(case, "Binding inputs to tf.function failed due to `Can not cast")


def test_concrete_function_from_spec_graph_and_literal_arguments() -> None:
    def case(tf: Any, seen: list) -> None:
        @tf.function
        def double(a):
            return a + a

        cf = double.get_concrete_function(tf.TensorSpec([None], tf.float32))
        seen.append(double.experimental_get_tracing_count())
        seen.append([op.type for op in cf.graph.get_operations()])
        seen.append([op.name for op in cf.graph.get_operations()])
        seen.append([list(node.input) for node in cf.graph.as_graph_def().node])
        seen.append(str(cf.structured_outputs))
        seen.append(cf(tf.constant([1.0, 2.0])))
        seen.append(double(tf.constant([3.0])))
        seen.append(double.experimental_get_tracing_count())
        print(cf.pretty_printed_signature())

        @tf.function
        def scale(x, b):
            return x * b

        scaled = scale.get_concrete_function(tf.TensorSpec([], tf.float32), 2)
        seen.append(scaled(tf.constant(3.0), 2))
        scaled(tf.constant(3.0), 3)

    same_program(case, "Can not cast 3 to Literal[2]")


def test_concrete_function_rejects_a_tensor_of_the_wrong_dtype() -> None:
    def case(tf: Any, seen: list) -> None:
        cf = tf.function(lambda x: x * 2).get_concrete_function(tf.TensorSpec([], tf.float32))
        seen.append(cf(tf.constant(2.0)))
        cf(tf.constant(2))

    same_program(case)


def test_retracing_warning_after_five_of_the_last_ten_calls_at_most_twice(caplog: pytest.LogCaptureFixture) -> None:
    counts = {}
    for engine, tf in ENGINES.items():
        caplog.clear()

        @tf.function
        def f(x):
            return x

        with caplog.at_level(logging.WARNING):
            for i in range(20):
                f(i)
        messages = [r.getMessage() for r in caplog.records if "triggered tf.function retracing" in r.getMessage()]
        counts[engine] = [m.split(" calls to ")[0] for m in messages]
    assert counts["minitf"] == counts["tensorflow"] == ["5 out of the last 5", "6 out of the last 6"]


def test_run_functions_eagerly_runs_python_every_call_and_never_traces() -> None:
    def case(tf: Any, seen: list) -> None:
        @tf.function
        def f(x):
            print("python ran", x.numpy())
            return x + 1

        tf.config.run_functions_eagerly(True)
        try:
            seen.append(f(tf.constant(1)))
            seen.append(f(tf.constant(2)))
            seen.append(tf.config.functions_run_eagerly())
            seen.append(f.experimental_get_tracing_count())
        finally:
            tf.config.run_functions_eagerly(False)
        seen.append(tf.config.functions_run_eagerly())

    same_program(case)


# --- side effects --------------------------------------------------------------------------------------


def _print_program(tf: Any) -> None:
    @tf.function
    def f(x):
        print("Traced with", x)
        tf.print("Executed with", x, output_stream=sys.stdout)

    for n in range(3):
        f(n)
    f("Hello")


def test_print_traces_once_tf_print_runs_every_call(capfd: pytest.CaptureFixture) -> None:
    outputs = {}
    for engine, tf in ENGINES.items():
        capfd.readouterr()
        _print_program(tf)
        outputs[engine] = capfd.readouterr().out
    assert outputs["minitf"] == outputs["tensorflow"]
    assert outputs["minitf"].count("Executed with") == 4


def test_list_appends_and_globals_are_frozen_at_trace_time() -> None:
    def case(tf: Any, seen: list) -> None:
        external_list: list = []
        settings = {"scale": 100}

        @tf.function
        def side_effect(x):
            external_list.append(x)
            return x * settings["scale"]

        seen.append(side_effect(tf.constant(1)))
        settings["scale"] = 5
        seen.append(side_effect(tf.constant(2)))
        seen.append(len(external_list))
        seen.append(str(external_list[0]))
        external_list[0].numpy()

    same_program(case, "'SymbolicTensor' object has no attribute 'numpy'")


def test_numpy_on_a_symbolic_tensor_raises_attribute_error() -> None:
    def case(tf: Any, seen: list) -> None:
        @tf.function
        def f(x):
            return x.numpy()

        f(tf.constant(1))

    same_program(case, "'SymbolicTensor' object has no attribute 'numpy'")


def test_bool_of_a_tensor_without_autograph_is_not_allowed_in_graph() -> None:
    def case(tf: Any, seen: list) -> None:
        @tf.function(autograph=False)
        def f(x):
            if x > 0:
                return x
            return -x

        f(tf.constant(1))

    same_program(case, "Using a symbolic `tf.Tensor` as a Python `bool` is not allowed")


def test_iterating_a_tensor_in_a_comprehension_is_not_allowed_in_graph() -> None:
    def case(tf: Any, seen: list) -> None:
        @tf.function
        def f(x):
            return [y for y in x]

        f(tf.constant([1, 2]))

    same_program(case, "Iterating over a symbolic `tf.Tensor` is not allowed")


def test_numpy_functions_on_symbolic_tensors_raise_not_implemented() -> None:
    def case(tf: Any, seen: list) -> None:
        @tf.function
        def f(x):
            return np.sum(x)

        f(tf.constant([1, 2]))

    same_program(case, "Cannot convert a symbolic tf.Tensor")


# --- variables ----------------------------------------------------------------------------------------


def test_variables_are_captured_read_and_updated_in_program_order() -> None:
    def case(tf: Any, seen: list) -> None:
        v = tf.Variable(2.0)

        @tf.function
        def f(x):
            v.assign_add(x)
            return v * x

        seen.append(f(tf.constant(1.0)))
        seen.append(f(tf.constant(1.0)))
        seen.append(v.numpy())
        cf = f.get_concrete_function(tf.constant(1.0))
        seen.append([op.type for op in cf.graph.get_operations()])

    same_program(case)


def test_creating_a_variable_inside_a_function_raises_value_error() -> None:
    def case(tf: Any, seen: list) -> None:
        @tf.function
        def f(x):
            v = tf.Variable(1.0)
            return v + x

        try:
            f(tf.constant(1.0))
        finally:
            seen.append(f.experimental_get_tracing_count())

    same_program(case, "tf.function only supports singleton tf.Variables created on the first call")


def test_module_lazy_variable_pattern_and_trainable_variables() -> None:
    def case(tf: Any, seen: list) -> None:
        class Dense(tf.Module):
            def __init__(self, units, name=None):
                super().__init__(name=name)
                self.units = units
                self.w = None
                self.b = tf.Variable(tf.zeros([units]), name="b")
                self.frozen = tf.Variable(1.0, trainable=False)

            @tf.function
            def __call__(self, x):
                print("tracing")
                if self.w is None:
                    self.w = tf.Variable(tf.ones([x.shape[-1], self.units]), name="w")
                return tf.matmul(x, self.w) + self.b

        class Model(tf.Module):
            def __init__(self):
                super().__init__()
                self.layers = [Dense(3), Dense(2)]

            def __call__(self, x):
                for layer in self.layers:
                    x = layer(x)
                return x

        model = Model()
        seen.append(model(tf.ones([1, 2])))
        seen.append(model(tf.ones([1, 2])))
        seen.append(model.layers[0].__call__.experimental_get_tracing_count())
        seen.append([v.shape.as_list() for v in model.trainable_variables])
        seen.append(len(model.variables))
        seen.append(len(model.submodules))
        seen.append(model.name)
        seen.append(model.layers[0].name)

    same_program(case)


# --- AutoGraph ----------------------------------------------------------------------------------------


def test_if_on_a_tensor_becomes_stateless_if_and_a_python_if_is_pruned() -> None:
    def case(tf: Any, seen: list) -> None:
        @tf.function
        def f(x, use_abs):
            if use_abs:
                x = tf.abs(x)
            if x > 0:
                y = x * 2
            else:
                y = x - 1
            return y

        for value in (1.0, -1.0):
            seen.append(f(tf.constant(value), True))
            seen.append(f(tf.constant(value), False))
        for flag in (True, False):
            cf = f.get_concrete_function(tf.constant(1.0), flag)
            seen.append([op.type for op in cf.graph.get_operations()])

    same_program(case)


def test_early_return_inside_if_works_like_if_else() -> None:
    def case(tf: Any, seen: list) -> None:
        @tf.function
        def f(x):
            if x > 0:
                return x
            return -x

        seen.append(f(tf.constant(-2.0)))
        seen.append(f(tf.constant(3.0)))
        seen.append([op.type for op in f.get_concrete_function(tf.constant(1.0)).graph.get_operations()])

    same_program(case)


def test_while_and_for_over_tensors_become_stateless_while() -> None:
    def case(tf: Any, seen: list) -> None:
        @tf.function
        def doubling(x):
            while x < 10:
                x = x * 2
            return x

        @tf.function
        def total(n):
            s = 0
            for i in tf.range(n):
                s += i
            return s

        @tf.function
        def total_py_range(n):
            s = tf.constant(0)
            for i in range(n):
                s += i
            return s

        seen.append(doubling(tf.constant(3)))
        seen.append([op.type for op in doubling.get_concrete_function(tf.constant(3)).graph.get_operations()])
        seen.append(total(tf.constant(5)))
        seen.append(total_py_range(tf.constant(5)))
        seen.append(
            "StatelessWhile" in [op.type for op in total.get_concrete_function(tf.constant(1)).graph.get_operations()]
        )

    same_program(case)


def test_python_range_is_unrolled_and_the_graph_grows() -> None:
    def case(tf: Any, seen: list) -> None:
        @tf.function
        def f(x, n):
            for i in range(n):
                x = x + i
            return x

        seen.append(f(tf.constant(1), 3))
        for n in (1, 3, 10):
            graph = f.get_concrete_function(tf.constant(1), n).graph
            seen.append(sum(op.type == "AddV2" for op in graph.get_operations()))
            seen.append("StatelessWhile" in [op.type for op in graph.get_operations()])

    same_program(case)


def test_break_and_continue_in_a_tensor_loop() -> None:
    def case(tf: Any, seen: list) -> None:
        @tf.function
        def f(x):
            for i in tf.range(10):
                if i > 6:
                    break
                if i % 2 == 0:
                    continue
                x += i
            return x

        @tf.function
        def g(n):
            count = 0
            while count < n:
                count += 1
                if count >= 3:
                    break
            return count

        seen.append(f(tf.constant(0)))
        seen.append(g(tf.constant(5)))
        seen.append(g(tf.constant(2)))

    same_program(case)


def test_a_python_while_true_with_a_tensor_break_is_not_implemented() -> None:
    def case(tf: Any, seen: list) -> None:
        @tf.function
        def g(n):
            count = 0
            while True:
                count += 1
                if count >= n:
                    break
            return count

        g(tf.constant(4))

    same_program(case, "The condition of while loop started as non-Tensor, then changed to Tensor.")


def _fizzbuzz_program(tf: Any) -> int:
    @tf.function
    def fizzbuzz(n):
        for i in tf.range(1, n + 1):
            if i % 15 == 0:
                tf.print("FizzBuzz", output_stream=sys.stdout)
            elif i % 3 == 0:
                tf.print("Fizz", output_stream=sys.stdout)
            elif i % 5 == 0:
                tf.print("Buzz", output_stream=sys.stdout)
            else:
                tf.print(i, output_stream=sys.stdout)

    fizzbuzz(tf.constant(15))
    return fizzbuzz.experimental_get_tracing_count()


def test_autograph_guide_fizzbuzz_prints_the_same(capfd: pytest.CaptureFixture) -> None:
    outputs = {}
    for engine, tf in ENGINES.items():
        capfd.readouterr()
        count = _fizzbuzz_program(tf)
        outputs[engine] = (capfd.readouterr().out, count)
    assert outputs["minitf"] == outputs["tensorflow"]
    assert outputs["minitf"][0].split()[:5] == ["1", "2", "Fizz", "4", "Buzz"]


def test_branch_dtype_mismatch_raises_type_error() -> None:
    def case(tf: Any, seen: list) -> None:
        @tf.function
        def f(x):
            if x > 0:
                y = 1.0
            else:
                y = 1
            return y

        f(tf.constant(1))

    same_program(case, "'y' has dtype float32 in the main branch, but dtype int32 in the else branch")


def test_return_dtype_mismatch_names_retval() -> None:
    def case(tf: Any, seen: list) -> None:
        @tf.function
        def f(x):
            if x > 0:
                return 1.0
            return 1

        f(tf.constant(1))

    same_program(case, "'retval_' has dtype float32 in the main branch, but dtype int32 in the else branch")


def test_variable_defined_in_one_branch_only_raises_value_error() -> None:
    def case(tf: Any, seen: list) -> None:
        @tf.function
        def f(x):
            if x > 0:
                y = 1
            return y

        f(tf.constant(1))

    same_program(case, "'y' must also be initialized in the else branch")


def test_loop_variable_changing_shape_raises_value_error() -> None:
    def case(tf: Any, seen: list) -> None:
        @tf.function
        def f(x):
            while tf.reduce_sum(x) < 10:
                x = tf.concat([x, x], 0)
            return x

        f(tf.constant([1]))

    same_program(case, "Use tf.autograph.experimental.set_loop_options to set shape invariants.")


def test_tensor_array_stacks_per_iteration_results() -> None:
    def case(tf: Any, seen: list) -> None:
        @tf.function
        def squares(n):
            ta = tf.TensorArray(tf.float32, size=0, dynamic_size=True)
            for i in tf.range(n):
                ta = ta.write(i, tf.cast(i * i, tf.float32))
            return ta.stack()

        seen.append(squares(tf.constant(5)))

    same_program(case)


def test_explicit_cond_and_while_loop() -> None:
    def case(tf: Any, seen: list) -> None:
        @tf.function
        def f(x):
            y = tf.cond(x > 0, lambda: x * 10, lambda: x - 10)
            i, total = tf.while_loop(lambda i, t: i < 4, lambda i, t: (i + 1, t + y), (0, 0.0))
            return i, total

        seen.append(f(tf.constant(2.0)))
        seen.append(f(tf.constant(-2.0)))
        seen.append(tf.cond(tf.constant(True), lambda: 1, lambda: 2))

    same_program(case)


def test_returning_python_values_gives_tensors_and_none_stays_none() -> None:
    def case(tf: Any, seen: list) -> None:
        @tf.function
        def f():
            return 1, "a", None

        seen.append(f())

    same_program(case)


def test_non_strict_execution_skips_an_unused_failing_op() -> None:
    def case(tf: Any, seen: list) -> None:
        def unused_return(x):
            tf.gather(x, [3])
            return x

        @tf.function
        def unused_in_graph(x):
            tf.gather(x, [3])
            return x

        seen.append(unused_in_graph(tf.constant([0.0])))
        unused_return(tf.constant([0.0]))

    same_program(case)


def test_a_graph_error_is_an_invalid_argument_error_at_call_time() -> None:
    def case(tf: Any, seen: list) -> None:
        @tf.function
        def f(x, i):
            return tf.gather(x, i)

        seen.append(f(tf.constant([1, 2]), tf.constant(1)))
        f(tf.constant([1, 2]), tf.constant(5))

    same_program(case, "indices")


def test_mixed_dtypes_inside_a_function_raise_type_error_at_trace_time() -> None:
    def case(tf: Any, seen: list) -> None:
        @tf.function
        def f(x, y):
            return x + y

        f(tf.constant(1), tf.constant(1.0))

    same_program(case, "Input 'y' of 'AddV2' Op has type float32 that does not match type int32 of argument 'x'.")


def test_methods_trace_per_instance() -> None:
    def case(tf: Any, seen: list) -> None:
        class Scaler:
            def __init__(self, k):
                self.k = k

            @tf.function
            def scale(self, x):
                print("tracing for", self.k)
                return x * self.k

        a, b = Scaler(2.0), Scaler(3.0)
        seen.append(a.scale(tf.constant(1.0)))
        seen.append(b.scale(tf.constant(1.0)))
        seen.append(a.scale(tf.constant(2.0)))

    same_program(case)


def test_nested_functions_and_init_scope() -> None:
    def case(tf: Any, seen: list) -> None:
        @tf.function
        def inner(x):
            return x * x

        @tf.function
        def outer(x):
            with tf.init_scope():
                seen.append(tf.executing_eagerly())
            seen.append(tf.executing_eagerly())
            return inner(x) + 1

        seen.append(outer(tf.constant(3.0)))
        seen.append(inner.experimental_get_tracing_count())

    same_program(case)


# --- gradients ----------------------------------------------------------------------------------------


def test_gradient_with_a_tape_outside_a_function_call() -> None:
    def case(tf: Any, seen: list) -> None:
        w = tf.Variable([[1.0, 2.0]])

        @tf.function
        def loss(x):
            return tf.reduce_sum(tf.matmul(x, w, transpose_b=True) ** 2)

        x = tf.constant([[3.0, 4.0]])
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = loss(x)
        seen.append(tape.gradient(y, [x, w]))

    same_program(case)


def test_gradient_with_a_tape_inside_a_function_as_in_the_course() -> None:
    def case(tf: Any, seen: list) -> None:
        @tf.function
        def compute_gradient(x):
            with tf.GradientTape() as tape:
                y = x * x * x
            return tape.gradient(y, x)

        @tf.function
        def compute_gradient_conditional(x):
            with tf.GradientTape() as tape:
                if tf.reduce_sum(x) > 0:
                    y = x * x
                else:
                    y = x * x * x
            return tape.gradient(y, x)

        seen.append(compute_gradient(tf.Variable(3.0)))
        seen.append(compute_gradient_conditional(tf.Variable([-2.0, 2.0])))
        seen.append(compute_gradient_conditional(tf.Variable([-2.0, 1.0])))

    same_program(case)


def test_higher_order_gradients_inside_a_function() -> None:
    def case(tf: Any, seen: list) -> None:
        @tf.function
        def derivatives(x):
            with tf.GradientTape() as outer:
                outer.watch(x)
                with tf.GradientTape() as inner:
                    inner.watch(x)
                    y = x**3
                dy = inner.gradient(y, x)
            return dy, outer.gradient(dy, x)

        seen.append(derivatives(tf.constant(1.0)))

    same_program(case)


def test_gradients_through_traced_cond_and_while() -> None:
    def case(tf: Any, seen: list) -> None:
        @tf.function
        def branchy(x):
            if x > 0:
                return x * x
            return x * x * x

        @tf.function
        def cube(x):
            y = tf.constant(1.0)
            i = 0
            while i < 3:
                y = y * x
                i += 1
            return y

        @tf.function
        def cube_tensor_loop(x):
            return tf.while_loop(lambda i, y: i < 3, lambda i, y: (i + 1, y * x), (tf.constant(0), 1.0))[1]

        for fn in (branchy, cube, cube_tensor_loop):
            for value in (2.0, -1.5):
                x = tf.constant(value)
                with tf.GradientTape() as tape:
                    tape.watch(x)
                    y = fn(x)
                seen.append(tape.gradient(y, x))

    same_program(case)


def test_second_derivative_through_a_traced_cond() -> None:
    def case(tf: Any, seen: list) -> None:
        @tf.function
        def f(x):
            if x > 0:
                return x**3
            return x**2

        for value in (2.0, -3.0):
            x = tf.constant(value)
            with tf.GradientTape() as outer:
                outer.watch(x)
                with tf.GradientTape() as inner:
                    inner.watch(x)
                    y = f(x)
                dy = inner.gradient(y, x)
            seen.append([dy, outer.gradient(dy, x)])

    same_program(case)


def test_training_step_in_a_function_updates_variables() -> None:
    def case(tf: Any, seen: list) -> None:
        w = tf.Variable(0.0)
        b = tf.Variable(0.0)
        xs = tf.constant([1.0, 2.0, 3.0])
        ys = tf.constant([3.0, 5.0, 7.0])

        @tf.function
        def train_step():
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean((w * xs + b - ys) ** 2)
            dw, db = tape.gradient(loss, [w, b])
            w.assign_sub(0.05 * dw)
            b.assign_sub(0.05 * db)
            return loss

        for _ in range(30):
            loss = train_step()
        seen.append(loss)
        seen.append([w.numpy(), b.numpy()])
        seen.append(train_step.experimental_get_tracing_count())

    same_program(case)


def test_called_python_functions_are_converted_too() -> None:
    def case(tf: Any, seen: list) -> None:
        def helper(x):
            if x > 0:
                return x
            return -x

        @tf.function
        def calls(x):
            return helper(x) * 2

        seen.append(calls(tf.constant(-3)))
        seen.append([op.type for op in calls.get_concrete_function(tf.constant(1)).graph.get_operations()])

    same_program(case)


def test_name_scopes_prefix_op_names() -> None:
    def case(tf: Any, seen: list) -> None:
        @tf.function
        def f(x):
            with tf.name_scope("layer"):
                y = x * 2
            return y + 1

        names = [op.name for op in f.get_concrete_function(tf.constant(1.0)).graph.get_operations()]
        seen.append([n for n in names if n.startswith("layer/") and not n.endswith("/y")])

    same_program(case)


def test_a_tensor_leaked_from_one_function_is_out_of_scope_in_another() -> None:
    def case(tf: Any, seen: list) -> None:
        leaked = []

        @tf.function
        def leaky(a):
            leaked.append(a + 1)
            return a

        @tf.function
        def use(b):
            return leaked[0] + b

        leaky(tf.constant(1))
        seen.append(str(leaked[0]))
        use(tf.constant(1))

    same_program(case, "is out of scope and cannot be used here")


def test_op_names_and_printed_intermediate_tensors_match() -> None:
    def case(tf: Any, seen: list) -> None:
        @tf.function
        def g(x, y=2, *, z=3):
            return x * y + z

        @tf.function
        def p(x):
            print(x, x + 1, x * 2, tf.reduce_sum(x), x[0], tf.matmul(x, x), -x, x / 2, x**2)
            return x

        cf = g.get_concrete_function(tf.constant(1.0))
        seen.append([(op.name, op.type, [t.name for t in op.inputs]) for op in cf.graph.get_operations()])
        print(g.pretty_printed_concrete_signatures())
        seen.append(g(tf.constant(1.0), z=4))
        p(tf.ones([2, 2]))
        seen.append(
            [
                op.type
                for op in p.get_concrete_function(tf.ones([2, 2])).graph.get_operations()
                if op.type not in ("Const", "Pack")
            ]
        )

    same_program(case)


def test_guide_variables_assigned_in_order_and_python_counter_frozen() -> None:
    def case(tf: Any, seen: list) -> None:
        a = tf.Variable(1.0)
        b = tf.Variable(2.0)

        @tf.function
        def f(x, y):
            a.assign(y * b)
            b.assign_add(x * a)
            return a + b

        seen.append(f(1.0, 2.0))

        class Model(tf.Module):
            def __init__(self):
                self.v = tf.Variable(0)
                self.counter = 0

            @tf.function
            def __call__(self):
                if self.counter == 0:
                    self.counter += 1
                    self.v.assign_add(1)
                return self.v

        m = Model()
        for _ in range(3):
            seen.append(m())
        seen.append(m.counter)

    same_program(case)


def test_boolean_operators_and_conditional_expressions_on_tensors() -> None:
    def case(tf: Any, seen: list) -> None:
        @tf.function
        def in_range(x):
            if x > 0 and x < 10:
                return 1
            elif not x > -5 or x == -7:
                return 2
            else:
                return 3

        @tf.function
        def absolute(x):
            return x if x >= 0 else -x

        for value in (5, 20, -7, -6, -3):
            seen.append(in_range(tf.constant(value)))
        seen.append(absolute(tf.constant(-4.0)))
        seen.append(absolute(tf.constant(4.0)))

    same_program(case)


def test_for_over_tensor_rows_and_nested_structures_out() -> None:
    def case(tf: Any, seen: list) -> None:
        @tf.function
        def row_sums(x):
            total = tf.zeros([x.shape[1]])
            count = 0
            for row in x:
                total += row
                count += 1
            return {"total": total, "count": count, "pair": (count, [total])}

        seen.append(row_sums(tf.ones([3, 2])))

    same_program(case)


def test_set_loop_options_allows_a_loop_variable_to_grow() -> None:
    def case(tf: Any, seen: list) -> None:
        @tf.function
        def grow(x):
            for _ in tf.range(3):
                tf.autograph.experimental.set_loop_options(shape_invariants=[(x, tf.TensorShape([None]))])
                x = tf.concat([x, x], 0)
            return x

        seen.append(grow(tf.constant([1])))

    same_program(case)


def test_reduce_retracing_keeps_python_values_as_literals() -> None:
    def case(tf: Any, seen: list) -> None:
        @tf.function(reduce_retracing=True)
        def step(x, lr):
            print("tracing", lr)
            return x * lr

        for lr in (0.1, 0.1, 0.2, 0.1):
            seen.append(step(tf.constant(1.0), lr))
        for n in (2, 3, 4):
            seen.append(step(tf.ones([n]), 0.1))
        seen.append(step.experimental_get_tracing_count())

    same_program(case)


def test_gradient_reaches_variables_read_inside_a_traced_cond() -> None:
    def case(tf: Any, seen: list) -> None:
        w = tf.Variable(3.0)

        @tf.function
        def f(x):
            if x > 0:
                y = w * x
            else:
                y = w * w
            return y

        for value in (2.0, -1.0):
            with tf.GradientTape() as tape:
                y = f(tf.constant(value))
            seen.append(tape.gradient(y, w))

        @tf.function
        def inside(x):
            with tf.GradientTape() as tape:
                y = f(x)
            return tape.gradient(y, w)

        seen.append(inside(tf.constant(2.0)))
        seen.append(inside(tf.constant(-1.0)))

    same_program(case)


def test_return_after_an_elif_chain_needs_an_else_as_in_tensorflow() -> None:
    def case(tf: Any, seen: list) -> None:
        @tf.function
        def sign(x):
            if x > 0:
                return 1
            elif x < 0:
                return -1
            return 0

        sign(tf.constant(3))

    same_program(case, "the else branch must also have a return statement.")


def test_guide_concrete_function_keyword_call_and_graph_def_listing() -> None:
    def case(tf: Any, seen: list) -> None:
        @tf.function
        def double(a):
            return a + a

        double_strings = double.get_concrete_function(tf.constant("a"))
        print(double_strings)
        seen.append(double_strings(a=tf.constant("b")))
        for node in double_strings.graph.as_graph_def().node:
            print(f"{node.input} -> {node.name}")
        seen.append(str(double.get_concrete_function(tf.TensorSpec(shape=None, dtype=tf.string)).outputs[0]))

    same_program(case)


def test_guide_retracing_with_a_nested_function_in_a_tensor_loop() -> None:
    def case(tf: Any, seen: list) -> None:
        @tf.function
        def train_one_step():
            pass

        @tf.function
        def train(num_steps):
            print("Tracing with num_steps =", num_steps)
            for _ in tf.range(num_steps):
                train_one_step()

        train(num_steps=10)
        train(num_steps=20)
        train(num_steps=tf.constant(10))
        train(num_steps=tf.constant(20))
        seen.append(train.experimental_get_tracing_count())
        seen.append(train_one_step.experimental_get_tracing_count())

    same_program(case)


def test_autograph_guide_sum_even_and_square_if_positive() -> None:
    def case(tf: Any, seen: list) -> None:
        @tf.function
        def sum_even(items):
            s = 0
            for c in items:
                if c % 2 > 0:
                    continue
                s += c
            return s

        @tf.function
        def square_if_positive(x):
            if x > 0:
                x = x * x
            else:
                x = 0.0
            return x

        @tf.function
        def simple_relu(x):
            if tf.greater(x, 0):
                return x
            else:
                return 0

        seen.append(sum_even(tf.constant([10, 12, 15, 20])))
        seen.append(square_if_positive(tf.constant(3.0)))
        seen.append(square_if_positive(tf.constant(-2.0)))
        seen.append([simple_relu(tf.constant(v)) for v in (1, -1)])

    same_program(case)


def test_intro_to_graphs_mse_traces_once_and_prints_once() -> None:
    def case(tf: Any, seen: list) -> None:
        @tf.function
        def get_mse(y_true, y_pred):
            print("Calculating MSE!")
            sq_diff = tf.pow(y_true - y_pred, 2)
            return tf.reduce_mean(sq_diff)

        y_true = tf.constant([5, 1, 4, 3, 2, 0])
        y_pred = tf.constant([1, 0, 4, 1, 2, 4])
        for _ in range(3):
            seen.append(get_mse(y_true, y_pred))

    same_program(case)


def test_calling_a_function_from_a_function_records_a_call_op() -> None:
    def case(tf: Any, seen: list) -> None:
        v = tf.Variable(2.0)

        @tf.function
        def inner(x):
            return x * x

        @tf.function
        def inner_with_variable(x):
            return x * v

        @tf.function
        def outer(x):
            return inner(x) + inner_with_variable(x)

        cf = outer.get_concrete_function(tf.constant(3.0))
        seen.append([op.type for op in cf.graph.get_operations()])
        x = tf.constant(3.0)
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = outer(x)
        seen.append(tape.gradient(y, [x, v]))

    same_program(case)


def test_reduce_retracing_generalises_tensors_inside_lists() -> None:
    def case(tf: Any, seen: list) -> None:
        @tf.function(reduce_retracing=True)
        def f(pair):
            print("tracing", pair)
            return pair[0] + pair[1]

        for n in (1, 2, 3, 4):
            seen.append(f([tf.ones([n]), tf.ones([n])]))
        seen.append(f.experimental_get_tracing_count())
        print(f.pretty_printed_concrete_signatures())

    same_program(case)


def test_second_derivative_through_a_while_loop_and_gradient_through_a_tensor_array() -> None:
    def case(tf: Any, seen: list) -> None:
        @tf.function
        def cube_derivatives(x):
            with tf.GradientTape() as outer:
                outer.watch(x)
                with tf.GradientTape() as inner:
                    inner.watch(x)
                    y = tf.while_loop(lambda i, y: i < 3, lambda i, y: (i + 1, y * x), (tf.constant(0), 1.0))[1]
                dy = inner.gradient(y, x)
            return dy, outer.gradient(dy, x)

        @tf.function
        def stacked(x):
            ta = tf.TensorArray(tf.float32, size=0, dynamic_size=True)
            for i in tf.range(3):
                ta = ta.write(i, x * tf.cast(i, tf.float32))
            return tf.reduce_sum(ta.stack())

        seen.append(cube_derivatives(tf.constant(2.0)))
        x = tf.constant(2.0)
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = stacked(x)
        seen.append([y, tape.gradient(y, x)])

    same_program(case)


def _define_in_a_loop(tf: Any) -> None:
    for i in range(8):

        @tf.function
        def f(x):
            return x + 1

        f(tf.constant(i))


def test_defining_a_function_in_a_loop_triggers_the_retracing_warning(caplog: pytest.LogCaptureFixture) -> None:
    counts = {}
    for engine, tf in ENGINES.items():
        caplog.clear()
        with caplog.at_level(logging.WARNING):
            _define_in_a_loop(tf)
        counts[engine] = [
            r.getMessage().split(" calls to ")[0]
            for r in caplog.records
            if "triggered tf.function retracing" in r.getMessage()
        ]
    assert counts["minitf"] == counts["tensorflow"] == ["5 out of the last 5", "6 out of the last 6"]


def test_creating_variables_on_a_later_call_raises_value_error() -> None:
    def case(tf: Any, seen: list) -> None:
        class Lazy(tf.Module):
            def __init__(self):
                self.v = None

            @tf.function
            def __call__(self, x, make):
                if make and self.v is None:
                    self.v = tf.Variable(1.0)
                return x

        m = Lazy()
        seen.append(m(tf.constant(1.0), False))
        m(tf.constant(1.0), True)

    same_program(case, "Creating variables on a non-first call to a function decorated with tf.function.")


def test_input_signature_with_a_list_of_specs() -> None:
    def case(tf: Any, seen: list) -> None:
        @tf.function(input_signature=[[tf.TensorSpec([None], tf.float32), tf.TensorSpec([], tf.float32)]])
        def scaled_sum(pair):
            print("tracing", pair)
            return tf.reduce_sum(pair[0]) * pair[1]

        seen.append(scaled_sum([tf.constant([1.0, 2.0]), tf.constant(3.0)]))
        seen.append(scaled_sum([[1.0, 2.0, 3.0], 2.0]))
        seen.append(scaled_sum.experimental_get_tracing_count())

    same_program(case)
