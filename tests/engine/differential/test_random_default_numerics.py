"""Seeded random numbers in minitf's default (NumPy) numerics: uniform and integer samples are TensorFlow's bit
for bit (bit manipulations of Philox's words), normal samples equal to float precision (Box-Muller's log, sin and
cos are NumPy's, the C library's in TensorFlow; test_random.py checks every bit in TensorFlow-exact numerics)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from harness import same

import minitf


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_seeded_samples_match_tensorflow_in_default_numerics(dtype: str) -> None:
    assert minitf.api.experimental.get_numerics() == "numpy"

    def case(tf: Any) -> list:
        tf.random.set_seed(5)
        d = getattr(tf, dtype)
        uniform = tf.random.uniform([257], dtype=d, seed=3)
        return [
            np.asarray(uniform.numpy()).tobytes().hex(),
            tf.random.normal([257], dtype=d, seed=3),
            tf.random.normal([3, 4], mean=2.0, stddev=0.5, dtype=d),
            tf.random.truncated_normal([100], dtype=d, seed=11),
            tf.random.stateless_normal([64], seed=[1, 2], dtype=d),
        ]

    same(case)
