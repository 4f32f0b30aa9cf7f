"""docs/coverage.md is current: generated again from the installed TensorFlow and Keras and minitf's LEFT_OUT
tables, it reads the same (regenerate it with `python -m tools.coverage`). Slow: it imports all of Keras and walks
every public module of both."""

from __future__ import annotations

import pytest

from tools import coverage


@pytest.mark.slow
def test_the_coverage_page_is_current() -> None:
    assert coverage.PAGE.read_text() == coverage.generate(), "docs/coverage.md is out of date: python -m tools.coverage"


def test_a_row_counts_implemented_left_out_and_missing_names() -> None:
    class Theirs:
        alpha = beta = gamma = None

    class Ours:
        LEFT_OUT = {"beta": "no beta here"}
        alpha = None

    row = coverage.classify("tf.example", Theirs, Ours, None)
    assert (row.implemented, row.left_out, row.missing, row.total) == (
        ["alpha"],
        {"beta": "no beta here"},
        ["gamma"],
        3,
    )
    whole = coverage.classify("tf.example", Theirs, coverage.MISSING, "all of it left out")
    assert sorted(whole.left_out) == ["alpha", "beta", "gamma"] and not whole.missing
