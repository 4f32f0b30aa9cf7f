"""Gradients of the indexing, scattering, sorting and linear-algebra additions, checked as test_tape_ops checks
the core ops: against TensorFlow for a random cotangent, against central differences in float64, and the
second derivative through nested tapes against TensorFlow."""

from __future__ import annotations

import numpy as np
import pytest
from test_tape_ops import (
    Case,
    check_central_differences,
    check_first_order_against_tensorflow,
    check_second_order_against_tensorflow,
)

pytestmark = [pytest.mark.tf, pytest.mark.filterwarnings("ignore::RuntimeWarning")]

ROWS = np.array([[0], [2]], np.int32)
CELLS = np.array([[0, 1], [2, 3], [0, 1]], np.int32)


def _indexing_cases() -> list[Case]:
    return [
        Case("slice[3,4]", lambda tf, x: tf.slice(x, [1, 0], [2, -1]), ((3, 4),)),
        Case(
            "strided_slice[4,3]masks", lambda tf, x: tf.strided_slice(x, [3, 0], [0, 3], [-2, 1], end_mask=1), ((4, 3),)
        ),
        Case(
            "gather[2,3,4]batch_dims=1,axis=2",
            lambda tf, x: tf.gather(x, [[0, 1, 1], [3, 3, 0]], batch_dims=1, axis=2),
            ((2, 3, 4),),
        ),
        Case("gather[2,3]batch_dims=1", lambda tf, x: tf.gather(x, [[2, 2], [0, 1]], batch_dims=1), ((2, 3),)),
        Case("gather_nd[3,4]cells", lambda tf, x: tf.gather_nd(x, CELLS), ((3, 4),)),
        Case("gather_nd[3,4]rows", lambda tf, x: tf.gather_nd(x, ROWS), ((3, 4),)),
        Case(
            "gather_nd[2,3,4]batch_dims=1",
            lambda tf, x: tf.gather_nd(x, [[[0, 1]], [[2, 3]]], batch_dims=1),
            ((2, 3, 4),),
        ),
        Case("scatter_nd[2,4]->[3,4]", lambda tf, u: tf.scatter_nd(ROWS, u, [3, 4]), ((2, 4),)),
        Case("tensor_scatter_nd_update", lambda tf, x, u: tf.tensor_scatter_nd_update(x, CELLS[:2], u), ((3, 4), (2,))),
        Case("tensor_scatter_nd_add", lambda tf, x, u: tf.tensor_scatter_nd_add(x, CELLS, u), ((3, 4), (3,))),
        Case("tensor_scatter_nd_sub", lambda tf, x, u: tf.tensor_scatter_nd_sub(x, ROWS, u), ((3, 4), (2, 4))),
        Case("tensor_scatter_nd_min", lambda tf, x, u: tf.tensor_scatter_nd_min(x, ROWS, u), ((3, 4), (2, 4))),
        Case("tensor_scatter_nd_max", lambda tf, x, u: tf.tensor_scatter_nd_max(x, CELLS[:2], u), ((3, 4), (2,))),
        Case("roll[2,3]", lambda tf, x: tf.roll(x, [1, -1], [0, 1]), ((2, 3),)),
        Case("repeat[2,3]axis=1", lambda tf, x: tf.repeat(x, [2, 0, 1], axis=1), ((2, 3),)),
        Case("repeat[2,2]flat", lambda tf, x: tf.repeat(x, 2), ((2, 2),)),
        Case("meshgrid", lambda tf, a, b: tf.meshgrid(a, b), ((3,), (2,))),
    ]


def _sorting_and_matrix_cases() -> list[Case]:
    return [
        Case("sort[2,4]", lambda tf, x: tf.sort(x), ((2, 4),)),
        Case("sort[3,2]axis=0,descending", lambda tf, x: tf.sort(x, axis=0, direction="DESCENDING"), ((3, 2),)),
        Case("top_k[2,5]k=3", lambda tf, x: tf.math.top_k(x, 3).values, ((2, 5),)),
        Case("einsum ij,jk->ik", lambda tf, a, b: tf.einsum("ij,jk->ik", a, b), ((2, 3), (3, 2))),
        Case("einsum ii->i", lambda tf, x: tf.einsum("ii->i", x), ((3, 3),)),
        Case("einsum ij->", lambda tf, x: tf.einsum("ij->", x), ((2, 3),)),
        Case("einsum i,j->ij", lambda tf, a, b: tf.einsum("i,j->ij", a, b), ((2,), (3,))),
        Case("einsum ...ij,...jk->...ik", lambda tf, a, b: tf.einsum("...ij,...jk->...ik", a, b), ((2, 2, 3), (3, 2))),
        Case("einsum i,ij,j->", lambda tf, a, m, b: tf.einsum("i,ij,j->", a, m, b), ((2,), (2, 3), (3,))),
        Case("band_part[3,4]", lambda tf, x: tf.linalg.band_part(x, 1, 0), ((3, 4),)),
        Case("diag[2,3]k=1", lambda tf, x: tf.linalg.diag(x, k=1), ((2, 3),)),
        Case("diag_part[3,4]k=-1", lambda tf, x: tf.linalg.diag_part(x, k=-1), ((3, 4),)),
        Case("diag_part[3,4]k=(-1,2)", lambda tf, x: tf.linalg.diag_part(x, k=(-1, 2)), ((3, 4),)),
        Case("diag[2,3]k=(-1,0),LEFT_RIGHT", lambda tf, x: tf.linalg.diag(x, k=(-1, 0), align="LEFT_RIGHT"), ((2, 3),)),
        Case("trace[2,3,3]", lambda tf, x: tf.linalg.trace(x), ((2, 3, 3),)),
        Case("norm[3,2]ord=2", lambda tf, x: tf.norm(x, ord=2, axis=[0, 1]), ((3, 2),), fd_eps=1e-5, fd_atol=1e-5),
        Case(
            "norm[2,3,4]ord=2,axis=[1,2]",
            lambda tf, x: tf.norm(x, ord=2, axis=[1, 2]),
            ((2, 3, 4),),
            fd_eps=1e-5,
            fd_atol=1e-5,
        ),
        Case("norm[3,3]ord=2", lambda tf, x: tf.norm(x, ord=2, axis=[-2, -1]), ((3, 3),), fd_eps=1e-5, fd_atol=1e-5),
    ]


def _everyday_cases() -> list[Case]:
    return [
        Case("ensure_shape", lambda tf, x: tf.ensure_shape(x, [None, 3]) * x, ((2, 3),)),
        Case("check_numerics", lambda tf, x: tf.debugging.check_numerics(x * x, "finite"), ((2, 3),)),
        Case("polyval", lambda tf, a, x: tf.math.polyval([a, 2.0 * a, x], x), ((3,), (3,))),
        Case("segment_sum", lambda tf, x: tf.math.segment_sum(x, [0, 0, 2]), ((3, 2),)),
        Case("unsorted_segment_sum", lambda tf, x: tf.math.unsorted_segment_sum(x, [[1, -1], [0, 1]], 3), ((2, 2, 3),)),
        Case(
            "sigmoid_cross_entropy_with_logits",
            lambda tf, z, x: tf.nn.sigmoid_cross_entropy_with_logits(labels=tf.sigmoid(z), logits=x),
            ((2, 3), (2, 3)),
        ),
    ]


def _conv_cases() -> list[Case]:
    return [
        Case("conv2d same strided", lambda tf, x, f: tf.nn.conv2d(x, f, 2, "SAME"), ((1, 4, 5, 2), (2, 3, 2, 2))),
        Case("conv2d valid", lambda tf, x, f: tf.nn.conv2d(x, f, 1, "VALID"), ((2, 3, 5, 1), (2, 2, 1, 2))),
        Case(
            "conv2d explicit",
            lambda tf, x, f: tf.nn.conv2d(x, f, [1, 2], [[0, 0], [1, 0], [0, 2], [0, 0]]),
            ((1, 3, 3, 2), (2, 2, 2, 1)),
        ),
        Case("max_pool2d", lambda tf, x: tf.nn.max_pool2d(x, 2, 1, "SAME"), ((1, 3, 4, 2),)),
        Case("avg_pool2d", lambda tf, x: tf.nn.avg_pool2d(x, [2, 3], 2, "SAME"), ((2, 4, 5, 1),)),
    ]


CASES = _indexing_cases() + _sorting_and_matrix_cases() + _everyday_cases() + _conv_cases()
BY_NAME = {c.name: c for c in CASES}
assert len(BY_NAME) == len(CASES), "case names must be unique"


@pytest.mark.parametrize("name", list(BY_NAME))
def test_gradient_matches_tensorflow_for_a_random_cotangent(name: str) -> None:
    check_first_order_against_tensorflow(BY_NAME[name])


@pytest.mark.parametrize("name", [c.name for c in CASES if c.not_finite_differences is None])
def test_gradient_matches_central_differences_in_float64(name: str) -> None:
    check_central_differences(BY_NAME[name])


@pytest.mark.sample(10)
@pytest.mark.parametrize("name", [c.name for c in CASES if c.not_second_order is None])
def test_second_order_matches_tensorflow(name: str) -> None:
    check_second_order_against_tensorflow(BY_NAME[name])
