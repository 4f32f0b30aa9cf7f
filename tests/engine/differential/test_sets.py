"""tf.sets: rows of dense tensors and SparseTensors as sets, on both engines: the SparseTensors that union,
intersection and difference return (indices, ascending values, dense shape), sizes, strings, inside a tf.function,
and the errors for a wrong rank, mismatched shapes, a float dtype or a dense argument to size."""

from __future__ import annotations

from typing import Any

import pytest
from enumeration import assert_enumerated
from harness import same_error, same_program

TESTED = ["difference", "intersection", "size", "union"]


def test_every_tf_sets_name_is_tested_or_left_out() -> None:
    assert_enumerated("sets", TESTED)


def test_set_operations_on_dense_rows() -> None:
    def case(tf: Any, seen: list) -> None:
        a = tf.constant([[1, 2, 3, 3], [4, 5, 5, 5]])
        b = tf.constant([[1, 3, 7, 7], [5, 5, 5, 9]])
        for result in (
            tf.sets.union(a, b),
            tf.sets.intersection(a, b),
            tf.sets.difference(a, b),
            tf.sets.difference(a, b, aminusb=False),
            tf.sets.intersection([[1]], [[2]]),
            tf.sets.union(tf.constant([[[1, 2], [3, 3]]]), tf.constant([[[2, 2], [4, 4]]])),
        ):
            seen.extend([result.indices, result.values, result.dense_shape, tf.sparse.to_dense(result)])
        seen.append(tf.sets.union(tf.constant([["b", "a"]]), tf.constant([["c", "a"]])).values)

    same_program(case)


def test_sparse_rows_sizes_and_mixed_arguments() -> None:
    def case(tf: Any, seen: list) -> None:
        sp = tf.SparseTensor(indices=[[0, 0], [0, 1], [1, 0]], values=[1, 5, 1], dense_shape=[2, 3])
        dense = tf.constant([[1, 2, 3], [4, 5, 5]])
        seen.append(tf.sets.size(sp))
        for result in (
            tf.sets.intersection(dense, sp),
            tf.sets.union(sp, dense),
            tf.sets.difference(sp, dense),
            tf.sets.union(sp, sp),
        ):
            seen.extend([result.indices, result.values, result.dense_shape])
        seen.append(tf.sets.size(tf.sets.union(dense, sp)))

    same_program(case)


def test_set_operations_inside_a_function() -> None:
    def case(tf: Any, seen: list) -> None:
        @tf.function
        def common(a: Any, b: Any) -> Any:
            result = tf.sets.intersection(a, b)
            seen.append(result.values.shape.rank)
            return tf.sparse.to_dense(result)

        seen.append(common(tf.constant([[1, 2, 3], [3, 4, 5]]), tf.constant([[3, 2, 0], [0, 0, 5]])))

    same_program(case)


@pytest.mark.parametrize(
    ("mistake", "fragment"),
    [
        (lambda tf: tf.sets.union(tf.constant([1, 2]), tf.constant([2, 3])), "has rank 1 < 2"),
        (lambda tf: tf.sets.union(tf.constant([[1], [2]]), tf.constant([[1]])), "Mismatched shapes [2] vs [1]"),
        (lambda tf: tf.sets.union(tf.constant([[1.0]]), tf.constant([[1.0]])), "'a' has invalid dtype"),
        (lambda tf: tf.sets.union(tf.constant([[1]]), tf.constant([[1]], tf.int64)), "Types don't match"),
        (lambda tf: tf.sets.size(tf.constant([[1, 1]])), "Expected `SparseTensor`, got tf.Tensor("),
    ],
    ids=["rank", "shapes", "float", "dtypes", "dense-size"],
)
def test_mistakes_raise_tensorflows_errors(mistake: Any, fragment: str) -> None:
    mine, theirs = same_error(mistake, hint=False)
    assert fragment in str(mine) and fragment in str(theirs)
