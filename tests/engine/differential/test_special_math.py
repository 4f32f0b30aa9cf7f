"""tf.math's special functions and safe products (erf, erfc, lgamma, digamma, rint, xlogy, xdivy, xlog1py,
multiply_no_nan, reciprocal_no_nan): values, dtypes, errors, traced and under a tape, on both engines."""

from __future__ import annotations

from typing import Any

import numpy as np
from harness import named_examples, same

V = np.array([-3.5, -1.0, -0.25, 0.0, 0.5, 1.0, 2.5, 7.0], np.float32)
POS = np.array([0.1, 0.5, 1.0, 1.5, 3.0, 10.0], np.float32)
X0 = np.array([0.0, 0.0, 1.0, 2.0, 0.0, -1.5], np.float32)
Y0 = np.array([0.0, 2.0, 3.0, 0.5, np.inf, 4.0], np.float32)


@named_examples(
    ("erf", lambda tf: tf.math.erf(tf.constant(V))),
    ("erf float64", lambda tf: tf.math.erf(tf.constant(V.astype(np.float64)))),
    ("erfc", lambda tf: tf.math.erfc(tf.constant(V))),
    ("erf of ints", lambda tf: tf.math.erf(tf.constant([1, 2]))),
    ("lgamma", lambda tf: tf.math.lgamma(tf.constant(POS))),
    ("lgamma negative and poles", lambda tf: tf.math.lgamma(tf.constant([-2.5, -1.0, 0.0, -0.5]))),
    ("lgamma float64", lambda tf: tf.math.lgamma(tf.constant(POS.astype(np.float64)))),
    ("digamma", lambda tf: tf.math.digamma(tf.constant(POS))),
    ("digamma float64", lambda tf: tf.math.digamma(tf.constant(np.array([-2.5, -0.5, 0.25, 1.0, 6.5, 30.0])))),
    ("rint", lambda tf: tf.math.rint(tf.constant([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 3.7]))),
    ("xlogy", lambda tf: tf.math.xlogy(tf.constant(X0), tf.constant(Y0))),
    ("xlogy broadcasting", lambda tf: tf.math.xlogy(tf.constant(X0), tf.constant(2.0))),
    ("xdivy", lambda tf: tf.math.xdivy(tf.constant(X0), tf.constant(Y0))),
    ("xlog1py", lambda tf: tf.math.xlog1py(tf.constant(X0), tf.constant(Y0))),
    ("xlogy ints", lambda tf: tf.math.xlogy(tf.constant([1, 2]), tf.constant([3, 4]))),
    (
        "multiply_no_nan",
        lambda tf: tf.math.multiply_no_nan(tf.constant([np.inf, np.nan, 2.0, 3.0]), tf.constant([0.0, 0.0, 4.0, -1.0])),
    ),
    (
        "multiply_no_nan dtype mismatch",
        lambda tf: tf.math.multiply_no_nan(tf.constant([1.0]), tf.constant([1.0], tf.float64)),
    ),
    ("reciprocal_no_nan", lambda tf: tf.math.reciprocal_no_nan(tf.constant([0.0, 2.0, -4.0, 0.5]))),
)
def test_special_functions_match_tensorflow(case: Any) -> None:
    same(case, rtol=2e-5, atol=1e-6)


def loss_with_safe_products(tf: Any) -> Any:
    """A cross-entropy written with xlogy: 0 * log(0) terms stay out of the value and the gradient."""
    p = tf.constant(np.array([[1.0, 0.0, 0.0], [0.2, 0.3, 0.5]], np.float32))
    q = tf.constant(np.array([[0.7, 0.0, 0.3], [0.25, 0.25, 0.5]], np.float32))
    return -tf.reduce_sum(tf.math.xlogy(p, q)), tf.reduce_sum(tf.math.multiply_no_nan(q, p))


@named_examples(("a loss with xlogy", loss_with_safe_products))
def test_safe_products_in_a_loss_match_tensorflow(case: Any) -> None:
    same(case, rtol=1e-5, atol=1e-6)
