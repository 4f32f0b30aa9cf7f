"""tanh prints TensorFlow's last digit: float32, float64 and float16 `tf.math.tanh` (and `tf.nn.tanh`, `tf.tanh`)
have TensorFlow's exact bit patterns (minitf/exact/tanh.py), and so do their gradients."""

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


SPECIAL = [
    np.nan,
    -np.nan,
    np.inf,
    -np.inf,
    0.0,
    -0.0,
    1e-45,
    -1e-45,
    1e-40,
    -1e-40,
    1.17e-38,
    1e-30,
    3e38,
    -3e38,
    1e-4,
    3.9e-4,
    4e-4,
    4.1e-4,
    0.5,
    1.25,
    7.90738964,
    7.9074,
    7.99881,
    8.5,
    9.0,
    16.0,
    17.714,
    17.72,
    20.0,
    -0.3,
    -2.0,
    -7.95,
    -100.0,
]
shapes = st.sampled_from([[1], [3], [4], [7], [8], [9], [16], [31], [1001], [4, 5], [3, 11], [40, 8]])
scales = st.sampled_from([1e-3, 0.05, 0.5, 2.0, 6.0, 12.0])


def tanh_bits(values: np.ndarray) -> Any:
    def case(tf: Any) -> list:
        x = tf.constant(values)
        return [bits(tf.math.tanh(x)), bits(tf.nn.tanh(x)), bits(tf.tanh(x[::-1]))]

    return case


@examples
@given(data=st.data(), shape=shapes, scale=scales, dtype=st.sampled_from(["float32", "float64", "float16"]))
def test_tanh_has_tensorflows_bits(data: Any, shape: list[int], scale: float, dtype: str) -> None:
    seed = data.draw(st.integers(0, 2**16))
    same(tanh_bits(np.random.default_rng(seed).normal(scale=scale, size=shape).astype(dtype)))


def test_tanh_of_special_values_has_tensorflows_bits() -> None:
    for dtype in ("float32", "float64", "float16"):
        values = np.array(SPECIAL, dtype=dtype)
        same(tanh_bits(values))
        same(tanh_bits(values[:7]))  # a tail only: float64 takes the C library's tanh there


def test_every_float16_tanh_has_tensorflows_bits() -> None:
    same(tanh_bits(np.arange(0, 2**16, dtype=np.uint16).view(np.float16)))


@examples
@given(data=st.data(), shape=shapes, dtype=st.sampled_from(["float32", "float64"]))
def test_tanh_gradient_has_tensorflows_bits(data: Any, shape: list[int], dtype: str) -> None:
    rng = np.random.default_rng(data.draw(st.integers(0, 2**16)))
    values, upstream = rng.normal(scale=2.0, size=shape).astype(dtype), rng.normal(size=shape).astype(dtype)

    def case(tf: Any) -> Any:
        x = tf.constant(values)
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.math.tanh(x)
        return bits(tape.gradient(y, x, output_gradients=tf.constant(upstream)))

    same(case)


def test_tanh_prints_tensorflows_digits() -> None:
    same(lambda tf: (str(tf.tanh(tf.linspace(-3.0, 3.0, 13))), str(tf.nn.tanh(tf.constant([[0.1, 0.7, 1.9]])))))
