"""One public op on small tensors, eagerly: what a call costs from `tf.add` to the kernel.

Composite values (RaggedTensor) take an op over through the table of minitf/core/dispatch.py, looked up only when
an argument is not a tensor, so `tf.add` on two tensors runs `add -> binary_call -> bind -> run_eager -> np.add`.
The rows put that beside NumPy's `np.add` and TensorFlow's `tf.add`, and show a ragged call's cost too (printed,
never asserted).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from benchmarks.chain import best_time, load_tensorflow, report


def measure() -> dict[str, dict[str, float]]:
    import minitf

    a, b = np.linspace(-1, 1, 10, dtype=np.float32), np.linspace(1, 2, 10, dtype=np.float32)
    results: dict[str, dict[str, float]] = {"tf.add, dense": {}, "tf.add, ragged": {}}
    dense, ragged = results["tf.add, dense"], results["tf.add, ragged"]
    dense["numpy"] = ragged["numpy"] = best_time(lambda: np.add(a, b), 20000)
    x, y = minitf.constant(a), minitf.constant(b)
    dense["minitf"] = best_time(lambda: minitf.add(x, y), 5000)
    rt = minitf.RaggedTensor.from_row_lengths(x, [4, 6])
    ragged["minitf"] = best_time(lambda: minitf.add(rt, 1.0), 1000)
    tf: Any = load_tensorflow()
    if tf is not None:
        xt, yt = tf.constant(a), tf.constant(b)
        dense["tensorflow"] = best_time(lambda: tf.add(xt, yt), 2000)
        rtt = tf.RaggedTensor.from_row_lengths(xt, [4, 6])
        ragged["tensorflow"] = best_time(lambda: tf.add(rtt, 1.0), 500)
    return results


def main() -> None:
    print(report(measure()))


if __name__ == "__main__":
    main()
