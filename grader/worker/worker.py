"""Grading many submissions at once: workers grade, one process writes the gradebook.

A worker grades one submission at a time in a scratch term of its own: a copy of the term's gradebook
without any student's work (the "kit"), the submission's files (they travel with the task), and nbgrader's
autograde with the sandboxed kernels.  It sends back the grades as data and the autograded folder; the
process that started the run (the only writer of the gradebook) puts them into the term's gradebook in one
transaction and writes the completion marker.  So workers never touch the term's SQLite file, and a
worker that dies loses only the submission it was grading, which is handed to a fresh worker.

Workers are local processes or Dask workers on other machines (grader/worker/pools.py).
"""

from __future__ import annotations

import hashlib
import os
import shutil
import sqlite3
import sys
import tempfile
import time
import traceback
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from grader.paths import GraderError, Term
from grader.sandbox.pool import KernelTemplate, start_template

if TYPE_CHECKING:
    from grader.sandbox.spares import NextSubmission
from grader.sandbox.prepare import Limits, Sandbox, end_processes_of, for_worker

STUDENT_TABLES = ("comment", "grade", "submitted_notebook", "submitted_assignment", "student")


@dataclass
class Task:
    """One submission to grade; its files travel with it (a remote worker has no access to the term)."""

    index: int
    student: str
    assignment: str
    files: dict[str, bytes]
    attempt: int = 1
    notebooks: list[str] | None = None  # grade only these notebooks (a regrade after a fixed test); None: all


@dataclass
class Kit:
    """What every worker needs from the term, the same for all tasks of a run.

    Local workers read the instructor's sources and the term's release copy in place; remote workers get
    them as bytes (``Kit.portable``).
    """

    gradebook: bytes  # the term's gradebook with the assignments and their tests, without students or work
    limits: Limits
    guard: bool  # the in-kernel guard in the student's kernel (grader/sandbox/kernel_guard.py)
    modules: list[str]  # what the notebooks' read-only cells import (a remote worker checks its kernels can)
    pool: bool = (
        True  # warm kernels: forked from a template, the next trusted kernel started early (grader/sandbox/pool.py)
    )
    trusted_kernel: bool = True  # graded tests run in a second kernel where no student code runs
    solutions: Path | None = None
    release: Path | None = None
    files: dict[str, bytes] = field(default_factory=dict)  # "solutions/<a>/<file>", "release/<a>/<file>"

    @property
    def digest(self) -> str:
        hashed = hashlib.sha256(self.gradebook)
        for name in sorted(self.files):
            hashed.update(name.encode() + b"\0" + self.files[name])
        return hashed.hexdigest()[:16]


@dataclass
class Result:
    """What a worker sends back: grades as data, and the autograded folder (moved locally, bytes remotely)."""

    index: int
    student: str
    assignment: str
    success: bool
    message: str = ""
    seconds: float = 0.0
    timestamp: datetime | None = None
    notebooks: dict[str, dict] = field(default_factory=dict)
    folder: str | None = None
    files: dict[str, bytes] | None = None
    kernel_mb: float = 0.0  # the largest resident size of any kernel this worker has run
    early_kernels: int = 0  # notebooks whose student's kernel was started before they came (warm kernels)
    attempt: int = 1
    worker: str = ""
    scratch: str | None = None  # local: the worker's scratch folder for this task, removed once recorded
    only: list[str] | None = None  # the notebooks graded (None: all of the submission)


def read_submission(term: Term, student: str, assignment: str) -> dict[str, bytes]:
    """The submission's regular files (links and special files stay behind)."""
    folder = term.submitted / student / assignment
    files = {}
    for path in sorted(folder.rglob("*")):
        if (
            path.is_file()
            and not path.is_symlink()
            and not any(p.is_symlink() for p in path.parents if folder in p.parents)
        ):
            files[str(path.relative_to(folder))] = path.read_bytes()
    return files


def empty_gradebook(term: Term) -> bytes:
    """The term's gradebook with every student and all their work removed: the tests as the term keeps them."""
    handle, name = tempfile.mkstemp(prefix="grader-kit-", suffix=".db")
    os.close(handle)
    try:
        with sqlite3.connect(term.gradebook) as source, sqlite3.connect(name) as copy:
            source.backup(copy)
            for table in STUDENT_TABLES:
                copy.execute(f"DELETE FROM {table}")
            copy.commit()
        with sqlite3.connect(name) as copy:
            copy.execute("VACUUM")
        return Path(name).read_bytes()
    finally:
        os.unlink(name)


def make_kit(
    term: Term,
    assignments: Iterable[str],
    limits: Limits,
    guard: bool,
    modules: list[str],
    portable: bool = False,
    pool: bool = True,
    trusted_kernel: bool = True,
) -> Kit:
    kit = Kit(empty_gradebook(term), limits, guard, modules, pool, trusted_kernel, term.solutions, term.release)
    if portable:
        for kind, root in (("solutions", term.solutions), ("release", term.release)):
            for assignment in sorted(set(assignments)):
                folder = root / assignment
                for path in sorted(folder.rglob("*")) if folder.is_dir() else []:
                    if path.is_file() and ".ipynb_checkpoints" not in path.parts:
                        kit.files[f"{kind}/{assignment}/{path.relative_to(folder)}"] = path.read_bytes()
        kit.solutions = kit.release = None
    return kit


def _write_files(folder: Path, files: dict[str, bytes]) -> None:
    for name, data in files.items():
        path = (folder / name).resolve()
        if folder.resolve() not in path.parents:
            raise GraderError(f"refusing a file outside its folder: {name!r}")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)


def _graded_files(task: Task) -> dict[str, bytes]:
    """The submission's files to grade: all, or for a regrade of some notebooks the others left out (they are not
    graded here and keep their grades in the term)."""
    if task.notebooks is None:
        return task.files
    return {
        name: data for name, data in task.files.items() if not name.endswith(".ipynb") or name[:-6] in task.notebooks
    }


def nbgrader_failure(outcome: dict) -> str:
    """Why nbgrader's autograde failed, from the error lines of the log it returned (for the score table)."""
    lines = [line for line in (outcome.get("log") or "").splitlines() if "[ERROR]" in line]
    return " / ".join(dict.fromkeys(line.split("]", 1)[-1].strip() for line in lines))[:500] or "nbgrader failed"


def _unsynced_below(root: Path) -> None:
    """Gradebooks under ``root`` (a worker's scratch copies of the kit) commit without waiting for the disk.

    nbgrader commits after every grade and comment, about 25 times a notebook, and SQLite waits for each to reach
    the disk: a worker's longest waits after its kernels'.  A scratch gradebook needs no such wait: a submission
    whose worker stops is graded again from its files, and the term's gradebook, written by the run's single
    writer, keeps SQLite's usual durability."""
    from sqlalchemy import event
    from sqlalchemy.engine import Engine

    UNSYNCED.add(os.path.realpath(root) + os.sep)
    if not event.contains(Engine, "connect", _skip_disk_waits):
        event.listen(Engine, "connect", _skip_disk_waits)


#: folders whose SQLite files commit without waiting for the disk (``_unsynced_below``)
UNSYNCED: set[str] = set()


def _skip_disk_waits(connection, _record) -> None:
    if isinstance(connection, sqlite3.Connection):
        path = os.path.realpath(connection.execute("PRAGMA database_list").fetchone()[2] or "")
        if any(path.startswith(folder) for folder in UNSYNCED):
            connection.execute("PRAGMA synchronous=OFF")


def _kernel_peak_mb() -> float:
    """Largest resident size among this process's finished descendants (the kernels), in MB."""
    import resource

    return resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024


class Worker:
    """Grades submissions one at a time in scratch terms under ``root``; never opens the term's gradebook."""

    def __init__(self, root: Path, sandbox: Sandbox, kit: Kit) -> None:
        from grader.settings.nbconfig import share_gradebook_engines
        from grader.worker import preprocessors

        share_gradebook_engines()  # a worker opens its scratch gradebook about nine times per notebook
        self.root = root
        self.root.mkdir(parents=True, exist_ok=True)
        _unsynced_below(root)
        self.kit = kit
        sandbox, self._slot, slot = for_worker(sandbox, root / "sandbox")
        if slot is not None:  # the run sweeps the slot's user after this worker ends, however it ends
            (root / "slot").write_text(str(slot))
        self.sandbox = sandbox
        if sandbox.ipc_dir is not None:  # own socket folder: workers must not pick the same socket names
            ipc = Path(tempfile.mkdtemp(prefix=f"grader-ipc-{os.getpid()}-", dir=sandbox.ipc_dir.parent))
            assert sandbox.uid is not None and sandbox.gid is not None  # a sandbox with sockets has its user
            os.chown(ipc, sandbox.uid, sandbox.gid)
            os.chmod(ipc, 0o700)
            self.sandbox = replace(sandbox, ipc_dir=ipc)
        self.template: KernelTemplate | None = None
        if kit.pool:
            self.sandbox, self.template = start_template(self.sandbox)
        preprocessors.ACTIVE_SANDBOX = self.sandbox if self.sandbox.isolated else None
        self.gradebook = root / "kit.db"
        self.gradebook.write_bytes(kit.gradebook)
        if kit.files:
            _write_files(root / "kit", kit.files)
            self.solutions, self.release = root / "kit" / "solutions", root / "kit" / "release"
        else:
            assert kit.solutions is not None and kit.release is not None  # a local kit names the term's folders
            self.solutions, self.release = kit.solutions, kit.release
        self.name = f"{os.uname().nodename}:{os.getpid()}"

    def close(self) -> None:
        from grader.sandbox.spares import close_student_spares
        from grader.trusted.kernel import close_trusted_spares

        close_student_spares()
        close_trusted_spares()
        if self.template is not None:
            self.template.close()
        if self.sandbox.isolated and self.sandbox.uid is not None and self.sandbox.gid is not None:
            left = end_processes_of(self.sandbox.uid, self.sandbox.gid)  # (the slot is still ours)
            if left:
                print(f"warning: {left} process(es) of the sandbox user outlived their kernels; ended", file=sys.stderr)
        if self.sandbox.ipc_dir is not None:
            shutil.rmtree(self.sandbox.ipc_dir, ignore_errors=True)

    def _scratch(self, task: Task) -> Path:
        return self.root / f"{task.index}-{task.attempt}"

    def _next_submission(self, upcoming: Callable[[], Task | None]) -> Callable[[], NextSubmission | None]:
        """What the execution asks, at the current submission's last notebook, for the submission this worker
        grades next (if the run has handed it over), so that its first notebook's student kernel starts while
        that notebook runs, in the folder its grading will use (grader/worker/execute.py).  Its files are written
        where its grading will write them again."""
        from grader.sandbox.spares import NextSubmission

        known: list[NextSubmission | None] = []

        def ask() -> NextSubmission | None:
            if known:
                return known[0]
            task = upcoming()
            files = _graded_files(task) if task is not None else {}
            notebooks = sorted(name[:-6] for name in files if name.endswith(".ipynb") and "/" not in name)
            if task is None or not notebooks:
                return None  # asked again later: the task may arrive meanwhile
            term = Term(self._scratch(task), solutions=self.solutions)
            submitted = term.submitted / task.student / task.assignment
            shutil.rmtree(term.root, ignore_errors=True)
            _write_files(submitted, files)
            known.append(
                NextSubmission(
                    task.assignment, notebooks[0], submitted, term.autograded / task.student / task.assignment
                )
            )
            return known[0]

        return ask

    def grade(self, task: Task, upcoming: Callable[[], Task | None] | None = None) -> Result:
        """Grade ``task``; ``upcoming`` tells the task this worker grades next, once the run has handed it over."""
        from grader.sandbox import spares

        started = time.perf_counter()
        scratch = self._scratch(task)
        spares.settle_student_spares()  # a kernel started early for this submission has copied its folder
        shutil.rmtree(scratch, ignore_errors=True)
        spares.NEXT_SUBMISSION = self._next_submission(upcoming) if upcoming and self.kit.pool else None
        spares.EARLY_KERNELS = 0
        try:
            result = self._grade(task, scratch)
        except Exception as error:  # a bug or an environment problem: report it, grade the rest
            detail = "".join(traceback.format_exception_only(error)).strip()
            result = Result(task.index, task.student, task.assignment, False, f"grading failed: {detail[:400]}")
        finally:
            spares.NEXT_SUBMISSION = None
        result.seconds = time.perf_counter() - started
        result.kernel_mb = max(_kernel_peak_mb(), self.template.kernel_peak_mb if self.template else 0.0)
        result.attempt = task.attempt
        result.early_kernels = spares.EARLY_KERNELS
        result.worker = self.name
        result.scratch = str(scratch)
        return result

    def _grade(self, task: Task, scratch: Path) -> Result:
        from nbgrader.api import Gradebook

        from grader.sandbox.prepare import release_folder
        from grader.settings.nbconfig import api_for
        from grader.settings.termconfig import term_config

        term = Term(scratch, solutions=self.solutions)
        _write_files(term.submitted / task.student / task.assignment, _graded_files(task))
        shutil.copyfile(self.gradebook, term.gradebook)
        with Gradebook(term.db_url) as gradebook:
            gradebook.update_or_create_student(task.student)
        config = term_config(term, self.sandbox, self.kit.limits)
        config.CourseDirectory.release_directory = str(self.release)
        config.GuardedExecute.guard = self.kit.guard
        config.GuardedExecute.trusted_kernel = self.kit.trusted_kernel
        config.GuardedExecute.warm = self.kit.pool
        target = term.autograded / task.student / task.assignment
        try:
            outcome = api_for(config).autograde(task.assignment, task.student, force=True, create=False)
        finally:
            release_folder(target, self.sandbox, to_student=False)
        if not outcome.get("success"):
            return Result(task.index, task.student, task.assignment, False, nbgrader_failure(outcome))
        result = Result(task.index, task.student, task.assignment, True, folder=str(target), only=task.notebooks)
        with Gradebook(term.db_url) as gradebook:
            submission = gradebook.find_submission(task.assignment, task.student)
            result.timestamp = submission.timestamp
            for notebook in submission.notebooks:
                if task.notebooks is not None and notebook.name not in task.notebooks:
                    continue
                result.notebooks[notebook.name] = {
                    "submitted": (term.submitted / task.student / task.assignment / f"{notebook.name}.ipynb").is_file(),
                    "penalty": notebook.late_submission_penalty,
                    "grades": {g.name: (g.auto_score, g.needs_manual_grade) for g in notebook.grades},
                    "comments": {c.name: c.auto_comment for c in notebook.comments},
                }
        return result

    def grade_portable(self, task: Task) -> Result:
        """Grade and pack the autograded folder as bytes (for a worker on another machine)."""
        result = self.grade(task)
        scratch = self.root / f"{task.index}-{task.attempt}"
        try:
            if result.success and result.folder:
                folder = Path(result.folder)
                result.files = {
                    str(p.relative_to(folder)): p.read_bytes()
                    for p in sorted(folder.rglob("*"))
                    if p.is_file() and not p.is_symlink()
                }
                result.folder = None
        finally:
            shutil.rmtree(scratch, ignore_errors=True)
            result.scratch = None
        return result


def apply_result(term: Term, result: Result) -> None:
    """Put a worker's grades into the term's gradebook in one transaction (the run's single writer).

    The same rules as nbgrader's own autograde: a notebook that was submitted needs manual grading when the
    autograder found no score or an instructor graded it by hand before; a missing notebook scores 0.
    """
    from nbgrader.api import Gradebook

    target = term.autograded / result.student / result.assignment
    if result.only is not None:  # a partial regrade: only its notebooks' autograded copies are replaced
        names = [f"{name}.ipynb" for name in result.only]
        target.mkdir(parents=True, exist_ok=True)
        if result.files is not None:
            _write_files(target, {name: data for name, data in result.files.items() if name in names})
        elif result.folder:
            for name in names:
                if (Path(result.folder) / name).is_file():
                    os.replace(Path(result.folder) / name, target / name)
    else:
        shutil.rmtree(target, ignore_errors=True)
        target.parent.mkdir(parents=True, exist_ok=True)
        if result.files is not None:
            _write_files(target, result.files)
        elif result.folder:
            os.replace(result.folder, target)
    with Gradebook(term.db_url) as gradebook:
        if result.timestamp is not None:
            submission = gradebook.update_or_create_submission(
                result.assignment, result.student, timestamp=result.timestamp
            )
        else:
            submission = gradebook.update_or_create_submission(result.assignment, result.student)
        for notebook in submission.notebooks:
            data = result.notebooks.get(notebook.name)
            if data is None:
                continue
            notebook.late_submission_penalty = data["penalty"]
            for grade in notebook.grades:
                auto_score, needs_manual = data["grades"].get(grade.name, (None, True))
                grade.auto_score = auto_score
                grade.needs_manual_grade = bool(needs_manual or (data["submitted"] and grade.manual_score is not None))
            for comment in notebook.comments:
                comment.auto_comment = data["comments"].get(comment.name)
        gradebook.db.commit()
