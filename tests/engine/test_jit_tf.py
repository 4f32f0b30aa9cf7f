"""`jit_compile=True` against real TensorFlow (XLA): results, retracing, gradients, `set_jit`, and the
errors for what XLA cannot compile and for an unknown compiler stage."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from harness import ENGINES, assert_same_error, run, same_program

pytestmark = pytest.mark.tf

XLA_FAILS = "Detected unsupported operations when trying to compile graph __inference_"


def _softmax_step(tf: Any, seen: list) -> None:
    """A cross-entropy and its gradient, compiled: expansion, reductions and transcendental regions."""

    @tf.function(jit_compile=True)
    def loss_and_gradient(logits, labels):
        with tf.GradientTape() as tape:
            tape.watch(logits)
            loss = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits(labels, logits))
        return loss, tape.gradient(loss, logits)

    logits = tf.constant(np.linspace(-3, 3, 40, dtype=np.float32).reshape(4, 10))
    labels = tf.one_hot([1, 3, 5, 9], 10)
    seen.extend(loss_and_gradient(logits, labels))
    seen.append(tf.nn.softmax(logits * 2.0))


@pytest.mark.slow
def test_a_compiled_cross_entropy_and_its_gradient_agree_with_xla() -> None:
    same_program(_softmax_step)


def test_jit_compile_retraces_as_tensorflow_does_and_gradients_flow_through_it() -> None:
    def case(tf: Any, seen: list) -> None:
        f = tf.function(lambda x: tf.reduce_sum(tf.tanh(x) * x + 1.0, axis=-1), jit_compile=True)
        x = tf.constant([[0.5, -1.0, 2.0]])
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = f(x)
        seen.extend([y, tape.gradient(y, x), f(tf.constant([[1.0, 2.0, 3.0]])), f(tf.constant([1.0, 2.0]))])
        seen.append(f.experimental_get_tracing_count())

    same_program(case)


def test_set_jit_and_get_jit_as_tensorflow_reports_them() -> None:
    def case(tf: Any, seen: list) -> None:
        seen.append(tf.config.optimizer.get_jit())
        for value in (True, "autoclustering", False):
            tf.config.optimizer.set_jit(value)
            seen.append(tf.config.optimizer.get_jit())

    same_program(case)


def _python_call(tf: Any) -> Any:
    f = tf.function(lambda x: tf.py_function(lambda a: a * 2, [x], tf.float32) + 1.0, jit_compile=True)
    return f(tf.constant([1.0]))


def _string_argument(tf: Any) -> Any:
    return tf.function(lambda s: tf.strings.length(s), jit_compile=True)(tf.constant(["ab"]))


@pytest.mark.parametrize(
    ("case", "fragment"),
    [
        (
            _python_call,
            "EagerPyFunc (No registered 'EagerPyFunc' OpKernel for XLA_CPU_JIT devices compatible with node "
            "{{node EagerPyFunc}}){{node EagerPyFunc}}",
        ),
        (
            _string_argument,
            "_Arg (No registered '_Arg' OpKernel for XLA_CPU_JIT devices compatible with node {{node s}}",
        ),
    ],
)
def test_an_op_xla_cannot_compile_fails_the_call_with_tensorflows_error(case: Any, fragment: str) -> None:
    mine, theirs = (run(engine, case).error for engine in ENGINES.values())
    assert mine is not None and theirs is not None
    assert_same_error(mine, theirs, fragment=XLA_FAILS, hint=True)
    assert_same_error(mine, theirs, fragment=fragment)


def test_an_unknown_compiler_stage_is_tensorflows_value_error() -> None:
    def case(tf: Any) -> Any:
        f = tf.function(lambda x: x * 2.0 + 1.0, jit_compile=True)
        return f.experimental_get_compiler_ir(tf.constant([1.0, 2.0]))(stage="bogus")

    mine, theirs = (run(engine, case).error for engine in ENGINES.values())
    assert mine is not None and theirs is not None
    assert_same_error(mine, theirs, message="within", hint=True)
