"""tf.map_fn, tf.vectorized_map (eagerly, traced with a known and an unknown length, under a tape) and
tf.gradients inside a tf.function."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from harness import named_examples, same
from test_indexing import traced

V = np.array([1.0, 2.0, 3.0], np.float32)
M = np.arange(6.0, dtype=np.float32).reshape(3, 2)


@named_examples(
    ("map_fn", lambda tf: tf.map_fn(lambda x: x * 2, tf.constant([1, 2, 3]))),
    ("map_fn rows", lambda tf: tf.map_fn(lambda row: tf.reduce_sum(row), tf.constant(M))),
    ("map_fn list", lambda tf: tf.map_fn(lambda x: x * 2, [1, 2, 3])),
    ("map_fn dtype change", lambda tf: tf.map_fn(lambda x: tf.cast(x, tf.float32), tf.constant([1, 2, 3]))),
    (
        "map_fn signature",
        lambda tf: tf.map_fn(lambda x: tf.cast(x, tf.float32), tf.constant([1, 2, 3]), fn_output_signature=tf.float32),
    ),
    (
        "map_fn tensor spec signature",
        lambda tf: tf.map_fn(
            lambda x: tf.cast(x, tf.float64), tf.constant(V), fn_output_signature=tf.TensorSpec([], tf.float64)
        ),
    ),
    ("map_fn structure in", lambda tf: tf.map_fn(lambda x: x[0] + x[1], (tf.constant([1, 2]), tf.constant([3, 4])))),
    (
        "map_fn structure in and out",
        lambda tf: tf.map_fn(lambda x: (x[1], x[0]), (tf.constant([1, 2]), tf.constant([3, 4]))),
    ),
    (
        "map_fn structure out",
        lambda tf: tf.map_fn(lambda x: (x, -x), tf.constant([1, 2]), fn_output_signature=(tf.int32, tf.int32)),
    ),
    ("map_fn scalar", lambda tf: tf.map_fn(lambda x: x, tf.constant(1))),
    ("map_fn empty", lambda tf: tf.map_fn(lambda x: x, tf.zeros([0, 2]))),
    ("map_fn ragged results", lambda tf: tf.map_fn(lambda x: tf.range(x), tf.constant([1, 2]))),
    ("vectorized_map", lambda tf: tf.vectorized_map(lambda x: x * 2, tf.constant([1, 2, 3]))),
    ("vectorized_map rows", lambda tf: tf.vectorized_map(lambda x: tf.reduce_sum(x), tf.ones([2, 3]))),
    ("vectorized_map pairs", lambda tf: tf.vectorized_map(lambda x: x[0] * x[1], (tf.ones([2, 3]), tf.ones([2, 3])))),
    ("vectorized_map constant result", lambda tf: tf.vectorized_map(lambda x: 5, tf.ones([2, 3]))),
    ("vectorized_map dtype change", lambda tf: tf.vectorized_map(lambda x: tf.cast(x, tf.int64), tf.constant(V))),
    ("vectorized_map scalar", lambda tf: tf.vectorized_map(lambda x: x, tf.constant(1))),
    ("gradients eagerly", lambda tf: tf.gradients(tf.constant(1.0), tf.constant(1.0))),
)
def test_map_functions_match_tensorflow(case: Any) -> None:
    same(case)


def unknown_length(fn: Any, value: np.ndarray) -> Any:
    """A case: `fn(tf, x)` inside a tf.function whose argument has an unknown first dimension; returns the
    result and its static shape while traced."""

    def case(tf: Any) -> Any:
        @tf.function(input_signature=[tf.TensorSpec([None, *value.shape[1:]], tf.as_dtype(value.dtype))])
        def f(x: Any) -> Any:
            out = fn(tf, x)
            return out, tf.constant(str(out.shape))

        return f(tf.constant(value))

    return case


def gradients_in_function(fn: Any, *values: np.ndarray) -> Any:
    def case(tf: Any) -> Any:
        return tf.function(lambda *xs: fn(tf, *xs))(*[tf.constant(v) for v in values])

    return case


@pytest.mark.sample(
    "map_fn unknown length rows",
    "vectorized_map known length",
    "gradients",
    "gradients unconnected",
    "gradients second order",
)
@named_examples(
    ("map_fn known length", traced(lambda tf, x: tf.map_fn(lambda v: v * v, x), V)),
    ("map_fn unknown length", unknown_length(lambda tf, x: tf.map_fn(lambda v: v * v, x), V)),
    ("map_fn unknown length rows", unknown_length(lambda tf, x: tf.map_fn(tf.reduce_sum, x), M)),
    ("vectorized_map known length", traced(lambda tf, x: tf.vectorized_map(lambda v: v + 1.0, x), M)),
    (
        "vectorized_map unknown length",
        unknown_length(lambda tf, x: tf.vectorized_map(lambda v: tf.cast(v, tf.int32), x), M),
    ),
    ("gradients", gradients_in_function(lambda tf, x: tf.gradients(x * x, x), V)),
    ("gradients of several", gradients_in_function(lambda tf, x, w: tf.gradients(tf.reduce_sum(x * w), [x, w]), V, V)),
    ("gradients unconnected", gradients_in_function(lambda tf, x, w: tf.gradients(x * 2.0, [x, w]), V, V)),
    (
        "gradients unconnected zero",
        gradients_in_function(lambda tf, x, w: tf.gradients(x * 2.0, [x, w], unconnected_gradients="zero"), V, V),
    ),
    ("gradients grad_ys", gradients_in_function(lambda tf, x: tf.gradients(tf.sin(x), x, grad_ys=x), V)),
    ("gradients several ys", gradients_in_function(lambda tf, x: tf.gradients([x * x, tf.exp(x)], x), V)),
    (
        "gradients stop_gradients",
        gradients_in_function(lambda tf, x: (lambda y: tf.gradients(y * x, x, stop_gradients=[y]))(x * 3.0), V),
    ),
    ("gradients second order", gradients_in_function(lambda tf, x: tf.gradients(tf.gradients(x * x * x, x)[0], x), V)),
    (
        "gradients through matmul and map_fn",
        gradients_in_function(
            lambda tf, x: tf.gradients(tf.reduce_sum(tf.map_fn(lambda r: r * r, tf.matmul(x, x, transpose_a=True))), x),
            M,
        ),
    ),
)
def test_inside_tf_function_matches_tensorflow(case: Any) -> None:
    same(case)


def variable_gradients(tf: Any) -> Any:
    v = tf.Variable(2.0)

    @tf.function
    def k(x: Any) -> Any:
        return tf.gradients(x * v * v, [v, x], grad_ys=tf.constant(3.0))

    return k(tf.constant(1.0))


def map_fn_under_a_tape(tf: Any) -> Any:
    x = tf.constant(M)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.map_fn(lambda row: tf.reduce_prod(row), x) + tf.vectorized_map(lambda row: row[0] * 2.0, x)
    return tape.gradient(y, x)


@named_examples(("gradients of a variable", variable_gradients), ("map_fn under a tape", map_fn_under_a_tape))
def test_gradients_of_variables_and_maps_match_tensorflow(case: Any) -> None:
    same(case)


def many_new_ops(tf: Any, x: Any) -> Any:
    """A scalar computed from a [3, 4] matrix through most of the new differentiable ops."""
    picked = tf.gather_nd(x, [[0, 1], [2, 3]])
    scattered = tf.tensor_scatter_nd_add(x, [[1, 1]], picked[:1])
    ordered = tf.sort(scattered, axis=-1)
    mixed = tf.einsum("ij,kj->ik", ordered, tf.roll(x, 1, 0))
    image = tf.reshape(mixed, [1, 3, 3, 1])
    pooled = tf.nn.max_pool2d(tf.nn.conv2d(image, tf.ones([2, 2, 1, 1]), 1, "SAME"), 2, 1, "VALID")
    summed = tf.math.segment_sum(tf.reshape(pooled, [4]), [0, 0, 1, 1])
    return tf.reduce_sum(tf.math.top_k(summed, 1).values) + tf.linalg.trace(tf.linalg.band_part(mixed, 0, 1))


def tape_around_function(tf: Any) -> Any:
    x = tf.constant(np.linspace(-1.0, 1.0, 12, dtype=np.float32).reshape(3, 4) ** 3)
    f = tf.function(lambda x: many_new_ops(tf, x))
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = f(x)
    return y, tape.gradient(y, x)


def gradients_inside_function(tf: Any) -> Any:
    x = tf.constant(np.linspace(-1.0, 1.0, 12, dtype=np.float32).reshape(3, 4) ** 3)
    return tf.function(lambda x: tf.gradients(many_new_ops(tf, x), x))(x)


@pytest.mark.sample("tape around a tf.function")
@named_examples(
    ("tape around a tf.function", tape_around_function),
    ("tf.gradients inside a tf.function", gradients_inside_function),
)
def test_new_ops_differentiate_through_tf_function_like_tensorflow(case: Any) -> None:
    same(case, rtol=1e-5, atol=1e-5)


def jacobian_with_unknown_sizes(fn: Any, *values: np.ndarray, known: int = 0, persistent: bool = False) -> Any:
    """A case: `fn(tf, tape, *xs)` inside a tf.function whose input_signature leaves every dimension after the
    first `known` ones unknown (None); the xs are watched. Returns the result and its static shape while
    traced, which TensorFlow gives as the target's static shape followed by the source's."""

    def case(tf: Any) -> Any:
        specs = [tf.TensorSpec([*v.shape[:known], *[None] * (v.ndim - known)], tf.as_dtype(v.dtype)) for v in values]

        def traced(xs: list[Any]) -> Any:
            with tf.GradientTape(persistent=persistent) as tape:
                for x in xs:
                    tape.watch(x)
                out = fn(tf, tape, *xs)
            return out, tf.constant(str([o.shape for o in tf.nest.flatten(out)]))

        f = tf.function(
            (lambda x: traced([x])) if len(values) == 1 else (lambda x, w: traced([x, w])), input_signature=specs
        )
        return f(*[tf.constant(v) for v in values])

    return case


X2 = np.array([[1.0, 2.0], [3.0, -1.0], [0.5, 4.0]], np.float32)


@pytest.mark.sample("jacobian elementwise", "jacobian unconnected", "batch_jacobian unconnected")
@named_examples(
    ("jacobian elementwise", jacobian_with_unknown_sizes(lambda tf, tape, x: tape.jacobian(x * x, x), V)),
    (
        "jacobian of row sums",
        jacobian_with_unknown_sizes(lambda tf, tape, x: tape.jacobian(tf.reduce_sum(x * x, axis=1), x), X2),
    ),
    (
        "jacobian of a matrix by a matrix",
        jacobian_with_unknown_sizes(lambda tf, tape, x: tape.jacobian(tf.matmul(x, x, transpose_b=True), x), X2),
    ),
    (
        "jacobian with the columns known",
        jacobian_with_unknown_sizes(lambda tf, tape, x: tape.jacobian(tf.tanh(x), x), X2, known=0),
    ),
    ("jacobian of an empty input", jacobian_with_unknown_sizes(lambda tf, tape, x: tape.jacobian(x * x, x), V[:0])),
    (
        "jacobian by two sources",
        jacobian_with_unknown_sizes(lambda tf, tape, x, w: tape.jacobian(x * w + x, [x, w]), V, V * 2),
    ),
    ("jacobian unconnected", jacobian_with_unknown_sizes(lambda tf, tape, x, w: tape.jacobian(x * 3.0, w), V, V)),
    (
        "jacobian unconnected zero",
        jacobian_with_unknown_sizes(
            lambda tf, tape, x, w: tape.jacobian(x * 3.0, w, unconnected_gradients="zero"), V, V
        ),
    ),
    (
        "jacobian without pfor",
        jacobian_with_unknown_sizes(
            lambda tf, tape, x: tape.jacobian(tf.exp(x), x, experimental_use_pfor=False), V, persistent=True
        ),
    ),
    (
        "jacobian of float64",
        jacobian_with_unknown_sizes(lambda tf, tape, x: tape.jacobian(tf.sin(x), x), V.astype(np.float64)),
    ),
    (
        "batch_jacobian unknown batch",
        jacobian_with_unknown_sizes(
            lambda tf, tape, x: tape.batch_jacobian(tf.concat([x * x, x[:, :1]], axis=1), x), X2, known=0
        ),
    ),
    (
        "batch_jacobian rows known",
        jacobian_with_unknown_sizes(lambda tf, tape, x: tape.batch_jacobian(tf.nn.softmax(x), x), X2),
    ),
    (
        "batch_jacobian of a matmul",
        jacobian_with_unknown_sizes(
            lambda tf, tape, x: tape.batch_jacobian(
                tf.matmul(x * x, tf.constant([[1.0, 2.0, 0.0], [0.0, 1.0, 3.0]])), x
            ),
            X2,
        ),
    ),
    (
        "batch_jacobian unconnected",
        jacobian_with_unknown_sizes(lambda tf, tape, x, w: tape.batch_jacobian(w * 2.0, x), X2, X2),
    ),
)
def test_jacobians_with_unknown_sizes_inside_tf_function_match_tensorflow(case: Any) -> None:
    same(case, rtol=1e-5, atol=1e-6)
