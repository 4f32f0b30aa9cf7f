"""tf.nn.conv2d, max_pool2d and avg_pool2d: values on generated images, filters, strides, dilations and
paddings; errors; static shapes inside a tf.function."""

from __future__ import annotations

from typing import Any

import numpy as np
from harness import named_examples, same
from hypothesis import assume, given
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


def conv_gradients(x: np.ndarray, f: np.ndarray, strides: Any, padding: Any) -> Any:
    """A case: the gradients of sum(sin(conv2d(x, f))) with respect to the images and the filters (the sine
    makes every output's cotangent different)."""

    def case(tf: Any) -> Any:
        images, filters = tf.constant(x), tf.constant(f)
        with tf.GradientTape() as tape:
            tape.watch([images, filters])
            loss = tf.reduce_sum(tf.sin(tf.nn.conv2d(images, filters, strides, padding)))
        return tape.gradient(loss, [images, filters])

    return case


RNG = np.random.default_rng(7)
DIGITS = RNG.normal(size=(8, 28, 28, 1)).astype(np.float32)  # a product thin (9 wide) and large: one BLAS thread
FILTERS = RNG.normal(size=(3, 3, 1, 32)).astype(np.float32)
CHANNELS = RNG.normal(size=(2, 9, 7, 8)).astype(np.float32)  # patches 72 wide: the BLAS's own threads
WIDE = RNG.normal(size=(3, 3, 8, 5)).astype(np.float32)


@named_examples(
    ("digits batch", conv_gradients(DIGITS, FILTERS, 1, "SAME")),
    ("digits batch, strided", conv_gradients(DIGITS, FILTERS, 2, "SAME")),
    ("digits batch, valid", conv_gradients(DIGITS, FILTERS, 1, "VALID")),
    ("channels, strides 2 and 3", conv_gradients(CHANNELS, WIDE, [2, 3], "SAME")),
    ("channels, valid, strided", conv_gradients(CHANNELS, WIDE, 2, "VALID")),
    ("channels, explicit padding", conv_gradients(CHANNELS, WIDE, 1, [[0, 0], [2, 0], [1, 2], [0, 0]])),
    ("rectangular filter", conv_gradients(CHANNELS, WIDE[:2, :3, :, :], [1, 2], "SAME")),
)
def test_conv_gradients_for_images_and_filters_match_tensorflow(case: Any) -> None:
    # Under the harness's tape these are second derivatives: sums of a few hundred products of values up to a
    # few hundred, whose float32 round-off reaches 1e-4 near zero.
    same(case, rtol=1e-4, atol=1e-3)


def test_second_derivatives_of_conv2d_match_tensorflow() -> None:
    """The gradient ops have gradients: the filter gradient's own gradient, through both of its inputs."""

    def case(tf: Any) -> Any:
        images, filters = tf.constant(CHANNELS), tf.constant(WIDE)
        with tf.GradientTape() as outer:
            outer.watch([images, filters])
            with tf.GradientTape() as inner:
                inner.watch(filters)
                loss = tf.reduce_sum(tf.sin(tf.nn.conv2d(images, filters, 2, "SAME")))
            curvature = tf.reduce_sum(inner.gradient(loss, filters) ** 2)
        return outer.gradient(curvature, [images, filters])

    same(case, rtol=1e-3, atol=1e-3)


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


def has_output(conv: dict) -> bool:
    """The convolution's output has a pixel (the padded image is at least as large as the dilated filter)."""
    if conv["padding"] == "SAME":
        return True
    pads = [[0, 0], [0, 0]] if conv["padding"] == "VALID" else conv["padding"][1:3]
    dilations = [conv["dilations"]] * 2 if isinstance(conv["dilations"], int) else conv["dilations"]
    return all(conv["x"].shape[1 + a] + sum(pads[a]) >= (conv["f"].shape[a] - 1) * dilations[a] + 1 for a in (0, 1))


@fewer_examples
@given(conv=convolutions())
def test_conv2d_gradients_on_generated_inputs_match_tensorflow(conv: dict) -> None:
    """Both gradients for generated strides, paddings and channel counts (a dilated convolution has none on a
    CPU: both engines refuse it, which `same` compares too). TensorFlow's gradient kernels crash the process on
    an empty output with strides (a 1-pixel image, a 2x2 filter, VALID, stride 2): those are left out."""
    assume(has_output(conv))
    case = conv_gradients(conv["x"], conv["f"], conv["strides"], conv["padding"])
    same(case, rtol=1e-4, atol=1e-3)
