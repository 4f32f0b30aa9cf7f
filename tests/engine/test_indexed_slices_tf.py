"""Gradients of `tf.gather` as `tf.IndexedSlices` on minitf against real TensorFlow: what the tape returns,
how it prints, how sparse gradients add up, become dense, and update variables."""

from __future__ import annotations

from typing import Any

import pytest
from harness import ENGINES, alike

pytestmark = pytest.mark.tf


def _sparse_view(g: Any) -> Any:
    """What a student sees of a gradient: its class name, printed text and parts."""
    if type(g).__name__ != "IndexedSlices":
        return type(g).__name__, str(g)
    return "IndexedSlices", str(g), g.indices, g.values, g.dense_shape, g.dtype.name, list(g.shape)


def test_gradient_of_gather_on_a_variable_is_indexed_slices_printed_as_tensorflow() -> None:
    def case(tf: Any) -> Any:
        v = tf.Variable([1.0, 2.0, 3.0])
        with tf.GradientTape() as tape:
            y = tf.reduce_sum(tf.gather(v, [0, 2]) * 2.0)
        g = tape.gradient(y, v)
        return _sparse_view(g), g.device, tf.convert_to_tensor(g)

    alike(case)


@pytest.mark.parametrize("indices", [[2, 0, 2], 1, [[0, 1], [1, 1]]], ids=["repeated", "scalar", "matrix"])
def test_gather_rows_of_a_watched_matrix_give_one_slice_per_index(indices: Any) -> None:
    def case(tf: Any) -> Any:
        x = tf.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.gather(x, indices) * 3.0
        g = tape.gradient(y, x)
        return _sparse_view(g), tf.convert_to_tensor(g)

    alike(case)


def test_two_gathers_of_the_same_value_concatenate_their_slices() -> None:
    def case(tf: Any) -> Any:
        v = tf.Variable([[1.0, 2.0], [3.0, 4.0]])
        with tf.GradientTape() as tape:
            a = tf.gather(v, [1])
            b = tf.gather(v, [0, 1]) * 3.0
            loss = tf.reduce_sum(b) + tf.reduce_sum(a)
        return _sparse_view(tape.gradient(loss, v))

    alike(case)


def test_a_sparse_gradient_meeting_a_dense_one_becomes_dense() -> None:
    def case(tf: Any) -> Any:
        x = tf.constant([1.0, 2.0, 3.0])
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = [tf.gather(x, [1]), x * 2.0]
        return _sparse_view(tape.gradient(y, x))

    alike(case)


def test_gather_after_another_op_gives_that_op_a_dense_gradient() -> None:
    def case(tf: Any) -> Any:
        x = tf.constant([[1.0, 2.0], [3.0, 4.0]])
        with tf.GradientTape(persistent=True) as tape:
            tape.watch(x)
            through_exp = tf.gather(tf.exp(x), [1])
            through_identity = tf.gather(tf.identity(x), [1])
        return (_sparse_view(tape.gradient(through_exp, x)), type(tape.gradient(through_identity, x)).__name__)

    alike(case, rtol=1e-6)


def test_gather_along_another_axis_gives_a_dense_gradient() -> None:
    def case(tf: Any) -> Any:
        x = tf.constant([[1.0, 2.0], [3.0, 4.0]])
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.gather(x, [1], axis=1)
        return _sparse_view(tape.gradient(y, x))

    alike(case)


def test_sparse_gradients_update_variables_and_keep_output_gradients() -> None:
    def case(tf: Any) -> Any:
        v = tf.Variable([1.0, 2.0, 3.0])
        with tf.GradientTape() as tape:
            y = tf.gather(v, [1, 1])
        g = tape.gradient(y, v, output_gradients=[tf.constant([5.0, 7.0])])
        v.assign_sub(g)
        before = v.numpy()
        v.assign_add(g)
        return _sparse_view(g), before, v.numpy()

    alike(case)


def test_jacobian_of_a_gather_is_dense() -> None:
    def case(tf: Any) -> Any:
        x = tf.constant([1.0, 2.0, 3.0])
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.gather(x, [2, 2])
        return tape.jacobian(y, x)

    alike(case)


def test_sparse_gradient_through_a_traced_function_and_returned_by_one() -> None:
    def case(tf: Any) -> Any:
        v = tf.Variable([1.0, 2.0, 3.0])

        @tf.function
        def forward():
            return tf.gather(v, [1, 1]) * 2.0

        @tf.function
        def gradient():
            with tf.GradientTape() as tape:
                y = tf.gather(v, [2])
            return tape.gradient(y, v)

        with tf.GradientTape() as tape:
            y = forward()
        return _sparse_view(tape.gradient(y, v)), _sparse_view(gradient())

    alike(case)


def test_indexed_slices_built_by_hand_print_and_convert() -> None:
    def case(tf: Any) -> Any:
        with_shape = tf.IndexedSlices(tf.constant([[1.0], [2.0]]), tf.constant([0, 0]), tf.constant([3, 1]))
        without_shape = tf.IndexedSlices(tf.constant([1.0]), tf.constant([0]))
        return str(with_shape), str(without_shape), tf.convert_to_tensor(with_shape), -with_shape.values

    alike(case)


def test_indexed_slices_do_not_support_arithmetic() -> None:
    for tf in ENGINES.values():
        v = tf.Variable([1.0, 2.0])
        with tf.GradientTape() as tape:
            y = tf.gather(v, [0])
        with pytest.raises(TypeError, match="unsupported operand type"):
            tape.gradient(y, v) + 1


@pytest.mark.parametrize("program", ["sum_of_three", "reused_rows"])
def test_rows_of_several_gathers_of_one_loss_come_in_tensorflows_backprop_order(program: str) -> None:
    """One loss: TensorFlow runs the backward pass breadth first, so the rows arrive in that order.

    (With several targets its order among them follows a hash table's; that case is not compared.)
    """

    def case(tf: Any) -> Any:
        v = tf.Variable([1.0, 2.0, 3.0])
        with tf.GradientTape() as tape:
            if program == "sum_of_three":
                loss = (
                    tf.reduce_sum(tf.gather(v, [0]))
                    + tf.reduce_sum(tf.gather(v, [1]) * 2.0)
                    + tf.reduce_sum(tf.gather(v, [2]) * 3.0)
                )
            else:
                first = tf.gather(v, [2, 0])
                loss = tf.reduce_sum(first * first * tf.gather(v, [1, 1])) + tf.reduce_sum(first)
        return _sparse_view(tape.gradient(loss, v))

    alike(case, rtol=1e-6)
