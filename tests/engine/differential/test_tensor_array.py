"""tf.TensorArray eagerly, as TensorFlow's eager one: written in place, a read clears its element (unless
clear_after_read=False), unwritten elements read as zeros, and out-of-range, dtype and shape mistakes raise the
same errors; inside a tf.function the array is carried through a loop and stacked."""

from __future__ import annotations

from typing import Any

import pytest
from harness import same_error, same_program


def test_a_read_clears_the_element_so_a_second_read_fails() -> None:
    def case(tf: Any, seen: list) -> None:
        ta = tf.TensorArray(tf.float32, size=3)
        ta.write(0, 1.0)  # eagerly a write changes the array itself
        ta = ta.write(1, 2.0)
        seen.extend([ta.read(0), ta.read(2), ta.size()])
        seen.append(ta.stack())  # the cleared row 0 stacks as zeros (and stays zeros: a read now finds them)
        seen.append(ta.read(0))
        ta.read(1)
        ta.read(1)

    same_program(case, "Could not read index 1 twice because it was cleared after a previous read", message="within")


def test_clear_after_read_false_reads_many_times() -> None:
    def case(tf: Any, seen: list) -> None:
        ta = tf.TensorArray(tf.int32, size=2, clear_after_read=False).unstack([7, 8])
        seen.extend([ta.read(0), ta.read(0), ta.stack(), ta.gather([1, 0, 1])])

    same_program(case)


def test_dynamic_size_grows_and_unwritten_rows_are_zeros_of_the_element_shape() -> None:
    def case(tf: Any, seen: list) -> None:
        ta = tf.TensorArray(tf.float32, size=0, dynamic_size=True)
        ta = ta.write(2, [1.0, 2.0])
        seen.extend([ta.size(), ta.element_shape, ta.dynamic_size, ta.stack()])
        seen.append(tf.TensorArray(tf.float32, size=0, element_shape=[2]).stack())
        seen.append(tf.TensorArray(tf.float32, size=0).stack())

    same_program(case)


def test_scatter_split_concat_and_close() -> None:
    def case(tf: Any, seen: list) -> None:
        seen.append(tf.TensorArray(tf.float32, size=4).scatter([0, 2], [[1.0], [2.0]]).stack())
        split = tf.TensorArray(tf.float32, size=2, clear_after_read=False).split([1.0, 2.0, 3.0], [1, 2])
        seen.extend([split.read(0), split.read(1), split.concat()])
        ragged = tf.TensorArray(tf.float32, size=2, infer_shape=False).write(0, [1.0, 2.0]).write(1, [3.0])
        seen.append(ragged.concat())
        ragged.close()
        seen.append(ragged.size())
        seen.append(tf.TensorArray(tf.float32, size=1).flow)

    same_program(case)


def test_gradients_flow_through_an_eager_tensor_array() -> None:
    def case(tf: Any, seen: list) -> None:
        x = tf.Variable([1.0, 2.0])
        with tf.GradientTape() as tape:
            ta = tf.TensorArray(tf.float32, size=2)
            ta = ta.write(0, x * 3.0).write(1, x * x)
            y = tf.reduce_sum(ta.stack())
        seen.append(tape.gradient(y, x))

    same_program(case)


def test_a_loop_in_a_function_collects_rows_in_a_tensor_array() -> None:
    def case(tf: Any, seen: list) -> None:
        @tf.function
        def squares(n: Any) -> Any:
            ta = tf.TensorArray(tf.int32, size=n)
            for i in tf.range(n):
                ta = ta.write(i, i * i)
            return ta.stack()

        seen.append(squares(tf.constant(4)))

    same_program(case)


@pytest.mark.parametrize(
    "mistake",
    [
        lambda tf: tf.TensorArray(tf.float32, size=2).write(5, 1.0),
        lambda tf: tf.TensorArray(tf.float32, size=2).read(5),
        lambda tf: tf.TensorArray(tf.float32, size=2).write(-1, 1.0),
        lambda tf: tf.TensorArray(tf.float32, size=2).write(0, tf.constant(1)),
        lambda tf: tf.TensorArray(tf.float32, size=2).write(0, [1.0, 2.0]).write(1, [1.0]),
        lambda tf: tf.TensorArray(tf.float32, size=2).unstack([1.0, 2.0, 3.0]),
        lambda tf: tf.TensorArray(tf.float32, size=2).split([1.0, 2.0, 3.0], [1, 1]),
        lambda tf: tf.TensorArray(tf.float32, size=1).stack(),  # a zero row of an unknown element shape
    ],
    ids=["write-past-size", "read-past-size", "negative-index", "dtype", "element-shape", "unstack", "split", "zeros"],
)
def test_mistakes_raise_tensorflows_errors(mistake: Any) -> None:
    same_error(mistake, hint=False)
