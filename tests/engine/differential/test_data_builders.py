"""tf.data's further builders against TensorFlow: from_generator, counter, random, window, flat_map,
interleave, concatenate, padded_batch, rebatch, apply, Options and assert_cardinality: elements, element_spec,
cardinality, printing and errors."""

from __future__ import annotations

from typing import Any

import pytest
from harness import EAGER, TAPE, named_examples, same, same_error, same_program
from test_data import no_global_seed  # noqa: F401 - the same autouse fixture: no global seed left by other tests

pytestmark = pytest.mark.tf

# Iterating a dataset with Python is eager-only in TensorFlow (see test_data.py).
PYTHON_ITERATION = (EAGER, TAPE)


def described(ds: Any) -> Any:
    return repr(ds), repr(ds.element_spec), ds.cardinality(), list(ds)


def counts_and_ones() -> Any:
    for i in range(3):
        yield i, [1.0] * i


def numbers(tf: Any, n: int) -> Any:
    return tf.data.Dataset.range(n)


def rows_of_own_length(tf: Any) -> Any:
    return numbers(tf, 5).map(lambda x: tf.range(x) * 0 + x)


def windows_as_lists(tf: Any, ds: Any) -> Any:
    return repr(ds), repr(ds.element_spec), ds.cardinality(), [(repr(w), list(w)) for w in ds]


CASES = [
    (
        "from_generator_with_output_signature",
        lambda tf: described(
            tf.data.Dataset.from_generator(
                counts_and_ones, output_signature=(tf.TensorSpec((), tf.int32), tf.TensorSpec((None,), tf.float32))
            )
        ),
    ),
    (
        "from_generator_with_output_types_and_shapes",
        lambda tf: described(
            tf.data.Dataset.from_generator(
                counts_and_ones, output_types=(tf.int64, tf.float32), output_shapes=((), (None,))
            )
        ),
    ),
    (
        "from_generator_with_output_types_only",
        lambda tf: described(tf.data.Dataset.from_generator(lambda: iter([1, 2]), output_types=tf.int32)),
    ),
    (
        "from_generator_with_args",
        lambda tf: list(
            tf.data.Dataset.from_generator(
                lambda n: iter(range(n)), args=(3,), output_signature=tf.TensorSpec((), tf.int64)
            )
        ),
    ),
    (
        "from_generator_dict",
        lambda tf: described(
            tf.data.Dataset.from_generator(
                lambda: iter([{"a": 1, "b": "x"}]),
                output_signature={"a": tf.TensorSpec((), tf.int32), "b": tf.TensorSpec((), tf.string)},
            )
        ),
    ),
    ("from_generator_without_signature", lambda tf: tf.data.Dataset.from_generator(counts_and_ones)),
    (
        "counter",
        lambda tf: (
            repr(tf.data.Dataset.counter(start=2, step=3)),
            tf.data.Dataset.counter().cardinality(),
            list(tf.data.Dataset.counter(start=2, step=3).take(3)),
        ),
    ),
    ("counter_dtype", lambda tf: list(tf.data.Dataset.counter(5, dtype=tf.int32).take(2))),
    (
        "random_with_seed",
        lambda tf: (
            repr(tf.data.Dataset.random(seed=4)),
            tf.data.Dataset.random(seed=4).cardinality(),
            list(tf.data.Dataset.random(seed=4).take(5)),
        ),
    ),
    ("window", lambda tf: windows_as_lists(tf, numbers(tf, 7).window(3, shift=2))),
    (
        "window_drop_remainder_and_stride",
        lambda tf: windows_as_lists(tf, numbers(tf, 10).window(3, shift=1, stride=2, drop_remainder=True)),
    ),
    (
        "window_of_tuples",
        lambda tf: [
            (repr(a), repr(b), list(a), list(b))
            for a, b in tf.data.Dataset.zip(numbers(tf, 5), numbers(tf, 5)).window(2)
        ],
    ),
    (
        "window_flat_map_batch",
        lambda tf: described(numbers(tf, 7).window(3, 2, 1, True).flat_map(lambda w: w.batch(3))),
    ),
    ("padded_batch", lambda tf: described(rows_of_own_length(tf).padded_batch(2))),
    (
        "padded_batch_shapes_and_values",
        lambda tf: described(
            rows_of_own_length(tf).padded_batch(
                2, padded_shapes=[5], padding_values=tf.constant(-1, tf.int64), drop_remainder=True
            )
        ),
    ),
    (
        "padded_batch_tuple",
        lambda tf: described(tf.data.Dataset.zip(rows_of_own_length(tf), numbers(tf, 5)).padded_batch(3)),
    ),
    (
        "interleave",
        lambda tf: described(
            tf.data.Dataset.range(1, 4).interleave(
                lambda x: tf.data.Dataset.from_tensors(x).repeat(x), cycle_length=2, block_length=1
            )
        ),
    ),
    (
        "interleave_blocks",
        lambda tf: list(
            tf.data.Dataset.range(1, 6).interleave(
                lambda x: tf.data.Dataset.from_tensors(x).repeat(6), cycle_length=2, block_length=4
            )
        ),
    ),
    ("concatenate", lambda tf: described(numbers(tf, 3).concatenate(tf.data.Dataset.range(10, 12)))),
    (
        "concatenate_shapes_generalise",
        lambda tf: repr(
            tf.data.Dataset.from_tensor_slices([[1, 2], [3, 4]])
            .concatenate(tf.data.Dataset.from_tensor_slices([[1, 2, 3]]))
            .element_spec
        ),
    ),
    (
        "concatenate_cardinality",
        lambda tf: [
            numbers(tf, 3).concatenate(numbers(tf, 2).repeat()).cardinality(),
            numbers(tf, 3).filter(lambda x: x > 0).concatenate(numbers(tf, 2)).cardinality(),
        ],
    ),
    ("rebatch", lambda tf: described(numbers(tf, 10).batch(4).rebatch(2))),
    ("rebatch_sizes", lambda tf: described(numbers(tf, 10).batch(4, drop_remainder=True).rebatch([1, 3]))),
    ("rebatch_across_batches", lambda tf: list(numbers(tf, 8).batch(4).rebatch(3))),
    ("apply", lambda tf: described(numbers(tf, 5).apply(lambda d: d.filter(lambda x: x % 2 == 0)))),
    ("options", lambda tf: options_seen(tf)),
    (
        "assert_cardinality",
        lambda tf: described(numbers(tf, 5).filter(lambda x: x > 1).apply(tf.data.experimental.assert_cardinality(3))),
    ),
    ("assert_cardinality_too_many", lambda tf: list(numbers(tf, 5).apply(tf.data.experimental.assert_cardinality(3)))),
    ("assert_cardinality_too_few", lambda tf: list(numbers(tf, 2).apply(tf.data.experimental.assert_cardinality(3)))),
]


def options_seen(tf: Any) -> Any:
    options = tf.data.Options()
    options.deterministic = False
    options.experimental_optimization.map_parallelization = True
    ds = numbers(tf, 3).with_options(options).map(lambda x: x + 1)
    return (
        repr(numbers(tf, 3).with_options(options)),
        ds.options().deterministic,
        ds.options().experimental_optimization.map_parallelization,
        numbers(tf, 2).options().deterministic,
        list(ds),
    )


@named_examples(*CASES)
def test_dataset_builder_matches_tensorflow(case: Any) -> None:
    same(case, modes=PYTHON_ITERATION)


def test_concatenating_datasets_of_different_dtypes_is_a_type_error_with_a_hint() -> None:
    same_error(lambda tf: numbers(tf, 2).concatenate(numbers(tf, 2).map(lambda x: tf.cast(x, tf.float32))))


def test_a_generator_yielding_the_wrong_shape_fails_while_iterating() -> None:
    def case(tf: Any, seen: list) -> None:
        ds = tf.data.Dataset.from_generator(lambda: iter([1, [1, 2]]), output_signature=tf.TensorSpec((), tf.int32))
        iterator = iter(ds)
        seen.append(next(iterator))
        next(iterator)

    same_program(
        case, "`generator` yielded an element of shape (2,) where an element of shape () was expected", hint=True
    )
