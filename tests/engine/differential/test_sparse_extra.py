"""tf.sparse.concat, tf.sparse.slice and tf.sparse.reduce_max: indices, values and dense shapes (entries in
row-major order), empty groups, errors, eagerly and inside a tf.function, on both engines."""

from __future__ import annotations

from typing import Any

import pytest
from harness import same_error, same_program


def parts(sp: Any) -> list:
    return [sp.indices, sp.values, sp.dense_shape]


def sparse_operations(tf: Any, seen: list) -> None:
    a = tf.sparse.SparseTensor([[0, 2], [1, 0], [2, 1]], [1.0, -2.0, 3.0], [3, 3])
    b = tf.sparse.SparseTensor([[0, 1], [2, 0]], [4.0, 5.0], [3, 2])
    tall = tf.sparse.SparseTensor([[3, 0]], [7.0], [4, 2])
    seen.append(parts(tf.sparse.concat(1, [a, b])))
    seen.append(parts(tf.sparse.concat(0, [a, tf.sparse.SparseTensor([[0, 0]], [7.0], [1, 3])])))
    seen.append(parts(tf.sparse.concat(-1, [a, tall], expand_nonconcat_dims=True)))
    seen.append(parts(tf.sparse.concat(axis=1, sp_inputs=[b, a, b])))
    seen.append(parts(tf.sparse.slice(a, [1, 0], [2, 2])))
    seen.append(parts(tf.sparse.slice(a, [1, 1], [5, 5])))
    seen.append(parts(tf.sparse.slice(a, [3, 3], [1, 1])))
    negative = tf.sparse.SparseTensor([[0, 0], [0, 2]], [-1.0, -2.0], [2, 3])
    seen.extend(
        [
            tf.sparse.reduce_max(a),
            tf.sparse.reduce_max(a, 1),
            tf.sparse.reduce_max(a, 0, keepdims=True),
            tf.sparse.reduce_max(negative),
            tf.sparse.reduce_max(negative, 1),
            tf.sparse.reduce_max(negative, axis=0),
            tf.sparse.reduce_max(tf.sparse.SparseTensor([[0, 0]], [5], [2, 2]), 1),
        ]
    )


def test_concat_slice_and_reduce_max_eagerly() -> None:
    same_program(sparse_operations)


def test_concat_slice_and_reduce_max_inside_a_function() -> None:
    def case(tf: Any, seen: list) -> None:
        def traced() -> list:
            inner: list = []
            sparse_operations(tf, inner)
            return inner

        seen.append(tf.function(traced)())

    same_program(case)


def test_concat_refuses_other_shapes_without_expanding() -> None:
    def case(tf: Any, seen: list) -> None:
        a = tf.sparse.SparseTensor([[0, 2]], [1.0], [3, 3])
        tf.sparse.concat(1, [a, tf.sparse.SparseTensor([[3, 0]], [7.0], [4, 2])])

    same_program(case, "Input shapes must match: expected 3 for dimension 0 but got 4 at position 1")


@pytest.mark.parametrize(
    "call",
    [
        lambda tf, dense: tf.sparse.to_dense(dense),
        lambda tf, dense: tf.sparse.reorder(dense),
        lambda tf, dense: tf.sparse.concat(0, [dense]),
        lambda tf, dense: tf.sparse.slice(dense, [0, 0], [1, 1]),
        lambda tf, dense: tf.sparse.sparse_dense_matmul(dense, tf.constant([[1.0], [2.0]])),
    ],
    ids=["to_dense", "reorder", "concat", "slice", "sparse_dense_matmul"],
)
def test_a_dense_tensor_where_a_sparse_one_is_needed_is_a_type_error_with_a_hint(call: Any) -> None:
    def case(tf: Any) -> None:
        call(tf, tf.constant([[1.0, 0.0]]))

    mine, _ = same_error(case)
    assert str(mine).startswith("Input must be a SparseTensor.\nHint: tf.sparse.") and "from_dense" in str(mine)
