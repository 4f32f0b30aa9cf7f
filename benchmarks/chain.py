"""A chain of 60 small elementwise ops on a 10-element float32 tensor: eager, and forward + gradient.

Each engine runs the same chain (15 x [sin, *1.01, +0.5, tanh]); plain NumPy is the floor. For the
gradient, NumPy gets a hand-written backward pass. Timings are the minimum over repeats (timeit's advice);
they are printed, never asserted.
"""

from __future__ import annotations

import os
import time
import timeit
from collections.abc import Callable
from typing import Any

import numpy as np

STEPS = 15  # 4 ops per step -> 60 ops


def numpy_forward(x: np.ndarray) -> np.ndarray:
    a, b = np.float32(1.01), np.float32(0.5)
    for _ in range(STEPS):
        x = np.tanh(np.sin(x) * a + b)
    return x


def numpy_forward_backward(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Forward keeping what the backward pass needs, then the chain rule by hand."""
    a, b = np.float32(1.01), np.float32(0.5)
    saved = []
    for _ in range(STEPS):
        s = np.sin(x)
        m = s * a
        p = m + b
        y = np.tanh(p)
        saved.append((x, y))
        x = y
    g = np.ones_like(x)
    for x_in, y in reversed(saved):
        g = g * (1 - y * y)  # tanh
        g = g * a  # *a (the +b passes g through)
        g = g * np.cos(x_in)  # sin
    return x, g


def engine_forward(tf: Any) -> Callable[[Any], Any]:
    def forward(x: Any) -> Any:
        for _ in range(STEPS):
            x = tf.tanh(tf.sin(x) * 1.01 + 0.5)
        return x

    return forward


def engine_forward_backward(tf: Any) -> Callable[[Any], Any]:
    forward = engine_forward(tf)

    def run(x: Any) -> Any:
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = forward(x)
        return y, tape.gradient(y, x)

    return run


# Wall-clock time by default; `./run bench --cpu` times the process's CPU instead, which other programs on a
# shared machine disturb far less (run BLAS on one thread then: OPENBLAS_NUM_THREADS=1).
TIMER: list[Callable[[], float]] = [time.perf_counter]


def best_time(fn: Callable[[], Any], number: int, repeat: int = 7) -> float:
    """Seconds per call: the minimum over repeats."""
    fn()
    return min(timeit.Timer(fn, timer=TIMER[0]).repeat(number=number, repeat=repeat)) / number


def load_tensorflow() -> Any:
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    try:
        import tensorflow as tf
    except ImportError:
        return None
    return tf


def measure() -> dict[str, dict[str, float]]:
    import minitf

    data = np.linspace(-1, 1, 10, dtype=np.float32)
    results: dict[str, dict[str, float]] = {"eager chain (60 ops)": {}, "tape: forward + gradient": {}}
    eager, taped = results["eager chain (60 ops)"], results["tape: forward + gradient"]
    eager["numpy"] = best_time(lambda: numpy_forward(data), 2000)
    taped["numpy"] = best_time(lambda: numpy_forward_backward(data), 1000)
    x = minitf.constant(data)
    eager["minitf"] = best_time(lambda: engine_forward(minitf)(x), 300)
    taped["minitf"] = best_time(lambda: engine_forward_backward(minitf)(x), 100)
    tf = load_tensorflow()
    if tf is not None:
        xt = tf.constant(data)
        eager["tensorflow"] = best_time(lambda: engine_forward(tf)(xt), 50)
        taped["tensorflow"] = best_time(lambda: engine_forward_backward(tf)(xt), 20)
    return results


def report(results: dict[str, dict[str, float]]) -> str:
    lines = [f"{'benchmark':28} {'engine':11} {'time/call':>12} {'x numpy':>9}"]
    for bench, row in results.items():
        for engine, seconds in row.items():
            lines.append(f"{bench:28} {engine:11} {seconds * 1e6:10.1f}us {seconds / row['numpy']:8.1f}x")
    return "\n".join(lines)


def main() -> None:
    print(report(measure()))


if __name__ == "__main__":
    main()
