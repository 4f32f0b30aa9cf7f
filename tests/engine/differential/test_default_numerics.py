"""minitf's default float kernels (NumPy's) against TensorFlow's, within the tolerances docs/testing.md states:

* elementwise functions: at most ELEMENTWISE_ULPS units in the last place (results below the smallest normal
  number aside: TensorFlow flushes them to zero);
* softmax and log_softmax: at most ROW_EPS machine epsilons times (1 + the row's largest |x|), the scale of
  their rounding errors;
* sums and means: at most sqrt(n) machine epsilons times the sum of |x| (n values per result): two orders of
  adding n values differ by rounding errors that grow like a random walk (the worst case, n - 1, is far looser).

Measured on these inputs (float32 / float64): exp 2 / 1 ulp, log 4 / 1, tanh 5 / 8, sigmoid 7 / 2, reciprocal
2 / 0, sin 2 / 0, log1p 4 / 2; softmax 0.33, log_softmax 3.96; a sum's difference is at most 1.2 epsilons
times the sum of |x| (300 values added down a column), well inside sqrt(n).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import tensorflow as real_tf

import minitf

pytestmark = pytest.mark.tf

ELEMENTWISE_ULPS = 10
ROW_EPS = 8
DTYPES = [np.float32, np.float64]


def _values(dtype: type) -> np.ndarray:
    rng = np.random.default_rng(0)
    return np.concatenate([rng.normal(scale=s, size=5000) for s in (0.01, 1, 5, 30)]).astype(dtype)


def ulps(actual: np.ndarray, expected: np.ndarray) -> float:
    """The largest distance in units of the last place; values TensorFlow flushes (below the smallest normal
    number) and equal values (infinities included) count 0."""
    larger = np.maximum(np.abs(actual), np.abs(expected))
    with np.errstate(invalid="ignore"):
        distance = np.abs(actual.astype(np.float64) - expected.astype(np.float64)) / np.spacing(larger)
    agree = (actual == expected) | (larger < np.finfo(actual.dtype).tiny)
    return float(np.where(agree, 0, distance).max())


ELEMENTWISE = {
    "exp": (lambda tf: tf.exp, False),
    "log": (lambda tf: tf.math.log, True),
    "tanh": (lambda tf: tf.tanh, False),
    "sigmoid": (lambda tf: tf.math.sigmoid, False),
    "reciprocal": (lambda tf: tf.math.reciprocal, True),
    "sin": (lambda tf: tf.sin, False),
    "log1p": (lambda tf: tf.math.log1p, True),
    "sqrt": (lambda tf: tf.sqrt, True),
}


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: d.__name__)
@pytest.mark.parametrize("name", list(ELEMENTWISE))
def test_elementwise_functions_are_within_a_few_ulps_of_tensorflow(name: str, dtype: type) -> None:
    function, positive = ELEMENTWISE[name]
    x = _values(dtype)
    if positive:
        x = np.abs(x) + dtype(1e-3)
    mine, theirs = function(minitf)(x).numpy(), function(real_tf)(x).numpy()
    assert mine.dtype == theirs.dtype
    assert ulps(mine, theirs) <= ELEMENTWISE_ULPS, f"{name}: {ulps(mine, theirs)} ulps"


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: d.__name__)
@pytest.mark.parametrize("name", ["softmax", "log_softmax"])
def test_softmax_family_is_within_row_scaled_epsilons_of_tensorflow(name: str, dtype: type) -> None:
    rows = _values(dtype).reshape(-1, 10)
    mine, theirs = getattr(minitf.api.nn, name)(rows).numpy(), getattr(real_tf.nn, name)(rows).numpy()
    scale = np.finfo(dtype).eps * (1 + np.abs(rows).max(axis=1, keepdims=True))
    assert (np.abs(mine.astype(np.float64) - theirs) <= ROW_EPS * scale).all()


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: d.__name__)
@pytest.mark.parametrize("shape", [[10], [1000], [100000], [300, 70], [8, 9, 123]])
def test_sums_and_means_are_within_the_bound_of_any_summation_order(shape: list[int], dtype: type) -> None:
    x = np.random.default_rng(len(shape)).normal(size=shape).astype(dtype)
    eps = np.finfo(dtype).eps

    def check(reduce: str, axis: Any) -> None:
        mine = np.asarray(getattr(minitf, reduce)(x, axis=axis).numpy(), np.float64)
        theirs = np.asarray(getattr(real_tf, reduce)(x, axis=axis).numpy(), np.float64)
        n = x.size // max(mine.size, 1)
        bound = np.sqrt(n) * eps * np.sum(np.abs(x.astype(np.float64)), axis=axis)
        if reduce == "reduce_mean":
            bound /= n
        assert (np.abs(mine - theirs) <= bound).all(), f"{reduce} over {axis}: {np.abs(mine - theirs).max()}"

    for axis in (None, 0, -1):
        check("reduce_sum", axis)
        check("reduce_mean", axis)
