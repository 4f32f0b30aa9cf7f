"""Run a tf.function program on minitf and on real TensorFlow and compare what a student would see.

A case is a function `case(tf, seen)` written against TensorFlow's API. It appends what it observes to
`seen` (tensors, Python values, tracing counts, op types); what it prints (Python `print`, and `tf.print`
sent to sys.stdout) and the error it ends with (class name and message) are observed too.
"""

from __future__ import annotations

import io
import os
import sys
from collections.abc import Callable
from contextlib import redirect_stdout
from typing import Any

import numpy as np

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import tensorflow as real_tf  # noqa: E402

import minitf  # noqa: E402

ENGINES = {"minitf": minitf, "tensorflow": real_tf}


def observe(value: Any) -> Any:
    """A comparable, engine-independent view of a value."""
    if isinstance(value, list | tuple):
        return [observe(v) for v in value]
    if isinstance(value, dict):
        return {k: observe(v) for k, v in value.items()}
    if hasattr(value, "numpy") and hasattr(value, "dtype"):
        array = np.asarray(value.numpy())
        return ("tensor", value.dtype.name, tuple(array.shape), np.round(array.astype(float), 5).tolist()
                if array.dtype.kind in "fiub" else array.tolist())
    return value


def run_case(case: Callable[[Any, list], None], engine: str) -> dict[str, Any]:
    """Run `case` on one engine: what it recorded, what it printed, and the error it raised."""
    tf = ENGINES[engine]
    seen: list[Any] = []
    printed = io.StringIO()
    error = None
    with redirect_stdout(printed):
        try:
            case(tf, seen)
        except Exception as exc:  # noqa: BLE001 - the error itself is what we compare
            error = (type(exc).__name__, str(exc))
        sys.stdout.flush()
    return {"seen": [observe(v) for v in seen], "printed": printed.getvalue(), "error": error}


def assert_same(case: Callable[[Any, list], None], error_fragment: str | None = None) -> dict[str, Any]:
    """Both engines record the same values, print the same text and raise the same error class.

    Error messages differ in their decoration (TensorFlow adds "in user code" and a traceback excerpt), so
    only `error_fragment` (a stable part of TensorFlow's message) must appear in both.
    """
    mine, theirs = run_case(case, "minitf"), run_case(case, "tensorflow")
    assert mine["seen"] == theirs["seen"], f"recorded:\nminitf:     {mine['seen']}\ntensorflow: {theirs['seen']}"
    assert mine["printed"] == theirs["printed"], \
        f"printed:\nminitf:\n{mine['printed']}\ntensorflow:\n{theirs['printed']}"
    if theirs["error"] is None:
        assert mine["error"] is None, f"minitf raised {mine['error']}"
    else:
        assert mine["error"] is not None, f"TensorFlow raised {theirs['error']}, minitf did not"
        assert mine["error"][0] == theirs["error"][0], f"{mine['error']} vs {theirs['error']}"
        if error_fragment is not None:
            assert error_fragment in theirs["error"][1], theirs["error"][1]
            assert error_fragment in mine["error"][1], mine["error"][1]
    return mine
