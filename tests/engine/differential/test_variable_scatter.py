"""Writing into parts of a Variable: `scatter_nd_*`, `scatter_*` with IndexedSlices, and `v[...].assign`, eagerly,
inside a tf.function and under a GradientTape."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from harness import minitf, named_examples, same

GRID = np.array([[1.0, 2.0], [3.0, 4.0]], np.float32)


@dataclass
class IndexedSlices:
    """A stand-in with the fields of tf.IndexedSlices for the engine that has no such class yet."""

    values: Any
    indices: Any


def indexed_slices(tf: Any, values: Any, indices: Any) -> Any:
    if tf is minitf and not hasattr(minitf, "IndexedSlices"):
        return IndexedSlices(tf.constant(values), tf.constant(indices))
    return tf.IndexedSlices(tf.constant(values), tf.constant(indices))


def scattered(method: str, *args: Any) -> Any:
    """A case: apply `variable.<method>(*args)` to a fresh variable; return what it returned and the variable."""

    def case(tf: Any) -> Any:
        v = tf.Variable(GRID)
        returned = getattr(v, method)(*args)
        return returned.read_value(), v

    return case


def scattered_rows(method: str, values: Any, indices: Any) -> Any:
    def case(tf: Any) -> Any:
        v = tf.Variable(GRID)
        getattr(v, method)(indexed_slices(tf, values, indices))
        return v

    return case


@named_examples(
    ("scatter_nd_update", scattered("scatter_nd_update", [[0, 1]], [9.0])),
    ("scatter_nd_update int list into float", scattered("scatter_nd_update", [[0, 1], [1, 0]], [9, 8])),
    ("scatter_nd_add rows", scattered("scatter_nd_add", [[1]], [[1.0, 1.0]])),
    ("scatter_nd_sub", scattered("scatter_nd_sub", [[1, 1], [1, 1]], [1.0, 2.0])),
    ("scatter_nd_max", scattered("scatter_nd_max", [[1, 1], [0, 0]], [100.0, -3.0])),
    ("scatter_nd_min", scattered("scatter_nd_min", [[0, 0]], [-5.0])),
    ("scatter_nd_update out of range", scattered("scatter_nd_update", [[5, 1]], [9.0])),
    ("scatter_nd_update int tensor", lambda tf: tf.Variable(GRID).scatter_nd_update([[0, 1]], tf.constant([9]))),
    ("scatter_nd_update returns an unread variable", lambda tf: tf.Variable(GRID).scatter_nd_update([[0, 0]], [0.0])),
    ("scatter_update", scattered_rows("scatter_update", [[7.0, 7.0]], [1])),
    ("scatter_add", scattered_rows("scatter_add", [[7.0, 7.0], [1.0, 1.0]], [1, 1])),
    ("scatter_sub", scattered_rows("scatter_sub", [[7.0, 7.0]], [0])),
    ("scatter_max", scattered_rows("scatter_max", [[0.0, 7.0]], [0])),
    ("scatter_min", scattered_rows("scatter_min", [[0.0, 7.0]], [1])),
    ("scatter_mul", scattered_rows("scatter_mul", [[2.0, 3.0]], [1])),
    ("scatter_div", scattered_rows("scatter_div", [[2.0, 4.0]], [0])),
    ("scatter_update needs IndexedSlices", lambda tf: tf.Variable(GRID).scatter_update([1])),
    ("slice assign", lambda tf: tf.Variable(GRID)[1].assign([5.0, 6.0])),
    ("slice assign broadcast", lambda tf: tf.Variable(GRID)[:, 0].assign(0.0)),
    ("slice assign wrong shape", lambda tf: tf.Variable(GRID)[0, :].assign([1.0, 2.0, 3.0])),
    ("plain tensors have no assign", lambda tf: tf.constant(GRID)[0].assign(1.0)),
)
def test_variable_scatter_matches_tensorflow(case: Any) -> None:
    same(case)


def in_function(body: Any) -> Any:
    """A case: `body(tf, v)` inside a tf.function on a fresh variable; returns the result and the variable."""

    def case(tf: Any) -> Any:
        v = tf.Variable([1.0, 2.0, 3.0, 4.0])

        @tf.function
        def f() -> Any:
            return body(tf, v)

        return f(), v

    return case


@named_examples(
    ("slice assigns", in_function(lambda tf, v: [v[1].assign(10.0), v[::2].assign([5.0, 6.0])][-1].read_value())),
    ("slice assign with a tensor index", in_function(lambda tf, v: v[tf.constant(3)].assign(-1.0).read_value())),
    ("slice assign in a loop", in_function(lambda tf, v: [v[i].assign(v[i] * 2.0) for i in range(4)][-1].read_value())),
    ("scatter_nd_update", in_function(lambda tf, v: v.scatter_nd_update([[0], [3]], [0.0, 9.0]).read_value())),
    ("scatter_nd_add", in_function(lambda tf, v: v.scatter_nd_add([[2]], [0.5]).read_value())),
)
def test_variable_scatter_inside_tf_function_matches_tensorflow(case: Any) -> None:
    same(case)


def gradient_after(write: Any) -> Any:
    """A case: the gradient of sum(written * v) where `written` is what `write(tf, v)` returned."""

    def case(tf: Any) -> Any:
        v = tf.Variable([1.0, 2.0, 3.0])
        with tf.GradientTape() as tape:
            y = tf.reduce_sum(write(tf, v) * v)
        return tape.gradient(y, v), v

    return case


@named_examples(
    ("slice assign then read", gradient_after(lambda tf, v: v[1:].assign([5.0, 5.0]))),
    ("scatter then read", gradient_after(lambda tf, v: v.scatter_nd_update([[0]], [4.0]))),
    ("slice of a variable", gradient_after(lambda tf, v: v[::-1])),
)
def test_variable_writes_under_a_tape_match_tensorflow(case: Any) -> None:
    same(case)
