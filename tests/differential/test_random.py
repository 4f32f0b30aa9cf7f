"""tf.random: shapes, dtypes, ranges and TensorFlow's seed rules. The bits themselves are never compared
(minitf does not reproduce TensorFlow's Philox generator); each engine is checked against itself."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from harness import examples, named_examples, same
from hypothesis import given
from hypothesis import strategies as st


def summary(t: Any) -> tuple:
    """What may be compared across engines: dtype and shape (never the values themselves)."""
    return t.dtype, t.shape


@examples
@given(shape=st.lists(st.integers(0, 4), max_size=3), dtype=st.sampled_from(["float16", "float32", "float64", "int32",
                                                                            "int64", "int8", "bool"]),
       bounds=st.sampled_from([(None, None), (0, 10), (-5, -1), (2.5, 3.5), (3, 3), (5, 1)]))
def test_uniform_shape_dtype_and_range_match_tensorflow(shape: list[int], dtype: str, bounds: tuple) -> None:
    low, high = bounds

    def case(tf: Any) -> Any:
        kwargs = {} if low is None else {"minval": low, "maxval": high}
        t = tf.random.uniform(shape, dtype=getattr(tf, dtype), **kwargs)
        values = t.numpy()
        lo = 0 if low is None else low
        hi = 1 if high is None else high
        return summary(t), bool(np.all((values >= lo) & (values < hi)) if lo < hi else True)

    same(case)


@examples
@given(shape=st.lists(st.integers(0, 4), max_size=3), dtype=st.sampled_from(["float16", "float32", "float64", "int32"]),
       mean=st.sampled_from([0.0, 5.0, -2]), stddev=st.sampled_from([1.0, 0.5, 2]))
def test_normal_shape_and_dtype_match_tensorflow(shape: list[int], dtype: str, mean: Any, stddev: Any) -> None:
    same(lambda tf: summary(tf.random.normal(shape, mean=mean, stddev=stddev, dtype=getattr(tf, dtype))))


def sequence_after_set_seed(tf: Any, seed: int, op_seed: Any) -> tuple:
    """The seed rules, observed within one engine: booleans only, never values."""
    tf.random.set_seed(seed)
    first = tf.random.uniform([4], seed=op_seed).numpy()
    second = tf.random.uniform([4], seed=op_seed).numpy()
    tf.random.set_seed(seed)
    again_first = tf.random.uniform([4], seed=op_seed).numpy()
    again_second = tf.random.uniform([4], seed=op_seed).numpy()
    tf.random.set_seed(seed + 1)
    other = tf.random.uniform([4], seed=op_seed).numpy()
    return (bool(np.array_equal(first, again_first)), bool(np.array_equal(second, again_second)),
            bool(np.array_equal(first, second)), bool(np.array_equal(first, other)))


@pytest.mark.parametrize("op_seed", [None, 7])
@pytest.mark.parametrize("seed", [0, 42, 1234])
def test_set_seed_makes_the_sequence_reproducible_as_in_tensorflow(seed: int, op_seed: Any) -> None:
    same(sequence_after_set_seed, seed, op_seed)


def normal_moments(tf: Any) -> tuple:
    tf.random.set_seed(3)
    values = tf.random.normal([20000], mean=2.0, stddev=3.0).numpy()
    uniform = tf.random.uniform([20000], minval=-1.0, maxval=1.0).numpy()
    return (bool(abs(values.mean() - 2.0) < 0.1), bool(abs(values.std() - 3.0) < 0.1),
            bool(abs(uniform.mean()) < 0.05), bool(abs(uniform.var() - 1 / 3) < 0.02))


def test_samples_have_the_requested_distribution() -> None:
    same(normal_moments)


def different_ops_draw_differently(tf: Any) -> tuple:
    tf.random.set_seed(5)
    a = tf.random.normal([3]).numpy()
    b = tf.random.uniform([3]).numpy()
    tf.random.set_seed(5)
    c = tf.random.normal([3]).numpy()
    return bool(np.array_equal(a, c)), bool(np.array_equal(a, b))


def test_each_random_op_gets_its_own_seed_from_the_sequence() -> None:
    same(different_ops_draw_differently)


@named_examples(
    ("uniform_int_needs_maxval", lambda tf: tf.random.uniform([2], dtype=tf.int32)),
    ("uniform_bad_dtype", lambda tf: tf.random.uniform([2], dtype=tf.bool)),
    ("normal_int_dtype", lambda tf: tf.random.normal([2], dtype=tf.int32)),
    ("uniform_negative_shape", lambda tf: tf.random.uniform([-1])),
    ("uniform_tensor_shape", lambda tf: tf.random.uniform(tf.constant([2, 3])).shape),
    ("uniform_scalar_shape", lambda tf: tf.random.uniform([]).shape),
    ("set_seed_returns_none", lambda tf: tf.random.set_seed(1)),
    ("shuffle_keeps_values", lambda tf: sorted(tf.random.shuffle(tf.range(6)).numpy().tolist())),
    ("truncated_normal_within_two_sigma", lambda tf: bool(np.all(np.abs(tf.random.truncated_normal([500]).numpy())
                                                                 <= 2.0))),
)
def test_random_rules_match_tensorflow(case: Any) -> None:
    same(case)
