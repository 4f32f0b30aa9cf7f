"""Part 2's graph chapter graded end to end in the sandbox: a cheat in one answer never costs another answer."""

from __future__ import annotations

import shutil
from pathlib import Path

import nbformat
import pytest
from grader_fixtures.submissions import grader

from grader.commands.collect import import_roster
from grader.commands.samples import fill, solution_answers
from grader.paths import REPO, make_term
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


def test_a_student_who_patched_numpy_in_one_answer_keeps_every_correct_answers_points(tmp_path: Path) -> None:
    """A patch written with setattr or __import__ made the grader count none of the student's functions as a
    tf.function, and the correct exercises 3 and 4 scored 0 ("matrix_multiply_optimized should be a tf.function")."""
    sources = tmp_path / "sources" / ASSIGNMENT
    sources.mkdir(parents=True)
    shutil.copy2(CHAPTER, sources / CHAPTER.name)
    term = make_term(tmp_path / "term", sources.parent)
    ensure_assignment(term, ASSIGNMENT)
    (tmp_path / "roster.csv").write_text("id\nhonest\n" + "".join(f"{name}\n" for name in PATCHES))
    import_roster(term, tmp_path / "roster.csv")
    released = nbformat.read(term.release / ASSIGNMENT / CHAPTER.name, as_version=4)
    answers = solution_answers(CHAPTER)
    students = {"honest": answers}
    for name, (cell, patch) in PATCHES.items():
        students[name] = {**answers, cell: f"{patch}\n{answers[cell]}"}
    for student, filled in students.items():
        folder = term.submitted / student / ASSIGNMENT
        folder.mkdir(parents=True)
        nbformat.write(fill(released, filled), folder / CHAPTER.name)

    result = grader(term, "autograde", "--quiet", timeout=1800)
    assert result.returncode == 0, result.stdout + result.stderr

    from nbgrader.api import Gradebook

    with Gradebook(term.db_url) as gradebook:
        scores = {
            submission.student.id: {g.name: g.score for n in submission.notebooks for g in n.grades if g.max_score}
            for submission in gradebook.find_assignment(ASSIGNMENT).submissions
        }
        full = {
            g.name: g.max_score
            for n in gradebook.find_assignment(ASSIGNMENT).submissions[0].notebooks
            for g in n.grades
            if g.max_score
        }
    assert scores["honest"] == full, scores
    for name in PATCHES:
        assert scores[name] == full, f"{name}: {scores[name]} (full marks: {full})"
