"""TensorFlow's exact float kernels (`minitf/exact/`: `tanh`, `exp_log`) against NumPy's own ufunc, per call.

minitf computes tanh, exp, log and the logistic function bit for bit as TensorFlow's CPU kernels do, one
rounded multiply or add per NumPy call; NumPy's `np.tanh` / `np.exp` / `np.log` (for the logistic function
`1 / (1 + np.exp(-x))`) is the floor (its results differ from TensorFlow's in the last bit). On a few values
the cost is the number of NumPy calls; on a million it is memory traffic. Timings are the minimum over
repeats; they are printed, never asserted.
"""

from __future__ import annotations

import timeit
from collections.abc import Callable

import numpy as np

SIZES = (1, 10, 100, 10**4, 10**6)


def _kernels() -> list[tuple[str, Callable[[np.ndarray], np.ndarray], Callable[[np.ndarray], np.ndarray], type, bool]]:
    from minitf.exact import exp_log, tanh

    return [
        ("tanh float32", tanh.tanh32, np.tanh, np.float32, False),
        ("tanh float64", tanh.tanh64, np.tanh, np.float64, False),
        ("tanh float16", tanh.tanh16, np.tanh, np.float16, False),
        ("exp float32", exp_log.exp, np.exp, np.float32, False),
        ("log float32", exp_log.log, np.log, np.float32, True),
        ("sigmoid float32", exp_log.sigmoid, _numpy_sigmoid, np.float32, False),
    ]


def _numpy_sigmoid(x: np.ndarray) -> np.ndarray:
    return 1 / (1 + np.exp(-x))


def best_time(fn: Callable[[], object], size: int) -> float:
    """Seconds per call: the minimum over repeats."""
    fn()
    number = max(1, min(2000, 40_000 // (size + 20)))
    return min(timeit.repeat(fn, number=number, repeat=7 if size < 10**6 else 3)) / number


def measure() -> dict[str, dict[int, tuple[float, float]]]:
    rng = np.random.default_rng(0)
    results: dict[str, dict[int, tuple[float, float]]] = {}
    for name, exact, floor, dtype, positive in _kernels():
        row = results[name] = {}
        for size in SIZES:
            x = rng.uniform(0.01 if positive else -3, 3, size).astype(dtype)
            # the lambdas run before the loop moves on, so binding late is harmless
            row[size] = (best_time(lambda: exact(x), size), best_time(lambda: floor(x), size))  # noqa: B023
    return results


def report(results: dict[str, dict[int, tuple[float, float]]]) -> str:
    lines = [f"{'kernel (us/call; NumPy ufunc)':32}" + "".join(f"{f'n={size:g}':>20}" for size in SIZES)]
    for name, row in results.items():
        cells = "".join(f"{exact * 1e6:11.1f} ({floor * 1e6:5.1f})" for exact, floor in row.values())
        lines.append(f"{name:32}{cells}")
    return "\n".join(lines)


def main() -> None:
    print(report(measure()))


if __name__ == "__main__":
    main()
