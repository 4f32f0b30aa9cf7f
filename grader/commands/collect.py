"""collect: bring submissions into the term from a folder or an LMS zip, with the roster from a CSV.

Every problem is reported per file (unknown student, unreadable notebook, unknown notebook name) and
that file is left out; everything else is collected.
"""

from __future__ import annotations

import csv
import filecmp
import os
import shutil
import stat
import tempfile
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

import nbformat

from grader.paths import GraderError, Term
from grader.records.gradebook import ensure_assignment, known_assignment, roster
from grader.records.late import read_timestamp, stamp, write_timestamp
from grader.records.lms import unpack
from grader.records.rejections import Rejection
from grader.records.rejections import update as update_rejections
from grader.records.termstate import done_marker

ROSTER_COLUMNS = ("id", "first_name", "last_name", "email", "lms_user_id")


@dataclass
class CollectReport:
    assignment: str = ""
    collected: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    rejected: list[str] = field(default_factory=list)
    kept_newer: list[str] = field(default_factory=list)  # older work that arrived after newer work
    without_submission: list[str] = field(default_factory=list)

    def summary(self) -> str:
        return (
            f"collect {self.assignment}: {len(self.collected)} new, {len(self.updated)} updated, "
            f"{len(self.unchanged)} unchanged, {len(self.rejected)} rejected, {len(self.kept_newer)} older copies "
            f"not taken; {len(self.without_submission)} roster student(s) without a submission"
        )

    def print(self, verbose: bool = False) -> None:
        """One summary line, then every problem; the files taken only with ``verbose``."""
        print(self.summary())
        listed = [("REJECTED", self.rejected), ("OLDER, NOT TAKEN", self.kept_newer)]
        if verbose:
            listed = [("new", self.collected), ("updated (will be regraded)", self.updated)] + listed
            listed.append(("unchanged", self.unchanged))
        for label, items in listed:
            for item in items:
                print(f"  {label}: {item}")
        if self.without_submission:
            print(f"  no submission yet: {', '.join(self.without_submission)}")


def import_roster(term: Term, csv_file: Path) -> int:
    """Add or update students from a CSV with an ``id`` column (as ``nbgrader db student import``)."""
    from nbgrader.api import Gradebook

    if not csv_file.is_file():
        raise GraderError(f"roster file {csv_file} does not exist")
    with csv_file.open(newline="", encoding="utf-8-sig") as handle:
        rows = list(csv.DictReader(handle))
    if not rows or "id" not in rows[0]:
        raise GraderError(
            f"roster {csv_file} needs a header row with an 'id' column (optional: {', '.join(ROSTER_COLUMNS[1:])})"
        )
    ids = [row["id"].strip() for row in rows]
    if "" in ids or len(set(ids)) != len(ids):
        raise GraderError(f"roster {csv_file}: every row needs a unique, non-empty id")
    term.root.mkdir(parents=True, exist_ok=True)
    with Gradebook(term.db_url) as gradebook:
        for row in rows:
            extra = {key: (row.get(key) or None) for key in ROSTER_COLUMNS[1:] if key in row}
            gradebook.update_or_create_student(row["id"].strip(), **extra)
    return len(rows)


def _expected_notebooks(term: Term, assignment: str) -> set[str]:
    return {p.name for p in (term.solutions / assignment).glob("*.ipynb")}


def not_regular(path: Path) -> str | None:
    """Why a submitted file cannot be collected as it is (a link, a device, a pipe ...); None if it can."""
    try:
        mode = os.lstat(path).st_mode
    except OSError as error:
        return f"cannot be read ({error.strerror})"
    if stat.S_ISLNK(mode):
        return "is a symbolic link, not a file; submit the notebook file itself"
    if not stat.S_ISREG(mode):
        return "is not a regular file (a device, pipe or socket); submit the notebook file itself"
    return None


def _student_folders(source: Path, assignment: str, report: CollectReport) -> dict[str, Path]:
    """source/<student>/[<assignment>/]*.ipynb -> {student: folder with the notebooks}; links are refused."""
    folders = {}
    for entry in sorted(p for p in source.iterdir() if not p.name.startswith(".")):
        if entry.is_symlink():
            report.rejected.append(f"{entry.name}: the folder is a symbolic link; nothing collected")
            continue
        if not entry.is_dir():
            continue
        nested = entry / assignment
        if nested.is_symlink():
            report.rejected.append(f"{entry.name}/{assignment}: the folder is a symbolic link; nothing collected")
            continue
        folders[entry.name] = nested if nested.is_dir() else entry
    return folders


def _handed_in(folder: Path, notebooks: list[Path]) -> datetime:
    """When the work in ``folder`` was handed in: its timestamp.txt (an exchange, an LMS zip), else the newest
    notebook's modification time."""
    recorded = read_timestamp(folder)
    if recorded is not None:
        return recorded
    times = [n.lstat().st_mtime for n in notebooks] or [folder.stat().st_mtime]
    return datetime.fromtimestamp(max(times), UTC)


def _readable(notebook: Path, expected: set[str], assignment: str) -> str | None:
    """Why a handed-in notebook cannot be collected; None if it can."""
    problem = not_regular(notebook)
    if problem:
        return problem
    if notebook.name not in expected:
        return f"not a notebook of {assignment} (expected {', '.join(sorted(expected))})"
    try:
        nbformat.validate(nbformat.read(notebook, as_version=4))
    except Exception as error:  # nbformat raises several unrelated types for broken files
        message = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
        return f"not a readable notebook ({message[:160]})"
    return None


def collect_folder(term: Term, assignment: str, source: Path, report: CollectReport | None = None) -> CollectReport:
    """Take every readable notebook of roster students; keep the refused ones' reasons in the term; never let
    older work replace newer."""
    known_assignment(term, assignment)
    if not source.is_dir():
        raise GraderError(f"{source} is not a folder of submissions")
    ensure_assignment(term, assignment)
    students = roster(term)
    if not students:
        raise GraderError("the gradebook has no students yet: pass the roster with --roster students.csv")
    expected = _expected_notebooks(term, assignment)
    report = report or CollectReport()
    report.assignment = assignment
    now = datetime.now(UTC).isoformat(timespec="seconds")
    refused: list[Rejection] = []
    accepted: list[tuple[str, str]] = []
    for student, folder in _student_folders(source, assignment, report).items():
        if student not in students:
            report.rejected.append(f"{student}: unknown student (not in the roster); nothing collected")
            continue
        target = term.submitted / student / assignment
        notebooks = sorted(folder.glob("*.ipynb"))
        handed_in = _handed_in(folder, [n for n in notebooks if not not_regular(n)])
        before = read_timestamp(target)
        good = []
        for notebook in notebooks:
            problem = _readable(notebook, expected, assignment)
            if problem:
                report.rejected.append(f"{student}/{notebook.name}: {problem}")
                refused.append(Rejection(student, notebook.name, problem, now))  # kept until handed in again
            else:
                good.append(notebook)
        fresh = [n for n in good if not (target / n.name).is_file() or not filecmp.cmp(n, target / n.name, False)]
        if fresh and before is not None and handed_in < before:
            report.kept_newer.append(
                f"{student}: the work here was handed in {stamp(handed_in)}, before the copy already collected "
                f"({stamp(before)}); the newer copy is kept"
            )
            continue
        for notebook in good:
            accepted.append((student, notebook.name))
            label = f"{student}/{notebook.name}"
            if notebook not in fresh:
                report.unchanged.append(label)
                continue
            (report.updated if (target / notebook.name).exists() else report.collected).append(label)
            target.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(notebook, target / notebook.name)
        if fresh or (refused and refused[-1].student == student and not target.exists()):
            write_timestamp(target, handed_in)  # a refused first hand-in still makes a (flagged) submission
            done_marker(term, student, assignment).unlink(missing_ok=True)  # new work: grade it again
    update_rejections(term, assignment, refused, accepted)
    have = {p.parent.name for p in term.submitted.glob(f"*/{assignment}") if p.is_dir()}
    report.without_submission = sorted(students - have)
    return report


def lms_user_ids(term: Term) -> dict[str, str]:
    """The roster's LMS user ids -> student ids."""
    from nbgrader.api import Gradebook

    with Gradebook(term.db_url) as gradebook:
        return {s.lms_user_id: s.id for s in gradebook.students if s.lms_user_id}


def collect_zip(term: Term, assignment: str, archive: Path, pattern: str = "default") -> CollectReport:
    """Sort an LMS download into student folders (grader/lms.py), then collect it like a folder."""
    known_assignment(term, assignment)
    if not archive.is_file():
        raise GraderError(f"{archive} does not exist")
    ensure_assignment(term, assignment)
    unpacked = unpack(archive, pattern, lms_user_ids(term))
    report = CollectReport(assignment)
    report.rejected += [f"{entry} (in {archive.name}): {reason}" for entry, reason in unpacked.rejected]
    if not unpacked.students and not unpacked.rejected:
        raise GraderError(f"no file in {archive} matched the name pattern {pattern!r}")
    with tempfile.TemporaryDirectory(prefix="grader-zip-") as tmp:
        unpacked.write(Path(tmp))
        return collect_folder(term, assignment, Path(tmp), report)
