"""Run a gradient computation on minitf and on real TensorFlow and compare what came out.

A case is written once against TensorFlow's API, `case(tf, ...)`; `alike(case, ...)` runs it with both
engines and asserts equal results (None where TensorFlow gives None, same nesting, dtype, shape, values
and printed text) or the same error class with TensorFlow's message inside minitf's.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

import numpy as np

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import tensorflow as real_tf  # noqa: E402

import minitf  # noqa: E402

ENGINES = {"minitf": minitf, "tensorflow": real_tf}


def as_dense(value: Any) -> Any:
    """TensorFlow answers a gather with IndexedSlices (so does minitf); compare those as dense tensors."""
    if isinstance(value, real_tf.IndexedSlices):
        return real_tf.convert_to_tensor(value)
    return value


def assert_alike(actual: Any, expected: Any, where: str = "result", rtol: float = 1e-6, atol: float = 1e-6,
                 text: bool = True) -> None:
    """minitf's `actual` equals TensorFlow's `expected`, recursively through lists, tuples and dicts."""
    if isinstance(expected, real_tf.IndexedSlices):  # sparse on both engines, then compared as dense tensors
        assert isinstance(actual, minitf.IndexedSlices), f"{where}: TensorFlow gives IndexedSlices, minitf {actual!r}"
        actual = minitf.convert_to_tensor(actual)
    expected = as_dense(expected)
    if expected is None:
        assert actual is None, f"{where}: TensorFlow gives None, minitf gives {actual!r}"
        return
    assert actual is not None, f"{where}: minitf gives None, TensorFlow gives {expected!r}"
    if isinstance(expected, list | tuple):
        assert type(actual).__name__ == type(expected).__name__, f"{where}: {type(actual)} vs {type(expected)}"
        assert len(actual) == len(expected), f"{where}: length {len(actual)} vs {len(expected)}"
        for i, (a, e) in enumerate(zip(actual, expected)):
            assert_alike(a, e, f"{where}[{i}]", rtol, atol, text)
        return
    if isinstance(expected, dict):
        assert isinstance(actual, dict) and list(actual) == list(expected), f"{where}: {actual!r} vs {expected!r}"
        for k in expected:
            assert_alike(actual[k], expected[k], f"{where}[{k!r}]", rtol, atol, text)
        return
    if isinstance(expected, real_tf.Tensor | real_tf.Variable):
        assert isinstance(actual, minitf.Tensor | minitf.Variable), f"{where}: expected a tensor, got {actual!r}"
        assert actual.dtype.name == expected.dtype.name, f"{where}: dtype {actual.dtype.name} vs {expected.dtype.name}"
        assert list(actual.shape) == list(expected.shape), f"{where}: shape {actual.shape} vs {expected.shape}"
        a, e = actual.numpy(), expected.numpy()
        np.testing.assert_allclose(a, e, rtol=rtol, atol=atol, equal_nan=True, err_msg=where)
        if text and np.array_equal(a, e, equal_nan=True):
            assert repr(actual) == repr(expected), f"{where}: repr\n{actual!r}\nvs TensorFlow\n{expected!r}"
        return
    if isinstance(expected, np.ndarray | np.generic):
        np.testing.assert_allclose(actual, expected, rtol=rtol, atol=atol, equal_nan=True, err_msg=where)
        return
    assert actual == expected, f"{where}: {actual!r} vs {expected!r}"


def alike(case: Callable[..., Any], *args: Any, rtol: float = 1e-6, atol: float = 1e-6, text: bool = True) -> Any:
    """Run `case(tf, *args)` on both engines and assert equal outcomes; return TensorFlow's result."""
    expected = case(real_tf, *args)
    actual = case(minitf, *args)
    assert_alike(actual, expected, getattr(case, "__name__", "case"), rtol, atol, text)
    return expected


def raises_alike(case: Callable[..., Any], *args: Any, hint: bool = True) -> tuple[BaseException, BaseException]:
    """Both engines raise the same class; minitf's message contains TensorFlow's (and, with `hint`, a Hint)."""
    errors = {}
    for name, lib in ENGINES.items():
        try:
            result = case(lib, *args)
        except Exception as exc:  # noqa: BLE001 - the error is what is compared
            errors[name] = exc
        else:
            raise AssertionError(f"{name} returned {result!r} instead of raising")
    mine, theirs = errors["minitf"], errors["tensorflow"]
    assert type(mine).__name__ == type(theirs).__name__, f"minitf raised {mine!r}, TensorFlow {theirs!r}"
    builtin = [c.__name__ for c in type(theirs).__mro__ if c.__module__ == "builtins"]
    assert [c.__name__ for c in type(mine).__mro__ if c.__module__ == "builtins"] == builtin
    assert str(theirs).strip() in str(mine), f"TensorFlow says {str(theirs)!r}; minitf says {str(mine)!r}"
    if hint:
        assert "Hint:" in str(mine), f"minitf's message does not explain how to fix it: {str(mine)!r}"
    return mine, theirs
