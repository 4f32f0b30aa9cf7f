"""minitf's default float kernels (NumPy's) against TensorFlow's, within the tolerances docs/testing.md states:

* elementwise functions: at most ELEMENTWISE_ULPS units in the last place (results below the smallest normal
  number aside: TensorFlow flushes them to zero);
* softmax and log_softmax: at most ROW_EPS machine epsilons times (1 + the row's largest |x|), the scale of
  their rounding errors;
* sums and means: at most sqrt(n) machine epsilons times the sum of |x| (n values per result): two orders of
  adding n values differ by rounding errors that grow like a random walk (the worst case, n - 1, is far looser).

The inputs and the units are those of `benchmarks/agreement.py`, which prints how close the kernels come on them
(docs/measurements.md, "Agreement with TensorFlow").
"""

from __future__ import annotations

import numpy as np
import pytest
import tensorflow as real_tf

import minitf
from benchmarks.agreement import (
    DTYPES,
    ELEMENTWISE,
    ELEMENTWISE_ULPS,
    ROW_EPS,
    SUM_SHAPES,
    row_epsilons,
    sample_values,
    sum_epsilons,
    sum_shape,
    ulps,
)

pytestmark = pytest.mark.tf


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: d.__name__)
@pytest.mark.parametrize("name", list(ELEMENTWISE))
def test_elementwise_functions_are_within_a_few_ulps_of_tensorflow(name: str, dtype: type) -> None:
    function, positive = ELEMENTWISE[name]
    x = sample_values(dtype, positive)
    mine, theirs = function(minitf)(x).numpy(), function(real_tf)(x).numpy()
    assert mine.dtype == theirs.dtype
    assert ulps(mine, theirs) <= ELEMENTWISE_ULPS, f"{name}: {ulps(mine, theirs)} ulps"


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: d.__name__)
@pytest.mark.parametrize("name", ["softmax", "log_softmax"])
def test_softmax_family_is_within_row_scaled_epsilons_of_tensorflow(name: str, dtype: type) -> None:
    rows = sample_values(dtype).reshape(-1, 10)
    mine, theirs = getattr(minitf.api.nn, name)(rows).numpy(), getattr(real_tf.nn, name)(rows).numpy()
    assert row_epsilons(mine, theirs, rows) <= ROW_EPS


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: d.__name__)
@pytest.mark.parametrize("shape", SUM_SHAPES)
def test_sums_and_means_are_within_the_bound_of_any_summation_order(shape: list[int], dtype: type) -> None:
    x = sum_shape(shape).astype(dtype)
    for reduce in ("reduce_sum", "reduce_mean"):
        for axis in (None, 0, -1):
            mine, theirs = getattr(minitf, reduce)(x, axis=axis).numpy(), getattr(real_tf, reduce)(x, axis=axis).numpy()
            found, n = sum_epsilons(mine, theirs, x, axis, reduce == "reduce_mean")
            assert found <= np.sqrt(n), f"{reduce} over {axis}: {found} epsilons times the sum of |x|, n = {n}"
