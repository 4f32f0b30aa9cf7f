"""regrade: a test fixed in solutions/ mid-term reaches the term, and only the notebooks it touches are regraded."""

from __future__ import annotations

import shutil
from pathlib import Path

import nbformat
import pytest
from grader_fixtures.submissions import ASSIGNMENT, CORRECT, FIXTURE_SOLUTIONS, NOTEBOOK, build, grader, submit

from grader.commands.collect import import_roster
from grader.paths import Term, make_term
from grader.records.gradebook import ensure_assignment

pytestmark = pytest.mark.slow

RIGHT = "assert total == 45"
BROKEN = "assert total == 44"  # the instructor's slip: the right answer fails, 44 passes


def _set_ex3_test(solutions: Path, notebook: str, old: str, new: str) -> None:
    path = solutions / ASSIGNMENT / notebook
    nb = nbformat.read(path, as_version=4)
    cell = next(c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") == "ex3-tests")
    assert old in cell.source
    cell.source = cell.source.replace(old, new)
    nbformat.write(nb, path)


def _totals(term: Term) -> dict[str, dict[str, float]]:
    from nbgrader.api import Gradebook

    with Gradebook(term.db_url) as gradebook:
        return {
            s.student.id: {n.name: n.score for n in s.notebooks}
            for s in gradebook.find_assignment(ASSIGNMENT).submissions
        }


def test_a_fixed_test_regrades_only_its_notebook_and_reports_each_changed_score(tmp_path):
    solutions = tmp_path / "solutions"
    shutil.copytree(FIXTURE_SOLUTIONS / ASSIGNMENT, solutions / ASSIGNMENT)
    shutil.copyfile(solutions / ASSIGNMENT / NOTEBOOK, solutions / ASSIGNMENT / "more.ipynb")
    _set_ex3_test(solutions, NOTEBOOK, RIGHT, BROKEN)
    term = make_term(tmp_path / "term", solutions)
    ensure_assignment(term, ASSIGNMENT)
    roster = tmp_path / "roster.csv"
    roster.write_text("id\nright\nfortyfour\nblank\nlate\n")
    import_roster(term, roster)
    work = {
        "right": build(term),
        "fortyfour": build(term, {**CORRECT, "ex3-answer": "total = 44"}),
        "blank": build(term, {}),
    }
    for student, nb in work.items():
        submit(term, student, nb)
        nbformat.write(nb, term.submitted / student / ASSIGNMENT / "more.ipynb")
    first = grader(term, "autograde", "--quiet", "--workers", "2")
    assert first.returncode == 0, first.stderr
    assert _totals(term) == {
        "right": {"exercises": 3, "more": 4},
        "fortyfour": {"exercises": 4, "more": 3},
        "blank": {"exercises": 0, "more": 0},
    }
    untouched = {s: (term.autograded / s / ASSIGNMENT / "more.ipynb").read_bytes() for s in work}
    submit(term, "late", build(term))  # collected, not graded yet: the next autograde uses the fixed test
    nbformat.write(build(term), term.submitted / "late" / ASSIGNMENT / "more.ipynb")

    _set_ex3_test(solutions, NOTEBOOK, BROKEN, RIGHT)
    result = grader(term, "regrade", "--quiet", "--workers", "2")

    assert result.returncode == 0, result.stdout + result.stderr
    assert f"{ASSIGNMENT}: tests changed in exercises" in result.stdout
    assert f"right/{ASSIGNMENT}: 7 -> 8 (of 8)" in result.stdout
    assert f"fortyfour/{ASSIGNMENT}: 7 -> 6 (of 8)" in result.stdout
    assert "blank/" not in result.stdout  # regraded, but its score did not change
    assert "3 submission(s) regraded: 2 score(s) changed, 1 unchanged, 0 failed" in result.stdout
    assert _totals(term) == {
        "right": {"exercises": 4, "more": 4},
        "fortyfour": {"exercises": 3, "more": 3},
        "blank": {"exercises": 0, "more": 0},
    }
    for student in work:  # the notebook whose tests did not change was not regraded
        assert (term.autograded / student / ASSIGNMENT / "more.ipynb").read_bytes() == untouched[student]
    released = nbformat.read(term.release / ASSIGNMENT / NOTEBOOK, as_version=4)
    assert any(RIGHT in c.source for c in released.cells)
    assert not (term.state / "regrade" / f"{ASSIGNMENT}.json").exists()

    again = grader(term, "regrade", "--quiet")
    assert again.returncode == 0 and "nothing to regrade" in again.stdout

    late = grader(term, "autograde", "--quiet", "--student", "late")
    assert late.returncode == 0, late.stderr
    assert _totals(term)["late"] == {"exercises": 4, "more": 4}
    report = grader(term, "report")
    assert report.returncode == 0, report.stderr
    grades = (term.reports / "grades.csv").read_text()
    assert "right,,,,,8,8" in grades and "fortyfour,,,,,6,8" in grades
