"""autograde: grade every collected submission once, in a sandbox; rerun to finish an interrupted run.

A submission counts as finished once its completion marker is written (grader/records/termstate.py).  A rerun skips
finished ones, so their grades never change, and regrades the one that was cut off from scratch.
"""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Iterator
from dataclasses import replace

import nbformat

from grader.commands.release import list_assignments
from grader.paths import GraderError, Term
from grader.records.gradebook import ensure_assignment, roster
from grader.records.termstate import (
    Outcome,
    done_marker,
    find_submissions,
    is_finished,
    lock_term,
    recorded_score,
    write_marker,
)
from grader.sandbox.prepare import Limits, Sandbox, prepare


def submission_problem(term: Term, student: str, assignment: str, students: set[str]) -> str | None:
    """Why a submission cannot be graded, in words for the instructor; None when it can."""
    if assignment not in list_assignments(term.solutions):
        return f"submission for unknown assignment {assignment!r}"
    if student not in students:
        return f"unknown student {student!r}: not in the roster (import it with `collect --roster FILE`)"
    folder = term.submitted / student / assignment
    if folder.is_symlink():
        return f"{folder} is a symbolic link; collect the submission again"
    for notebook in sorted(folder.glob("*.ipynb")):
        if notebook.is_symlink() or not notebook.is_file():
            return f"{notebook.name} is not a regular file (a symbolic link?); collect the submission again"
        try:
            nbformat.validate(nbformat.read(notebook, as_version=4))
        except Exception as error:  # nbformat raises several unrelated types for broken files
            first_line = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
            return f"{notebook.name} is not a readable notebook ({first_line[:200]})"
    return None


def notebook_imports(term: Term, assignments: set[str]) -> list[str]:
    """Modules the read-only cells (setup, helpers) of these assignments' notebooks import."""
    from grader.sandbox.guard import imported_modules
    from grader.trusted.plan import is_answer, nbgrader_meta

    modules: set[str] = set()
    for assignment in sorted(assignments & set(list_assignments(term.solutions))):
        for path in sorted((term.solutions / assignment).glob("*.ipynb")):
            for cell in nbformat.read(path, as_version=4).cells:
                if cell.cell_type == "code" and nbgrader_meta(cell).get("locked") and not is_answer(cell):
                    modules |= set(imported_modules(cell.source))
    return sorted(modules)


def _grade_empty(term: Term, student: str, assignment: str) -> None:
    """A submission without notebooks scores 0, as nbgrader scores a missing notebook (it refuses the empty case)."""
    from nbgrader.api import Gradebook

    with Gradebook(term.db_url) as gradebook:
        submission = gradebook.update_or_create_submission(assignment, student)
        for notebook in submission.notebooks:
            for grade in notebook.grades:
                grade.auto_score = 0
                grade.needs_manual_grade = False
        gradebook.db.commit()


def default_workers() -> int:
    """One worker per core this process may use: each grades one submission (two kernels) at a time."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:
        return max(1, os.cpu_count() or 1)


def record(term: Term, result) -> Outcome:
    """The single writer: a worker's result goes into the gradebook, then the completion marker."""
    from grader.worker.worker import apply_result

    retried = "graded again after its worker stopped" if result.attempt > 1 else ""
    try:
        if not result.success:
            return Outcome(result.student, result.assignment, "failed", seconds=result.seconds, message=result.message)
        apply_result(term, result)
        score, max_score = recorded_score(term, result.student, result.assignment)
        outcome = Outcome(
            result.student,
            result.assignment,
            "graded",
            score,
            max_score,
            result.seconds,
            retried,
            kernel_mb=round(result.kernel_mb, 1),
            worker=result.worker,
            early_kernels=result.early_kernels,
        )
        write_marker(term, outcome)
        return outcome
    finally:
        if result.scratch:
            shutil.rmtree(result.scratch, ignore_errors=True)


def grade_tasks(
    term: Term,
    tasks: list,
    limits: Limits,
    guard: bool,
    modules: list[str],
    sandbox: Sandbox | None,
    workers: int | None,
    scheduler: str | None,
    pool: bool = True,
    trusted_kernel: bool = True,
) -> Iterator:
    """Results of grading ``tasks`` on local worker processes or on a Dask cluster, as they finish."""
    from grader.worker.pools import DaskPool, LocalPool
    from grader.worker.worker import make_kit, read_submission

    kit = make_kit(
        term,
        {t.assignment for t in tasks},
        limits,
        guard,
        modules,
        portable=bool(scheduler),
        pool=pool,
        trusted_kernel=trusted_kernel,
    )
    if scheduler is None:
        assert sandbox is not None  # local workers use this machine's sandbox (prepared by the caller)
        runner: LocalPool | DaskPool = LocalPool(term, sandbox, kit, min(workers or default_workers(), len(tasks)))
    else:
        runner = DaskPool(scheduler, kit)
    yield from runner.results(
        tasks, lambda task: replace(task, files=read_submission(term, task.student, task.assignment))
    )


def start(
    term: Term, limits: Limits, modules: list[str], scheduler: str | None, sandbox: Sandbox | None = None
) -> Sandbox | None:
    """Check this machine's sandbox (unless Dask workers grade: each checks its own) and say how grading runs."""
    if scheduler is None:
        sandbox = sandbox or prepare(term, limits, modules)
        print(sandbox.note, file=sys.stderr)
        return sandbox
    print(f"grading on the Dask workers of {scheduler}; each prepares its own sandbox", file=sys.stderr)
    return None


def autograde(
    term: Term,
    assignment: str | None = None,
    student: str | None = None,
    limits: Limits | None = None,
    regrade: bool = False,
    progress: bool = True,
    sandbox: Sandbox | None = None,
    guard: bool = True,
    workers: int | None = None,
    scheduler: str | None = None,
    pool: bool = True,
    trusted_kernel: bool = True,
) -> list[Outcome]:
    """Grade the selected submissions with ``workers`` local processes (default: one per core) or on the
    Dask workers of ``scheduler``; this process alone writes the gradebook.  ``pool``: warm kernels
    (grader/sandbox/pool.py); ``guard``: the in-kernel guard in the student's kernel (grader/sandbox/kernel_guard.py);
    ``trusted_kernel``: graded tests run in a second kernel where no student code runs."""
    from grader.worker.worker import Task

    limits = limits or Limits()
    lock = lock_term(term)  # noqa: F841  (held until this function returns)
    pairs = find_submissions(term, assignment, student)
    if not pairs:
        raise GraderError(f"nothing to grade in {term.submitted} (run `collect` first)")
    modules = notebook_imports(term, {a for _, a in pairs})
    sandbox = start(term, limits, modules, scheduler, sandbox)
    for name in sorted({a for _, a in pairs if a in list_assignments(term.solutions)}):
        ensure_assignment(term, name)
    students = roster(term)
    outcomes: dict[int, Outcome] = {}
    tasks: list[Task] = []
    from tqdm import tqdm

    bar = tqdm(total=len(pairs), desc="autograde", unit="submission", disable=not progress, file=sys.stderr)
    try:
        for index, (who, what) in enumerate(pairs):
            if is_finished(term, who, what) and not regrade:
                score, max_score = recorded_score(term, who, what)
                outcomes[index] = Outcome(who, what, "skipped", score, max_score, message="finished earlier")
            elif problem := submission_problem(term, who, what, students):
                outcomes[index] = Outcome(who, what, "failed", message=problem)
            else:
                done_marker(term, who, what).unlink(missing_ok=True)
                shutil.rmtree(term.autograded / who / what, ignore_errors=True)  # a cut-off run left it partial
                if any((term.submitted / who / what).glob("*.ipynb")):
                    tasks.append(Task(index, who, what, {}))
                    continue
                _grade_empty(term, who, what)
                score, max_score = recorded_score(term, who, what)
                outcomes[index] = Outcome(who, what, "graded", score, max_score, message="no notebook submitted")
                write_marker(term, outcomes[index])
            bar.update(1)
        if tasks:
            for result in grade_tasks(
                term, tasks, limits, guard, modules, sandbox, workers, scheduler, pool, trusted_kernel
            ):
                outcomes[result.index] = record(term, result)
                bar.set_postfix_str(f"{result.student}/{result.assignment}")
                bar.update(1)
    finally:
        bar.close()
        if sandbox is not None and sandbox.ipc_dir is not None:
            shutil.rmtree(sandbox.ipc_dir, ignore_errors=True)
    return [outcomes[index] for index in sorted(outcomes)]


def print_outcomes(outcomes: list[Outcome], standing: dict | None = None) -> None:
    """The score table: final scores (late penalties and manual grades included, from ``standing``: see
    grader/standing.py) and, as the note, why a submission failed or what it is flagged with."""
    width = max([len(o.student) for o in outcomes] + [7])
    print(f"{'student':<{width}}  {'assignment':<20} {'status':<8} {'score':>11} {'seconds':>8}  note")
    for o in outcomes:
        entry = (standing or {}).get((o.student, o.assignment))
        final = (entry.score, entry.max_score) if entry and o.status != "failed" else (o.score, o.max_score)
        score = f"{final[0]:g}/{final[1]:g}" if final[0] is not None else "-"
        note = "; ".join(part for part in (o.message, entry.flag_text() if entry else "") if part)
        print(f"{o.student:<{width}}  {o.assignment:<20} {o.status:<8} {score:>11} {o.seconds:8.1f}  {note}")
    failed = [o for o in outcomes if o.status == "failed"]
    print(
        f"{sum(o.status == 'graded' for o in outcomes)} graded, "
        f"{sum(o.status == 'skipped' for o in outcomes)} already finished, {len(failed)} failed"
    )
