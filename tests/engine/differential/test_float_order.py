"""float32 and float64 results computed in TensorFlow's order and precision, so they print the same last digit."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from harness import examples, same
from hypothesis import given
from hypothesis import strategies as st

# TensorFlow's exact kernels (an opt-in mode: minitf/exact/); NumPy's are the default.
pytestmark = pytest.mark.usefixtures("tensorflow_numerics")


def bits(t: Any) -> tuple:
    value = np.asarray(t.numpy())
    return t.dtype.name, tuple(value.shape), value.tobytes().hex()


shapes = st.sampled_from(
    [
        [3],
        [8],
        [31],
        [33],
        [100],
        [1000],
        [9000],
        [20000],
        [2, 3],
        [17, 33],
        [40, 8],
        [3, 10000],
        [200, 200],
        [4, 30, 17],
        [5, 1, 9],
        [2, 3, 4, 5],
        [3, 20, 2, 9],
        [16, 16],
        [1, 1],
    ]
)


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
        return [
            bits(tf.reduce_sum(x, axis=axis, keepdims=keepdims)),
            bits(tf.reduce_mean(x, axis=axis, keepdims=keepdims)),
        ]

    same(case)


def test_a_mean_prints_tensorflows_digits() -> None:
    def case(tf: Any) -> tuple:
        tf.random.set_seed(42)
        matrix = tf.random.uniform((200, 200))
        return str(tf.reduce_mean(matrix)), str(tf.reduce_mean(matrix, axis=0)[:5]), str(tf.reduce_sum(matrix, 1)[:3])

    same(case)


def test_a_sum_of_negative_zeros_is_positive_zero() -> None:
    same(lambda tf: bits(tf.reduce_sum(tf.constant([-0.0, -0.0]))))


# float32 exp, log, sigmoid and the softmax family: TensorFlow's own kernels (minitf/exact/exp_log.py). Eigen's
# packet approximations are reproduced bit for bit, so the bit-exact cases use sizes where every value takes the
# packet path (a multiple of 8 values). The last n % 8 values go through the C library's expf and logf, which
# minitf rounds correctly from double precision; glibc's logf is not always correctly rounded (up to 0.82 ulp),
# so a tail value may still differ in the last bit: other sizes are compared within float32 tolerance.

packet_shapes = st.sampled_from(
    [[8], [16], [64], [1000], [4, 2], [3, 8], [8, 10], [16, 3], [2, 4, 5], [40, 9], [200, 10], [8, 1000]]
)
tail_shapes = st.sampled_from([[1], [3], [7], [9], [13], [31], [1001], [4, 5], [3, 11], [7, 33]])


def special_values() -> np.ndarray:
    """Edges of the approximations: overflow and underflow limits, denormals, infinities, NaN, zeros."""
    values = [
        np.nan,
        np.inf,
        -np.inf,
        0.0,
        -0.0,
        1.0,
        -1.0,
        1e-40,
        -1e-40,
        1e-45,
        3e38,
        1.17e-38,
        88.72,
        88.73,
        -87.3,
        -87.5,
        -88.5,
        -103.9,
        -104.0,
        -104.1,
        16.6355,
        16.64,
        -52.0,
        -60.0,
        0.5,
        2.0,
        0.7071067,
        0.7071068,
        1.4142135,
        100.0,
        -100.0,
        1e-30,
        1e30,
    ]
    return np.array(values * 3, dtype=np.float32)


def elementwise_case(values: np.ndarray) -> Any:
    def case(tf: Any) -> list:
        x = tf.constant(values)
        return [bits(tf.exp(x)), bits(tf.math.log(tf.abs(x))), bits(tf.nn.sigmoid(x)), bits(tf.math.sigmoid(-x))]

    return case


@examples
@given(data=st.data(), shape=packet_shapes, scale=st.sampled_from([0.5, 4.0, 30.0]))
def test_float32_exp_log_and_sigmoid_have_tensorflows_bits(data: Any, shape: list[int], scale: float) -> None:
    seed = data.draw(st.integers(0, 2**16))
    same(elementwise_case(np.random.default_rng(seed).normal(scale=scale, size=shape).astype(np.float32)))


@examples
@given(data=st.data(), shape=tail_shapes, scale=st.sampled_from([0.5, 4.0, 30.0]))
def test_float32_exp_log_and_sigmoid_with_a_tail_match_tensorflow(data: Any, shape: list[int], scale: float) -> None:
    seed = data.draw(st.integers(0, 2**16))
    values = np.random.default_rng(seed).normal(scale=scale, size=shape).astype(np.float32)

    def case(tf: Any) -> list:
        x = tf.constant(values)
        return [tf.exp(x), tf.math.log(tf.abs(x)), tf.nn.sigmoid(x)]

    same(case)


def test_float32_exp_log_and_sigmoid_of_special_values_have_tensorflows_bits() -> None:
    def case(tf: Any) -> list:
        x = tf.constant(special_values())
        head = x[:13]  # no whole packet: every value goes through the C library's functions
        return [bits(f(v)) for f in (tf.exp, tf.math.log, tf.nn.sigmoid) for v in (x, head)]

    same(case)


@examples
@given(
    data=st.data(),
    rows=st.sampled_from([8, 16, 24, 64]),
    classes=st.integers(1, 40),
    scale=st.sampled_from([1.0, 4.0, 20.0]),
)
def test_float32_log_softmax_and_logsumexp_have_tensorflows_bits(
    data: Any, rows: int, classes: int, scale: float
) -> None:
    """Rows in whole packets of 8, so the log of the row sums takes the packet path; each row's exp inside the
    sum takes packets for its first classes // 8 * 8 values."""
    seed = data.draw(st.integers(0, 2**16))
    values = np.random.default_rng(seed).normal(scale=scale, size=(rows, classes)).astype(np.float32)

    def case(tf: Any) -> list:
        x = tf.constant(values)
        return [
            bits(tf.nn.log_softmax(x)),
            bits(tf.math.reduce_logsumexp(x, axis=1)),
            bits(tf.math.reduce_logsumexp(x, axis=-1, keepdims=True)),
        ]

    same(case)


@examples
@given(data=st.data(), shape=st.sampled_from([[3], [17], [5, 7], [2, 3, 4], [33, 9]]))
def test_float32_log_softmax_and_logsumexp_on_any_axis_match_tensorflow(data: Any, shape: list[int]) -> None:
    seed = data.draw(st.integers(0, 2**16))
    axis = data.draw(st.integers(-len(shape), len(shape) - 1))
    values = np.random.default_rng(seed).normal(scale=4.0, size=shape).astype(np.float32)

    def case(tf: Any) -> list:
        x = tf.constant(values)
        return [tf.nn.log_softmax(x, axis=axis), tf.math.reduce_logsumexp(x, axis=axis), tf.math.reduce_logsumexp(x)]

    same(case)


@examples
@given(
    data=st.data(),
    rows=st.integers(1, 7),
    classes=st.sampled_from([8, 16, 24, 80, 400]),
    scale=st.sampled_from([1.0, 4.0, 8.0]),
)
def test_float32_softmax_of_fewer_than_eight_rows_has_tensorflows_bits(
    data: Any, rows: int, classes: int, scale: float
) -> None:
    """Up to 7 rows (a vector, a small batch) TensorFlow divides by each row's sum exactly. From 8 rows on it
    takes the reciprocal of 8 sums at once with the processor's approximate reciprocal (AVX `rcpps`) and one
    Newton step, whose last bit differs between processor makers (test_reciprocal_bits.py covers those). Logits
    spread so far that a probability falls below float32's smallest normal number (1.2e-38) are left out:
    there TensorFlow's flushing of denormals is not modelled everywhere yet."""
    seed = data.draw(st.integers(0, 2**16))
    values = np.random.default_rng(seed).normal(scale=scale, size=(rows, classes)).astype(np.float32)

    def case(tf: Any) -> list:
        x = tf.constant(values)
        return [bits(tf.nn.softmax(x)), bits(tf.nn.softmax(x[0])), bits(tf.nn.softmax(tf.transpose(x), axis=0))]

    same(case)


def test_a_softmax_prints_tensorflows_digits() -> None:
    def case(tf: Any) -> tuple:
        logits = tf.constant([[2.0, 1.0, 0.1, -1.0, 0.0, 3.0, 0.5, 1.5], [0.5, 2.5, -1.0, 0.0, 1.0, 2.0, -2.0, 0.1]])
        return (
            str(tf.nn.softmax(logits)),
            str(tf.nn.log_softmax(tf.concat([logits] * 4, 0))),
            str(tf.nn.sigmoid(logits)),
            str(tf.exp(tf.linspace(-3.0, 3.0, 16))),
        )

    same(case)
