"""`tf.autodiff.ForwardAccumulator` on minitf against real TensorFlow: Jacobian-vector products of tensors
and variables, nested with tapes and other accumulators, inside `tf.function`, and its errors."""

from __future__ import annotations

import logging
from typing import Any

import pytest
from harness import ENGINES, alike, same_error

pytestmark = pytest.mark.tf


def test_jvp_along_a_tangent_inside_and_after_the_block() -> None:
    def case(tf: Any) -> Any:
        x = tf.constant([1.0, 2.0])
        with tf.autodiff.ForwardAccumulator(primals=x, tangents=tf.constant([1.0, 0.0])) as acc:
            y = x * x + tf.sin(x)
            z = tf.reduce_sum(y)
            inside = acc.jvp(y)
        return acc.jvp(y), acc.jvp(z), inside, acc.jvp(x)

    alike(case)


@pytest.mark.parametrize("how", ["none", "zero"])
def test_jvp_of_an_unconnected_tensor(how: str) -> None:
    def case(tf: Any) -> Any:
        x = tf.constant(1.0)
        with tf.autodiff.ForwardAccumulator(x, tf.constant(1.0)) as acc:
            unrelated = tf.constant([1.0, 2.0]) * 2.0
            as_int = tf.cast(x, tf.int32)
        return acc.jvp(unrelated, unconnected_gradients=how), acc.jvp(as_int)

    alike(case)


@pytest.mark.parametrize(
    "fn",
    [
        "tanh",
        "exp",
        "sigmoid",
        "matmul",
        "reduce_mean",
        "softmax",
        "where",
        "gather",
        "reduce_max",
        "concat",
        "slice",
        "relu",
    ],
)
def test_jvp_matches_tensorflow_for_common_ops(fn: str) -> None:
    ops = {
        "tanh": lambda tf, x: tf.tanh(x),
        "exp": lambda tf, x: tf.exp(x),
        "sigmoid": lambda tf, x: tf.sigmoid(x),
        "matmul": lambda tf, x: tf.matmul(x, tf.transpose(x)),
        "reduce_mean": lambda tf, x: tf.reduce_mean(x, axis=1),
        "softmax": lambda tf, x: tf.nn.softmax(x),
        "where": lambda tf, x: tf.where(x > 0.0, x * x, -x),
        "gather": lambda tf, x: tf.gather(x, [1, 0, 1]),
        "reduce_max": lambda tf, x: tf.reduce_max(x, axis=1),
        "concat": lambda tf, x: tf.concat([x, x * 2.0], axis=0),
        "slice": lambda tf, x: tf.reshape(x, [3, 2])[1:],
        "relu": lambda tf, x: tf.nn.relu(x - 0.3),
    }

    def case(tf: Any) -> Any:
        x = tf.constant([[0.5, -1.0, 2.0], [1.5, 0.25, -0.5]])
        tangent = tf.constant([[1.0, 2.0, -1.0], [0.5, 0.0, 3.0]])
        with tf.autodiff.ForwardAccumulator(x, tangent) as acc:
            y = ops[fn](tf, x)
        return acc.jvp(y)

    alike(case, rtol=1e-5, atol=1e-6, text=False)


def test_variables_carry_their_tangent_into_what_reads_them() -> None:
    def case(tf: Any) -> Any:
        v = tf.Variable([1.0, 2.0])
        with tf.autodiff.ForwardAccumulator(v, tf.constant([1.0, 1.0])) as acc:
            y = v * 3.0
        return acc.jvp(y), acc.jvp(v)

    alike(case)


def test_primals_and_tangents_in_nested_structures() -> None:
    def case(tf: Any) -> Any:
        a, b = tf.constant(1.0), tf.constant(2.0)
        with tf.autodiff.ForwardAccumulator({"a": a, "b": b}, {"a": tf.constant(1.0), "b": 10.0}) as acc:
            y = a * b
        return acc.jvp(y), acc.jvp([y, a]), acc.jvp({"k": y})

    alike(case)


def test_hessian_vector_product_forward_over_backward() -> None:
    def case(tf: Any) -> Any:
        x = tf.constant([1.0, 2.0])
        with tf.autodiff.ForwardAccumulator(x, tf.constant([1.0, 0.0])) as acc:
            with tf.GradientTape() as tape:
                tape.watch(x)
                y = tf.reduce_sum(x**3)
            g = tape.gradient(y, x)
        return acc.jvp(g)

    alike(case)


def test_backward_over_forward_differentiates_the_jvp() -> None:
    def case(tf: Any) -> Any:
        x = tf.constant([1.0, 2.0])
        with tf.GradientTape() as tape:
            tape.watch(x)
            with tf.autodiff.ForwardAccumulator(x, tf.constant([1.0, 0.0])) as acc:
                y = tf.reduce_sum(x**3)
            j = acc.jvp(y)
        return j, tape.gradient(j, x)

    alike(case)


def test_nested_accumulators_give_second_derivatives() -> None:
    def case(tf: Any) -> Any:
        x = tf.constant(2.0)
        with tf.autodiff.ForwardAccumulator(x, tf.constant(1.0)) as outer:
            with tf.autodiff.ForwardAccumulator(x, tf.constant(1.0)) as inner:
                y = x**3
            j = inner.jvp(y)
        return j, outer.jvp(j)

    alike(case)


def test_accumulator_inside_and_around_a_traced_function() -> None:
    def case(tf: Any) -> Any:
        @tf.function
        def inside(x):
            with tf.autodiff.ForwardAccumulator(x, tf.ones_like(x)) as acc:
                y = tf.exp(x) * 2.0
            return acc.jvp(y)

        around = tf.function(lambda x: tf.sin(x) * x)
        x = tf.constant([0.0, 1.0])
        with tf.autodiff.ForwardAccumulator(x, tf.constant([1.0, 2.0])) as acc:
            y = around(x)
        return inside(x), acc.jvp(y)

    alike(case, rtol=1e-6, text=False)


def test_custom_gradient_defines_the_forward_derivative_too() -> None:
    def case(tf: Any) -> Any:
        @tf.custom_gradient
        def clipped_identity(x):
            return tf.identity(x), lambda dy: tf.clip_by_value(dy, -0.5, 0.5)

        x = tf.constant([1.0, 2.0])
        with tf.autodiff.ForwardAccumulator(x, tf.constant([3.0, 0.25])) as acc:
            y = clipped_identity(x)
        return acc.jvp(y)

    alike(case)


def test_tangent_of_another_dtype_raises_value_error() -> None:
    def case(tf: Any) -> Any:
        return tf.autodiff.ForwardAccumulator(tf.constant([1.0, 2.0]), tf.constant([1, 2]))

    same_error(case, hint=False)


def test_tangents_in_another_structure_raise_value_error() -> None:
    def case(tf: Any) -> Any:
        return tf.autodiff.ForwardAccumulator([tf.constant(1.0)], [tf.constant(1.0), tf.constant(2.0)])

    for tf in ENGINES.values():
        with pytest.raises(ValueError, match="The two structures don't have the same nested structure."):
            case(tf)


def test_entering_a_recording_accumulator_again_raises_value_error() -> None:
    def case(tf: Any) -> Any:
        acc = tf.autodiff.ForwardAccumulator(tf.constant(1.0), tf.constant(1.0))
        with acc, acc:
            pass

    same_error(case)


def test_integer_primal_logs_tensorflows_warning(caplog: pytest.LogCaptureFixture) -> None:
    tf = ENGINES["minitf"]
    with caplog.at_level(logging.WARNING, logger="minitf"):
        tf.autodiff.ForwardAccumulator(tf.constant(1), tf.constant(1))
    assert "The dtype of the watched primal must be floating (e.g. tf.float32), got tf.int32" in caplog.text
