"""`model.fit` of the course's digits network, measured: minitf's Keras next to the hand-written compiled loop
the course builds (the same network, optimizer and batches, a `tf.function` step on minitf) and next to real
Keras (TensorFlow 2.21), in one run.

The network is part 2's: 64 pixels -> 32 ReLU units -> 10 logits, sparse softmax cross-entropy, SGD with a
learning rate of 0.1, batches of 32 in a fixed order, 20 epochs over the 1,797 digits. Each engine trains from
the same initial weights; the time of a whole `fit` (traces included) is the best of a few runs. Printed as
seconds and ratios, never asserted.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import numpy as np

from benchmarks.chain import load_tensorflow
from course_data import load_digits

EPOCHS, BATCH, LEARNING_RATE, HIDDEN, REPEATS = 20, 32, 0.1, 32, 3


def _data() -> tuple[np.ndarray, np.ndarray]:
    images, labels = load_digits()
    return (images.reshape(len(images), 64) / 16.0).astype(np.float32), labels.astype(np.int32)


def _initial_weights() -> list[np.ndarray]:
    rng = np.random.default_rng(0)
    limit1, limit2 = np.sqrt(6 / (64 + HIDDEN)), np.sqrt(6 / (HIDDEN + 10))
    return [
        rng.uniform(-limit1, limit1, (64, HIDDEN)).astype(np.float32),
        np.zeros(HIDDEN, np.float32),
        rng.uniform(-limit2, limit2, (HIDDEN, 10)).astype(np.float32),
        np.zeros(10, np.float32),
    ]


def keras_fit(tf: Any, x: np.ndarray, y: np.ndarray) -> Callable[[], float]:
    """A fresh model and `fit` for EPOCHS; returns the final training accuracy."""
    keras = tf.keras

    def run() -> float:
        model = keras.Sequential(
            [keras.Input((64,)), keras.layers.Dense(HIDDEN, activation="relu"), keras.layers.Dense(10)]
        )
        model.set_weights(_initial_weights())
        model.compile(
            keras.optimizers.SGD(LEARNING_RATE),
            keras.losses.SparseCategoricalCrossentropy(from_logits=True),
            metrics=["accuracy"],
        )
        history = model.fit(x, y, batch_size=BATCH, epochs=EPOCHS, shuffle=False, verbose=0)
        return float(history.history["accuracy"][-1])

    return run


def hand_written_loop(tf: Any, x: np.ndarray, y: np.ndarray) -> Callable[[], float]:
    """The loop of the course: variables, a traced step (tape, gradients, SGD), batches in a Python loop."""

    def run() -> float:
        params = [tf.Variable(w) for w in _initial_weights()]

        @tf.function
        def step(xb: Any, yb: Any) -> Any:
            with tf.GradientTape() as tape:
                logits = tf.matmul(tf.nn.relu(tf.matmul(xb, params[0]) + params[1]), params[2]) + params[3]
                loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=yb, logits=logits))
            for param, grad in zip(params, tape.gradient(loss, params), strict=True):
                param.assign_sub(LEARNING_RATE * grad)
            return tf.reduce_sum(tf.cast(tf.equal(tf.argmax(logits, axis=1, output_type=tf.int32), yb), tf.float32))

        batches = [(tf.constant(x[i : i + BATCH]), tf.constant(y[i : i + BATCH])) for i in range(0, len(x), BATCH)]
        correct = 0.0
        for _ in range(EPOCHS):
            correct = sum(float(step(xb, yb)) for xb, yb in batches)
        return correct / len(x)

    return run


def _best(run: Callable[[], float]) -> tuple[float, float]:
    times, accuracy = [], 0.0
    for _ in range(REPEATS):
        start = time.perf_counter()
        accuracy = run()
        times.append(time.perf_counter() - start)
    return min(times), accuracy


def main() -> None:
    import minitf  # imported when the benchmark runs, as the other benchmarks import the engines

    x, y = _data()
    print(
        f"fit of the digits network: {EPOCHS} epochs, batches of {BATCH}, {len(x)} digits (best of {REPEATS}; "
        "a loaded machine makes every figure slower, compare the ratios)"
    )
    rows = {
        "minitf: hand-written compiled loop": _best(hand_written_loop(minitf, x, y)),
        "minitf: keras fit": _best(keras_fit(minitf, x, y)),
    }
    tf = load_tensorflow()
    if tf is not None:
        rows["TensorFlow: keras fit"] = _best(keras_fit(tf, x, y))
    base = rows["minitf: hand-written compiled loop"][0]
    for name, (seconds, accuracy) in rows.items():
        print(f"  {name:<38} {seconds:7.2f} s   {seconds / base:5.2f}x the loop   train accuracy {accuracy:.3f}")
    if tf is not None:
        ratio = rows["minitf: keras fit"][0] / rows["TensorFlow: keras fit"][0]
        print(f"  minitf's fit / TensorFlow's fit: {ratio:.2f}x")


if __name__ == "__main__":
    main()
