"""Wrong answers are part of the test suite: every exercise's tests must reject the mistakes students really make.

For each exercise, tests/course/wrong_answers/<assignment>.yaml records at least two plausible wrong answers next to the
right one (the notebook's solution). The suite checks, per notebook, that

- the solution passes the visible test and the hidden test,
- the visible test (all a student on Binder gets) rejects every recorded wrong answer, with a message a student can
  act on (an assert with a message, or an error raised inside the student's own code),
- where a wrong answer records a `hint`, the visible test's message contains it: the message names the mistake made,
  not a neighbouring one,
- the hidden test rejects every recorded wrong answer too,
- each wrong answer runs in its answer cell without an error, so that it is the test that catches it.

How the notebooks are run (one process per notebook, no kernel): tests/course/wrong_answers.py. `python
tests/course/wrong_answers.py --report` prints the counts.
"""

from __future__ import annotations

from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

import nbformat
import pytest
from notebook_runner import solution_notebooks
from wrong_answers import (
    Exercise,
    evaluate,
    exercises_of,
    load_wrong_answers,
    rejected,
    run_in_subprocess,
    solution_answer,
    split_test,
    teaches,
    with_answer,
    without_asserts,
    wrong_answers_file,
)

SOLUTIONS = solution_notebooks()
MINIMUM_WRONG_ANSWERS = 2


def _name(path: Path) -> str:
    return f"{path.parent.name}/{path.stem}"


each_solution = pytest.mark.parametrize("solution", SOLUTIONS, ids=_name)


@pytest.fixture(scope="session")
def reports(request: pytest.FixtureRequest) -> dict[Path, Future]:
    """One run per selected notebook, two at a time (the runs are independent processes)."""
    selected = {
        item.callspec.params["solution"]
        for item in request.session.items
        if item.module.__name__ == __name__ and hasattr(item, "callspec") and item.get_closest_marker("slow")
    }
    pool = ThreadPoolExecutor(max_workers=2)
    request.addfinalizer(lambda: pool.shutdown(cancel_futures=True))
    return {solution: pool.submit(run_in_subprocess, solution) for solution in sorted(selected)}


@each_solution
def test_every_exercise_records_wrong_answers(solution: Path) -> None:
    recorded = load_wrong_answers(solution.parent.name).get(solution.stem) or {}
    exercises = exercises_of(nbformat.read(solution, as_version=4))
    data_file = wrong_answers_file(solution.parent.name).relative_to(Path(__file__).resolve().parents[2])
    too_few = [
        f"{exercise.grade_id} has {len(recorded.get(exercise.grade_id) or [])}"
        for _, exercise in exercises
        if len(recorded.get(exercise.grade_id) or []) < MINIMUM_WRONG_ANSWERS
    ]
    assert not too_few, (
        f"record at least {MINIMUM_WRONG_ANSWERS} plausible wrong answers per exercise in {data_file} "
        f"under {solution.stem!r}: " + "; ".join(too_few)
    )
    known = {exercise.grade_id for _, exercise in exercises}
    stale = sorted(set(recorded) - known)
    assert not stale, f"{data_file} records wrong answers for exercises the notebook does not have: {stale}"
    for _, exercise in exercises:
        for item in recorded[exercise.grade_id]:
            assert item.get("mistake") and item.get("answer"), f"{exercise.grade_id}: each entry needs both fields"
            unknown = sorted(set(item) - {"mistake", "answer", "hint"})
            assert not unknown, f"{exercise.grade_id}: unknown fields {unknown} (mistake, answer and hint are known)"
            with_answer(exercise.answer_source, item["answer"])  # raises if the regions do not match
        answers = [str(item["answer"]).strip() for item in recorded[exercise.grade_id]]
        assert len(set(answers)) == len(answers), f"{exercise.grade_id}: a wrong answer is recorded twice"


def test_every_assignment_has_a_wrong_answers_file() -> None:
    missing = sorted({path.parent.name for path in SOLUTIONS if not wrong_answers_file(path.parent.name).exists()})
    assert not missing, f"no tests/course/wrong_answers/<assignment>.yaml for {missing}"


@pytest.mark.slow
@each_solution
def test_solution_passes_visible_and_hidden_tests(solution: Path, reports: dict[Path, Future]) -> None:
    report = reports[solution].result()
    problems = [f"lesson cell {e['cell']}: {e['error']}: {e['message']}" for e in report["lesson_errors"]]
    for grade_id, entry in report["exercises"].items():
        for part in ("visible", "hidden"):
            verdict = entry["solution"][part]
            if verdict is not None and not verdict["passed"]:
                problems.append(f"{grade_id}, {part} test: {verdict['error']}: {verdict['message']}")
    assert not problems, f"{_name(solution)}: the solution does not pass its own tests:\n" + "\n".join(problems)


def _describe(grade_id: str, item: dict) -> str:
    return f"{grade_id} wrong answer {item['number']} ({item['mistake']})"


@pytest.mark.slow
@each_solution
def test_wrong_answers_run_and_every_test_rejects_them(solution: Path, reports: dict[Path, Future]) -> None:
    report = reports[solution].result()
    problems = []
    for grade_id, entry in report["exercises"].items():
        for item in entry["wrong"]:
            label = _describe(grade_id, item)
            if "bad_record" in item:
                problems.append(f"{label}: {item['bad_record']}")
                continue
            visible, hidden = item["visible"], item["hidden"]
            if not visible["passed"] and visible["where"] == "answer":
                problems.append(f"{label}: the answer cell itself fails ({visible['error']}: {visible['message']}); "
                                "record a wrong answer that runs, so that the test is what catches it")
                continue
            if not rejected(visible):
                problems.append(f"{label}: the visible test passes it")
            elif not teaches(visible):
                problems.append(f"{label}: the visible test fails with {visible['error']}: {visible['message']!r}, "
                                "not with a message for the student")
            elif item.get("hint") and item["hint"] not in visible["message"]:
                problems.append(f"{label}: the visible test's message should name the mistake with "
                                f"{item['hint']!r}, but it says {visible['message']!r}")
            if entry["has_hidden"] and not rejected(hidden):
                problems.append(f"{label}: the hidden test passes it")
    assert not problems, f"{_name(solution)}:\n" + "\n".join(problems)


# The harness itself: how answers are put into cells and how the hidden part is run alone.

ANSWER_CELL = "def f(x):\n    ### BEGIN SOLUTION\n    return x + 1\n    ### END SOLUTION\n\n\nprint(f(1))"


def test_a_wrong_answer_replaces_only_the_marked_region_and_takes_its_indentation() -> None:
    assert with_answer(ANSWER_CELL, "return x - 1") == "def f(x):\n    return x - 1\n\n\nprint(f(1))"
    two_regions = "### BEGIN SOLUTION\na = 1\n### END SOLUTION\nb = 2\n### BEGIN SOLUTION\nc = 3\n### END SOLUTION\n"
    assert with_answer(two_regions, ["a = 0", "c = 0"]) == "a = 0\nb = 2\nc = 0\n"
    with pytest.raises(ValueError, match="2 solution regions"):
        with_answer(two_regions, "a = 0")


def test_the_hidden_part_runs_after_the_visible_set_up_without_its_asserts() -> None:
    cell = "x = f(2)\nassert x == 3, 'visible'\n### BEGIN HIDDEN TESTS\nassert x > 0\n### END HIDDEN TESTS"
    visible, hidden = split_test(cell)
    assert "assert" not in without_asserts(visible) and "x = f(2)" in without_asserts(visible)
    assert hidden.strip() == "assert x > 0"


def test_a_verdict_tells_an_assert_for_the_student_from_an_accident() -> None:
    exercise = Exercise("ex1-answer", "ex1-tests", ANSWER_CELL, [], "assert f(2) == 3, 'f(2) should be 3'", "")
    wrong = evaluate(exercise, with_answer(ANSWER_CELL, "return x - 1"), {})["visible"]
    assert rejected(wrong) and teaches(wrong) and wrong["message"] == "f(2) should be 3"
    crash = evaluate(exercise, with_answer(ANSWER_CELL, "return x.missing"), {})["visible"]
    assert rejected(crash) and crash["raised_in_answer"] and not teaches(crash)  # AttributeError: no message to act on
    right = evaluate(exercise, solution_answer(ANSWER_CELL), {})["visible"]
    assert right["passed"]
