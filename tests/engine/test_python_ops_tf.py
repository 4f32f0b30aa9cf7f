"""`tf.py_function` and `tf.numpy_function` on minitf against real TensorFlow: eagerly and in graphs, their
ops and printed tensors, gradients, and the errors of the Python functions they run."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from harness import same_program

pytestmark = pytest.mark.tf


def test_py_function_gets_eager_tensors_and_returns_tout_dtypes() -> None:
    def case(tf: Any, seen: list) -> None:
        def f(x, y):
            print("running with", type(x).__name__, x.numpy())
            return x * y, x + y

        seen.append(tf.py_function(f, [tf.constant(2.0), 3.0], [tf.float32, tf.float32]))
        seen.append(tf.py_function(lambda x: x * 2, [tf.constant([1, 2])], tf.int32))
        seen.append(tf.py_function(func=lambda: tf.constant(1), inp=[], Tout=tf.int32))

    same_program(case)


def test_numpy_function_gets_arrays_and_eagerly_just_converts_the_result() -> None:
    def case(tf: Any, seen: list) -> None:
        def f(x):
            print("running with", type(x).__name__)
            return x * 2

        seen.append(tf.numpy_function(f, [tf.constant([1.0, 2.0])], tf.float32))
        seen.append(
            tf.numpy_function(lambda x: (x, x.astype(np.int64)), [np.array([1.0], np.float32)], [tf.float32, tf.int64])
        )
        seen.append(tf.numpy_function(lambda a: a, [tf.constant(1)], tf.float32))

    same_program(case)


def test_in_a_graph_both_run_on_every_call_with_unknown_shapes() -> None:
    def case(tf: Any, seen: list) -> None:
        @tf.function
        def g(x):
            y = tf.py_function(lambda a: a * 10, [x], tf.float32)
            z = tf.numpy_function(lambda a: np.sqrt(a), [x], tf.float32)
            print(y, z)
            return y + z

        seen.append(g(tf.constant([4.0])))
        seen.append(g(tf.constant([9.0])))
        seen.append([op.type for op in g.get_concrete_function(tf.constant([4.0])).graph.get_operations()])

    same_program(case)


def test_py_function_is_differentiable_eagerly_and_in_graphs_numpy_function_is_not() -> None:
    def case(tf: Any, seen: list) -> None:
        x = tf.constant(3.0)
        with tf.GradientTape(persistent=True) as tape:
            tape.watch(x)
            y = tf.py_function(lambda a: a * a, [x], tf.float32)
            z = tf.numpy_function(lambda a: a * a, [x], tf.float32)
        seen.append(tape.gradient(y, x))
        seen.append(tape.gradient(z, x))

        @tf.function
        def h(x):
            with tf.GradientTape() as tape:
                tape.watch(x)
                y = tf.py_function(lambda a: tf.sin(a) * a, [x], tf.float32)
            return tape.gradient(y, x)

        seen.append(h(tf.constant(0.5)))

    same_program(case)


@pytest.mark.parametrize("where", ["eager", "graph"])
def test_errors_of_the_python_function_become_tensorflow_errors(where: str) -> None:
    def boom(a):
        return 1 // 0

    def case(tf: Any, seen: list) -> None:
        def run(x):
            return tf.py_function(boom, [x], tf.int32)

        (tf.function(run) if where == "graph" else run)(tf.constant(1))

    same_program(case, error_fragment="ZeroDivisionError: integer division or modulo by zero", hint=True)


@pytest.mark.parametrize("function", ["py_function", "numpy_function"])
def test_wrong_result_dtype_in_a_graph_raises_invalid_argument(function: str) -> None:
    def case(tf: Any, seen: list) -> None:
        @tf.function
        def k(x):
            if function == "py_function":
                return tf.py_function(lambda a: a, [x], tf.float32)
            return tf.numpy_function(lambda a: a.astype(np.float64), [x], tf.float32)

        k(tf.constant(1) if function == "py_function" else tf.constant(1.0))

    fragment = (
        "Tensor conversion requested dtype float32 for Tensor with dtype int32"
        if function == "py_function"
        else "is double, but expects float"
    )
    same_program(case, error_fragment=fragment)


def test_py_function_returning_too_few_values_raises_invalid_argument() -> None:
    def case(tf: Any, seen: list) -> None:
        tf.py_function(lambda a: a, [tf.constant(1)], [tf.int32, tf.int32])

    same_program(case, error_fragment="returns 1 values, but expects to see 2 values.")
