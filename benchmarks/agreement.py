"""How close minitf's default float kernels (NumPy's) come to TensorFlow's (Eigen's), next to the tolerances the
differential tests allow (tests/engine/differential/test_default_numerics.py, docs/testing.md#tolerances).

    python -m benchmarks.agreement

Each figure is the largest difference over the test's inputs, in the unit its tolerance is stated in: units in the
last place for elementwise functions, epsilons times (1 + the row's largest |x|) for softmax, epsilons times the
sum of |x| for sums and means. Figures are printed, never asserted: they change with the processor (TensorFlow's
bits do) and with NumPy's and Eigen's versions.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

DTYPES = [np.float32, np.float64]
ELEMENTWISE_ULPS = 10  # the tolerances of the differential tests, in the units below
ROW_EPS = 8
# name -> (the function, given a module with TensorFlow's API; whether its inputs must be positive)
ELEMENTWISE: dict[str, tuple[Callable[[Any], Callable[..., Any]], bool]] = {
    "exp": (lambda tf: tf.exp, False),
    "log": (lambda tf: tf.math.log, True),
    "tanh": (lambda tf: tf.tanh, False),
    "sigmoid": (lambda tf: tf.math.sigmoid, False),
    "reciprocal": (lambda tf: tf.math.reciprocal, True),
    "sin": (lambda tf: tf.sin, False),
    "log1p": (lambda tf: tf.math.log1p, True),
    "sqrt": (lambda tf: tf.sqrt, True),
}
SUM_SHAPES = [[10], [1000], [100000], [300, 70], [8, 9, 123]]


def sample_values(dtype: type, positive: bool = False) -> np.ndarray:
    """20,000 seeded values at four scales, from tiny to large (made positive for log, reciprocal and the like)."""
    rng = np.random.default_rng(0)
    x = np.concatenate([rng.normal(scale=s, size=5000) for s in (0.01, 1, 5, 30)]).astype(dtype)
    return np.abs(x) + dtype(1e-3) if positive else x


def ulps(actual: np.ndarray, expected: np.ndarray) -> float:
    """The largest distance in units of the last place; values TensorFlow flushes (below the smallest normal
    number) and equal values (infinities included) count 0."""
    larger = np.maximum(np.abs(actual), np.abs(expected))
    with np.errstate(invalid="ignore"):
        distance = np.abs(actual.astype(np.float64) - expected.astype(np.float64)) / np.spacing(larger)
    agree = (actual == expected) | (larger < np.finfo(actual.dtype).tiny)
    return float(np.where(agree, 0, distance).max())


def row_epsilons(actual: np.ndarray, expected: np.ndarray, rows: np.ndarray) -> float:
    """The largest difference of a row-wise result in epsilons times (1 + the row's largest |x|)."""
    scale = np.finfo(rows.dtype).eps * (1 + np.abs(rows).max(axis=1, keepdims=True))
    return float((np.abs(actual.astype(np.float64) - expected) / scale).max())


def sum_shape(shape: list[int]) -> np.ndarray:
    return np.random.default_rng(len(shape)).normal(size=shape)


def sum_epsilons(mine: Any, theirs: Any, x: np.ndarray, axis: int | None, mean: bool) -> tuple[float, int]:
    """A reduction's largest difference in epsilons times the sum of |x| (over n for a mean), and its n: the
    values added per result, whose square root bounds it (two orders of adding differ like a random walk)."""
    mine, theirs = np.asarray(mine, np.float64), np.asarray(theirs, np.float64)
    n = x.size // max(mine.size, 1)
    scale = np.finfo(x.dtype).eps * np.sum(np.abs(x.astype(np.float64)), axis=axis) / (n if mean else 1)
    return float((np.abs(mine - theirs) / scale).max()), n


def main() -> None:
    # imported here: the tests import this module's helpers without paying for TensorFlow twice
    import tensorflow as real_tf

    import minitf

    print(f"{'function (unit)':<34}{'float32':>10}{'float64':>10}  tolerance")
    for name, (function, positive) in ELEMENTWISE.items():
        worst = []
        for dtype in DTYPES:
            x = sample_values(dtype, positive)
            worst.append(ulps(function(minitf)(x).numpy(), function(real_tf)(x).numpy()))
        print(f"{name + ' (ulps)':<34}{worst[0]:>10.0f}{worst[1]:>10.0f}  {ELEMENTWISE_ULPS}")
    for name in ("softmax", "log_softmax"):
        worst = []
        for dtype in DTYPES:
            rows = sample_values(dtype).reshape(-1, 10)
            mine, theirs = getattr(minitf.nn, name)(rows).numpy(), getattr(real_tf.nn, name)(rows).numpy()
            worst.append(row_epsilons(mine, theirs, rows))
        print(f"{name + ' (row epsilons)':<34}{worst[0]:>10.2f}{worst[1]:>10.2f}  {ROW_EPS}")
    for reduce in ("reduce_sum", "reduce_mean"):
        worst, counts = [], set()
        for dtype in DTYPES:
            found = 0.0
            for shape in SUM_SHAPES:
                x = sum_shape(shape).astype(dtype)
                for axis in (None, 0, -1):
                    mine, theirs = getattr(minitf, reduce)(x, axis=axis), getattr(real_tf, reduce)(x, axis=axis)
                    ratio, n = sum_epsilons(mine.numpy(), theirs.numpy(), x, axis, reduce == "reduce_mean")
                    found = max(found, ratio)
                    counts.add(n)
            worst.append(found)
        bound = f"sqrt(n), n of {min(counts)} to {max(counts)} values"
        print(f"{reduce + ' (epsilons x sum|x|)':<34}{worst[0]:>10.2f}{worst[1]:>10.2f}  {bound}")


if __name__ == "__main__":
    main()
