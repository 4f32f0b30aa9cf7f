"""Seeded random numbers in minitf's default (NumPy) numerics: uniform and integer samples are TensorFlow's bit
for bit (bit manipulations of Philox's words), normal samples equal to float precision (Box-Muller's log, sin and
cos are NumPy's, the C library's in TensorFlow; test_random.py checks every bit in TensorFlow-exact numerics)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from harness import real_tf, same

import minitf
from minitf.ops.random import philox


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


@pytest.mark.slow  # compiles the loops on first use (a few seconds without Numba's on-disk cache)
@pytest.mark.parametrize("draw", ["normal", "uniform", "stateless_normal", "stateless_uniform"])
def test_large_float32_draws_are_tensorflows_numbers(draw: str) -> None:
    """From philox.COMPILED_FROM samples the draws run as compiled loops: still TensorFlow's stream, and the
    normals take the C library's log, sin and cos as TensorFlow's kernel does."""
    shape = [philox.COMPILED_FROM // 256 + 1, 257]  # past the threshold, and not a whole number of blocks
    assert shape[0] * shape[1] >= philox.COMPILED_FROM

    def case(tf: Any) -> Any:
        tf.random.set_seed(11)
        if draw.startswith("stateless"):
            return getattr(tf.random, draw)(shape, seed=[4, 9]).numpy()
        return getattr(tf.random, draw)(shape, seed=2).numpy()

    mine, theirs = case(minitf), case(real_tf)
    assert mine.dtype == theirs.dtype == np.float32
    np.testing.assert_array_max_ulp(mine, theirs, maxulp=1)
    if draw.endswith("uniform"):
        assert mine.tobytes() == theirs.tobytes()


@pytest.mark.slow  # as above
@pytest.mark.parametrize("kind", ["normal", "uniform"])
def test_compiled_draws_equal_numpys(kind: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The compiled loops and NumPy's passes draw the same samples, across a carry into the counter's high half
    (normals to float32 round-off: NumPy's path rounds double-precision log, sin and cos to float32, the loops
    call the C library's float32 functions; a last-bit difference in log(u) and in sin or cos, carried through
    the square root and the product, makes at most 4 units in the last place)."""
    gen = philox.Philox(key=2**40 + 5, counter=2**64 - 1000)
    n = philox.COMPILED_FROM + 3
    compiled = getattr(philox, kind)(gen, n, np.float32)
    monkeypatch.setattr(philox, "COMPILED_FROM", n + 1)
    by_numpy = getattr(philox, kind)(gen, n, np.float32)
    assert compiled.shape == by_numpy.shape == (n,)
    np.testing.assert_array_max_ulp(compiled, by_numpy, maxulp=4)
    if kind == "uniform":
        assert compiled.tobytes() == by_numpy.tobytes()
