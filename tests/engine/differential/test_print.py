"""tf.print: what it writes (to stderr by default) for every dtype, summarised like TensorFlow."""

from __future__ import annotations

import sys
from typing import Any

import numpy as np
import pytest
from harness import examples, minitf, real_tf
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from strategies import ALL, arrays, shapes


def printed(capfd: pytest.CaptureFixture[str], lib: Any, *values: Any, **options: Any) -> str:
    capfd.readouterr()
    lib.print(*values, **options)
    sys.stderr.flush()
    captured = capfd.readouterr()
    return captured.err + captured.out


@settings(examples, max_examples=60, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(a=arrays(st.sampled_from(ALL), shapes(max_dims=3, max_side=8), small=True))
def test_tf_print_writes_what_tensorflow_writes(capfd: pytest.CaptureFixture[str], a: np.ndarray) -> None:
    expected = printed(capfd, real_tf, real_tf.constant(a))
    actual = printed(capfd, minitf, minitf.constant(a))
    assert actual == expected


@pytest.mark.parametrize(
    "values",
    [
        ("loss:", 1.5),
        ("x =", [1, 2, 3]),
        (np.arange(20),),
        ("a", "b"),
        (np.array([0.1, 1e-7, 12345.678]),),
        (np.array(["ab", "c"]),),
        (np.array([[True, False]]),),
        (np.array([np.nan, -np.inf]),),
    ],
    ids=repr,
)
def test_tf_print_of_mixed_arguments_matches_tensorflow(capfd: pytest.CaptureFixture[str], values: tuple) -> None:
    expected = printed(capfd, real_tf, *[real_tf.constant(v) if isinstance(v, np.ndarray) else v for v in values])
    actual = printed(capfd, minitf, *[minitf.constant(v) if isinstance(v, np.ndarray) else v for v in values])
    assert actual == expected


@pytest.mark.parametrize(
    "options", [{"summarize": 2}, {"summarize": -1}, {"sep": ", "}, {"end": "!\n"}, {"output_stream": "sys.stdout"}]
)
def test_tf_print_options_match_tensorflow(capfd: pytest.CaptureFixture[str], options: dict) -> None:
    if options.get("output_stream") == "sys.stdout":
        options = {"output_stream": sys.stdout}  # the stream pytest has installed by now
    values = (np.arange(10), "done")
    expected = printed(
        capfd, real_tf, *[real_tf.constant(v) if isinstance(v, np.ndarray) else v for v in values], **options
    )
    actual = printed(
        capfd, minitf, *[minitf.constant(v) if isinstance(v, np.ndarray) else v for v in values], **options
    )
    assert actual == expected
