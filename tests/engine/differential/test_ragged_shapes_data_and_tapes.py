"""Ragged shapes (tf.shape of a RaggedTensor, tf.experimental.DynamicRaggedShape), Dataset.ragged_batch, and
RaggedTensors under a GradientTape, against TensorFlow.
"""

from __future__ import annotations

from typing import Any

from harness import alike, same, same_program


def test_ragged_shapes_print_and_fill_like_tensorflows() -> None:
    def program(tf: Any, seen: list) -> None:
        rt = tf.ragged.constant([[1], [2, 3], [], [4]])
        shape = tf.shape(rt)
        print(shape)
        seen.append((shape.rank, shape.num_row_partitions, shape.static_lengths(), shape[0]))
        try:
            shape[1]
        except ValueError as error:
            seen.append(str(error))
        lengths = tf.experimental.DynamicRaggedShape.from_lengths([4, (2, 1, 0, 3), 5])
        print(lengths)
        print(tf.zeros(tf.experimental.DynamicRaggedShape.from_lengths([3, (1, 2, 0)])))
        print(tf.ones(tf.experimental.DynamicRaggedShape.from_lengths([2, (1, 3)]), tf.int32))
        print(tf.experimental.DynamicRaggedShape.from_lengths([1, (1,), 3]))
        print(tf.shape(tf.constant([[1, 2], [3, 4], [5, 6]])))

    same_program(program)


def test_ragged_batch_matches_tensorflow() -> None:
    def program(tf: Any, seen: list) -> None:
        ranges = tf.data.Dataset.from_tensor_slices([1, 5, 3, 2, 8]).map(tf.range)
        for batched in (
            ranges.ragged_batch(2),
            ranges.ragged_batch(2, drop_remainder=True),
            ranges.apply(tf.data.experimental.dense_to_ragged_batch(3)),
        ):
            seen.append((str(batched.element_spec), batched.cardinality()))
            for element in batched:
                print(element)
        fixed = tf.data.Dataset.from_tensor_slices(([[1, 2], [3, 4], [5, 6]], [1, 2, 3])).ragged_batch(2)
        seen.append(str(fixed.element_spec))
        seen.append(list(fixed))
        pairs = tf.data.Dataset.range(5).map(lambda n: tf.reshape(tf.range(n * 2), [-1, 2])).ragged_batch(3)
        seen.append(str(pairs.element_spec))
        for element in pairs:
            print(element)
        seen.append(list(tf.data.Dataset.range(3).apply(lambda d: d.map(lambda x: x * 2)).as_numpy_iterator()))
        try:
            tf.data.Dataset.range(3).apply(lambda d: 5)
        except TypeError as error:
            seen.append(str(error))

    same_program(program)


def test_ragged_tensors_under_a_tape_match_tensorflow() -> None:
    def case(tf: Any) -> Any:
        rt = tf.ragged.constant([[1.0, 2.0], [3.0]])
        seen = []
        with tf.GradientTape(persistent=True) as tape:
            tape.watch(rt)
            total = tf.reduce_sum(rt * rt)
            per_row = tf.reduce_sum(rt * rt, axis=1)
            doubled = rt * 2.0
        for target in (total, per_row, doubled):
            gradient = tape.gradient(target, rt)
            seen.append((type(gradient).__name__, gradient.flat_values, gradient.row_splits))
        variable = tf.Variable([1.0, 2.0, 3.0])
        with tf.GradientTape() as tape:
            means = tf.reduce_mean(tf.RaggedTensor.from_row_lengths(variable, [2, 1]), axis=1)
            loss = tf.reduce_sum(means)
        seen.append(tape.gradient(loss, variable))
        return seen

    alike(case)


def test_ragged_values_feed_a_traced_step_like_tensorflow() -> None:
    def case(tf: Any) -> Any:
        @tf.function
        def step(rt: Any) -> Any:
            with tf.GradientTape() as tape:
                tape.watch(rt)
                loss = tf.reduce_sum(tf.reduce_mean(rt * rt, axis=1))
            return tape.gradient(loss, rt).flat_values

        return step(tf.ragged.constant([[1.0, 2.0], [3.0], [4.0, 5.0, 6.0]]))

    same(case)
