"""Run one engine-neutral check on minitf and on TensorFlow, and compare what came out.

A check is a function `case(tf, *args)` written once against TensorFlow's API; `same(case, *args)` runs it
with `tf=minitf` and `tf=tensorflow` and asserts that both returned equal things (dtype, shape, values,
printed text) or both raised the same class of error.

CI runs a fixed set of examples (derandomized). To hunt for new differences locally, run more and fresh ones:
`DIFFERENTIAL_EXAMPLES=300 DIFFERENTIAL_RANDOM=1 .venv/bin/python -m pytest tests/differential`.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from functools import reduce
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, settings

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import tensorflow as real_tf  # noqa: E402

import minitf  # noqa: E402

ENGINES = {"minitf": minitf, "tensorflow": real_tf}

# Deterministic and bounded by default: the same examples on every run, no example database, no per-example
# deadline (TensorFlow's first call of an op can take a while).
examples = settings(
    max_examples=int(os.environ.get("DIFFERENTIAL_EXAMPLES", "50")),
    deadline=None,
    derandomize=os.environ.get("DIFFERENTIAL_RANDOM") != "1",
    database=None,
    print_blob=False,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much],
)

# Relative and absolute tolerance per floating kind: float16 has ~3 decimal digits, float32 ~7.
TOLERANCE = {2: (2e-3, 2e-3), 4: (2e-5, 1e-6), 8: (1e-10, 1e-12)}


def resolve(lib: Any, path: str) -> Any:
    """`resolve(tf, "math.sqrt")` is `tf.math.sqrt`."""
    return reduce(getattr, path.split("."), lib)


def named_examples(*pairs: tuple[str, Any]) -> Any:
    """Parametrize a test with `(name, case)` pairs, each case a `lambda tf: ...` run on both engines."""
    return pytest.mark.parametrize("case", [p[1] for p in pairs], ids=[p[0] for p in pairs])


@dataclass
class Outcome:
    value: Any = None
    error: BaseException | None = None


def run(lib: Any, case: Callable[..., Any], *args: Any) -> Outcome:
    try:
        return Outcome(value=case(lib, *args))
    except Exception as exc:  # noqa: BLE001 - the error is the outcome being compared
        return Outcome(error=exc)


def error_kind(exc: BaseException) -> tuple[str, tuple[str, ...]]:
    """An error's class name plus the builtin classes it derives from (TensorFlow's and minitf's OpErrors
    are different classes with the same names and the same builtin bases)."""
    builtin_bases = tuple(c.__name__ for c in type(exc).__mro__ if c.__module__ == "builtins")
    return type(exc).__name__, builtin_bases


def same(case: Callable[..., Any], *args: Any, rtol: float | None = None, atol: float | None = None,
         text: bool = True) -> Any:
    """Assert that `case` behaves alike on both engines; return TensorFlow's result (or error)."""
    expected = run(real_tf, case, *args)
    actual = run(minitf, case, *args)
    where = f"{getattr(case, '__name__', case)}{_short(args)}"
    if expected.error is not None or actual.error is not None:
        assert expected.error is not None, f"{where}: minitf raised {actual.error!r}, TensorFlow returned " \
                                           f"{expected.value!r}"
        assert actual.error is not None, f"{where}: TensorFlow raised {expected.error!r}, minitf returned " \
                                         f"{actual.value!r}"
        assert error_kind(actual.error) == error_kind(expected.error), (
            f"{where}: TensorFlow raised {type(expected.error).__name__}: {expected.error}\n"
            f"minitf raised {type(actual.error).__name__}: {actual.error}")
        return expected.error
    assert_equal(actual.value, expected.value, where, rtol=rtol, atol=atol, text=text)
    return expected.value


def _short(args: tuple) -> str:
    text = repr(args)
    return text if len(text) < 600 else text[:600] + "..."


def is_tensor_like(value: Any) -> bool:
    return isinstance(value, minitf.Tensor | minitf.Variable | real_tf.Tensor | real_tf.Variable)


def assert_equal(actual: Any, expected: Any, where: str, rtol: float | None = None, atol: float | None = None,
                 text: bool = True) -> None:
    """minitf's `actual` equals TensorFlow's `expected`, recursively through lists, tuples and dicts."""
    if isinstance(expected, list | tuple):
        assert isinstance(actual, list | tuple), f"{where}: expected a sequence, got {actual!r}"
        assert type(actual).__name__ == type(expected).__name__, f"{where}: {type(actual)} vs {type(expected)}"
        assert len(actual) == len(expected), f"{where}: length {len(actual)} vs {len(expected)}"
        for i, (a, e) in enumerate(zip(actual, expected)):
            assert_equal(a, e, f"{where}[{i}]", rtol, atol, text)
        return
    if isinstance(expected, dict):
        assert isinstance(actual, dict) and actual.keys() == expected.keys(), f"{where}: {actual!r} vs {expected!r}"
        for k in expected:
            assert_equal(actual[k], expected[k], f"{where}[{k!r}]", rtol, atol, text)
        return
    if is_tensor_like(expected):
        assert is_tensor_like(actual), f"{where}: expected a tensor, got {actual!r}"
        kind = "variable" if isinstance(expected, real_tf.Variable) else "tensor"
        actual_kind = "variable" if isinstance(actual, minitf.Variable) else "tensor"
        assert actual_kind == kind, f"{where}: expected a {kind}, got a {actual_kind}: {actual!r}"
        assert actual.dtype.name == expected.dtype.name, f"{where}: dtype {actual.dtype.name} vs {expected.dtype.name}"
        assert list(actual.shape) == list(expected.shape), f"{where}: shape {actual.shape} vs {expected.shape}"
        exact = assert_values(actual.numpy(), expected.numpy(), where, rtol, atol)
        if text and exact:
            assert str(actual) == str(expected), f"{where}: str\n{actual}\nvs TensorFlow\n{expected}"
            assert repr(actual) == repr(expected), f"{where}: repr\n{actual!r}\nvs TensorFlow\n{expected!r}"
        return
    if isinstance(expected, np.ndarray | np.generic):
        assert isinstance(actual, np.ndarray | np.generic), f"{where}: expected NumPy, got {actual!r}"
        assert type(actual) is type(expected), f"{where}: {type(actual)} vs {type(expected)}"
        assert_values(actual, expected, where, rtol, atol)
        return
    if isinstance(expected, real_tf.TensorShape):
        assert isinstance(actual, minitf.TensorShape), f"{where}: expected a TensorShape, got {actual!r}"
        assert (actual.as_list() if actual.rank is not None else None) == (
            expected.as_list() if expected.rank is not None else None), f"{where}: {actual} vs {expected}"
        assert str(actual) == str(expected) and repr(actual) == repr(expected), f"{where}: {actual!r} vs {expected!r}"
        return
    if isinstance(expected, real_tf.DType):
        assert isinstance(actual, minitf.DType) and actual.name == expected.name, f"{where}: {actual!r} vs {expected!r}"
        return
    assert type(actual) is type(expected), f"{where}: {type(actual).__name__} {actual!r} vs " \
                                           f"{type(expected).__name__} {expected!r}"
    if isinstance(expected, float) and np.isnan(expected):
        assert np.isnan(actual), f"{where}: {actual!r} vs {expected!r}"
        return
    assert actual == expected, f"{where}: {actual!r} vs {expected!r}"


def assert_values(actual: Any, expected: Any, where: str, rtol: float | None = None,
                  atol: float | None = None) -> bool:
    """Values equal (floats within the dtype's tolerance, nan where nan); returns whether they are identical."""
    a, e = np.asarray(actual), np.asarray(expected)
    assert a.dtype == e.dtype, f"{where}: NumPy dtype {a.dtype} vs {e.dtype}"
    assert a.shape == e.shape, f"{where}: NumPy shape {a.shape} vs {e.shape}"
    if e.dtype.kind in "fc":
        default_rtol, default_atol = TOLERANCE[np.finfo(e.dtype).bits // 8]
        ok = np.allclose(a, e, rtol=rtol or default_rtol, atol=atol or default_atol, equal_nan=True)
        assert ok, f"{where}: values differ\nminitf:     {a!r}\nTensorFlow: {e!r}"
        same_bits = (np.array_equal(a, e, equal_nan=True) and np.array_equal(np.signbit(a.real), np.signbit(e.real))
                     and np.array_equal(np.signbit(a.imag), np.signbit(e.imag)))
        return bool(same_bits)
    assert np.array_equal(a, e), f"{where}: values differ\nminitf:     {a!r}\nTensorFlow: {e!r}"
    return True
