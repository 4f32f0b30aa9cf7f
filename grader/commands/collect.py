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
from pathlib import Path

import nbformat

from grader.paths import GraderError, Term
from grader.records.gradebook import ensure_assignment, known_assignment, roster
from grader.records.termstate import done_marker

#: LMS downloads name files "<student>_<notebook>.ipynb" (anything before the last folder is ignored).
DEFAULT_ZIP_PATTERN = r"^.*/(?P<student_id>[^/_]+)_(?P<file_id>[^/]+)$"
ROSTER_COLUMNS = ("id", "first_name", "last_name", "email", "lms_user_id")


@dataclass
class CollectReport:
    collected: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    rejected: list[str] = field(default_factory=list)
    without_submission: list[str] = field(default_factory=list)

    def summary(self) -> str:
        return (
            f"collect: {len(self.collected)} new, {len(self.updated)} updated, {len(self.unchanged)} unchanged, "
            f"{len(self.rejected)} rejected, {len(self.without_submission)} student(s) without submission"
        )

    def print(self) -> None:
        for label, items in (
            ("collected", self.collected),
            ("updated (will be regraded)", self.updated),
            ("unchanged", self.unchanged),
            ("REJECTED", self.rejected),
            ("no submission", self.without_submission),
        ):
            if items:
                print(f"{label} ({len(items)}):")
                for item in items:
                    print(f"  {item}")


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


def collect_folder(term: Term, assignment: str, source: Path) -> CollectReport:
    known_assignment(term, assignment)
    if not source.is_dir():
        raise GraderError(f"{source} is not a folder of submissions")
    ensure_assignment(term, assignment)
    students = roster(term)
    if not students:
        raise GraderError("the gradebook has no students yet: pass the roster with --roster students.csv")
    expected = _expected_notebooks(term, assignment)
    report = CollectReport()
    for student, folder in _student_folders(source, assignment, report).items():
        if student not in students:
            report.rejected.append(f"{student}: unknown student (not in the roster); nothing collected")
            continue
        target = term.submitted / student / assignment
        changed = False
        for notebook in sorted(folder.glob("*.ipynb")):
            label = f"{student}/{notebook.name}"
            problem = not_regular(notebook)
            if problem:
                report.rejected.append(f"{label}: {problem}")
                continue
            if notebook.name not in expected:
                report.rejected.append(
                    f"{label}: not a notebook of {assignment} (expected {', '.join(sorted(expected))})"
                )
                continue
            try:
                nbformat.validate(nbformat.read(notebook, as_version=4))
            except Exception as error:
                message = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
                report.rejected.append(f"{label}: not a readable notebook ({message[:160]})")
                continue
            destination = target / notebook.name
            if destination.is_file() and filecmp.cmp(notebook, destination, shallow=False):
                report.unchanged.append(label)
                continue
            (report.updated if destination.exists() else report.collected).append(label)
            target.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(notebook, destination)
            changed = True
        if (folder / "timestamp.txt").is_file() and not not_regular(folder / "timestamp.txt"):
            target.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(folder / "timestamp.txt", target / "timestamp.txt")
        if changed:
            done_marker(term, student, assignment).unlink(missing_ok=True)  # new work: grade it again
    have = {p.parent.name for p in term.submitted.glob(f"*/{assignment}") if p.is_dir()}
    report.without_submission = sorted(students - have)
    return report


def collect_zip(term: Term, assignment: str, archive: Path, pattern: str = DEFAULT_ZIP_PATTERN) -> CollectReport:
    """Unpack an LMS download with nbgrader's zip collection, then collect it like a folder."""
    from nbgrader.apps.zipcollectapp import ZipCollectApp
    from nbgrader.plugins import FileNameCollectorPlugin

    from grader.settings.termconfig import term_config

    known_assignment(term, assignment)
    if not archive.is_file():
        raise GraderError(f"{archive} does not exist")
    ensure_assignment(term, assignment)
    with tempfile.TemporaryDirectory(prefix="grader-zip-") as tmp:
        staging = Path(tmp) / "staging"
        downloaded = term.downloaded / assignment / "archive"
        shutil.rmtree(downloaded, ignore_errors=True)
        downloaded.mkdir(parents=True)
        shutil.copyfile(archive, downloaded / archive.name)
        config = term_config(term)
        config.CourseDirectory.submitted_directory = str(staging)
        config.ZipCollectApp.collector_plugin = FileNameCollectorPlugin
        config.FileNameCollectorPlugin.named_regexp = pattern
        config.ZipCollectApp.force = True
        config.ExtractorPlugin.force = True
        app = ZipCollectApp(config=config)
        try:
            app.initialize([assignment])
            app.start()
        except SystemExit as stop:
            raise GraderError(f"nbgrader's zip collection failed for {archive} (exit {stop.code})") from None
        if not staging.is_dir():
            raise GraderError(f"no file in {archive} matched the name pattern {pattern!r}")
        return collect_folder(term, assignment, staging)
