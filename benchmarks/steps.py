"""Random draws and a logistic-regression training step: minitf next to NumPy and TensorFlow in one run.

* `tf.random.normal` and `tf.random.uniform` of shape (1000, 1000), seeded, against TensorFlow's own kernels
  (the same Philox stream) and NumPy's generator (a different stream: the floor for drawing that many floats);
* one step of logistic regression (256 examples, 20 features): forward, sigmoid cross-entropy, gradients of the
  weights and the bias under a tape, SGD update of both variables; eager and inside `tf.function`, against the
  same step written by hand in NumPy.

Minimum of repeats, printed as ratios, never asserted.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from benchmarks.chain import load_tensorflow
from benchmarks.graphs import time_call

SHAPE = (1000, 1000)
rng = np.random.default_rng(2)
FEATURES = rng.normal(size=(256, 20)).astype(np.float32)
TARGETS = (rng.uniform(size=(256, 1)) < 0.5).astype(np.float32)
LEARNING_RATE = 0.1


def numpy_draws() -> dict[str, Callable[[], Any]]:
    generator = np.random.default_rng(0)
    return {
        "normal": lambda: generator.standard_normal(SHAPE, dtype=np.float32),
        "uniform": lambda: generator.random(SHAPE, dtype=np.float32),
    }


def engine_draws(tf: Any) -> dict[str, Callable[[], Any]]:
    return {
        "normal": lambda: tf.random.normal(SHAPE, seed=1),
        "uniform": lambda: tf.random.uniform(SHAPE, seed=1),
    }


def numpy_logistic_step(params: dict[str, np.ndarray], x: np.ndarray, y: np.ndarray) -> float:
    """Forward, the hand-derived gradient of the mean sigmoid cross-entropy, SGD update in place."""
    logits = x @ params["w"] + params["b"]
    loss = np.mean(np.maximum(logits, 0) - logits * y + np.log1p(np.exp(-np.abs(logits))))
    d_logits = (1 / (1 + np.exp(-logits)) - y) / np.float32(len(x))
    params["w"] -= np.float32(LEARNING_RATE) * (x.T @ d_logits)
    params["b"] -= np.float32(LEARNING_RATE) * d_logits.sum(axis=0)
    return float(loss)


def engine_logistic_step(tf: Any) -> Callable[[Any, Any], Any]:
    w = tf.Variable(np.zeros((20, 1), np.float32))
    b = tf.Variable(np.zeros((1,), np.float32))

    def step(x: Any, y: Any) -> Any:
        with tf.GradientTape() as tape:
            logits = tf.matmul(x, w) + b
            loss = tf.reduce_mean(tf.nn.sigmoid_cross_entropy_with_logits(labels=y, logits=logits))
        dw, db = tape.gradient(loss, [w, b])
        w.assign_sub(LEARNING_RATE * dw)
        b.assign_sub(LEARNING_RATE * db)
        return loss

    return step


def measure() -> dict[str, dict[str, float]]:
    import minitf

    tf = load_tensorflow()
    engines = [("minitf", minitf)] + ([("tensorflow", tf)] if tf is not None else [])
    results: dict[str, dict[str, float]] = {}
    for name, by_hand in numpy_draws().items():
        row = results[f"random.{name} {SHAPE}"] = {"numpy": time_call(by_hand)}
        for label, engine in engines:
            row[label] = time_call(engine_draws(engine)[name])
    params = {"w": np.zeros((20, 1), np.float32), "b": np.zeros((1,), np.float32)}
    eager = results["logistic-regression step, eager"] = {
        "numpy": time_call(lambda: numpy_logistic_step(params, FEATURES, TARGETS))
    }
    compiled = results["logistic-regression step, tf.function"] = {"numpy": eager["numpy"]}
    for label, engine in engines:
        x, y = engine.constant(FEATURES), engine.constant(TARGETS)
        step = engine_logistic_step(engine)
        eager[label] = time_call(lambda step=step, x=x, y=y: step(x, y))
        function = engine.function(engine_logistic_step(engine))
        compiled[label] = time_call(lambda function=function, x=x, y=y: function(x, y))
    return results


def report(results: dict[str, dict[str, float]]) -> str:
    lines = [f"{'program':44}{'NumPy':>12}{'minitf':>14}{'tensorflow':>14}{'minitf / tf':>14}"]
    for name, row in results.items():
        numpy = row["numpy"]
        cells = "".join(f"{row[e] / numpy:13.2f}x" if e in row else f"{'-':>14}" for e in ("minitf", "tensorflow"))
        versus_tf = f"{row['minitf'] / row['tensorflow']:13.2f}x" if "tensorflow" in row else f"{'-':>14}"
        lines.append(f"{name:44}{numpy * 1e6:10.1f}us{cells}{versus_tf}")
    lines.append("(NumPy: the time by hand; the engines: x that time)")
    return "\n".join(lines)


def main() -> None:
    print(report(measure()))


if __name__ == "__main__":
    main()
