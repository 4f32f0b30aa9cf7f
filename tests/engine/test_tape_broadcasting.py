"""Broadcasting in gradients: on generated shape pairs, every input's gradient has the input's own shape
and TensorFlow's values (the broadcast gradient is summed back). Derandomized, so every run is the same."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from harness import ENGINES, assert_equal
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

# RuntimeWarnings of the NumPy the tests compute with themselves (log(0), 0 * inf...) are not what they check.
pytestmark = [pytest.mark.tf, pytest.mark.filterwarnings("ignore::RuntimeWarning")]

generated = settings(
    max_examples=12,
    deadline=None,
    derandomize=True,
    database=None,
    print_blob=False,
    suppress_health_check=[HealthCheck.too_slow],
)

BINARY = {
    "add": lambda tf, x, y: x + y,
    "subtract": lambda tf, x, y: tf.subtract(x, y),
    "multiply": lambda tf, x, y: x * y,
    "divide": lambda tf, x, y: x / (tf.abs(y) + 0.5),
    "pow": lambda tf, x, y: tf.pow(tf.abs(x) + 0.5, y),
    "maximum": lambda tf, x, y: tf.maximum(x, y),
    "minimum": lambda tf, x, y: tf.minimum(x, y),
    "squared_difference": lambda tf, x, y: tf.math.squared_difference(x, y),
    "where": lambda tf, x, y: tf.where(x > y, x, y * 2.0),
    "clip_by_value": lambda tf, x, y: tf.clip_by_value(x, y - 0.5, y + 0.5),
}


def _gradients(tf: Any, fn: Any, arrays: list[np.ndarray], cotangent: np.ndarray) -> Any:
    xs = [tf.constant(a) for a in arrays]
    with tf.GradientTape() as tape:
        tape.watch(xs)
        y = fn(tf, *xs)
    return tape.gradient(y, xs, output_gradients=tf.constant(cotangent))


def _compare(fn: Any, arrays: list[np.ndarray], seed: int) -> None:
    """Same gradients as TensorFlow, or the same error class when TensorFlow refuses the shapes."""
    tf = ENGINES["tensorflow"]
    try:
        out_shape = fn(tf, *[tf.constant(a) for a in arrays]).shape
    except (ValueError, tf.errors.InvalidArgumentError) as refused:
        with pytest.raises(Exception) as raised:  # the class is compared by name below
            fn(ENGINES["minitf"], *[ENGINES["minitf"].constant(a) for a in arrays])
        assert type(raised.value).__name__ == type(refused).__name__, f"{raised.value!r} vs {refused!r}"
        return
    cotangent = np.random.default_rng(seed).normal(size=tuple(out_shape)).astype(np.float32)
    expected = _gradients(tf, fn, arrays, cotangent)
    actual = _gradients(ENGINES["minitf"], fn, arrays, cotangent)
    assert_equal(actual, expected, f"shapes {[a.shape for a in arrays]}", rtol=2e-5, atol=2e-5, text=False)
    for a, g in zip(arrays, actual):
        assert g is None or list(g.shape) == list(a.shape)


def _array(shape: tuple[int, ...], seed: int) -> np.ndarray:
    return np.random.default_rng(seed).normal(size=shape).astype(np.float32)


@pytest.mark.parametrize("name", list(BINARY))
@generated
@given(
    shapes=hnp.mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=3, min_side=0, max_side=3),
    seed=st.integers(0, 2**16),
)
def test_binary_gradient_sums_broadcast_axes_back(name: str, shapes: Any, seed: int) -> None:
    x_shape, y_shape = shapes.input_shapes
    _compare(BINARY[name], [_array(x_shape, seed), _array(y_shape, seed + 1)], seed)


@pytest.mark.parametrize("name", list(BINARY))
def test_binary_gradient_sums_broadcast_axes_back_for_one_pair_of_shapes(name: str) -> None:
    """One pair that broadcasts both ways ([2, 1, 3] with [4, 1]), in the fast tier; the generated pairs above
    run in the full suite."""
    _compare(BINARY[name], [_array((2, 1, 3), 1), _array((4, 1), 2)], 3)


def test_matmul_gradient_with_one_broadcast_batch() -> None:
    def fn(tf: Any, a: Any, b: Any) -> Any:
        return tf.matmul(a, b, transpose_b=True)

    _compare(fn, [_array((2, 1, 3, 2), 4), _array((3, 4, 2), 5)], 6)


@generated
@given(
    batch=hnp.mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=2, min_side=1, max_side=3),
    dims=st.tuples(st.integers(1, 3), st.integers(1, 3), st.integers(1, 3)),
    flags=st.tuples(st.booleans(), st.booleans()),
    seed=st.integers(0, 2**16),
)
def test_matmul_gradient_with_broadcast_batch_dimensions(
    batch: Any, dims: tuple[int, int, int], flags: tuple[bool, bool], seed: int
) -> None:
    (a_batch, b_batch), (n, k, m) = batch.input_shapes, dims
    transpose_a, transpose_b = flags
    a_shape = a_batch + ((k, n) if transpose_a else (n, k))
    b_shape = b_batch + ((m, k) if transpose_b else (k, m))

    def fn(tf: Any, a: Any, b: Any) -> Any:
        return tf.matmul(a, b, transpose_a=transpose_a, transpose_b=transpose_b)

    _compare(fn, [_array(a_shape, seed), _array(b_shape, seed + 1)], seed)


@generated
@given(shape=hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=3), data=st.data())
def test_reduction_gradients_for_any_axes(shape: tuple[int, ...], data: Any) -> None:
    rank = len(shape)
    axes = data.draw(st.lists(st.integers(-rank, rank - 1), max_size=rank, unique_by=lambda a: a % rank))
    keepdims = data.draw(st.booleans())
    axis = axes or None

    def fn(tf: Any, x: Any) -> Any:
        return (
            tf.reduce_sum(x, axis=axis, keepdims=keepdims)
            + tf.reduce_max(x, axis=axis, keepdims=keepdims)
            + tf.reduce_mean(x * x, axis=axis, keepdims=keepdims)
            + tf.reduce_logsumexp(x, axis=axis, keepdims=keepdims)
        )

    _compare(fn, [_array(shape, len(shape))], 7)
