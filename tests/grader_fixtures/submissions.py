"""Builds terms and submissions for the grader's end-to-end tests: of the fixture assignment, or of a one-notebook
assignment a test writes itself; runs the grader's command line on them and reads back the grades."""

from __future__ import annotations

import copy
import os
import subprocess
import sys
from pathlib import Path

import nbformat
from nbformat.v4 import new_notebook

from grader.commands.collect import import_roster
from grader.paths import REPO, Term, make_term
from grader.records.gradebook import ensure_assignment
from grader.sandbox.prepare import live_processes, sandbox_uids

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


def submitted_term(root: Path, students: list[str], wrong: dict[str, str]) -> Term:
    """A term of the fixture assignment where every student hands in the correct answers, every second one (the
    2nd, 4th, ...) with the `wrong` answers in their place."""
    term = new_term(root, students)
    for number, student in enumerate(students):
        submit(term, student, build(term, {**CORRECT, **(wrong if number % 2 else {})}))
    return term


KERNELSPEC = {"name": "python3", "display_name": "Python 3 (ipykernel)", "language": "python"}


def nbgrader_meta(grade_id: str, **flags) -> dict:
    """A cell's nbgrader metadata: flags `solution=True` for an answer cell, `grade=True, locked=True, points=N`
    for a test cell, `locked=True` for instructor code."""
    return {
        "nbgrader": {
            "grade": False,
            "solution": False,
            "locked": False,
            "grade_id": grade_id,
            "schema_version": 3,
            **flags,
        }
    }


def one_notebook_class(
    root: Path, assignment: str, cells: list[nbformat.NotebookNode], submissions: dict[str, dict[str, str]]
) -> Term:
    """A term (under `root`) whose one assignment is the notebook `<assignment>.ipynb` made of `cells`, released,
    with one submission per student: the released notebook with the cells the student's dict names (by grade id)
    holding the given source instead."""
    notebook = f"{assignment}.ipynb"
    cells = copy.deepcopy(cells)
    for number, cell in enumerate(cells):
        cell.id = f"cell{number}"
    source = root / "src" / assignment
    source.mkdir(parents=True)
    nbformat.write(new_notebook(cells=cells, metadata={"kernelspec": KERNELSPEC}), source / notebook)
    term = make_term(root / "term", root / "src")
    ensure_assignment(term, assignment)
    (root / "roster.csv").write_text("id\n" + "".join(f"{s}\n" for s in submissions))
    import_roster(term, root / "roster.csv")
    for student, answers in submissions.items():
        nb = nbformat.read(term.release / assignment / notebook, as_version=4)
        for cell in nb.cells:
            if grade_id(cell) in answers:
                cell.source = answers[grade_id(cell)]
        (term.submitted / student / assignment).mkdir(parents=True)
        nbformat.write(nb, term.submitted / student / assignment / notebook)
    return term


def grade_id(cell) -> str | None:
    return cell.get("metadata", {}).get("nbgrader", {}).get("grade_id")


def build(
    term: Term,
    answers: dict[str, str] | None = None,
    *,
    edit: dict[str, str] | None = None,
    delete: tuple[str, ...] = (),
    after: dict[str, str] | None = None,
) -> nbformat.NotebookNode:
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


def grader_command(term: Term, *args: str) -> list[str]:
    """The grader's command line on `term`: run it with `cwd=REPO`. Only a test of the machine-wide worker group
    may grade (tests/conftest.py): grading elsewhere would run beside the grader's tests on the other core."""
    assert os.environ.get("MACHINE_WIDE_TEST"), (
        "this test grades in the sandbox: mark it `@pytest.mark.machine_wide` or put it under tests/grader/"
    )
    return [sys.executable, "-m", "grader", "--term", str(term.root), "--solutions", str(term.solutions), *args]


def grader(term: Term, *args: str, timeout: int = 900) -> subprocess.CompletedProcess:
    return subprocess.run(grader_command(term, *args), cwd=REPO, capture_output=True, text=True, timeout=timeout)


def autograde_scores(term: Term, *options: str) -> dict[str, str]:
    """Autograde every submission (quietly, with `options`) and return student -> "score/max" from the table it
    prints; the run must succeed."""
    result = grader(term, "autograde", *options, "--quiet")
    assert result.returncode == 0, result.stdout + result.stderr
    return {line.split()[0]: line.split()[3] for line in result.stdout.splitlines()[1:-1]}


def sandbox_processes() -> list[str]:
    """The live processes running as a sandbox user (grader-sandbox and the users of concurrent workers), each
    described with what tells where it came from: state, parent, process group, session, user and command line,
    and which processes hold a sandbox slot's lock at that moment."""
    found = [_described(fields) for fields in live_processes(sandbox_uids())]
    return [*found, *_slot_holders()] if found else []


def _described(fields: dict[str, str]) -> str:
    pid = fields["Pid"]
    try:
        stat = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        command = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")[:120]
    except OSError:
        return f"{fields['Name']} (pid {pid}, gone meanwhile)"
    return (
        f"{fields['Name']} pid {pid} state {fields['State']} ppid {fields['PPid']} pgrp {stat[2]} sid {stat[3]} "
        f"uid {fields['Uid'].split()[0]} nspid {fields.get('NSpid', '?')}: {command}"
    )


def _slot_holders() -> list[str]:
    """Which processes have a slot lock file open (a lock that stays held while any of them lives)."""
    from grader.sandbox.prepare import SLOTS

    holders = []
    for fd in Path("/proc").glob("[0-9]*/fd/*"):
        try:
            target = os.readlink(fd)
        except OSError:
            continue
        if target.startswith(str(SLOTS)):
            holders.append(f"slot lock {Path(target).name} open in pid {fd.parts[2]}")
    return holders


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


def gradebook_rows(term: Term) -> dict:
    """Everything autograde puts into the gradebook, per student: grades, review flags, comments, totals."""
    from nbgrader.api import Gradebook

    rows = {}
    with Gradebook(term.db_url) as gradebook:
        for assignment in gradebook.assignments:
            for submission in assignment.submissions:
                rows[submission.student.id] = (
                    submission.score,
                    submission.max_score,
                    submission.needs_manual_grade,
                    sorted(
                        (n.name, g.name, g.auto_score, g.needs_manual_grade)
                        for n in submission.notebooks
                        for g in n.grades
                    ),
                    sorted((n.name, c.name, c.auto_comment) for n in submission.notebooks for c in n.comments),
                )
    return rows


def table(stdout: str) -> dict[str, tuple[str, str]]:
    """student -> (status, score) from the score table autograde prints."""
    rows = {}
    for line in stdout.splitlines():
        parts = line.split()
        if len(parts) >= 4 and parts[0].startswith("p") and parts[1] == "fixture-basics":
            rows[parts[0]] = (parts[2], parts[3])
    return rows
