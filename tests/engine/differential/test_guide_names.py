"""Names a learner of TensorFlow's core meets early in TensorFlow's own guides (tensors, autodiff, modules,
sparse and string tensors): values, dtypes, printing, errors, traced and under a tape, on both engines."""

from __future__ import annotations

from typing import Any

import numpy as np
from harness import named_examples, same

X = np.array([[1.0, -2.0, 3.0], [0.5, 0.0, -1.5]], np.float32)
ACT = np.array([-8.0, -1.0, 0.0, 0.5, 6.0, 7.5], np.float32)


def sp(tf: Any) -> Any:
    return tf.SparseTensor(indices=[[0, 0], [1, 2], [2, 1]], values=[1.0, 2.0, -3.0], dense_shape=[3, 4])


def seen(value: Any) -> Any:
    """A SparseTensor compared through its parts."""
    return (value.indices, value.values, value.dense_shape, value.shape, value.dtype)


@named_examples(
    (
        "is_tensor",
        lambda tf: (
            tf.is_tensor(tf.constant(1)),
            tf.is_tensor(1),
            tf.is_tensor(np.ones(2)),
            tf.is_tensor(tf.Variable(1.0)),
            tf.is_tensor(tf.ragged.constant([[1], []])),
            tf.is_tensor(sp(tf)),
        ),
    ),
    ("get_static_value", lambda tf: (tf.get_static_value(tf.constant([1, 2])), tf.get_static_value(3))),
    ("get_static_value of an array", lambda tf: tf.get_static_value(tf.constant(X) * 2.0)),
    ("sequence_mask", lambda tf: tf.sequence_mask([1, 3, 2])),
    ("sequence_mask maxlen", lambda tf: tf.sequence_mask(tf.constant([1, 3, 2]), 5)),
    ("sequence_mask dtype", lambda tf: tf.sequence_mask([[0, 2], [1, 1]], 3, dtype=tf.float32)),
    ("sequence_mask matrix maxlen", lambda tf: tf.sequence_mask([1, 2], [2, 3])),
    ("bias_add", lambda tf: tf.nn.bias_add(tf.constant(X), tf.constant([1.0, 2.0, 3.0]))),
    ("bias_add wrong length", lambda tf: tf.nn.bias_add(tf.constant(X), tf.constant([1.0, 2.0]))),
    ("bias_add dtype mismatch", lambda tf: tf.nn.bias_add(tf.constant(X), tf.constant([1, 2, 3]))),
    ("relu6", lambda tf: tf.nn.relu6(tf.constant(ACT))),
    ("relu6 ints", lambda tf: tf.nn.relu6(tf.constant([-3, 2, 9]))),
    ("silu", lambda tf: tf.nn.silu(tf.constant(ACT))),
    ("silu beta", lambda tf: tf.nn.silu(tf.constant(ACT), beta=0.5)),
    ("swish", lambda tf: tf.nn.swish(tf.constant(X))),
    ("selu", lambda tf: tf.nn.selu(tf.constant(ACT))),
    ("softsign", lambda tf: (tf.nn.softsign(tf.constant(ACT)), tf.math.softsign(tf.constant(X)))),
    ("log_sigmoid", lambda tf: tf.math.log_sigmoid(tf.constant([-100.0, -1.0, 0.0, 2.0, 50.0]))),
    ("l2_normalize", lambda tf: tf.math.l2_normalize(tf.constant(X))),
    (
        "l2_normalize axis",
        lambda tf: (tf.nn.l2_normalize(tf.constant(X), axis=1), tf.linalg.l2_normalize(tf.constant(X), axis=0)),
    ),
    ("l2_normalize zeros", lambda tf: tf.math.l2_normalize(tf.zeros([3]))),
    ("moments", lambda tf: tf.nn.moments(tf.constant(X), axes=[0])),
    ("moments all axes keepdims", lambda tf: tf.nn.moments(tf.constant(X), axes=[0, 1], keepdims=True)),
    ("moments float16", lambda tf: tf.nn.moments(tf.constant(X.astype(np.float16)), axes=[1])),
    ("clip_by_norm", lambda tf: tf.clip_by_norm(tf.constant(X), 2.0)),
    ("clip_by_norm short enough", lambda tf: tf.clip_by_norm(tf.constant([0.3, 0.4]), 2.0)),
    ("clip_by_norm axes", lambda tf: tf.clip_by_norm(tf.constant(X), 1.0, axes=[1])),
    ("clip_by_norm zeros", lambda tf: tf.clip_by_norm(tf.zeros([2]), 1.0)),
    ("clip_by_global_norm", lambda tf: tf.clip_by_global_norm([tf.constant([3.0, 4.0]), tf.constant(X)], 5.0)),
    ("clip_by_global_norm none entry", lambda tf: tf.clip_by_global_norm([tf.constant([3.0, 4.0]), None], 1.0)),
    (
        "clip_by_global_norm use_norm",
        lambda tf: tf.clip_by_global_norm([tf.constant([3.0, 4.0])], 1.0, use_norm=tf.constant(10.0)),
    ),
    ("clip_by_global_norm of a tensor", lambda tf: tf.clip_by_global_norm(tf.constant([3.0, 4.0]), 1.0)),
    ("global_norm", lambda tf: tf.linalg.global_norm([tf.constant(X), tf.constant([[2.0]])])),
    ("matvec", lambda tf: tf.linalg.matvec(tf.constant(X), tf.constant([1.0, 2.0, 3.0]))),
    ("matvec transpose", lambda tf: tf.linalg.matvec(tf.constant(X), tf.constant([1.0, -1.0]), transpose_a=True)),
    ("matvec size mismatch", lambda tf: tf.linalg.matvec(tf.constant(X), tf.constant([1.0, 2.0]))),
    ("matrix_transpose", lambda tf: tf.linalg.matrix_transpose(tf.reshape(tf.range(12.0), [2, 2, 3]))),
    ("matrix_transpose of a vector", lambda tf: tf.linalg.matrix_transpose(tf.constant([1.0, 2.0]))),
    ("adjoint", lambda tf: tf.linalg.adjoint(tf.constant([[1 + 2j, 3 - 1j]]))),
    ("ones_initializer", lambda tf: (tf.ones_initializer()([2, 3]), tf.ones_initializer()([2], tf.int32))),
    ("random_uniform_initializer seeded", lambda tf: tf.random_uniform_initializer(-1.0, 1.0, seed=7)([2, 3])),
    ("random_uniform_initializer config", lambda tf: tf.random_uniform_initializer(0.0, 2.0, seed=3).get_config()),
    ("sparse reduce_sum", lambda tf: tf.sparse.reduce_sum(sp(tf))),
    (
        "sparse reduce_sum axis",
        lambda tf: (tf.sparse.reduce_sum(sp(tf), axis=1), tf.sparse.reduce_sum(sp(tf), axis=0, keepdims=True)),
    ),
    ("sparse reduce_sum keepdims", lambda tf: tf.sparse.reduce_sum(sp(tf), keepdims=True)),
    ("sparse reduce_sum of a dense tensor", lambda tf: tf.sparse.reduce_sum(tf.constant(X))),
    ("sparse transpose", lambda tf: seen(tf.sparse.transpose(sp(tf)))),
    (
        "sparse transpose perm",
        lambda tf: seen(
            tf.sparse.transpose(tf.SparseTensor([[0, 1, 2], [1, 0, 0]], [5, 6], [2, 3, 4]), perm=[2, 0, 1])
        ),
    ),
    ("sparse map_values", lambda tf: seen(tf.sparse.map_values(tf.math.square, sp(tf)))),
    ("sparse map_values two", lambda tf: seen(tf.sparse.map_values(tf.add, sp(tf), sp(tf)))),
    ("sparse map_values with a scalar", lambda tf: seen(tf.sparse.map_values(tf.multiply, sp(tf), 10.0))),
    ("sparse map_values without sparse", lambda tf: tf.sparse.map_values(tf.add, 1.0, 2.0)),
    ("unicode_split", lambda tf: tf.strings.unicode_split("héllo", "UTF-8")),
    ("unicode_split vector", lambda tf: tf.strings.unicode_split(["hé", "", "xyz"], "UTF-8").to_tensor()),
)
def test_names_from_tensorflows_guides_match_tensorflow(case: Any) -> None:
    same(case)


def training_step(tf: Any) -> Any:
    """Gradients of a small layer through bias_add, selu, l2_normalize and moments, clipped by global norm."""
    w = tf.Variable(tf.constant(X))
    b = tf.Variable([0.1, -0.2, 0.3])
    with tf.GradientTape() as tape:
        h = tf.nn.selu(tf.nn.bias_add(tf.constant(X) * w, b))
        mean, variance = tf.nn.moments(tf.math.l2_normalize(h, axis=1), axes=[0])
        loss = tf.reduce_sum(mean) + tf.reduce_sum(variance) + tf.reduce_sum(tf.nn.relu6(h * 4.0))
    grads = tape.gradient(loss, [w, b])
    return tf.clip_by_global_norm(grads, 1.0)


def inside_function(tf: Any) -> Any:
    @tf.function
    def f(x: Any, lengths: Any) -> Any:
        mask = tf.sequence_mask(lengths, tf.shape(x)[1], dtype=x.dtype)
        return tf.linalg.matvec(x * mask, tf.ones([3])), tf.get_static_value(tf.constant(2)), tf.clip_by_norm(x, 1.0)

    return f(tf.constant(X), tf.constant([1, 3]))


@named_examples(("a training step", training_step), ("inside a tf.function", inside_function))
def test_guide_names_together_match_tensorflow(case: Any) -> None:
    same(case, rtol=1e-5, atol=1e-6)


TRIG = ["asin", "acos", "atan", "sinh", "cosh", "asinh", "acosh", "atanh"]
UNIT = np.array([-0.9, -0.3, 0.0, 0.45, 0.8], np.float32)
WIDE = np.array([1.0, 1.5, 2.0, 3.5], np.float64)


@named_examples(
    *[
        (
            f"{name} float32",
            (lambda n: lambda tf: (getattr(tf.math, n)(tf.constant(UNIT)), getattr(tf, n)(tf.constant(UNIT))))(name),
        )
        for name in TRIG
    ],
    *[(f"{name} float64", (lambda n: lambda tf: getattr(tf.math, n)(tf.constant(WIDE)))(name)) for name in TRIG],
    ("asin out of range", lambda tf: tf.math.asin(tf.constant([2.0, -1.0, 1.0]))),
    ("acosh below one", lambda tf: tf.math.acosh(tf.constant([0.5, 1.0]))),
    ("atanh at one", lambda tf: tf.math.atanh(tf.constant([1.0, -1.0]))),
    ("asin of ints", lambda tf: tf.math.asin(tf.constant([0, 1]))),
    ("sinh complex", lambda tf: tf.math.sinh(tf.constant([1 + 1j, -0.5j]))),
    ("atan2", lambda tf: tf.math.atan2(tf.constant([1.0, -1.0, 0.0, 2.0]), tf.constant([0.0, -1.0, -3.0, 2.0]))),
    ("atan2 broadcasting", lambda tf: tf.atan2(tf.constant(X), tf.constant([1.0, -2.0, 0.5]))),
    ("atan2 python numbers", lambda tf: tf.atan2(tf.constant(UNIT), 2.0)),
    ("atan2 dtype mismatch", lambda tf: tf.atan2(tf.constant(UNIT), tf.constant([1.0], tf.float64))),
    ("atan2 ints", lambda tf: tf.atan2(tf.constant([1, 2]), tf.constant([3, 4]))),
)
def test_inverse_and_hyperbolic_trigonometry_match_tensorflow(case: Any) -> None:
    same(case)


@named_examples(
    ("strip", lambda tf: tf.strings.strip([" a b \n", "\t", "x", ""])),
    ("strip ragged", lambda tf: tf.strings.strip(tf.ragged.constant([[" a"], [], ["b ", " c "]])).to_tensor()),
    ("strip of numbers", lambda tf: tf.strings.strip(tf.constant([1]))),
    ("regex_replace", lambda tf: tf.strings.regex_replace(["abc ab", "x"], "a(b)", r"<\1>")),
    ("regex_replace first only", lambda tf: tf.strings.regex_replace("aaa", "a", "b", replace_global=False)),
    ("regex_replace bad pattern", lambda tf: tf.strings.regex_replace(["a"], "(", "b")),
    ("regex_full_match", lambda tf: tf.strings.regex_full_match(["abc", "ab", "a c"], "a.c")),
    ("regex_full_match bad pattern", lambda tf: tf.strings.regex_full_match("a", "[")),
    ("as_string floats", lambda tf: tf.strings.as_string([3.5, 1e10, -0.0, 1 / 3])),
    ("as_string float64 and ints", lambda tf: (tf.as_string(tf.constant([1.5], tf.float64)), tf.as_string([1, -2]))),
    ("as_string bools", lambda tf: tf.as_string([True, False])),
    (
        "as_string options",
        lambda tf: (
            tf.as_string([3.14159], precision=2),
            tf.as_string([3.14159], scientific=True),
            tf.as_string([3.14159], shortest=True),
            tf.as_string([3], width=4, fill="0"),
            tf.as_string([3.5], width=10),
        ),
    ),
    ("as_string complex", lambda tf: tf.as_string(tf.constant([1 + 2j]))),
    ("as_string both notations", lambda tf: tf.as_string([1.0], scientific=True, shortest=True)),
    ("row_splits_to_segment_ids", lambda tf: tf.ragged.row_splits_to_segment_ids([0, 2, 2, 3])),
    (
        "row_splits_to_segment_ids int32",
        lambda tf: tf.ragged.row_splits_to_segment_ids(tf.constant([0, 1, 4], tf.int32), out_type=tf.int32),
    ),
    ("segment_ids_to_row_splits", lambda tf: tf.ragged.segment_ids_to_row_splits([0, 0, 2])),
    (
        "segment_ids_to_row_splits num_segments",
        lambda tf: tf.ragged.segment_ids_to_row_splits([0, 0, 2], num_segments=5),
    ),
)
def test_strings_and_row_partitions_from_the_guides_match_tensorflow(case: Any) -> None:
    same(case)
