"""minitf computes with NumPy's float kernels by default; `tf.experimental.numerics("tensorflow")` switches to
TensorFlow's exact ones (minitf/exact/) and back, eagerly and in functions already compiled."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import minitf as tf
from minitf.exact import exp_log, summation, tanh

ROOT = Path(__file__).resolve().parents[2]
VALUES = np.random.default_rng(7).normal(scale=3, size=(9, 13)).astype(np.float32)


def test_default_numerics_are_numpys_kernels() -> None:
    assert tf.experimental.get_numerics() == "numpy"
    x = tf.constant(VALUES)
    assert tf.tanh(x).numpy().tobytes() == np.tanh(VALUES).tobytes()
    assert tf.exp(x).numpy().tobytes() == np.exp(VALUES).tobytes()
    assert tf.reduce_sum(x).numpy() == np.sum(VALUES)
    assert tf.reduce_mean(x, axis=1).numpy().tobytes() == np.mean(VALUES, axis=1).tobytes()


def test_tensorflow_numerics_use_the_exact_kernels_and_switch_back() -> None:
    x = tf.constant(VALUES)
    with tf.experimental.numerics("tensorflow") as switch:
        assert tf.experimental.get_numerics() == "tensorflow"
        assert tf.tanh(x).numpy().tobytes() == tanh.tanh32(VALUES).tobytes()
        assert tf.exp(x).numpy().tobytes() == exp_log.exp(VALUES).tobytes()
        assert tf.reduce_sum(x, axis=0).numpy().tobytes() == summation.tf_sum(VALUES, (0,)).tobytes()
    assert switch is not None
    assert tf.experimental.get_numerics() == "numpy"
    assert tf.tanh(x).numpy().tobytes() == np.tanh(VALUES).tobytes()


def test_a_compiled_function_follows_the_switch() -> None:
    @tf.function
    def f(x: tf.Tensor) -> tf.Tensor:
        return tf.reduce_mean(tf.tanh(x) * 2.0)

    x = tf.constant(VALUES)
    numpy_result = np.mean(np.tanh(VALUES) * np.float32(2))
    assert f(x).numpy() == numpy_result
    with tf.experimental.numerics("tensorflow"):
        exact = np.float32(summation.tf_sum(tanh.tanh32(VALUES) * np.float32(2), None) / np.float32(VALUES.size))
        assert f(x).numpy() == exact
    assert f(x).numpy() == numpy_result


def test_the_switch_without_with_lasts_until_switched_back() -> None:
    tf.experimental.numerics("tensorflow")
    try:
        assert tf.experimental.get_numerics() == "tensorflow"
    finally:
        tf.experimental.numerics("numpy")
    assert tf.experimental.get_numerics() == "numpy"


def test_an_unknown_mode_is_a_value_error_that_names_the_modes() -> None:
    with pytest.raises(ValueError, match="'numpy', 'tensorflow'.*\n.*Hint"):
        tf.experimental.numerics("fast")
    assert tf.experimental.get_numerics() == "numpy"


def test_no_module_of_the_engine_imports_mmap_or_ctypes() -> None:
    offenders = []
    for path in sorted((ROOT / "minitf").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            names = (
                [a.name for a in node.names]
                if isinstance(node, ast.Import)
                else [node.module or ""]
                if isinstance(node, ast.ImportFrom)
                else []
            )
            offenders += [f"{path.relative_to(ROOT)}: {n}" for n in names if n.split(".")[0] in ("mmap", "ctypes")]
    assert not offenders, offenders


def test_importing_minitf_loads_no_exact_kernel() -> None:
    code = "import sys, minitf; print(sorted(m for m in sys.modules if m.startswith('minitf.exact')))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    assert out.stdout.strip() == "[]", out.stdout
