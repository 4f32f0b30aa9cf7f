"""float32 and float64 results computed in TensorFlow's order and precision, so they print the same last digit."""

from __future__ import annotations

from typing import Any

import numpy as np
from harness import examples, same
from hypothesis import given
from hypothesis import strategies as st


def bits(t: Any) -> tuple:
    value = np.asarray(t.numpy())
    return t.dtype.name, tuple(value.shape), value.tobytes().hex()


shapes = st.sampled_from([[3], [8], [31], [33], [100], [1000], [9000], [20000], [2, 3], [17, 33], [40, 8], [3, 10000],
                          [200, 200], [4, 30, 17], [5, 1, 9], [2, 3, 4, 5], [3, 20, 2, 9], [16, 16], [1, 1]])


def axes_for(rank: int) -> st.SearchStrategy:
    single = st.integers(-rank, rank - 1) if rank else st.just(None)
    return st.none() | single | st.lists(st.integers(0, max(rank - 1, 0)), min_size=1, max_size=rank, unique=True)


@examples
@given(data=st.data(), shape=shapes, dtype=st.sampled_from(["float32", "float64"]), keepdims=st.booleans())
def test_sums_and_means_have_tensorflows_bits(data: Any, shape: list[int], dtype: str, keepdims: bool) -> None:
    axis = data.draw(axes_for(len(shape)))
    values = np.random.default_rng(len(shape) * 1000 + sum(shape)).normal(scale=3, size=shape)

    def case(tf: Any) -> list:
        x = tf.constant(values, dtype=getattr(tf, dtype))
        return [bits(tf.reduce_sum(x, axis=axis, keepdims=keepdims)),
                bits(tf.reduce_mean(x, axis=axis, keepdims=keepdims))]

    same(case)


def test_a_mean_prints_tensorflows_digits() -> None:
    def case(tf: Any) -> tuple:
        tf.random.set_seed(42)
        matrix = tf.random.uniform((200, 200))
        return str(tf.reduce_mean(matrix)), str(tf.reduce_mean(matrix, axis=0)[:5]), str(tf.reduce_sum(matrix, 1)[:3])

    same(case)


def test_a_sum_of_negative_zeros_is_positive_zero() -> None:
    same(lambda tf: bits(tf.reduce_sum(tf.constant([-0.0, -0.0]))))
