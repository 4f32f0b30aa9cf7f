"""tf.random: the same numbers as TensorFlow, bit for bit, and the same seed rules, shapes, dtypes and errors.

Bit for bit in TensorFlow-exact numerics (the module runs in them): normal samples take the C library's log,
sin and cos there, NumPy's by default (the last test: equal to float precision).

Every case starts with `tf.random.set_seed`, which also throws away TensorFlow's cached kernels (and their
counters), so cases do not depend on the order they run in.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from harness import EAGER, TAPE, examples, named_examples, only, same
from hypothesis import given
from hypothesis import strategies as st

pytestmark = pytest.mark.usefixtures("tensorflow_numerics")


def bits(t: Any) -> tuple:
    """A tensor as dtype, shape and its exact bytes: equal only if every value is bit-for-bit the same."""
    value = np.asarray(t.numpy())
    return t.dtype.name, tuple(value.shape), value.tobytes().hex()


def all_bits(tensors: Any) -> list:
    return [bits(t) for t in tensors]


shapes = st.lists(st.integers(0, 5), max_size=3) | st.sampled_from([[1], [7], [13], [3, 3], [257]])
float_dtypes = st.sampled_from(["float16", "float32", "float64"])
op_seeds = st.none() | st.integers(0, 2**31) | st.sampled_from([2**40 + 3, -7])


@examples
@given(global_seed=st.integers(0, 2**33) | st.sampled_from([0, -1]), op_seed=op_seeds, shape=shapes, dtype=float_dtypes)
def test_seeded_float_samples_are_tensorflows(global_seed: int, op_seed: Any, shape: list[int], dtype: str) -> None:
    def case(tf: Any) -> list:
        tf.random.set_seed(global_seed)
        d = getattr(tf, dtype)
        return all_bits(
            [
                tf.random.uniform(shape, dtype=d, seed=op_seed),
                tf.random.uniform(shape, minval=-2.5, maxval=4, dtype=d, seed=op_seed),
                tf.random.uniform(shape, maxval=3, dtype=d, seed=op_seed),
                tf.random.normal(shape, dtype=d, seed=op_seed),
                tf.random.normal(shape, mean=1.5, stddev=0.25, dtype=d, seed=op_seed),
                tf.random.truncated_normal(shape, dtype=d, seed=op_seed),
                tf.random.truncated_normal(shape, mean=-3, stddev=2, dtype=d, seed=op_seed),
            ]
        )

    same(case)


@examples
@given(
    global_seed=st.integers(0, 1000),
    op_seed=op_seeds,
    shape=shapes,
    dtype=st.sampled_from(["int32", "int64"]),
    bounds=st.sampled_from([(0, 10), (-5, 3), (-(2**31), 2**31 - 1), (7, 8), (0, 2**31 - 1)]),
)
def test_seeded_integer_samples_are_tensorflows(
    global_seed: int, op_seed: Any, shape: list[int], dtype: str, bounds: tuple[int, int]
) -> None:
    def case(tf: Any) -> list:
        tf.random.set_seed(global_seed)
        low, high = bounds
        return all_bits([tf.random.uniform(shape, low, high, dtype=getattr(tf, dtype), seed=op_seed) for _ in range(2)])

    same(case)


def test_repeated_calls_continue_one_kernel_per_signature() -> None:
    """Eagerly TensorFlow caches a kernel per op signature: a second call with the same seeds continues its
    stream even with another shape; another dtype or another seed is another kernel."""

    def case(tf: Any) -> list:
        tf.random.set_seed(5)
        return all_bits(
            [
                tf.random.uniform([2], seed=9),
                tf.random.uniform([3], seed=9),
                tf.random.uniform([3], seed=9, dtype=tf.float64),
                tf.random.normal([5], seed=9),
                tf.random.uniform([1], seed=10),
                tf.random.uniform([2, 2], seed=9),
            ]
        )

    same(case)


@pytest.mark.parametrize("seed", [None, 0, 1, 42, 2**31 - 1, 2**31 + 5])
def test_op_seeds_follow_the_global_seed_as_in_tensorflow(seed: Any) -> None:
    def case(tf: Any) -> list:
        tf.random.set_seed(seed)
        draws = [tf.random.uniform([3], seed=1), tf.random.normal([2], seed=1), tf.random.uniform([3], seed=1)]
        if seed is not None:  # without any seed the numbers come from the operating system
            draws += [tf.random.uniform([3]), tf.random.normal([4]), tf.random.uniform([3])]
        return all_bits(draws)

    same(case)


def test_set_seed_restarts_the_sequence() -> None:
    def case(tf: Any) -> list:
        draws = []
        for _ in range(2):
            tf.random.set_seed(3)
            draws += [tf.random.uniform([2]), tf.random.uniform([2], seed=4), tf.random.uniform([2], seed=4)]
        return all_bits(draws)

    same(case)


def test_traced_random_ops_count_op_seeds_per_graph_and_keep_state_between_calls() -> None:
    def case(tf: Any) -> list:
        tf.random.set_seed(1)

        @tf.function
        def draw() -> Any:
            return (
                tf.random.uniform([2], seed=3),
                tf.random.uniform([2]),
                tf.random.normal([3]),
                tf.random.truncated_normal([2], dtype=tf.float64),
                tf.random.shuffle(tf.range(6)),
                tf.random.uniform([2], 0, 100, dtype=tf.int64),
                tf.random.categorical([[0.0, 1.0]], 3),
            )

        first, second = draw(), draw()
        tf.random.set_seed(1)  # throws the function's kernels away too: the same numbers again
        again = draw()
        eager = tf.random.uniform([2])  # the eager sequence is separate from the graph's
        return all_bits([*first, *second, *again, eager])

    same(case)


def test_traced_function_with_a_python_loop_of_random_ops() -> None:
    def case(tf: Any) -> list:
        tf.random.set_seed(11)

        @tf.function
        def noisy(x: Any) -> Any:
            for _ in range(3):
                x = x + tf.random.normal(tf.shape(x))
            return x

        return all_bits([noisy(tf.zeros([4])), noisy(tf.zeros([4])), noisy(tf.zeros([2, 3]))])

    same(case)


@pytest.mark.parametrize("size", [0, 1, 2, 7, 50])
def test_shuffle_is_tensorflows_permutation(size: int) -> None:
    def case(tf: Any) -> list:
        tf.random.set_seed(8)
        x = tf.range(size) * 3
        matrix = tf.reshape(tf.range(2 * size, dtype=tf.float32), [size, 2])
        return all_bits(
            [
                tf.random.shuffle(x),
                tf.random.shuffle(x),
                tf.random.shuffle(matrix),
                tf.random.shuffle(x, seed=2),
                tf.random.uniform([3]),
            ]
        )

    same(case)


@pytest.mark.parametrize(
    "logits", [[[0.0, 1.0, 2.0]], [[1.0, 1.0], [-1.0, 3.0], [0.0, 0.0]], [[0.0, -np.inf, 2.0, 1.0]], [[5.0]]]
)
@pytest.mark.parametrize("num_samples", [1, 5, 8])
def test_categorical_draws_tensorflows_classes(logits: list, num_samples: int) -> None:
    def case(tf: Any) -> list:
        tf.random.set_seed(4)
        return all_bits(
            [
                tf.random.categorical(logits, num_samples),
                tf.random.categorical(logits, num_samples),
                tf.random.categorical(tf.constant(logits, tf.float64), num_samples, dtype=tf.int32, seed=3),
                tf.random.stateless_categorical(logits, num_samples, seed=[7, num_samples]),
                tf.random.uniform([2]),
            ]
        )

    same(case)


seeds = st.tuples(st.integers(-(2**63), 2**63 - 1), st.integers(-(2**63), 2**63 - 1)) | st.tuples(
    st.integers(0, 100), st.integers(0, 100)
)


@examples
@given(seed=seeds, shape=shapes, dtype=float_dtypes, seed_dtype=st.sampled_from(["int32", "int64"]))
def test_stateless_samples_are_tensorflows(
    seed: tuple[int, int], shape: list[int], dtype: str, seed_dtype: str
) -> None:
    def case(tf: Any) -> list:
        d = getattr(tf, dtype)
        if seed_dtype == "int32":
            s = tf.constant([seed[0] % 2**31, seed[1] % 2**31], tf.int32)
        else:
            s = tf.constant(seed, tf.int64)
        return all_bits(
            [
                tf.random.stateless_uniform(shape, seed=s, dtype=d),
                tf.random.stateless_uniform(shape, seed=s, minval=-1, maxval=3, dtype=d),
                tf.random.stateless_normal(shape, seed=s, mean=2, stddev=0.5, dtype=d),
                tf.random.stateless_truncated_normal(shape, seed=s, dtype=d),
            ]
        )

    same(case)


@examples
@given(
    seed=seeds,
    shape=shapes,
    dtype=st.sampled_from(["int32", "int64", "uint32", "uint64"]),
    bounds=st.sampled_from([None, (0, 10), (-100, 100), (-(2**31), 2**31 - 1), (3, 4)]),
)
def test_stateless_integers_are_tensorflows(seed: tuple[int, int], shape: list[int], dtype: str, bounds: Any) -> None:
    def case(tf: Any) -> Any:
        low, high = bounds if bounds is not None else (None, None)
        return bits(
            tf.random.stateless_uniform(
                shape, seed=tf.constant(seed, tf.int64), minval=low, maxval=high, dtype=getattr(tf, dtype)
            )
        )

    same(case)


@pytest.mark.parametrize("seed", [[1, 2], [0, 0], [-5, 2**40]])
def test_split_and_fold_in_make_tensorflows_seeds(seed: list[int]) -> None:
    def case(tf: Any) -> list:
        s64 = tf.constant(seed, tf.int64)
        return all_bits(
            [
                tf.random.split(s64),
                tf.random.split(s64, num=3),
                tf.random.fold_in(s64, 7),
                tf.random.split(tf.constant([seed[0] % 1000, 3])),
                tf.random.fold_in([1, 2], 5),
                tf.random.experimental.stateless_split(s64, 4),
            ]
        )

    same(case)


def test_stateless_ops_inside_a_function_match_eager_and_tensorflow() -> None:
    def case(tf: Any) -> list:
        @tf.function
        def draw(seed: Any) -> Any:
            return tf.random.stateless_normal([3], seed=seed), tf.random.stateless_uniform([2], seed=seed)

        return all_bits([*draw(tf.constant([1, 2])), *draw(tf.constant([1, 2])), *draw(tf.constant([3, 4]))])

    same(case)


@pytest.mark.parametrize("seed", [0, 1234, 2**64 + 5, 2**70, [1, 2], [1, 2, 3, 4]])
def test_generator_from_seed_draws_tensorflows_numbers(seed: Any) -> None:
    def case(tf: Any) -> list:
        g = tf.random.Generator.from_seed(seed)
        draws = [
            g.state,
            g.uniform([3]),
            g.normal([2, 3], mean=1.0),
            g.truncated_normal([5], dtype=tf.float64),
            g.uniform([4], minval=-3, maxval=10, dtype=tf.int32),
            g.uniform([2], dtype=tf.int64, minval=None, maxval=None),
            g.uniform_full_int([3], dtype=tf.uint32),
            g.uniform([7], minval=2.0, maxval=3.0, dtype=tf.float16),
            g.make_seeds(3),
            g.state,
        ]
        a, b = g.split(2)
        draws += [a.state, b.state, a.normal([3]), b.uniform([2]), g.state, g.key]
        g.reset_from_seed(7)
        draws += [g.uniform([2]), g.skip(10), g.state, g.normal([1])]
        return all_bits(draws)

    # The Generator is a variable created in the case, and `all_bits` reads `.numpy()`: eager-only in TensorFlow.
    same(case, modes=(EAGER, TAPE))


def test_generator_inside_a_function_moves_its_state_on() -> None:
    def case(tf: Any) -> list:
        g = tf.random.Generator.from_seed(99)

        @tf.function
        def step() -> Any:
            return g.normal([2]), g.uniform([3], maxval=5, minval=0, dtype=tf.int64)

        return all_bits([*step(), *step(), g.state, g.normal([2])])

    same(case)


def test_non_deterministic_generators_have_the_shapes_and_differ() -> None:
    def case(tf: Any) -> tuple:
        g, h = tf.random.Generator.from_non_deterministic_state(), tf.random.Generator.from_non_deterministic_state()
        x, y = g.normal([3, 2]), h.normal([3, 2])
        return (
            x.dtype.name,
            tuple(x.shape),
            g.state.dtype.name,
            tuple(g.state.shape),
            g.algorithm,
            bool(np.array_equal(x.numpy(), y.numpy())),
            tuple(g.make_seeds(4).shape),
        )

    same(case)


def test_seeded_tensors_print_the_same_digits() -> None:
    def case(tf: Any) -> tuple:
        tf.random.set_seed(7)
        w = tf.random.normal((4, 3), mean=0.0, stddev=0.5)
        return str(w), repr(tf.random.uniform((2, 3))), str(tf.random.stateless_normal([2], seed=[1, 2]))

    # Printing shows values only eagerly (a graph tensor's str() has none), and the traced ops draw from
    # per-graph op seeds, not the eager random sequence.
    same(case, modes=(EAGER, TAPE))


def test_samples_have_the_requested_distribution() -> None:
    def case(tf: Any) -> tuple:
        tf.random.set_seed(3)
        values = tf.random.normal([20000], mean=2.0, stddev=3.0).numpy()
        truncated = tf.random.truncated_normal([20000]).numpy()
        return (
            bool(abs(values.mean() - 2.0) < 0.1),
            bool(abs(values.std() - 3.0) < 0.1),
            bool(np.all(np.abs(truncated) < 2.0)),
            bool(abs(truncated.std() - 0.88) < 0.02),
        )

    same(case)


@named_examples(
    ("uniform_int_needs_maxval", lambda tf: tf.random.uniform([2], dtype=tf.int32)),
    ("uniform_bad_dtype", lambda tf: tf.random.uniform([2], dtype=tf.bool)),
    ("uniform_int_empty_range", lambda tf: tf.random.uniform([2], 5, 1, dtype=tf.int32)),
    ("uniform_int_empty_range_no_samples", lambda tf: bits(tf.random.uniform([0], 5, 1, dtype=tf.int32))),
    ("normal_int_dtype", lambda tf: tf.random.normal([2], dtype=tf.int32)),
    ("truncated_normal_int_dtype", lambda tf: tf.random.truncated_normal([2], dtype=tf.int32)),
    ("uniform_negative_shape", lambda tf: tf.random.uniform([-1])),
    ("uniform_tensor_shape", lambda tf: tf.random.uniform(tf.constant([2, 3])).shape),
    ("uniform_scalar_shape", lambda tf: tf.random.uniform([]).shape),
    ("set_seed_returns_none", lambda tf: tf.random.set_seed(1)),
    ("categorical_vector_logits", lambda tf: tf.random.categorical([1.0, 2.0], 2)),
    ("categorical_bad_dtype", lambda tf: tf.random.categorical([[1.0, 2.0]], 2, dtype=tf.float32)),
    ("stateless_seed_of_three", lambda tf: tf.random.stateless_uniform([2], seed=[1, 2, 3])),
    ("stateless_float_seed", lambda tf: tf.random.stateless_uniform([2], seed=[1.0, 2.0])),
    (
        "stateless_int_half_bounds",
        lambda tf: tf.random.stateless_uniform([2], seed=[1, 2], maxval=5, dtype=tf.int32, minval=None),
    ),
    (
        "stateless_unsigned_bounds",
        lambda tf: tf.random.stateless_uniform([2], seed=[1, 2], minval=0, maxval=5, dtype=tf.uint32),
    ),
    (
        "generator_int_half_bounds",
        lambda tf: tf.random.Generator.from_seed(1).uniform([2], maxval=3, minval=None, dtype=tf.int32),
    ),
    (
        "generator_state_is_int64_of_three",
        only((EAGER, TAPE), "creates a Generator (a variable) and reads .numpy(): eager-only in TensorFlow")(
            lambda tf: bits(tf.random.Generator.from_seed(5).state)
        ),
    ),
)
def test_random_rules_match_tensorflow(case: Any) -> None:
    same(case)


@pytest.mark.parametrize(
    ("size", "buffer_size", "seed", "global_seed"),
    [(10, 4, 3, None), (10, 10, 5, None), (7, 100, 1, None), (12, 1, 2, None), (20, 6, None, 9), (9, 3, 4, 11)],
)
@pytest.mark.parametrize("reshuffle", [True, False])
def test_the_dataset_shuffle_buffer_gives_tensorflows_order(
    size: int, buffer_size: int, seed: Any, global_seed: Any, reshuffle: bool
) -> None:
    """The shuffle buffer on its own (Dataset.shuffle uses it) against TensorFlow's Dataset.shuffle."""
    from harness import minitf, real_tf

    from minitf.ops.random.random_ops import DatasetShuffle

    real_tf.random.set_seed(global_seed)
    dataset = real_tf.data.Dataset.range(size).shuffle(buffer_size, seed=seed, reshuffle_each_iteration=reshuffle)
    expected = [[int(v) for v in dataset.as_numpy_iterator()] for _ in range(3)]
    minitf.api.random.set_seed(global_seed)
    shuffle = DatasetShuffle(seed, reshuffle_each_iteration=reshuffle)
    assert [list(shuffle.epoch(range(size), buffer_size)) for _ in range(3)] == expected


def test_a_shape_of_another_integer_type_is_another_kernel() -> None:
    def case(tf: Any) -> list:
        tf.random.set_seed(6)
        return all_bits(
            [
                tf.random.uniform([2], seed=1),
                tf.random.uniform(tf.constant([2], tf.int64), seed=1),
                tf.random.uniform(tf.constant([2]), seed=1),
                tf.random.normal(tf.constant([3], tf.int64)),
            ]
        )

    same(case)


@pytest.mark.parametrize("seed", [1234, 2**70 + 5, [3, 4]])
def test_create_rng_state_and_algorithms_are_tensorflows(seed: Any) -> None:
    def case(tf: Any) -> list:
        g = tf.random.Generator.from_seed(5, alg=tf.random.Algorithm.PHILOX)
        return [
            bits(tf.random.create_rng_state(seed, "philox")),
            bits(tf.random.create_rng_state(seed, 1)),
            tf.random.Algorithm.PHILOX.value,
            tf.random.Algorithm.AUTO_SELECT.value,
            g.algorithm,
            bits(tf.random.stateless_normal([3], seed=[1, 2], alg=tf.random.Algorithm.AUTO_SELECT)),
        ]

    # Creates a Generator (a variable) in the case, and TensorFlow's create_rng_state reads a list seed with
    # .numpy(), which a symbolic tensor does not have: eager-only in TensorFlow.
    same(case, modes=(EAGER, TAPE))


def test_generator_from_key_counter_and_copy() -> None:
    def case(tf: Any) -> list:
        g = tf.random.Generator.from_key_counter(key=7, counter=[5, 6], alg="philox")
        h = tf.random.Generator(copy_from=g)
        draws = [g.state, g.normal([3]), h.normal([3]), h.state]
        g.reset_from_key_counter(key=9, counter=[1, 0])
        return all_bits([*draws, g.state, g.uniform([2])])

    same(case)
