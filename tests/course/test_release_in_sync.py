"""CI guard: the committed student notebooks in course/ are exactly what solutions/ generates."""

import subprocess
import sys

import pytest

from grader.paths import REPO

pytestmark = pytest.mark.slow  # runs nbgrader


def test_course_folder_matches_a_fresh_release_of_solutions():
    result = subprocess.run(
        [sys.executable, "-m", "grader", "check"], cwd=REPO, capture_output=True, text=True, timeout=600
    )
    assert result.returncode == 0, f"course/ drifted from solutions/:\n{result.stdout}\n{result.stderr}"
