"""float32 reciprocals print TensorFlow's last digit: `tf.math.reciprocal` and softmax (from 8 rows on, where
TensorFlow multiplies by reciprocals of 8 row sums at a time) take the processor's approximate reciprocal and
one Newton step, as Eigen's packets do (minitf/exact/reciprocal.py)."""

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


@examples
@given(data=st.data(), rows=st.integers(8, 70), classes=st.integers(1, 40), scale=st.sampled_from([1.0, 4.0, 8.0]))
def test_float32_softmax_of_eight_rows_or_more_has_tensorflows_bits(
    data: Any, rows: int, classes: int, scale: float
) -> None:
    values = np.random.default_rng(data.draw(st.integers(0, 2**16))).normal(scale=scale, size=(rows, classes))
    logits = values.astype(np.float32)

    def case(tf: Any) -> list:
        x = tf.constant(logits)
        return [
            bits(tf.nn.softmax(x)),
            bits(tf.nn.softmax(tf.transpose(x), axis=0)),
            bits(tf.nn.softmax(tf.reshape(x, [2, -1, classes]) if rows % 2 == 0 else x)),
        ]

    same(case)


@examples
@given(
    data=st.data(),
    shape=st.sampled_from([[3], [8], [13], [64], [1000], [4, 9]]),
    scale=st.sampled_from([1e-3, 1.0, 1e4]),
)
def test_float32_reciprocal_has_tensorflows_bits(data: Any, shape: list[int], scale: float) -> None:
    values = np.random.default_rng(data.draw(st.integers(0, 2**16))).normal(scale=scale, size=shape)
    same(lambda tf: bits(tf.math.reciprocal(tf.constant(values.astype(np.float32)))))


def test_float32_reciprocal_of_special_values_has_tensorflows_bits() -> None:
    special = np.array(
        [0.0, -0.0, np.inf, -np.inf, np.nan, 1e-40, -1e-40, 1.1e-38, 3e38, -3e38, 1.0, 3.0, 7.0, 0.1, 1e-30, 1e30],
        np.float32,
    )
    same(
        lambda tf: [bits(tf.math.reciprocal(tf.constant(special))), bits(tf.math.reciprocal(tf.constant(special[:7])))]
    )


def test_a_batch_softmax_prints_tensorflows_digits() -> None:
    logits = (np.sin(np.arange(48)) * 3).astype(np.float32).reshape(12, 4)
    same(lambda tf: str(tf.nn.softmax(tf.constant(logits))))
