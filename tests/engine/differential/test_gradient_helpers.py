"""tf.grad_pass_through, tf.recompute_grad, tf.hessians and tf.reverse_sequence: values and gradients, eagerly
and inside a tf.function, errors, on both engines."""

from __future__ import annotations

from typing import Any

import numpy as np
from harness import named_examples, same, same_program

X = np.array([[1, 2, 3, 4], [5, 6, 7, 8], [9, 10, 11, 12]], np.int32)
F = np.arange(24, dtype=np.float32).reshape(2, 3, 4) * 0.5 - 3.0


@named_examples(
    ("reverse_sequence", lambda tf: tf.reverse_sequence(tf.constant(X), [4, 2, 0], seq_axis=1, batch_axis=0)),
    (
        "reverse_sequence batch second",
        lambda tf: tf.reverse_sequence(tf.constant(X.T), [4, 2, 0], seq_axis=0, batch_axis=1),
    ),
    (
        "reverse_sequence int64 lengths",
        lambda tf: tf.reverse_sequence(tf.constant(X), tf.constant([4, 2, 1], tf.int64), 1),
    ),
    ("reverse_sequence floats of rank 3", lambda tf: tf.reverse_sequence(tf.constant(F), [3, 1], seq_axis=1) * 2.0),
    (
        "reverse_sequence negative axis",
        lambda tf: tf.reverse_sequence(tf.constant(F), [2, 4, 0], seq_axis=-1, batch_axis=1),
    ),
    ("reverse_sequence same axes", lambda tf: tf.reverse_sequence(tf.constant(F), [2, 4, 0], seq_axis=1, batch_axis=1)),
    ("reverse_sequence too long", lambda tf: tf.reverse_sequence(tf.constant(X), [5, 2, 0], seq_axis=1)),
    ("reverse_sequence too few lengths", lambda tf: tf.reverse_sequence(tf.constant(X), [4, 2], seq_axis=1)),
)
def test_reverse_sequence_matches_tensorflow(case: Any) -> None:
    same(case)


def test_grad_pass_through_and_recompute_grad() -> None:
    def case(tf: Any, seen: list) -> None:
        x = tf.Variable(3.0)
        z = tf.constant([1.0, 2.0])
        with tf.GradientTape(persistent=True) as tape:
            tape.watch(z)
            rounded = tf.grad_pass_through(lambda v: tf.round(v * 1.4))(x) * 2.0
            kept = tf.recompute_grad(lambda v: tf.exp(v) * v)(z)
        seen.extend([rounded, tape.gradient(rounded, x), kept, tape.gradient(kept, z)])

    same_program(case)


def test_hessians_inside_a_function() -> None:
    def case(tf: Any, seen: list) -> None:
        @tf.function
        def h(z: Any) -> Any:
            return tf.hessians(tf.reduce_sum(z**3) + z[0] * z[1], z), tf.hessians([tf.reduce_sum(z**2)], [z, z])

        seen.append(h(tf.constant([1.0, 2.0])))
        seen.append(tf.function(lambda m: tf.hessians(tf.reduce_sum(m**3), m))(tf.constant([[1.0, 2.0], [3.0, 4.0]])))

    same_program(case)


def test_hessians_eagerly_is_tensorflows_error() -> None:
    same_program(
        lambda tf, seen: tf.hessians(tf.constant(1.0), tf.constant(1.0)),
        "tf.gradients is not supported when eager execution is enabled",
    )


S0 = np.array([1.0, 2.0], np.float32)
S1 = np.array([3.0, 4.0], np.float32)


@named_examples(
    ("dynamic_stitch", lambda tf: tf.dynamic_stitch([[0, 2], [1, 2]], [tf.constant(S0), tf.constant(S1)])),
    (
        "dynamic_stitch rows",
        lambda tf: tf.dynamic_stitch(
            [tf.constant([[0], [3]]), [1, 2]],
            [tf.constant(np.array([[[1.0, 2.0]], [[5.0, 6.0]]], np.float32)), [[3.0, 4.0], [7.0, 8.0]]],
        ),
    ),
    ("dynamic_stitch gaps", lambda tf: tf.dynamic_stitch([[0, 3]], [[1, 2]])),
    (
        "dynamic_stitch weighted",
        lambda tf: tf.dynamic_stitch([[2, 0], [1]], [tf.constant(S0), tf.constant(S1[:1])]) * [1.0, 2.0, 3.0],
    ),
    ("dynamic_stitch short data", lambda tf: tf.dynamic_stitch([[0, 1]], [[1.0]])),
    ("dynamic_stitch negative index", lambda tf: tf.dynamic_stitch([[0, -1]], [[1, 2]])),
)
def test_dynamic_stitch_matches_tensorflow(case: Any) -> None:
    same(case)


def test_zeros_like_and_ones_like_pass_no_gradient_and_where_sends_each_branch_its_own() -> None:
    """zeros_like and ones_like are not differentiable (tapes skip them), and the gradient of a tf.where whose
    other branch is such a constant, or a mean of it, is TensorFlow's, eagerly and traced."""

    def case(tf: Any, seen: list) -> None:
        def grads(x: Any) -> list:
            with tf.GradientTape(persistent=True) as tape:
                tape.watch(x)
                zeros, ones = tf.zeros_like(x), tf.ones_like(x)
                picked = tf.where(x > 0.0, x * x, zeros)
                loss = tf.reduce_mean(picked + tf.where(x > 0.0, ones, -x))
            return [tape.gradient(zeros, x), tape.gradient(ones, x), tape.gradient(loss, x)]

        x = tf.constant([[-1.5, 0.5, 2.0], [3.0, -0.25, 0.0]])
        seen.append(grads(x))
        seen.append(tf.function(grads)(x))

    same_program(case)
