"""The graded stopwatch exercises give every answer the same grade on a busy machine (a short version of
`python -m benchmarks.timing_grades`, which grades each answer 30 times)."""

from __future__ import annotations

import pytest

from benchmarks.timing_grades import measure

pytestmark = pytest.mark.slow


def test_timing_exercises_grade_right_and_wrong_answers_the_same_while_both_cores_are_busy():
    results = measure("minitf", runs=2, load=2)
    flipped = [entry for entry in results["answers"] if entry["flips"]]
    assert not flipped, f"grades flipped under load: {flipped}"
    assert len(results["answers"]) >= 2 + 2 + 2  # the solution and >= 2 wrong answers of each exercise
