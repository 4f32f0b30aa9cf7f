"""`jit_compile=True`, measured: minitf's compiled regions next to NumPy by hand and TensorFlow's XLA.

The programs of the jit's issue, each as a ratio to hand-written op-by-op NumPy: a 20-op multiply/add chain
(10^6 and 10^3 float32 values), 10 rounds of tanh/exp/abs/divide (10^6 and 10^3), softmax cross-entropy
forward and gradient (4096x1000), and the MLP training step of graphs.py. Columns: minitf's `tf.function`
without and with `jit_compile=True`, TensorFlow's `jit_compile=True`; then minitf's first call with the jit
(trace, passes, lowering, Numba's compile) and the number of calls after which compiling has paid.
Minimum of repeats, printed, never asserted.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import numpy as np

from benchmarks.chain import load_tensorflow
from benchmarks.graphs import BATCH, INIT, LABELS, engine_mlp_step, numpy_mlp_step, time_call

rng = np.random.default_rng(1)
ROUNDS = 10
LOGITS = rng.normal(size=(4096, 1000)).astype(np.float32)
TARGETS = np.eye(1000, dtype=np.float32)[rng.integers(0, 1000, 4096)]


def values(n: int) -> np.ndarray:
    return np.linspace(-1, 1, n, dtype=np.float32)


# --- NumPy by hand ---


def numpy_chain(x: np.ndarray) -> np.ndarray:
    for _ in range(ROUNDS):
        x = x * np.float32(0.999) + np.float32(0.001)
    return x


def numpy_transcendental(x: np.ndarray) -> np.ndarray:
    for _ in range(ROUNDS):
        x = np.abs(np.exp(np.tanh(x))) / np.float32(2.0)
    return x


def numpy_cross_entropy(logits: np.ndarray, labels: np.ndarray) -> tuple[Any, np.ndarray]:
    shifted = logits - logits.max(axis=1, keepdims=True)
    exp = np.exp(shifted)
    total = exp.sum(axis=1, keepdims=True)
    loss = np.mean(-(labels * (shifted - np.log(total))).sum(axis=1))
    return loss, (exp / total - labels) / np.float32(len(logits))


# --- the same programs against TensorFlow's API ---


def engine_chain(tf: Any) -> Callable[[Any], Any]:
    def chain(x: Any) -> Any:
        for _ in range(ROUNDS):
            x = x * 0.999 + 0.001
        return x

    return chain


def engine_transcendental(tf: Any) -> Callable[[Any], Any]:
    def rounds(x: Any) -> Any:
        for _ in range(ROUNDS):
            x = tf.abs(tf.exp(tf.tanh(x))) / 2.0
        return x

    return rounds


def engine_cross_entropy(tf: Any) -> Callable[[Any, Any], Any]:
    def loss_and_gradient(logits: Any, labels: Any) -> Any:
        with tf.GradientTape() as tape:
            tape.watch(logits)
            loss = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits(labels, logits))
        return loss, tape.gradient(loss, logits)

    return loss_and_gradient


Program = tuple[str, Callable[[], Any], Callable[[Any], tuple[Callable, tuple]]]


def programs() -> list[Program]:
    def mlp(tf: Any) -> tuple[Callable, tuple]:
        step, _ = engine_mlp_step(tf)
        return step, (tf.constant(BATCH), tf.constant(LABELS))

    params = {k: v.copy() for k, v in INIT.items()}
    found: list[Program] = []
    for n in (10**6, 10**3):
        data = values(n)
        found.append(
            (
                f"20-op multiply/add chain, {n:.0e}",
                lambda data=data: numpy_chain(data),
                lambda tf, data=data: (engine_chain(tf), (tf.constant(data),)),
            )
        )
    for n in (10**6, 10**3):
        data = values(n)
        found.append(
            (
                f"10 x tanh/exp/abs/divide, {n:.0e}",
                lambda data=data: numpy_transcendental(data),
                lambda tf, data=data: (engine_transcendental(tf), (tf.constant(data),)),
            )
        )
    found.append(
        (
            "softmax cross-entropy + gradient, 4096x1000",
            lambda: numpy_cross_entropy(LOGITS, TARGETS),
            lambda tf: (engine_cross_entropy(tf), (tf.constant(LOGITS), tf.constant(TARGETS))),
        )
    )
    found.append(("MLP step 784-128-10, batch 64", lambda: numpy_mlp_step(params, BATCH, LABELS), mlp))
    return found


def _timings(make: Callable[[Any], tuple[Callable, tuple]], minitf: Any, tf: Any) -> dict[str, float]:
    fn, args = make(minitf)
    plain = minitf.function(fn)
    row = {"minitf function": time_call(lambda: plain(*args))}
    fn, args = make(minitf)
    jitted = minitf.function(fn, jit_compile=True)
    start = time.perf_counter()
    jitted(*args)
    row["minitf first call"] = time.perf_counter() - start
    row["minitf jit"] = time_call(lambda: jitted(*args))
    if tf is not None:
        fn, args_tf = make(tf)
        xla = tf.function(fn, jit_compile=True)
        row["tensorflow jit"] = time_call(lambda: xla(*args_tf))
    return row


def measure() -> dict[str, dict[str, float]]:
    import minitf

    tf = load_tensorflow()
    results: dict[str, dict[str, float]] = {}
    for name, by_hand, make in programs():
        row = results[name] = {"numpy": time_call(by_hand)}
        row.update(_timings(make, minitf, tf))
    return results


def report(results: dict[str, dict[str, float]]) -> str:
    columns = ["minitf function", "minitf jit", "tensorflow jit"]
    lines = [
        f"{'jit_compile=True (x hand-written NumPy)':46}"
        + "".join(f"{c:>17}" for c in columns)
        + f"{'NumPy':>12}{'first call':>12}{'pays after':>12}"
    ]
    for name, row in results.items():
        cells = "".join(f"{row[c] / row['numpy']:16.2f}x" if c in row else f"{'-':>17}" for c in columns)
        saved = row["minitf function"] - row["minitf jit"]
        pays = f"{row['minitf first call'] / saved:9.0f} calls" if saved > 0 else f"{'never':>12}"
        lines.append(f"{name:46}{cells}{row['numpy'] * 1e6:10.1f}us{row['minitf first call'] * 1e3:10.0f}ms{pays}")
    return "\n".join(lines)


def main() -> None:
    print(report(measure()))


if __name__ == "__main__":
    main()
