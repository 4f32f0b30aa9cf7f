"""Part 2's graph chapter graded end to end in the sandbox: a cheat in one answer never costs another answer."""

from __future__ import annotations

import shutil

import nbformat
import pytest
from grader_fixtures.submissions import grader

from grader.commands.collect import import_roster
from grader.commands.samples import fill, solution_answers
from grader.paths import REPO, Term, make_term
from grader.records.gradebook import ensure_assignment

pytestmark = pytest.mark.slow

ASSIGNMENT = "part2-basics"
CHAPTER = REPO / "solutions" / ASSIGNMENT / "02-graph-execution.ipynb"
#: NumPy patched so that every comparison passes, written the ways students write it (the guard undoes it before
#: each test); the answers below the patch are the solution's
PATCHES = {
    "setattr_patch": ("ex3-answer", 'setattr(np, "allclose", lambda *a, **k: True)'),
    "import_patch": ("ex1-answer", '__import__("numpy").allclose = lambda *a, **k: True'),
}


SOLUTION_TIMING = "        start = time.perf_counter()\n"
#: the solution's stopwatch, slowed once, as a busy machine or a kernel that has just restarted slows a timed call
SLOW_ONCE = (
    "        start = time.perf_counter()\n"
    "        if slow_once:\n"
    "            slow_once.pop()\n"
    "            time.sleep(0.5)\n"
)
#: a wrong stopwatch students write: the mean of the timed calls, which one slow call spoils (the test plants one)
MEAN = ("    return min(durations)", "    return sum(durations) / len(durations)")


@pytest.fixture(scope="module")
def graded(tmp_path_factory: pytest.TempPathFactory) -> tuple[Term, dict[str, dict[str, float]], dict[str, float]]:
    """The chapter graded once: the solution, two NumPy patches, a stopwatch slowed once and a wrong stopwatch."""
    root = tmp_path_factory.mktemp("graph-chapter")
    sources = root / "sources" / ASSIGNMENT
    sources.mkdir(parents=True)
    shutil.copy2(CHAPTER, sources / CHAPTER.name)
    term = make_term(root / "term", sources.parent)
    ensure_assignment(term, ASSIGNMENT)
    answers = solution_answers(CHAPTER)
    students = {"honest": answers}
    for name, (cell, patch) in PATCHES.items():
        students[name] = {**answers, cell: f"{patch}\n{answers[cell]}"}
    stopwatch = answers["ex5-answer"]
    assert SOLUTION_TIMING in stopwatch and MEAN[0] in stopwatch
    students["slowed_once"] = {
        **answers,
        "ex5-answer": "slow_once = [True]\n" + stopwatch.replace(SOLUTION_TIMING, SLOW_ONCE),
    }
    students["mean"] = {**answers, "ex5-answer": stopwatch.replace(*MEAN)}
    (root / "roster.csv").write_text("id\n" + "".join(f"{name}\n" for name in students))
    import_roster(term, root / "roster.csv")
    released = nbformat.read(term.release / ASSIGNMENT / CHAPTER.name, as_version=4)
    for student, filled in students.items():
        folder = term.submitted / student / ASSIGNMENT
        folder.mkdir(parents=True)
        nbformat.write(fill(released, filled), folder / CHAPTER.name)

    result = grader(term, "autograde", "--quiet", timeout=1800)
    assert result.returncode == 0, result.stdout + result.stderr

    from nbgrader.api import Gradebook

    with Gradebook(term.db_url) as gradebook:
        submissions = gradebook.find_assignment(ASSIGNMENT).submissions
        scores = {
            s.student.id: {g.name: g.score for n in s.notebooks for g in n.grades if g.max_score} for s in submissions
        }
        full = {g.name: g.max_score for n in submissions[0].notebooks for g in n.grades if g.max_score}
    return term, scores, full


def test_a_student_who_patched_numpy_in_one_answer_keeps_every_correct_answers_points(graded) -> None:
    """A patch written with setattr or __import__ made the grader count none of the student's functions as a
    tf.function, and the correct exercises 3 and 4 scored 0 ("matrix_multiply_optimized should be a tf.function")."""
    _, scores, full = graded
    assert scores["honest"] == full, scores
    for name in PATCHES:
        assert scores[name] == full, f"{name}: {scores[name]} (full marks: {full})"


def test_a_right_stopwatch_slowed_once_gets_its_points_on_the_second_attempt_and_is_told_so(graded) -> None:
    """A timed call slowed once (a busy moment, a kernel just restarted) fails the first attempt; the test runs
    again and the right answer keeps its 3 points; the feedback says which attempt counted."""
    term, scores, full = graded
    assert scores["slowed_once"] == full, scores["slowed_once"]
    notebook = nbformat.read(term.autograded / "slowed_once" / ASSIGNMENT / CHAPTER.name, as_version=4)
    cell = next(c for c in notebook.cells if c.metadata.get("nbgrader", {}).get("grade_id") == "ex5-tests")
    assert "the points are from attempt 2" in cell.outputs[0].get("text", ""), cell.outputs


def test_a_wrong_stopwatch_fails_every_attempt(graded) -> None:
    """The mean of the timed calls fails exercise 5 on both attempts, and exercise 6, which measures with it, too
    (its hidden test plants one slow call in each measurement)."""
    _, scores, full = graded
    assert scores["mean"] == {**full, "ex5-tests": 0.0, "ex6-tests": 0.0}, scores["mean"]
