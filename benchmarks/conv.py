"""A convolution layer's step, measured: `tf.nn.conv2d` forward, and forward with both gradients (input and
filters) under a GradientTape, on a batch of 32 MNIST-sized images (32, 28, 28, 1) with 32 filters of 3x3, float32,
SAME padding, on minitf, in NumPy written by hand and on TensorFlow in one run. Printed as milliseconds and
ratios, never asserted.

The NumPy version is what one would write without an engine: every 3x3 window as a view
(`sliding_window_view`) and one `tensordot` per product; the input's gradient is the convolution of the
padded output gradient with the flipped filter."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import numpy as np

from benchmarks.chain import load_tensorflow

REPEATS, CALLS = 5, 20


def _inputs() -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(0)
    return rng.normal(size=(32, 28, 28, 1)).astype(np.float32), rng.normal(size=(3, 3, 1, 32)).astype(np.float32)


def forward(tf: Any) -> Callable[[], Any]:
    x, f = (tf.constant(a) for a in _inputs())
    return lambda: tf.nn.conv2d(x, f, strides=1, padding="SAME")


def forward_and_backward(tf: Any) -> Callable[[], Any]:
    x, f = (tf.constant(a) for a in _inputs())

    def step() -> Any:
        with tf.GradientTape() as tape:
            tape.watch([x, f])
            loss = tf.reduce_sum(tf.nn.conv2d(x, f, strides=1, padding="SAME") ** 2)
        return tape.gradient(loss, [x, f])

    return step


def _windows(images: np.ndarray) -> np.ndarray:
    """Every 3x3 window of the images padded by one pixel (SAME): (n, h, w, channels, 3, 3), a view."""
    padded = np.pad(images, ((0, 0), (1, 1), (1, 1), (0, 0)))
    return np.lib.stride_tricks.sliding_window_view(padded, (3, 3), axis=(1, 2))


def numpy_forward() -> Callable[[], Any]:
    x, f = _inputs()
    return lambda: np.tensordot(_windows(x), f, axes=([4, 5, 3], [0, 1, 2]))


def numpy_forward_and_backward() -> Callable[[], Any]:
    x, f = _inputs()

    def step() -> Any:
        windows = _windows(x)
        y = np.tensordot(windows, f, axes=([4, 5, 3], [0, 1, 2]))
        g = 2 * y  # d sum(y ** 2) / dy
        dfilters = np.tensordot(windows, g, axes=([0, 1, 2], [0, 1, 2])).transpose(1, 2, 0, 3)
        dimages = np.tensordot(_windows(g), f[::-1, ::-1], axes=([4, 5, 3], [0, 1, 3]))
        return dimages, dfilters

    return step


def _best_ms(run: Callable[[], Any]) -> float:
    run()  # the first call may set things up
    times = []
    for _ in range(REPEATS):
        start = time.perf_counter()
        for _ in range(CALLS):
            run()
        times.append((time.perf_counter() - start) / CALLS)
    return min(times) * 1000


def main() -> None:
    import minitf  # imported when the benchmark runs, as the other benchmarks import the engines

    tf = load_tensorflow()
    print(f"conv2d on (32, 28, 28, 1) with 32 3x3 filters, float32, SAME (best of {REPEATS} x {CALLS} calls)")
    cases = (
        ("forward", forward, numpy_forward),
        ("forward and backward", forward_and_backward, numpy_forward_and_backward),
    )
    for name, case, by_hand in cases:
        mine, numpy = _best_ms(case(minitf)), _best_ms(by_hand())
        line = f"  {name:<22} minitf {mine:7.2f} ms   NumPy {numpy:7.2f} ms"
        if tf is not None:
            theirs = _best_ms(case(tf))
            line += f"   TensorFlow {theirs:7.2f} ms   minitf / TensorFlow {mine / theirs:5.2f}x"
        print(line)


if __name__ == "__main__":
    main()
