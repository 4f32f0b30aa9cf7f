"""Builds terms and submissions of the fixture assignment for the grader's end-to-end tests."""

from __future__ import annotations

import copy
import subprocess
import sys
from pathlib import Path

import nbformat

from grader.collect import import_roster
from grader.gradebook import ensure_assignment
from grader.paths import REPO, Term, make_term

FIXTURE_SOLUTIONS = Path(__file__).parent / "solutions"
ASSIGNMENT = "fixture-basics"
NOTEBOOK = "exercises.ipynb"
CORRECT = {
    "ex1-answer": "def square(x):\n    return x * x",
    "ex2-answer": "def unit(v):\n    v = np.asarray(v, dtype=float)\n    return v / np.linalg.norm(v)",
    "ex3-answer": "total = int(np.sum(np.arange(10)))",
}
POINTS = {"ex1-tests": 2, "ex2-tests": 1, "ex3-tests": 1}


def new_term(root: Path, students: list[str]) -> Term:
    term = make_term(root, FIXTURE_SOLUTIONS)
    ensure_assignment(term, ASSIGNMENT)
    roster = root.parent / f"{root.name}-roster.csv"
    roster.write_text("id,first_name,last_name\n" + "".join(f"{s},{s.title()},Test\n" for s in students))
    import_roster(term, roster)
    return term


def grade_id(cell) -> str | None:
    return cell.get("metadata", {}).get("nbgrader", {}).get("grade_id")


def build(term: Term, answers: dict[str, str] | None = None, *, edit: dict[str, str] | None = None,
          delete: tuple[str, ...] = (), after: dict[str, str] | None = None) -> nbformat.NotebookNode:
    """The student notebook with answers filled in, cells edited or deleted, and new cells inserted after."""
    nb = copy.deepcopy(nbformat.read(term.release / ASSIGNMENT / NOTEBOOK, as_version=4))
    answers = CORRECT if answers is None else answers
    cells = []
    for cell in nb.cells:
        name = grade_id(cell)
        if name in delete:
            continue
        if name in answers:
            cell.source = answers[name]
        if name in (edit or {}):
            cell.source = edit[name]
        cells.append(cell)
        if name in (after or {}):
            cells.append(nbformat.v4.new_code_cell(after[name]))
    nb.cells = cells
    return nb


def submit(term: Term, student: str, nb: nbformat.NotebookNode | str, assignment: str = ASSIGNMENT) -> Path:
    folder = term.submitted / student / assignment
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / NOTEBOOK
    if isinstance(nb, str):
        path.write_text(nb)
    else:
        nbformat.write(nb, path)
    return path


def grader(term: Term, *args: str, timeout: int = 900) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "grader", "--term", str(term.root), "--solutions", str(term.solutions), *args],
        cwd=REPO, capture_output=True, text=True, timeout=timeout,
    )


def scores(term: Term) -> dict[str, dict[str, float]]:
    """student -> {grade cell: score} for every graded submission, read from the gradebook."""
    from nbgrader.api import Gradebook

    result: dict[str, dict[str, float]] = {}
    with Gradebook(term.db_url) as gradebook:
        for submission in gradebook.find_assignment(ASSIGNMENT).submissions:
            for notebook in submission.notebooks:
                result[submission.student.id] = {g.name: g.score for g in notebook.grades if g.max_score}
    return result


def autograded_notebook(term: Term, student: str) -> nbformat.NotebookNode:
    return nbformat.read(term.autograded / student / ASSIGNMENT / NOTEBOOK, as_version=4)


def cell_outputs_text(nb: nbformat.NotebookNode, name: str) -> str:
    cell = next(c for c in nb.cells if grade_id(c) == name)
    return "\n".join(o.get("text", "") + f"{o.get('ename', '')}: {o.get('evalue', '')}" for o in cell.outputs)
