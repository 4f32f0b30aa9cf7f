"""tf.foldl, tf.foldr and tf.scan: accumulators forwards and backwards, with and without an initializer, over
structures, values, static shapes and errors, eagerly, traced (a while loop) and under a tape."""

from __future__ import annotations

from typing import Any

import numpy as np
from harness import named_examples, same, same_program

E = np.array([1.0, 2.0, 3.0, 4.0], np.float32)
M = np.array([[1.0, 2.0], [3.0, -1.0], [0.5, 2.0]], np.float32)


@named_examples(
    ("foldl", lambda tf: tf.foldl(lambda a, x: a * 2.0 + x, tf.constant(E))),
    ("foldl initializer", lambda tf: tf.foldl(lambda a, x: a * x, tf.constant(E), initializer=tf.constant(1.0))),
    ("foldr", lambda tf: tf.foldr(lambda a, x: a * 2.0 + x, tf.constant(E))),
    ("foldr initializer", lambda tf: tf.foldr(lambda a, x: a - x, tf.constant(E), initializer=tf.constant(10.0))),
    (
        "foldl pairs",
        lambda tf: tf.foldl(
            lambda a, x: a + x[0] * x[1], (tf.constant(E), tf.constant(E)), initializer=tf.constant(0.0)
        ),
    ),
    ("foldl rows", lambda tf: tf.foldl(lambda a, x: a * x, tf.constant(M))),
    ("scan", lambda tf: tf.scan(lambda a, x: a + x, tf.constant(E))),
    (
        "scan reverse",
        lambda tf: tf.scan(lambda a, x: a * 2.0 + x, tf.constant(E), initializer=tf.constant(1.0), reverse=True),
    ),
    (
        "scan structure",
        lambda tf: tf.scan(
            lambda a, x: (a[0] + x, a[1] * x), tf.constant(E), initializer=(tf.constant(0.0), tf.constant(1.0))
        ),
    ),
    ("scan rows", lambda tf: tf.scan(lambda a, x: a * x + 1.0, tf.constant(M))),
    ("scan ints", lambda tf: tf.scan(lambda a, x: a + x, tf.constant([[1, 2], [3, 4]]))),
    ("scan of nothing", lambda tf: tf.scan(lambda a, x: a + x, tf.constant(E[:0]), initializer=tf.constant(0.0))),
    ("foldl of nothing", lambda tf: tf.foldl(lambda a, x: a + x, tf.constant(E[:0]), initializer=tf.constant(0.0))),
)
def test_folds_and_scans_match_tensorflow(case: Any) -> None:
    same(case)


def test_a_scalar_has_no_slices() -> None:
    same_program(lambda tf, seen: tf.foldl(lambda a, x: a + x, tf.constant(1.0)))


def test_without_slices_or_initializer_there_is_no_first_accumulator() -> None:
    same_program(
        lambda tf, seen: tf.foldl(lambda a, x: a + x, tf.constant(E[:0])),
        "Tried to read from index 0 but array size is: 0",
    )


def test_unknown_lengths_inside_a_function() -> None:
    def case(tf: Any, seen: list) -> None:
        @tf.function(input_signature=[tf.TensorSpec([None])])
        def f(e: Any) -> Any:
            return [
                tf.foldl(lambda a, x: a * 2.0 + x, e),
                tf.foldr(lambda a, x: a * 2.0 + x, e),
                tf.scan(lambda a, x: a * 2.0 + x, e, reverse=True),
                tf.scan(lambda a, x: a + x, e, initializer=tf.constant(1.0)),
            ]

        seen.append([str(t.shape) for t in f.get_concrete_function().outputs])
        seen.append(f(tf.constant(E)))
        seen.append(f(tf.constant(E[:1])))

    same_program(case)
