"""regrade: after a test was fixed in solutions/ mid-term, update the term's tests and regrade what they touch.

A term's gradebook keeps the tests as they were when the assignment was first collected, so fixing a test
in solutions/ changes nothing for grades already given.  This command compares the term's tests with
solutions/, notebook by notebook (test and read-only cells, and points), puts the fixed ones into the term's
gradebook and its release copy, regrades only the changed notebooks of every finished submission, and says
whose score changed.  Scores are final ones, as ``report`` and the feedback pages give them: manual grades
and the late penalty included (grader/records/standing.py).  Work still to do is kept in
``.grader/regrade/<assignment>.json``, so a rerun after an interruption finishes it and reports against the
scores from before the fix.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from grader.commands.autograde import grade_tasks, notebook_imports, record, start
from grader.commands.release import generate_student_version, list_assignments
from grader.paths import GraderError, Term
from grader.records.gradebook import known_assignment
from grader.records.standing import standings
from grader.records.termstate import is_finished, lock_term
from grader.sandbox.prepare import Limits


@dataclass
class Change:
    student: str
    assignment: str
    old: float  # final scores (late penalty included), as report gives them
    new: float | None  # None: the regrade failed (message says why); the old grade stands
    max_score: float
    message: str = ""
    penalty: float = 0.0  # the late penalty included in ``new``


@dataclass
class RegradeReport:
    changed_notebooks: dict[str, list[str]] = field(default_factory=dict)  # assignment -> notebooks
    regraded: list[Change] = field(default_factory=list)

    def print(self) -> None:
        if not any(self.changed_notebooks.values()):
            print("the term's tests match solutions/: nothing to regrade")
        for assignment, notebooks in self.changed_notebooks.items():
            if notebooks:
                print(f"{assignment}: tests changed in {', '.join(notebooks)}")
        moved = [c for c in self.regraded if c.new is None or c.new != c.old]
        for change in moved:
            if change.new is None:
                print(f"  {change.student}/{change.assignment}: FAILED, grade unchanged ({change.message})")
            else:
                late = f", after -{change.penalty:g} points for late work" if change.penalty else ""
                print(
                    f"  {change.student}/{change.assignment}: {change.old:g} -> {change.new:g} "
                    f"(of {change.max_score:g}{late})"
                )
        same = len(self.regraded) - len(moved)
        print(
            f"{len(self.regraded)} submission(s) regraded: {sum(c.new is not None and c.new != c.old for c in moved)}"
            f" score(s) changed, {same} unchanged, {sum(c.new is None for c in moved)} failed"
        )


def _fingerprints(db_url: str, assignment: str) -> dict[str, dict]:
    """Per notebook: what grading reads from the gradebook (test and read-only cells, points)."""
    from nbgrader.api import Gradebook

    with Gradebook(db_url) as gradebook:
        prints = {}
        for notebook in gradebook.find_assignment(assignment).notebooks:
            graded = {cell.name: cell.max_score for cell in notebook.grade_cells}
            prints[notebook.name] = {
                "cells": sorted(cell.name for cell in notebook.source_cells),
                "tests": sorted(
                    [cell.name, cell.cell_type, bool(cell.locked), cell.source, graded.get(cell.name)]
                    for cell in notebook.source_cells
                    if cell.locked or cell.name in graded
                ),
            }
        return prints


def _pending_file(term: Term, assignment: str) -> Path:
    return term.state / "regrade" / f"{assignment}.json"


def _save(path: Path, pending: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_suffix(".tmp")
    temporary.write_text(json.dumps(pending, indent=1, sort_keys=True))
    os.replace(temporary, path)


def update_tests(term: Term, assignment: str) -> list[str]:
    """Put solutions/' tests into the term; return the notebooks whose tests changed (and record the work)."""
    known_assignment(term, assignment)
    with tempfile.TemporaryDirectory(prefix="grader-regrade-") as tmp:
        generate_student_version(term.solutions, assignment, Path(tmp), db_url=f"sqlite:///{tmp}/new.db")
        new = _fingerprints(f"sqlite:///{tmp}/new.db", assignment)
    old = _fingerprints(term.db_url, assignment)
    if set(new) != set(old) or any(new[name]["cells"] != old[name]["cells"] for name in new):
        raise GraderError(
            f"{assignment}: solutions/ adds or removes notebooks or cells; regrade handles changed tests and "
            "points, not a new structure (nbgrader keeps cells once students submitted). Restore the cells and "
            "change their contents instead."
        )
    changed = sorted(name for name in new if new[name] != old[name])
    if not changed:
        return []
    path = _pending_file(term, assignment)
    pending = json.loads(path.read_text()) if path.is_file() else {"notebooks": [], "students": {}}
    pending["notebooks"] = sorted(set(pending["notebooks"]) | set(changed))
    before = standings(term, assignment)  # final scores: what report and the pages said until now
    for (student, _), entry in sorted(before.items()):
        if student not in pending["students"] and (term.submitted / student / assignment).is_dir():
            pending["students"][student] = [entry.score, entry.max_score]
    _save(path, pending)  # before the gradebook changes: a cut-off run still knows what to regrade
    with tempfile.TemporaryDirectory(prefix="grader-regrade-") as tmp:
        built = generate_student_version(term.solutions, assignment, Path(tmp), db_url=term.db_url)
        target = term.release / assignment
        shutil.rmtree(target, ignore_errors=True)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copytree(built, target)
    return changed


def regrade(
    term: Term,
    assignment: str | None = None,
    limits: Limits | None = None,
    workers: int | None = None,
    scheduler: str | None = None,
    progress: bool = True,
) -> RegradeReport:
    from tqdm import tqdm

    from grader.worker.worker import Task

    limits = limits or Limits()
    lock = lock_term(term)  # noqa: F841  (no autograde may run meanwhile)
    if not term.gradebook.exists():
        raise GraderError(f"no gradebook in {term.root}: nothing was graded yet")
    from nbgrader.api import Gradebook

    with Gradebook(term.db_url) as gradebook:
        in_term = sorted(a.name for a in gradebook.assignments)
    names = [assignment] if assignment else [a for a in in_term if a in list_assignments(term.solutions)]
    report = RegradeReport()
    sandbox = None
    for name in names:
        report.changed_notebooks[name] = update_tests(term, name)
        path = _pending_file(term, name)
        if not path.is_file():
            continue
        pending = json.loads(path.read_text())
        if not pending["students"]:
            path.unlink()
            continue
        if sandbox is None:
            sandbox = start(term, limits, notebook_imports(term, set(names)), scheduler)
        report.changed_notebooks[name] = sorted(set(report.changed_notebooks[name]) | set(pending["notebooks"]))
        for student in [s for s in pending["students"] if not is_finished(term, s, name)]:
            del pending["students"][student]  # collected again since: the next autograde grades all of it
        for student in [s for s in pending["students"] if not any((term.submitted / s / name).glob("*.ipynb"))]:
            del pending["students"][student]  # no notebook (none handed in, or refused): 0 whatever the tests
        students = sorted(pending["students"])
        tasks = [
            Task(index, student, name, {}, notebooks=pending["notebooks"]) for index, student in enumerate(students)
        ]
        bar = tqdm(total=len(tasks), desc=f"regrade {name}", unit="submission", disable=not progress, file=sys.stderr)
        graded: dict[str, float] = {}  # student -> final score before the regrade
        try:
            for result in grade_tasks(
                term, tasks, limits, True, notebook_imports(term, {name}), sandbox, workers, scheduler
            ):
                old, max_score = pending["students"][result.student]
                outcome = record(term, result)
                if outcome.status == "graded":
                    graded[result.student] = old
                    del pending["students"][result.student]
                    _save(path, pending)
                else:
                    report.regraded.append(Change(result.student, name, old, None, max_score, outcome.message))
                bar.update(1)
        finally:
            bar.close()
        after = standings(term, name)  # the late penalty follows the new score (never more than it)
        for student, old in sorted(graded.items()):
            entry = after[(student, name)]
            report.regraded.append(Change(student, name, old, entry.score, entry.max_score, penalty=entry.penalty))
        if not pending["students"]:
            path.unlink()
    if sandbox is not None and sandbox.ipc_dir is not None:
        shutil.rmtree(sandbox.ipc_dir, ignore_errors=True)
    return report
