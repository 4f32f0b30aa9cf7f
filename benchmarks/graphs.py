"""Graph execution, measured: hand-written NumPy (the floor), TensorFlow and minitf, eager and `tf.function`.

Six programs, each as a ratio to NumPy doing the same work by hand:

* a chain of 60 small elementwise ops on 10 floats (from `chain.py`), and the same under a tape (forward +
  gradient, the tape inside the function);
* `reduce_mean(matmul(a, b))` on 100x100 and on 1000x1000 matrices (the course's timing task);
* one training step of a 784-128-10 MLP on a batch of 64: forward, gradients, SGD update of four variables;
* ten rounds of `tanh(x) * 0.5 + exp(-x^2) / (1 + |x|)` on 1,000 floats (transcendental kernels).

minitf runs each program twice: with its default NumPy kernels, then with TensorFlow's exact ones
(`tf.experimental.numerics("tensorflow")`), printed as a second table.

Also the first call (trace + optimise + generate code) next to TensorFlow's, and, per optimisation pass, how
much switching it on (cumulatively, in pipeline order) speeds each program up on minitf. Minimum of repeats,
printed, never asserted.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import numpy as np

from benchmarks.chain import (
    STEPS,
    best_time,
    engine_forward,
    engine_forward_backward,
    load_tensorflow,
    numpy_forward,
    numpy_forward_backward,
)

rng = np.random.default_rng(0)
SMALL = np.linspace(-1, 1, 10, dtype=np.float32)
A100, B100 = (rng.uniform(size=(100, 100)).astype(np.float32) for _ in range(2))
A1000, B1000 = (rng.uniform(size=(1000, 1000)).astype(np.float32) for _ in range(2))
BATCH = rng.uniform(size=(64, 784)).astype(np.float32)
LABELS = rng.integers(0, 10, size=64).astype(np.int32)
INIT = {
    "w1": rng.normal(0, 0.05, (784, 128)).astype(np.float32),
    "b1": np.zeros(128, np.float32),
    "w2": rng.normal(0, 0.05, (128, 10)).astype(np.float32),
    "b2": np.zeros(10, np.float32),
}
LEARNING_RATE = 0.1
ROUNDS = 10
THOUSAND = np.linspace(-3, 3, 1000, dtype=np.float32)


# --- the floor: NumPy by hand ---


def numpy_mean_matmul(a: np.ndarray, b: np.ndarray) -> Any:
    return np.mean(a @ b)


def numpy_rounds(x: np.ndarray) -> np.ndarray:
    half = np.float32(0.5)
    for _ in range(ROUNDS):
        x = np.tanh(x) * half + np.exp(-(x * x)) / (np.abs(x) + np.float32(1))
    return x


def numpy_mlp_step(params: dict[str, np.ndarray], x: np.ndarray, labels: np.ndarray) -> float:
    """Forward, hand-derived backward pass of softmax cross-entropy, SGD update in place."""
    hidden_in = x @ params["w1"] + params["b1"]
    hidden = np.maximum(hidden_in, 0)
    logits = hidden @ params["w2"] + params["b2"]
    shifted = logits - logits.max(axis=1, keepdims=True)
    exp = np.exp(shifted)
    probs = exp / exp.sum(axis=1, keepdims=True)
    n = len(labels)
    loss = -np.log(probs[np.arange(n), labels]).mean()
    d_logits = probs
    d_logits[np.arange(n), labels] -= 1
    d_logits /= n
    d_w2 = hidden.T @ d_logits
    d_b2 = d_logits.sum(axis=0)
    d_hidden = (d_logits @ params["w2"].T) * (hidden_in > 0)
    d_w1 = x.T @ d_hidden
    d_b1 = d_hidden.sum(axis=0)
    for key, grad in (("w1", d_w1), ("b1", d_b1), ("w2", d_w2), ("b2", d_b2)):
        params[key] -= LEARNING_RATE * grad
    return float(loss)


# --- the same programs, written once against TensorFlow's API ---


def engine_mean_matmul(tf: Any) -> Callable[[Any, Any], Any]:
    return lambda a, b: tf.reduce_mean(tf.matmul(a, b))


def engine_rounds(tf: Any) -> Callable[[Any], Any]:
    def rounds(x: Any) -> Any:
        for _ in range(ROUNDS):
            x = tf.tanh(x) * 0.5 + tf.exp(-(x * x)) / (tf.abs(x) + 1.0)
        return x

    return rounds


def engine_mlp_step(tf: Any) -> tuple[Callable[[Any, Any], Any], list[Any]]:
    variables = [tf.Variable(INIT[k]) for k in ("w1", "b1", "w2", "b2")]
    w1, b1, w2, b2 = variables

    def step(x: Any, labels: Any) -> Any:
        with tf.GradientTape() as tape:
            hidden = tf.nn.relu(tf.matmul(x, w1) + b1)
            logits = tf.matmul(hidden, w2) + b2
            loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels, logits))
        for v, g in zip(variables, tape.gradient(loss, variables)):
            v.assign_sub(LEARNING_RATE * g)
        return loss

    return step, variables


Program = tuple[str, Callable[[], Any], Callable[[Any], tuple[Callable, tuple]]]


def programs() -> list[Program]:
    """(name, NumPy by hand, engine -> (function, arguments)) for each benchmark program."""

    def mlp(tf: Any) -> tuple[Callable, tuple]:
        step, _ = engine_mlp_step(tf)
        return step, (tf.constant(BATCH), tf.constant(LABELS))

    numpy_params = {k: v.copy() for k, v in INIT.items()}
    return [
        (
            f"{STEPS * 4}-op elementwise chain",
            lambda: numpy_forward(SMALL),
            lambda tf: (engine_forward(tf), (tf.constant(SMALL),)),
        ),
        (
            "the same chain under a tape",
            lambda: numpy_forward_backward(SMALL),
            lambda tf: (engine_forward_backward(tf), (tf.constant(SMALL),)),
        ),
        (
            "100x100 matmul + reduce_mean",
            lambda: numpy_mean_matmul(A100, B100),
            lambda tf: (engine_mean_matmul(tf), (tf.constant(A100), tf.constant(B100))),
        ),
        (
            "1000x1000 matmul + reduce_mean",
            lambda: numpy_mean_matmul(A1000, B1000),
            lambda tf: (engine_mean_matmul(tf), (tf.constant(A1000), tf.constant(B1000))),
        ),
        ("MLP training step (784-128-10, batch 64)", lambda: numpy_mlp_step(numpy_params, BATCH, LABELS), mlp),
        (
            f"{ROUNDS} rounds of tanh/exp/abs/divide, 1,000 floats",
            lambda: numpy_rounds(THOUSAND),
            lambda tf: (engine_rounds(tf), (tf.constant(THOUSAND),)),
        ),
    ]


def calls_for(seconds: float) -> int:
    """How many calls make one timing repeat last about 5 ms (short repeats: the minimum of many finds one that
    nothing else on the machine interrupted)."""
    return max(1, min(2000, int(0.005 / max(seconds, 1e-7))))


def time_call(fn: Callable[[], Any]) -> float:
    """Seconds per call of `fn`. A function's first call traces and compiles, so the number of calls a repeat makes
    is worked out from a second one (from the first, a repeat would time one cold call)."""
    fn()
    start = time.perf_counter()
    fn()
    return best_time(fn, calls_for(time.perf_counter() - start), repeat=15)


def first_call(engine: Any, make: Callable[[Any], tuple[Callable, tuple]]) -> float:
    """Seconds for the first call of a new tf.function: tracing, optimising, generating code, running."""
    fn, args = make(engine)
    function = engine.function(fn)
    start = time.perf_counter()
    function(*args)
    return time.perf_counter() - start


def measure(with_tensorflow: bool = True) -> dict[str, dict[str, float]]:
    """Every program on NumPy, TensorFlow and minitf (in minitf's current numerics)."""
    import minitf

    tf = load_tensorflow() if with_tensorflow else None
    results: dict[str, dict[str, float]] = {}
    for name, by_hand, make in programs():
        row = results[name] = {"numpy": time_call(by_hand)}
        for label, engine in (("tensorflow", tf), ("minitf", minitf)):
            if engine is None:
                continue
            fn, args = make(engine)
            row[f"{label} eager"] = time_call(lambda fn=fn, args=args: fn(*args))
            function = engine.function(make(engine)[0])
            row[f"{label} function"] = time_call(lambda function=function, args=args: function(*args))
            row[f"{label} first call"] = first_call(engine, make)
    return results


def pass_switches(count: int) -> dict[str, Any]:
    """Options that switch on the first `count` passes of the pipeline and none of the others."""
    from minitf.function.compiling import optimizer

    options: dict[str, Any] = {"disable_meta_optimizer": count == 0}
    for j, info in enumerate(optimizer.ALL_PASSES):
        on = j < count
        if info.key == "pruning":
            options["disable_model_pruning"] = not on
        else:
            options[info.key] = on
    return options


def per_pass() -> dict[str, list[tuple[str, float]]]:
    """minitf function time per call with no pass, then with each pass switched on in pipeline order."""
    import minitf
    from minitf.function.compiling import optimizer

    titles = ["none"] + [f"+ {info.title}" for info in optimizer.ALL_PASSES]
    out: dict[str, list[tuple[str, float]]] = {}
    saved = dict(optimizer._options)
    try:
        for name, _, make in programs():
            timings = []
            for count, title in enumerate(titles):
                optimizer._options.clear()
                optimizer.set_experimental_options(pass_switches(count))
                fn, args = make(minitf)
                function = minitf.function(fn)
                timings.append((title, time_call(lambda function=function, args=args: function(*args))))
            out[name] = timings
    finally:
        optimizer._options.clear()
        optimizer._options.update(saved)
        optimizer._version[0] += 1
    return out


def report(results: dict[str, dict[str, float]], title: str = "program (x hand-written NumPy)") -> str:
    columns = ["tensorflow eager", "tensorflow function", "minitf eager", "minitf function"]
    lines = [f"{title:42}" + "".join(f"{c:>21}" for c in columns) + f"{'NumPy':>12}"]
    for name, row in results.items():
        cells = "".join(f"{row[c] / row['numpy']:20.2f}x" if c in row else f"{'-':>21}" for c in columns)
        lines.append(f"{name:42}{cells}{row['numpy'] * 1e6:10.1f}us")
    lines.append("")
    lines.append(f"{'first call (trace + optimise + run)':42}{'tensorflow':>21}{'minitf':>21}")
    for name, row in results.items():
        tf_first = f"{row['tensorflow first call'] * 1e3:19.1f}ms" if "tensorflow first call" in row else f"{'-':>21}"
        lines.append(f"{name:42}{tf_first}{row['minitf first call'] * 1e3:19.1f}ms")
    return "\n".join(lines)


def report_passes(timings: dict[str, list[tuple[str, float]]]) -> str:
    titles = [title for title, _ in next(iter(timings.values()))]
    lines = [
        "minitf function, time per call as passes are switched on in order (x the time with no pass):",
        f"{'program':42}" + "".join(f"{t[:16]:>18}" for t in titles),
    ]
    for name, row in timings.items():
        base = row[0][1]
        lines.append(f"{name:42}" + "".join(f"{seconds / base:17.2f}x" for _, seconds in row))
    return "\n".join(lines)


def main() -> None:
    import minitf

    print(report(measure()))
    print()
    with minitf.api.experimental.numerics("tensorflow"):
        print(report(measure(with_tensorflow=False), title="TensorFlow-exact numerics (x NumPy)"))
    print()
    print(report_passes(per_pass()))


if __name__ == "__main__":
    main()
