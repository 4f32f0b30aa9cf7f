"""Reductions, argmax/argmin and cumsum: axes (None, ints, lists, out of range), keepdims, empty input, every dtype."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest
from harness import examples, named_examples, resolve, same
from hypothesis import assume, given
from hypothesis import strategies as st
from strategies import ALL, FLOATS, array_and_axis, arrays

import minitf

REDUCTIONS = [
    "reduce_sum",
    "reduce_mean",
    "reduce_max",
    "reduce_min",
    "reduce_prod",
    "reduce_any",
    "reduce_all",
    "reduce_logsumexp",
    "math.reduce_std",
    "math.reduce_variance",
    "math.reduce_sum",
    "math.reduce_euclidean_norm",
    "math.count_nonzero",
]


def reduce_case(tf: Any, name: str, a: np.ndarray, axis: Any, keepdims: bool) -> Any:
    return resolve(tf, name)(tf.constant(a), axis=axis, keepdims=keepdims)


@pytest.mark.parametrize("name", REDUCTIONS)
@examples
@given(data=array_and_axis(st.sampled_from(ALL)), keepdims=st.booleans())
def test_reduction_matches_tensorflow(name: str, data: tuple[np.ndarray, Any], keepdims: bool) -> None:
    a, axis = data
    # The mean of an empty complex tensor is 0 in TensorFlow (nan for real ones): not a rule worth copying.
    assume(
        not (a.dtype.kind == "c" and a.size == 0 and name in ("reduce_mean", "math.reduce_std", "math.reduce_variance"))
    )
    # Summing many float16 values: TensorFlow accumulates in float32, NumPy pairwise; allow a few ulps.
    same(reduce_case, name, a, axis, keepdims, rtol=1e-2 if a.dtype == np.float16 else None)


def arg_case(tf: Any, name: str, a: np.ndarray, axis: Any) -> Any:
    return resolve(tf, name)(tf.constant(a), axis=axis)


@pytest.mark.parametrize("name", ["argmax", "argmin", "math.argmax"])
@examples
@given(a=arrays(st.sampled_from(ALL), small=True), axis=st.one_of(st.none(), st.integers(-4, 3)))
def test_argmax_argmin_match_tensorflow(name: str, a: np.ndarray, axis: Any) -> None:
    # NaN handling of ArgMax differs between Eigen and NumPy; the course never asks.
    if a.dtype.kind == "f":
        a = np.where(np.isnan(a), 0, a).astype(a.dtype)
    same(arg_case, name, a, axis)


def cumsum_case(tf: Any, name: str, a: np.ndarray, axis: int, exclusive: bool, reverse: bool) -> Any:
    return resolve(tf, name)(tf.constant(a), axis=axis, exclusive=exclusive, reverse=reverse)


@pytest.mark.parametrize("name", ["cumsum", "math.cumprod"])
@examples
@given(
    a=arrays(st.sampled_from(ALL), small=True), axis=st.integers(-3, 2), exclusive=st.booleans(), reverse=st.booleans()
)
def test_cumsum_matches_tensorflow(name: str, a: np.ndarray, axis: int, exclusive: bool, reverse: bool) -> None:
    same(cumsum_case, name, a, axis, exclusive, reverse, rtol=1e-2 if a.dtype == np.float16 else None)


@named_examples(
    ("mean_of_ints_truncates", lambda tf: tf.reduce_mean(tf.constant([1, 2]))),
    ("mean_of_negative_ints_truncates", lambda tf: tf.reduce_mean(tf.constant([-1, -2]))),
    ("sum_of_bool_raises", lambda tf: tf.reduce_sum(tf.constant([True, False]))),
    ("std_ddof0", lambda tf: tf.math.reduce_std(tf.constant([[1.0, 2.0], [3.0, 4.0]]))),
    ("std_of_ints_raises", lambda tf: tf.math.reduce_std(tf.constant([1, 2]))),
    ("variance_axis", lambda tf: tf.math.reduce_variance(tf.constant([[1.0, 2.0], [3.0, 5.0]]), axis=1)),
    ("empty_sum", lambda tf: tf.reduce_sum(tf.zeros([0]))),
    ("empty_mean", lambda tf: tf.reduce_mean(tf.zeros([0]))),
    ("empty_max", lambda tf: tf.reduce_max(tf.zeros([0]))),
    ("empty_int_max", lambda tf: tf.reduce_max(tf.zeros([0], tf.int32))),
    ("empty_min", lambda tf: tf.reduce_min(tf.zeros([0]))),
    ("max_propagates_nan", lambda tf: tf.reduce_max(tf.constant([1.0, float("nan"), 3.0]))),
    ("axis_out_of_range", lambda tf: tf.reduce_sum(tf.ones([2, 3]), axis=2)),
    ("axis_tensor", lambda tf: tf.reduce_sum(tf.ones([2, 3]), axis=tf.constant(1))),
    ("duplicate_axes", lambda tf: tf.reduce_sum(tf.ones([2, 3]), axis=[1, -1])),
    ("argmax_default_axis_0", lambda tf: tf.argmax(tf.constant([[1, 5], [3, 2]]))),
    ("argmax_ties_first", lambda tf: tf.argmax(tf.constant([3, 1, 3]))),
    ("argmax_int32_output", lambda tf: tf.argmax(tf.constant([1, 3]), output_type=tf.int32)),
    ("argmax_empty", lambda tf: tf.argmax(tf.zeros([0]))),
    ("argmax_bad_axis", lambda tf: tf.argmax(tf.ones([2]), axis=1)),
    ("logsumexp_stable", lambda tf: tf.reduce_logsumexp(tf.constant([1000.0, 1000.0]))),
    ("logsumexp_inf", lambda tf: tf.reduce_logsumexp(tf.constant([-np.inf, -np.inf]))),
    ("cumsum_bad_axis", lambda tf: tf.cumsum(tf.ones([2]), axis=1)),
    ("reduce_all_on_float_raises", lambda tf: tf.reduce_all(tf.ones([2]))),
    ("python_list_input", lambda tf: tf.reduce_sum([[1, 2], [3, 4]], axis=0)),
)
def test_reduction_rules_match_tensorflow(case: Any) -> None:
    same(case)


@pytest.mark.parametrize("dtype", FLOATS)
@examples
@given(data=array_and_axis(st.sampled_from(FLOATS), min_dims=1, allow_bad=False, finite=True))
def test_reduce_std_matches_numpy_semantics_in_tensorflow(dtype: str, data: tuple[np.ndarray, Any]) -> None:
    a, axis = data
    same(
        lambda tf: tf.math.reduce_std(tf.constant(a.astype(dtype)), axis=axis),
        rtol=2e-2 if dtype == "float16" else None,
    )


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64", "complex64"])
@pytest.mark.parametrize("shape, axis", [((0,), None), ((0, 3), 0), ((2, 0), 1)])
def test_a_mean_over_no_entries_is_nan_and_warns_nothing(dtype: str, shape: tuple, axis: Any) -> None:
    # TensorFlow prints nothing for it; NumPy's np.mean warns "Mean of empty slice", which a learner would see.
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        result = minitf.reduce_mean(minitf.zeros(shape, dtype=dtype), axis=axis).numpy()
    assert result.dtype == np.dtype(dtype) and result.shape == np.zeros(shape).mean(axis=axis).shape
    assert np.isnan(result).all()


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64", "complex64", "complex128"])
def test_a_float_mean_rounds_as_numpys_mean(dtype: str) -> None:
    # The kernel divides the sum by the count itself (np.mean's wrapper costs microseconds): the same bits.
    rng = np.random.default_rng(7)
    values = (rng.normal(size=(33, 70)) * 1e3).astype(dtype)
    for axis in (None, 0, 1, (0, 1)):
        for keepdims in (False, True):
            got = minitf.reduce_mean(minitf.constant(values), axis=axis, keepdims=keepdims).numpy()
            want = np.mean(values, axis=axis, keepdims=keepdims, dtype=values.dtype)
            assert got.dtype == want.dtype and np.array_equal(got, want), (axis, keepdims)
