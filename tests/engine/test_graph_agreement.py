"""Generated programs agree five ways: minitf eagerly, minitf's traced graph as traced, minitf's optimised graph,
minitf's jit (`jit_compile=True`: regions compiled to loops) and real TensorFlow's tf.function.

A program is a list of steps drawn by hypothesis. Each step applies an op to earlier values: elementwise maths
with broadcasting, neutral constants (`x * 1`, `x + 0`) that simplification removes, constant subexpressions
that folding computes, repeated subexpressions that CSE merges, casts between float32 and float64,
reductions, a dense layer that MatMul fusion fuses, a `tf.cond`, and a variable updated along the way. Some
programs also take their gradient under a tape inside the function. minitf's first three ways must agree exactly
(the passes never change what a kernel computes); the jit within float32 rounding (its loops add in another
order and lower a kernel to scalar operations, as XLA does), and TensorFlow too.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import tensorflow as real_tf

import minitf
from minitf.function.compiling import optimizer

pytestmark = [pytest.mark.tf, pytest.mark.filterwarnings("ignore::RuntimeWarning")]

EXAMPLES = settings(
    max_examples=int(os.environ.get("DIFFERENTIAL_EXAMPLES", "40")),
    deadline=None,
    derandomize=os.environ.get("DIFFERENTIAL_RANDOM") != "1",
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.function_scoped_fixture],
)  # the fixture only restores switches

UNARY = ["sin", "tanh", "negative", "square", "abs", "relu", "sigmoid", "cos"]
BINARY = ["add", "subtract", "multiply", "maximum"]
W = np.linspace(-1, 1, 16, dtype=np.float32).reshape(4, 4)
B = np.array([0.5, -0.5, 0.25, 0.0], np.float32)

step = st.one_of(
    st.tuples(st.just("unary"), st.sampled_from(UNARY), st.integers(0, 50)),
    st.tuples(st.just("binary"), st.sampled_from(BINARY), st.integers(0, 50), st.integers(0, 50)),
    st.tuples(st.just("neutral"), st.sampled_from(["*1", "1*", "+0", "-0", "/1", "--"]), st.integers(0, 50)),
    st.tuples(st.just("folded"), st.floats(-2, 2, width=32), st.integers(0, 50)),
    st.tuples(st.just("twice"), st.sampled_from(UNARY), st.integers(0, 50)),
    st.tuples(st.just("cast"), st.integers(0, 50)),
    st.tuples(st.just("reduce"), st.integers(0, 50)),
    st.tuples(st.just("dense"), st.sampled_from(["relu", "tanh", "none"])),
    st.tuples(st.just("cond"), st.integers(0, 50)),
    st.tuples(st.just("variable"), st.integers(0, 50)),
)
program = st.lists(step, min_size=1, max_size=12)
values = st.lists(st.floats(-2, 2, width=32), min_size=12, max_size=12)


def run_program(tf: Any, steps: list[tuple], x: Any, y: Any, v: Any) -> Any:
    """Apply the steps to x (3x4) and y (4,); every value is 3x4 or broadcasts to it."""
    vals = [x, y]

    def pick(i: int) -> Any:
        return vals[i % len(vals)]

    for kind, *args in steps:
        if kind == "unary":
            name, i = args
            out = tf.nn.relu(pick(i)) if name == "relu" else getattr(tf.math, name)(pick(i))
        elif kind == "binary":
            name, i, j = args
            out = getattr(tf.math, name)(pick(i), pick(j))
        elif kind == "neutral":
            out = neutral(tf, args[0], pick(args[1]))
        elif kind == "folded":
            c, i = args
            out = pick(i) * (tf.constant(c) * tf.constant(2.0) + tf.constant(1.0))
        elif kind == "twice":
            name, i = args
            f = getattr(tf.math, name) if name != "relu" else tf.nn.relu
            out = f(pick(i)) + f(pick(i))
        elif kind == "cast":
            out = tf.cast(tf.cast(pick(args[0]), tf.float64) * 2.0, tf.float32)
        elif kind == "reduce":
            out = tf.reduce_sum(pick(args[0]), axis=-1, keepdims=True)
        elif kind == "dense":
            z = tf.matmul(tf.reshape(vals[-1] + x, [3, 4]), tf.constant(W)) + tf.constant(B)
            out = {"relu": tf.nn.relu, "tanh": tf.tanh, "none": lambda t: t}[args[0]](z)
        elif kind == "cond":
            a = pick(args[0])
            out = tf.cond(tf.reduce_sum(a) > 0, lambda a=a: a * 2.0, lambda a=a: a - 1.0)
        else:  # variable
            v.assign_add(tf.reduce_mean(pick(args[0])))
            out = x * v
        vals.append(out)
    return vals[-1] + tf.zeros([3, 4])


def neutral(tf: Any, how: str, a: Any) -> Any:
    """An op that returns `a` unchanged, written the ways students write them."""
    if how == "*1":
        return a * 1.0
    if how == "1*":
        return 1.0 * a
    if how == "+0":
        return a + 0.0
    if how == "-0":
        return a - 0.0
    if how == "/1":
        return a / 1.0
    return tf.negative(tf.negative(a))


def with_gradient(tf: Any, steps: list[tuple], x: Any, y: Any, v: Any) -> Any:
    with tf.GradientTape() as tape:
        tape.watch(x)
        out = run_program(tf, steps, x, y, v)
        loss = tf.reduce_sum(out * out)
    return out, tape.gradient(loss, x, unconnected_gradients=tf.UnconnectedGradients.ZERO)


@pytest.fixture
def switches() -> Iterator[Callable[[bool], None]]:
    saved = dict(optimizer._options)

    def optimise(on: bool) -> None:
        optimizer.set_experimental_options({"disable_meta_optimizer": not on})

    yield optimise
    optimizer._options.clear()
    optimizer._options.update(saved)
    optimizer._version[0] += 1


def outcomes(
    tf: Any, body: Callable, steps: list[tuple], data: list[float], mode: str, switches: Callable[[bool], None]
) -> tuple[np.ndarray, ...]:
    x = tf.constant(np.array(data, np.float32).reshape(3, 4))
    y = tf.constant(np.array(data[:4], np.float32)[::-1].copy())
    v = tf.Variable(0.5)
    if mode == "eager":
        result = body(tf, steps, x, y, v)
    else:
        switches(mode != "traced")
        result = tf.function(lambda x, y: body(tf, steps, x, y, v), jit_compile=mode == "jit")(x, y)
    parts = result if isinstance(result, tuple) else (result,)
    return (*[np.asarray(p.numpy()) for p in parts], np.asarray(v.numpy()))


def check(
    body: Callable, steps: list[tuple], data: list[float], switches: Callable[[bool], None], jit: bool = True
) -> None:
    eager = outcomes(minitf, body, steps, data, "eager", switches)
    traced = outcomes(minitf, body, steps, data, "traced", switches)
    optimised = outcomes(minitf, body, steps, data, "optimised", switches)
    reference = outcomes(real_tf, body, steps, data, "tensorflow", switches)
    jitted = outcomes(minitf, body, steps, data, "jit", switches) if jit else optimised
    for e, t, o, j, r in zip(eager, traced, optimised, jitted, reference):
        np.testing.assert_array_equal(t, o, err_msg=f"traced vs optimised graph, program {steps}")
        np.testing.assert_allclose(e, o, rtol=1e-6, atol=1e-6, err_msg=f"eager vs graph, program {steps}")
        np.testing.assert_allclose(j, o, rtol=1e-5, atol=1e-5, err_msg=f"jit vs optimised graph, program {steps}")
        np.testing.assert_allclose(o, r, rtol=2e-5, atol=2e-5, err_msg=f"minitf vs TensorFlow, program {steps}")


@EXAMPLES
@given(steps=program, data=values)
def test_generated_programs_agree_eager_traced_optimised_and_tensorflow(
    steps: list[tuple], data: list[float], switches: Callable[[bool], None]
) -> None:
    check(run_program, steps, data, switches)


@EXAMPLES
@given(steps=program, data=values)
def test_generated_gradients_agree_eager_traced_optimised_and_tensorflow(
    steps: list[tuple], data: list[float], switches: Callable[[bool], None]
) -> None:
    check(with_gradient, steps, data, switches)


# One program with a step of every kind, in the fast tier; the generated programs above run in the full suite.
EVERY_STEP = [
    ("unary", "sin", 0),
    ("binary", "add", 0, 1),
    ("neutral", "*1", 2),
    ("folded", 0.5, 3),
    ("twice", "tanh", 4),
    ("cast", 5),
    ("reduce", 6),
    ("dense", "relu"),
    ("cond", 7),
    ("variable", 8),
    ("neutral", "--", 9),
    ("binary", "maximum", 10, 1),
]


def test_a_program_of_every_step_and_its_gradient_agree_eager_traced_optimised_and_tensorflow(
    switches: Callable[[bool], None],
) -> None:
    check(with_gradient, EVERY_STEP, [float(x) for x in np.linspace(-1.5, 1.5, 12)], switches, jit=False)


@pytest.mark.slow  # Numba compiles each region of it (a few seconds)
def test_a_program_of_every_step_and_its_gradient_agree_under_jit_compile(switches: Callable[[bool], None]) -> None:
    check(with_gradient, EVERY_STEP, [float(x) for x in np.linspace(-1.5, 1.5, 12)], switches)
