"""Indexing and scattering (slice, strided_slice, gather with batch_dims, gather_nd, scatter_nd,
tensor_scatter_nd_*, unravel_index, roll, repeat, meshgrid): values, dtypes, printing and errors, eagerly and
inside a tf.function (where the static shape each op infers is compared too)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from harness import examples, named_examples, same
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import arrays, shapes

# These files hold many generated tests: half the harness's examples each keeps the whole set quick.
fewer_examples = settings(examples, max_examples=max(10, examples.max_examples // 2))

M = np.arange(12, dtype=np.int32).reshape(3, 4)
CUBE = np.arange(24, dtype=np.float32).reshape(2, 3, 4)


def traced(fn: Any, *arrays: np.ndarray) -> Any:
    """A case that runs `fn(tf, *tensors)` inside a tf.function and returns its result and its static shape
    while traced (as a string tensor, so that the harness compares it)."""

    def case(tf: Any) -> Any:
        @tf.function
        def f(*xs: Any) -> Any:
            out = fn(tf, *xs)
            return out, tf.constant(str(out.shape))

        return f(*[tf.constant(a) for a in arrays])

    return case


@named_examples(
    ("slice", lambda tf: tf.slice(tf.constant(M), [1, 0], [2, -1])),
    ("slice tensor bounds", lambda tf: tf.slice(tf.constant(CUBE), tf.constant([0, 1, 1]), tf.constant([2, 1, 3]))),
    (
        "slice int64 bounds",
        lambda tf: tf.slice(tf.constant(M), tf.constant([0, 1], tf.int64), tf.constant([1, 2], tf.int64)),
    ),
    ("slice empty", lambda tf: tf.slice(tf.constant(M), [3, 0], [0, 4])),
    ("slice size too large", lambda tf: tf.slice(tf.constant(M), [1, 0], [3, -1])),
    ("slice negative begin", lambda tf: tf.slice(tf.constant(M), [-1, 0], [1, 1])),
    ("slice wrong length", lambda tf: tf.slice(tf.constant(M), [1], [1])),
    ("slice float begin", lambda tf: tf.slice(tf.constant(M), [1, 0.0], [1, 1])),
    ("strided_slice", lambda tf: tf.strided_slice(tf.constant(M), [0, 1], [3, 4], [2, 2])),
    (
        "strided_slice masks",
        lambda tf: tf.strided_slice(tf.constant(M), [2, 1], [3, 4], [1, 1], begin_mask=1, shrink_axis_mask=2),
    ),
    ("strided_slice reversed", lambda tf: tf.strided_slice(tf.constant(M), [-1, 0], [0, 4], [-1, 1], end_mask=1)),
    (
        "strided_slice ellipsis and new axis",
        lambda tf: tf.strided_slice(
            tf.constant(CUBE), [0, 0, 1], [0, 0, 3], [1, 1, 1], ellipsis_mask=1, new_axis_mask=2
        ),
    ),
    ("strided_slice shrink out of range", lambda tf: tf.strided_slice(tf.constant(M), [5], [6], shrink_axis_mask=1)),
    ("strided_slice zero stride", lambda tf: tf.strided_slice(tf.constant(M), [0], [2], [0])),
    ("gather batch_dims=1", lambda tf: tf.gather(tf.constant(CUBE), [[0, 1], [2, 0]], batch_dims=1)),
    ("gather batch_dims=1 axis=2", lambda tf: tf.gather(tf.constant(CUBE), [[0, 1], [2, 0]], batch_dims=1, axis=2)),
    ("gather batch_dims=-1", lambda tf: tf.gather(tf.constant(M), [[0, 3], [1, 1], [2, 2]], batch_dims=-1)),
    ("gather batch_dims=2", lambda tf: tf.gather(tf.constant(CUBE), [[[0], [1], [3]], [[2], [2], [0]]], batch_dims=2)),
    ("gather batch mismatch", lambda tf: tf.gather(tf.constant(CUBE), [[0, 1], [2, 0], [1, 1]], batch_dims=1)),
    ("gather batch_dims too large", lambda tf: tf.gather(tf.constant(CUBE), [[0, 1], [2, 0]], batch_dims=2)),
    ("gather batch out of range", lambda tf: tf.gather(tf.constant(CUBE), [[0, 5], [2, 0]], batch_dims=1)),
    (
        "gather batch_dims beyond axis",
        lambda tf: tf.gather(tf.constant(CUBE), [[0, 1, 1], [1, 0, 0]], batch_dims=1, axis=0),
    ),
    ("gather_nd batch_dims too large", lambda tf: tf.gather_nd(tf.constant(CUBE), [[0, 1], [2, 0]], batch_dims=2)),
    (
        "gather_nd batch_dims=2",
        lambda tf: tf.gather_nd(tf.constant(CUBE), [[[0], [1], [3]], [[2], [2], [0]]], batch_dims=2),
    ),
    ("gather_nd entries", lambda tf: tf.gather_nd(tf.constant(M), [[0, 1], [2, 3]])),
    ("gather_nd rows", lambda tf: tf.gather_nd(tf.constant(M), [[1], [2]])),
    ("gather_nd nested", lambda tf: tf.gather_nd(tf.constant(CUBE), [[[0, 1]], [[1, 2]]])),
    ("gather_nd whole", lambda tf: tf.gather_nd(tf.constant(M), tf.zeros([2, 0], tf.int32))),
    ("gather_nd batch_dims", lambda tf: tf.gather_nd(tf.constant(CUBE), [[0, 1], [2, 0]], batch_dims=1)),
    ("gather_nd strings", lambda tf: tf.gather_nd(tf.constant([["a", "b"], ["c", "d"]]), [[1, 0]])),
    ("gather_nd out of range", lambda tf: tf.gather_nd(tf.constant(M), [[5, 1]])),
    ("gather_nd too deep", lambda tf: tf.gather_nd(tf.constant(M), [[0, 1, 2]])),
    ("gather_nd float indices", lambda tf: tf.gather_nd(tf.constant(M), [[0.0, 1.0]])),
    ("scatter_nd", lambda tf: tf.scatter_nd([[1], [3]], [1.0, 2.0], [5])),
    ("scatter_nd repeated", lambda tf: tf.scatter_nd([[1], [1]], [1.0, 2.0], tf.constant([5]))),
    ("scatter_nd slices", lambda tf: tf.scatter_nd([[0], [2]], [[5, 5, 5], [6, 6, 6]], [4, 3])),
    ("scatter_nd int64 indices", lambda tf: tf.scatter_nd(tf.constant([[1, 1]], tf.int64), [7], [2, 2])),
    ("scatter_nd out of range", lambda tf: tf.scatter_nd([[6], [1]], [1.0, 2.0], [5])),
    ("scatter_nd wrong updates", lambda tf: tf.scatter_nd([[1], [2]], [1.0, 2.0, 3.0], [5])),
    ("tensor_scatter_nd_update", lambda tf: tf.tensor_scatter_nd_update(tf.constant(M), [[0, 0], [1, 1]], [100, 200])),
    ("tensor_scatter_nd_update row", lambda tf: tf.tensor_scatter_nd_update(tf.constant(M), [[2]], [[1, 2, 3, 4]])),
    (
        "tensor_scatter_nd_add repeated",
        lambda tf: tf.tensor_scatter_nd_add(tf.constant(M), [[0, 0], [0, 0]], [100, 200]),
    ),
    ("tensor_scatter_nd_sub", lambda tf: tf.tensor_scatter_nd_sub(tf.constant(CUBE), [[1, 2, 3]], [0.5])),
    ("tensor_scatter_nd_min", lambda tf: tf.tensor_scatter_nd_min(tf.constant(M), [[1]], [[0, 9, 0, 9]])),
    ("tensor_scatter_nd_max", lambda tf: tf.tensor_scatter_nd_max(tf.constant(M), [[0]], [[100, 0, 200, 1]])),
    ("tensor_scatter_nd_update out of range", lambda tf: tf.tensor_scatter_nd_update(tf.constant(M), [[0, 7]], [100])),
    (
        "tensor_scatter_nd_update float into int",
        lambda tf: tf.tensor_scatter_nd_update(tf.constant(M), [[0, 1]], [100.0]),
    ),
    (
        "tensor_scatter_nd_update tensor dtype mismatch",
        lambda tf: tf.tensor_scatter_nd_update(tf.constant(M), [[0, 1]], tf.constant([1.0])),
    ),
    ("unravel_index vector", lambda tf: tf.unravel_index([5, 7], [3, 4])),
    ("unravel_index scalar", lambda tf: tf.unravel_index(5, [3, 4])),
    (
        "unravel_index int64",
        lambda tf: tf.unravel_index(tf.constant([0, 23], tf.int64), tf.constant([2, 3, 4], tf.int64)),
    ),
    ("unravel_index out of range", lambda tf: tf.unravel_index(15, [3, 4])),
    ("roll", lambda tf: tf.roll([0, 1, 2, 3, 4], shift=2, axis=0)),
    ("roll two axes", lambda tf: tf.roll([[0, 1, 2], [3, 4, 5]], shift=[1, -1], axis=[0, 1])),
    ("roll same axis twice", lambda tf: tf.roll(tf.constant(M), shift=[1, 1], axis=[1, 1])),
    ("roll negative axis", lambda tf: tf.roll(tf.constant(CUBE), shift=-5, axis=-1)),
    ("roll axis out of range", lambda tf: tf.roll([[0, 1, 2], [3, 4, 5]], shift=1, axis=2)),
    ("roll lengths differ", lambda tf: tf.roll(tf.constant(M), shift=[1, 2], axis=[0])),
    ("repeat scalar", lambda tf: tf.repeat([1, 2, 3], 2)),
    ("repeat per row", lambda tf: tf.repeat([[1, 2], [3, 4]], [1, 2], axis=0)),
    ("repeat flattened", lambda tf: tf.repeat([[1, 2], [3, 4]], 2)),
    ("repeat columns", lambda tf: tf.repeat(tf.constant(CUBE), [0, 2, 1, 1], axis=-1)),
    ("repeat wrong count", lambda tf: tf.repeat([[1, 2], [3, 4]], [1, 2, 3], axis=0)),
    ("repeat negative count", lambda tf: tf.repeat([1, 2], [-1, 2])),
    ("repeat scalar input", lambda tf: tf.repeat(3, 2)),
    ("meshgrid xy", lambda tf: tf.meshgrid([1, 2, 3], [4, 5])),
    ("meshgrid ij", lambda tf: tf.meshgrid([1, 2, 3], [4, 5], indexing="ij")),
    ("meshgrid three", lambda tf: tf.meshgrid([1.0, 2.0], [3.0], [4.0, 5.0, 6.0])),
    ("meshgrid mixed dtypes", lambda tf: tf.meshgrid([1, 2, 3], [4.0, 5.0])),
    ("meshgrid bad indexing", lambda tf: tf.meshgrid([1, 2], [3], indexing="yx")),
)
def test_indexing_matches_tensorflow(case: Any) -> None:
    same(case)


@pytest.mark.sample(4)
@named_examples(
    ("slice", traced(lambda tf, x: tf.slice(x, [1, 0], [2, -1]), M)),
    ("slice from a tensor size", traced(lambda tf, x, s: tf.slice(x, [0, 1], s), M, np.array([2, 2], np.int32))),
    ("strided_slice", traced(lambda tf, x: tf.strided_slice(x, [0, 1], [3, 4], [2, 2]), M)),
    (
        "strided_slice from traced bounds",
        traced(lambda tf, x, i: tf.strided_slice(x, [i, 0], [i + 2, 3]), M, np.array(1, np.int32)),
    ),
    (
        "strided_slice from a traced vector",
        traced(lambda tf, x, b: tf.strided_slice(x, b, b + 2, shrink_axis_mask=1), M, np.array([2, 1], np.int32)),
    ),
    (
        "gather batch_dims",
        traced(lambda tf, x, i: tf.gather(x, i, batch_dims=1, axis=2), CUBE, np.array([[0, 1], [2, 0]], np.int32)),
    ),
    ("gather_nd", traced(lambda tf, x, i: tf.gather_nd(x, i), CUBE, np.array([[0, 1], [1, 2]], np.int32))),
    (
        "scatter_nd",
        traced(
            lambda tf, i, u: tf.scatter_nd(i, u, [3, 4]), np.array([[0], [2]], np.int32), np.ones((2, 4), np.float32)
        ),
    ),
    (
        "scatter_nd from a tensor shape",
        traced(
            lambda tf, i, u, s: tf.scatter_nd(i, u, s),
            np.array([[1]], np.int32),
            np.ones(1, np.float32),
            np.array([3], np.int32),
        ),
    ),
    (
        "tensor_scatter_nd_max",
        traced(lambda tf, x, u: tf.tensor_scatter_nd_max(x, [[1, 1]], u), M, np.array([50], np.int32)),
    ),
    ("unravel_index", traced(lambda tf, i: tf.unravel_index(i, [3, 4]), np.array([1, 11], np.int32))),
    ("roll", traced(lambda tf, x: tf.roll(x, 1, 0), M)),
    ("repeat", traced(lambda tf, x: tf.repeat(x, [1, 0, 2], axis=0), M)),
    (
        "meshgrid",
        traced(
            lambda tf, a, b: tf.meshgrid(a, b)[0], np.arange(3.0, dtype=np.float32), np.arange(2.0, dtype=np.float32)
        ),
    ),
    ("gather_nd out of range", traced(lambda tf, x: tf.gather_nd(x, [[3, 0]]), M)),
)
def test_indexing_inside_tf_function_matches_tensorflow(case: Any) -> None:
    same(case)


@st.composite
def slices(draw: Any) -> tuple[np.ndarray, list[int], list[int]]:
    """An array with a begin and a size per dimension, now and then out of range."""
    a = draw(arrays("float32", shapes(min_dims=1, max_side=4), small=True))
    begin = [draw(st.integers(-1, n + 1)) for n in a.shape]
    size = [draw(st.integers(-1, n + 1)) for n in a.shape]
    return a, begin, size


@fewer_examples
@given(data=slices())
def test_slice_on_generated_bounds_matches_tensorflow(data: tuple[np.ndarray, list[int], list[int]]) -> None:
    a, begin, size = data
    same(lambda tf: tf.slice(tf.constant(a), begin, size))


@st.composite
def nd_indices(draw: Any) -> tuple[np.ndarray, np.ndarray]:
    """An array and index rows into its leading dimensions (sometimes one step out of range)."""
    a = draw(arrays("int32", shapes(min_dims=1, min_side=1, max_side=4), small=True))
    depth = draw(st.integers(1, a.ndim))
    rows = draw(st.integers(0, 4))
    index = [
        [draw(st.integers(0, a.shape[d] - (0 if draw(st.integers(0, 9)) else -1) - 1)) for d in range(depth)]
        for _ in range(rows)
    ]
    return a, np.array(index, dtype=np.int32).reshape(rows, depth)


@fewer_examples
@given(data=nd_indices(), how=st.sampled_from(["update", "add", "sub", "min", "max"]))
def test_gather_nd_and_tensor_scatter_on_generated_indices_match_tensorflow(
    data: tuple[np.ndarray, np.ndarray], how: str
) -> None:
    a, index = data
    same(lambda tf: tf.gather_nd(tf.constant(a), index))
    updates = (np.arange(np.prod(index.shape[:-1] + a.shape[index.shape[-1] :]), dtype=np.int32) - 5).reshape(
        index.shape[:-1] + a.shape[index.shape[-1] :]
    )
    repeated = len({tuple(row) for row in index.tolist()}) < len(index)
    if how != "update" or not repeated:  # with repeated rows TensorFlow does not say which update wins
        same(lambda tf: getattr(tf, f"tensor_scatter_nd_{how}")(tf.constant(a), index, updates))


def while_tracing(fn: Any) -> Any:
    """A case: `fn(tf, x)` inside a tf.function on a [3, 4] float32 matrix (shape mistakes surface while the
    graph is built, as ValueError, or when it runs, as InvalidArgumentError)."""

    def case(tf: Any) -> Any:
        return tf.function(lambda x: fn(tf, x))(tf.constant(M, tf.float32))

    return case


@pytest.mark.sample(5)
@named_examples(
    (
        "conv2d depth",
        while_tracing(lambda tf, x: tf.nn.conv2d(tf.reshape(x, [1, 3, 4, 1]), tf.ones([2, 2, 2, 1]), 1, "VALID")),
    ),
    (
        "conv2d negative size",
        while_tracing(lambda tf, x: tf.nn.conv2d(tf.reshape(x, [1, 3, 4, 1]), tf.ones([5, 1, 1, 1]), 1, "VALID")),
    ),
    ("max_pool2d rank", while_tracing(lambda tf, x: tf.nn.max_pool2d(x, 2, 2, "VALID"))),
    ("gather_nd too deep", while_tracing(lambda tf, x: tf.gather_nd(x, [[0, 1, 2]]))),
    ("gather_nd out of range", while_tracing(lambda tf, x: tf.gather_nd(x, [[5, 1]]))),
    (
        "tensor_scatter_nd_update updates",
        while_tracing(lambda tf, x: tf.tensor_scatter_nd_update(x, [[0]], [1.0, 2.0])),
    ),
    ("einsum sizes", while_tracing(lambda tf, x: tf.einsum("ij,jk->ik", x, x))),
    ("slice out of range", while_tracing(lambda tf, x: tf.slice(x, [1, 0], [3, -1]))),
    ("slice rank", while_tracing(lambda tf, x: tf.slice(x, [1], [1]))),
    ("ensure_shape", while_tracing(lambda tf, x: tf.ensure_shape(x, [2, 4]))),
    ("top_k too many", while_tracing(lambda tf, x: tf.math.top_k(x, 5))),
    ("band_part too wide", while_tracing(lambda tf, x: tf.linalg.band_part(x, 4, 0))),
    ("diag_part of a vector", while_tracing(lambda tf, x: tf.linalg.diag_part(x[0]))),
    ("diag_part offset", while_tracing(lambda tf, x: tf.linalg.diag_part(x, k=7))),
    ("roll axis", while_tracing(lambda tf, x: tf.roll(x, 1, 2))),
    ("unique of a matrix", while_tracing(lambda tf, x: tf.unique(x))),
    ("segment_sum ids", while_tracing(lambda tf, x: tf.math.segment_sum(x, [0, 0]))),
    ("unsorted_segment_sum out of range", while_tracing(lambda tf, x: tf.math.unsorted_segment_sum(x, [0, 5, 0], 3))),
    ("unravel_index", while_tracing(lambda tf, x: tf.unravel_index(15, [3, 4]))),
    ("scatter_nd out of range", while_tracing(lambda tf, x: tf.scatter_nd([[6]], [1.0], [5]))),
    ("searchsorted rows", while_tracing(lambda tf, x: tf.searchsorted(x, tf.ones([2, 1])))),
)
def test_shape_mistakes_inside_tf_function_raise_like_tensorflow(case: Any) -> None:
    same(case)
