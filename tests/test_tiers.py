"""The fast tier (`-m "not slow"`) stays a sample of the whole suite: every test file keeps a test in it unless
the file says at the top (`pytestmark`) that it is slow as a whole, and every `sample` marker keeps cases that
exist. Checked on what this run collected, so `./run test` and the fast tier check every file."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:  # the fixture gives the instance; importing `conftest` by name could find another folder's
    from conftest import Tiers


def test_every_test_file_keeps_a_test_in_the_fast_tier(tiers: Tiers) -> None:
    without = sorted(path for path, fast in tiers.fast.items() if fast == 0 and path not in tiers.slow_files)
    assert not without, (
        f"no test of {without} runs in the fast tier: keep one fast (a `sample` marker keeps part of a family), "
        f"or mark the file slow as a whole with `pytestmark = pytest.mark.slow` and say why"
    )


def test_sample_markers_keep_cases_that_exist(tiers: Tiers) -> None:
    assert not tiers.unknown_sample_ids, f"`sample` names cases that do not exist: {tiers.unknown_sample_ids}"


def test_a_test_outside_the_grader_group_may_not_grade(tmp_path: Path) -> None:
    """Two gradings at once see each other's sandbox processes (the grader's tests check that none survives), so
    the test processes share one group for grading: a test outside it that tries to grade is stopped and told."""
    from grader_fixtures.submissions import grader_command

    from grader.paths import make_term

    with pytest.raises(AssertionError, match="machine_wide"):
        grader_command(make_term(tmp_path / "term"), "autograde")
