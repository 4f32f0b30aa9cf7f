"""tf.nn.conv2d, max_pool2d and avg_pool2d: values on generated images, filters, strides, dilations and
paddings; errors; static shapes inside a tf.function."""

from __future__ import annotations

from typing import Any

import numpy as np
from harness import named_examples, same
from hypothesis import given
from hypothesis import strategies as st
from test_indexing import fewer_examples, traced

IMAGE = np.arange(16.0, dtype=np.float32).reshape(1, 4, 4, 1)
ONES = np.ones((2, 2, 1, 1), np.float32)


@named_examples(
    ("conv2d valid", lambda tf: tf.nn.conv2d(IMAGE, ONES, strides=1, padding="VALID")),
    ("conv2d same strided", lambda tf: tf.nn.conv2d(IMAGE, ONES, strides=2, padding="SAME")),
    ("conv2d four strides", lambda tf: tf.nn.conv2d(IMAGE, ONES, strides=[1, 2, 1, 1], padding="SAME")),
    ("conv2d explicit padding", lambda tf: tf.nn.conv2d(IMAGE, ONES, 1, padding=[[0, 0], [1, 0], [0, 1], [0, 0]])),
    ("conv2d dilated", lambda tf: tf.nn.conv2d(IMAGE, ONES, strides=1, padding="VALID", dilations=2)),
    (
        "conv2d ints",
        lambda tf: tf.nn.conv2d(tf.ones([1, 4, 4, 1], tf.int32), tf.ones([2, 2, 1, 1], tf.int32), 1, "VALID"),
    ),
    (
        "conv2d channels",
        lambda tf: tf.nn.conv2d(
            tf.reshape(tf.range(24.0), [1, 2, 4, 3]), tf.reshape(tf.range(12.0), [1, 2, 3, 2]), 1, "SAME"
        ),
    ),
    ("conv2d depth mismatch", lambda tf: tf.nn.conv2d(IMAGE, tf.ones([2, 2, 2, 1]), strides=1, padding="VALID")),
    ("conv2d bad padding", lambda tf: tf.nn.conv2d(IMAGE, ONES, strides=1, padding="FULL")),
    ("conv2d rank 3", lambda tf: tf.nn.conv2d(tf.ones([4, 4, 1]), ONES, strides=1, padding="VALID")),
    (
        "conv2d dtype mismatch",
        lambda tf: tf.nn.conv2d(tf.constant(IMAGE), tf.ones([2, 2, 1, 1], tf.float64), 1, "VALID"),
    ),
    (
        "conv2d array takes the filter dtype",
        lambda tf: tf.nn.conv2d(IMAGE, tf.ones([2, 2, 1, 1], tf.float64), 1, "VALID"),
    ),
    ("conv2d output would be negative", lambda tf: tf.nn.conv2d(IMAGE, tf.ones([6, 1, 1, 1]), 1, "VALID")),
    ("max_pool2d output would be negative", lambda tf: tf.nn.max_pool2d(IMAGE, [6, 1], 1, "VALID")),
    ("max_pool2d", lambda tf: tf.nn.max_pool2d(IMAGE, 2, 2, "VALID")),
    ("max_pool2d same", lambda tf: tf.nn.max_pool2d(IMAGE, 3, 2, "SAME")),
    ("max_pool2d negative values", lambda tf: tf.nn.max_pool2d(-IMAGE, 3, 2, "SAME")),
    ("max_pool2d ints", lambda tf: tf.nn.max_pool2d(tf.constant(IMAGE.astype(np.int32)), 2, 1, "SAME")),
    ("max_pool2d window too big", lambda tf: tf.nn.max_pool2d(IMAGE, 5, 1, "VALID")),
    ("max_pool2d rank 3", lambda tf: tf.nn.max_pool2d(tf.ones([4, 4, 1]), 2, 2, "VALID")),
    ("avg_pool2d same", lambda tf: tf.nn.avg_pool2d(IMAGE, 3, 2, "SAME")),
    ("avg_pool2d rectangular", lambda tf: tf.nn.avg_pool2d(IMAGE, [2, 3], [1, 2], "VALID")),
    ("avg_pool2d ints", lambda tf: tf.nn.avg_pool2d(tf.constant(IMAGE.astype(np.int32)), 2, 2, "VALID")),
)
def test_conv_and_pooling_match_tensorflow(case: Any) -> None:
    same(case)


def gradient_of(fn: Any) -> Any:
    def case(tf: Any) -> Any:
        x = tf.constant(IMAGE)
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = fn(tf, x)
        return tape.gradient(y, x)

    return case


@named_examples(
    ("conv2d", gradient_of(lambda tf, x: tf.nn.conv2d(x, ONES, 1, "SAME"))),
    ("dilated conv2d has no CPU gradient", gradient_of(lambda tf, x: tf.nn.conv2d(x, ONES, 1, "SAME", dilations=2))),
    ("max_pool2d ties go to the first maximum", gradient_of(lambda tf, x: tf.nn.max_pool2d(x * 0.0, 2, 1, "VALID"))),
)
def test_conv_gradients_match_tensorflow(case: Any) -> None:
    same(case)


@named_examples(
    ("conv2d", traced(lambda tf, x, f: tf.nn.conv2d(x, f, 2, "SAME"), IMAGE, ONES)),
    ("max_pool2d", traced(lambda tf, x: tf.nn.max_pool2d(x, 3, 1, "VALID"), IMAGE)),
    ("avg_pool2d", traced(lambda tf, x: tf.nn.avg_pool2d(x, 2, [1, 3], "SAME"), IMAGE)),
)
def test_conv_and_pooling_inside_tf_function_match_tensorflow(case: Any) -> None:
    same(case)


@st.composite
def convolutions(draw: Any) -> dict:
    """An image batch, a filter, strides, dilations and a padding that fit together (or produce nothing)."""
    rng = np.random.default_rng(draw(st.integers(0, 2**16)))
    n, h, w, c, o = (
        draw(st.integers(1, 2)),
        draw(st.integers(1, 6)),
        draw(st.integers(1, 6)),
        draw(st.integers(1, 3)),
        draw(st.integers(1, 2)),
    )
    kh, kw = draw(st.integers(1, 3)), draw(st.integers(1, 3))
    strides = [draw(st.integers(1, 3)), draw(st.integers(1, 3))]
    dilated = draw(st.booleans())
    padding = draw(st.sampled_from(["SAME", "VALID", "EXPLICIT"]))
    if padding == "EXPLICIT":
        padding = [
            [0, 0],
            [draw(st.integers(0, 2)), draw(st.integers(0, 2))],
            [draw(st.integers(0, 2)), draw(st.integers(0, 2))],
            [0, 0],
        ]
    return {
        "x": rng.normal(size=(n, h, w, c)).astype(np.float32),
        "f": rng.normal(size=(kh, kw, c, o)).astype(np.float32),
        "strides": [1, 1] if dilated else strides,
        "dilations": [2, 1] if dilated else 1,
        "padding": padding,
        "window": [kh, kw],
    }


@fewer_examples
@given(conv=convolutions())
def test_conv2d_and_pools_on_generated_inputs_match_tensorflow(conv: dict) -> None:
    same(
        lambda tf: tf.nn.conv2d(conv["x"], conv["f"], conv["strides"], conv["padding"], dilations=conv["dilations"]),
        rtol=1e-4,
        atol=1e-5,
    )
    if isinstance(conv["padding"], str):
        same(lambda tf: tf.nn.max_pool2d(conv["x"], conv["window"], conv["strides"], conv["padding"]))
        same(
            lambda tf: tf.nn.avg_pool2d(conv["x"], conv["window"], conv["strides"], conv["padding"]),
            rtol=1e-5,
            atol=1e-6,
        )
