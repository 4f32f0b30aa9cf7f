"""Inverse error functions and modified Bessel functions (tf.math.erfinv, erfcinv, ndtri, bessel_i0/i0e/i1/i1e
and their tf.math.special names): values within the harness's tolerance per dtype, edges (+-1, 0, 1, inf,
nan, out of range), dtypes and errors, gradients (1/2 at 0 for I1), eagerly, traced and under a tape."""

from __future__ import annotations

from typing import Any

import numpy as np
from harness import assert_same_error, examples, minitf, named_examples, real_tf, run, same
from hypothesis import given
from hypothesis import strategies as st

Y = np.array([-0.999, -0.5, -1e-6, 0.0, 0.1, 0.3, 0.75, 0.9999], np.float32)
EDGES = np.array([-1.5, -1.0, 1.0, 2.0, np.nan, 1e-30], np.float64)
P = np.array([1e-300, 1e-30, 0.01, 0.3, 0.5, 0.7, 1.0 - 1e-12], np.float64)
P_EDGES = np.array([0.0, 1.0, 1.5, -0.1, np.nan], np.float64)
C = np.array([1e-300, 1e-8, 0.3, 1.0, 1.2, 1.9999], np.float64)
B = np.array([-30.0, -2.5, -1e-5, 0.0, 0.5, 3.0, 20.0, 49.0, 51.0, 100.0], np.float32)
B64 = np.array(
    [-800.0, -30.0, -2.5, -1e-5, 0.0, 0.5, 3.0, 20.0, 49.9, 50.1, 100.0, 700.0, 800.0, np.inf, -np.inf, np.nan]
)
BESSEL = ["bessel_i0", "bessel_i0e", "bessel_i1", "bessel_i1e"]


def fn(name: str) -> Any:
    return lambda tf, x: getattr(tf.math, name)(tf.constant(x))


@named_examples(
    ("erfinv", lambda tf: tf.math.erfinv(tf.constant(Y))),
    ("erfinv float64", lambda tf: tf.math.erfinv(tf.constant(Y.astype(np.float64)))),
    ("erfinv edges", lambda tf: tf.math.erfinv(tf.constant(EDGES))),
    ("erfinv of a Python float", lambda tf: tf.math.erfinv(0.5)),
    ("ndtri", lambda tf: tf.math.ndtri(tf.constant(P))),
    ("ndtri float32", lambda tf: tf.math.ndtri(tf.constant(np.array([1e-30, 0.01, 0.3, 0.5, 0.9, 0.999], np.float32)))),
    ("ndtri edges", lambda tf: tf.math.ndtri(tf.constant(P_EDGES))),
    ("erfcinv", lambda tf: tf.math.erfcinv(tf.constant(C))),
    ("erfcinv edges", lambda tf: tf.math.erfcinv(tf.constant([0.0, 2.0, 2.5, -1.0], tf.float64))),
    ("erfcinv float32", lambda tf: tf.math.erfcinv(tf.constant(np.array([0.01, 0.5, 1.5], np.float32)))),
    *[(f"{name} float32", lambda tf, name=name: getattr(tf.math, name)(tf.constant(B))) for name in BESSEL],
    *[(f"{name} float64", lambda tf, name=name: getattr(tf.math, name)(tf.constant(B64))) for name in BESSEL],
    *[
        (f"{name} float16", lambda tf, name=name: getattr(tf.math, name)(tf.constant(B[1:7].astype(np.float16))))
        for name in BESSEL
    ],
    *[(f"special.{name}", lambda tf, name=name: getattr(tf.math.special, name)(tf.constant(B))) for name in BESSEL],
    *[
        (f"{name} of ints", lambda tf, name=name: getattr(tf.math, name)(tf.constant([1, 2])))
        for name in ["erfinv", "ndtri", *BESSEL]
    ],
    *[
        (f"{name} float16 has no kernel", lambda tf, name=name: getattr(tf.math, name)(tf.constant([0.5], tf.float16)))
        for name in ["erfinv", "ndtri"]
    ],
)
def test_special_functions_match_tensorflow(case: Any) -> None:
    same(case)


def test_tf_math_special_holds_the_same_functions() -> None:
    for name in BESSEL:
        assert getattr(minitf.api.math.special, name) is getattr(minitf.api.math, name)
        assert (getattr(real_tf.math.special, name) is getattr(real_tf.math, name)) is True


def test_a_missing_float16_kernel_is_tensorflows_error() -> None:
    mine, theirs = (run(lib, lambda tf: tf.math.erfinv(tf.constant([0.5], tf.float16))) for lib in (minitf, real_tf))
    assert mine.error is not None and theirs.error is not None
    assert_same_error(mine.error, theirs.error, fragment="Could not find device for node: {{node Erfinv}}")


@examples
@given(y=st.lists(st.floats(-1.0, 1.0, width=32), min_size=1, max_size=6), wide=st.booleans())
def test_erfinv_and_ndtri_on_generated_values_match_tensorflow(y: list[float], wide: bool) -> None:
    values = np.array(y, np.float64 if wide else np.float32)
    same(lambda tf: tf.math.erfinv(tf.constant(values)))
    same(lambda tf: tf.math.ndtri(tf.constant(np.abs(values))))


@examples
@given(
    x=st.lists(st.floats(-60.0, 60.0, width=32), min_size=1, max_size=6),
    which=st.sampled_from(BESSEL),
    wide=st.booleans(),
)
def test_bessel_functions_on_generated_values_match_tensorflow(x: list[float], which: str, wide: bool) -> None:
    values = np.array(x, np.float64 if wide else np.float32)
    same(lambda tf: getattr(tf.math, which)(tf.constant(values)))
