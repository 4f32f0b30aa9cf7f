"""Differential tests: every check runs on minitf and on real TensorFlow, and the outcomes must agree.

Every test in this directory is marked `tf`. TensorFlow is part of the test environment; when it is
missing the tests fail (under CI=1 already at collection), they are never skipped.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

import minitf

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


@pytest.fixture
def fresh_keras_names() -> Iterator[None]:
    """The test starts and ends with both engines' layer names unused (`dense` again), so tests elsewhere that
    compare names see both engines' counters in step whatever ran before (use it where a test makes different
    numbers of layers on the two engines, as loading a saved model does)."""
    import keras  # here: Keras itself loads only for the tests that ask for this fixture

    for engine in (minitf.keras, keras):
        engine.backend.clear_session()
    yield
    for engine in (minitf.keras, keras):
        engine.backend.clear_session()
