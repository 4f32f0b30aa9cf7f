"""Differential tests: every check runs on minitf and on real TensorFlow, and the outcomes must agree.

Every test in this directory is marked `tf`. TensorFlow is part of the test environment; when it is
missing the tests fail (under CI=1 already at collection), they are never skipped.
"""

from __future__ import annotations

import os

import pytest

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

try:
    import tensorflow  # noqa: F401
except ImportError as exc:  # pragma: no cover - only on a broken environment
    if os.environ.get("CI") == "1":
        raise RuntimeError(
            "The differential tests need TensorFlow (pip install -e '.[tensorflow]'); CI=1 is set, "
            "so they must not be skipped."
        ) from exc
    raise


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    here = os.path.dirname(__file__)
    for item in items:
        if str(item.fspath).startswith(here):
            item.add_marker(pytest.mark.tf)
            # NumPy's cast warnings from inside TensorFlow's own conversions are noise here.
            item.add_marker(pytest.mark.filterwarnings("ignore::RuntimeWarning"))
            item.add_marker(pytest.mark.filterwarnings("ignore::numpy.exceptions.ComplexWarning"))
            item.add_marker(pytest.mark.filterwarnings("ignore::DeprecationWarning"))
