"""LMS downloads in: read a zip of submissions by file-name pattern, match students by id or LMS user id.

nbgrader's ``zip_collect`` matches its pattern against the whole extracted path (temporary folders included)
and forgets when each file was handed in; here a pattern is matched against the file's path inside the zip
when it has a ``/``, else against the file's name, a match may name the student by roster id
(``student_id``) or by the roster's ``lms_user_id``, and each file keeps the zip entry's time as its
submission time (zip times carry no zone: they are read in this machine's local zone, as ``unzip`` does).
"""

from __future__ import annotations

import csv
import re
import zipfile
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING

from grader.paths import GraderError
from grader.records.late import write_timestamp

if TYPE_CHECKING:
    from grader.records.report import Grades

#: name -> pattern; each has a (?P<file_id>) group and a (?P<student_id>) or (?P<lms_user_id>) group.
PATTERNS = {
    # <student>_<notebook>.ipynb, the grader's own convention
    "default": r"(?P<student_id>[^_/]+)_(?P<file_id>[^/]+\.ipynb)",
    # Canvas "Download submissions": andersalice_1001_55501_exercises.ipynb, late ones with _late_, a second
    # upload of the same name as exercises-1.ipynb
    "canvas": r"(?P<name>[^_/]+)(?i:_late)?_(?P<lms_user_id>\d+)_\d+_(?P<file_id>[^/]+?)(?:-\d+)?\.ipynb",
    # Moodle "Download all submissions": one folder per participant, Alice Anders_1001_assignsubmission_file_/
    "moodle": r"(?P<name>[^/]+)_(?P<lms_user_id>\d+)_assignsubmission_file_/(?P<file_id>[^/]+\.ipynb)",
}
MAX_ENTRY_BYTES = 100 * 1024 * 1024  # nbgrader's own limit on a collected file


@dataclass
class Unpacked:
    """A zip sorted into <student>/<notebook> folders (each with timestamp.txt), and what could not be placed."""

    students: dict[str, dict[str, tuple[datetime, bytes]]] = field(default_factory=dict)
    rejected: list[tuple[str, str]] = field(default_factory=list)  # (entry, reason)
    ignored: int = 0  # entries that are not notebooks and match no pattern (an LMS's index files)

    def write(self, folder: Path) -> None:
        for student, files in self.students.items():
            for name, (_, data) in files.items():
                (folder / student).mkdir(parents=True, exist_ok=True)
                (folder / student / name).write_bytes(data)
            write_timestamp(folder / student, max(moment for moment, _ in files.values()))


def compile_pattern(pattern: str) -> re.Pattern[str]:
    text = PATTERNS.get(pattern, pattern)
    try:
        compiled = re.compile(text)
    except re.error as error:
        raise GraderError(f"--pattern {pattern!r} is not a regular expression: {error}") from None
    groups = set(compiled.groupindex)
    if "file_id" not in groups or not groups & {"student_id", "lms_user_id"}:
        raise GraderError(
            f"--pattern {pattern!r} needs a (?P<file_id>...) group and a (?P<student_id>...) or "
            "(?P<lms_user_id>...) group"
        )
    return compiled


def _match(pattern: re.Pattern[str], path: PurePosixPath) -> re.Match[str] | None:
    """A pattern with a ``/`` against the entry's last folders and name (what the LMS named), else the name."""
    if "/" not in pattern.pattern:
        return pattern.fullmatch(path.name)
    parts = path.parts
    for start in range(len(parts) - 1, -1, -1):
        if match := pattern.fullmatch("/".join(parts[start:])):
            return match
    return None


def unpack(archive: Path, pattern: str, lms_ids: dict[str, str]) -> Unpacked:
    """Read ``archive``; ``lms_ids`` maps the roster's LMS user ids to student ids."""
    compiled = compile_pattern(pattern)
    unpacked = Unpacked()
    try:
        bundle = zipfile.ZipFile(archive)
    except zipfile.BadZipFile:
        raise GraderError(f"{archive} is not a zip file") from None
    with bundle:
        for entry in bundle.infolist():
            if entry.is_dir():
                continue
            path = PurePosixPath(entry.filename)
            match = _match(compiled, path)
            if match is None:
                if path.suffix == ".ipynb":
                    unpacked.rejected.append((entry.filename, f"its name does not match the pattern {pattern!r}"))
                else:
                    unpacked.ignored += 1
                continue
            groups = match.groupdict()
            student = groups.get("student_id")
            if student is None:
                student = lms_ids.get(groups["lms_user_id"])
                if student is None:
                    unpacked.rejected.append((entry.filename, f"no roster row has lms_user_id {groups['lms_user_id']}"))
                    continue
            name = PurePosixPath(groups["file_id"]).name
            name = name if name.endswith(".ipynb") else f"{name}.ipynb"
            if entry.file_size > MAX_ENTRY_BYTES:
                unpacked.rejected.append((entry.filename, f"larger than {MAX_ENTRY_BYTES // 2**20} MB"))
                continue
            moment = datetime(*entry.date_time).astimezone()
            files = unpacked.students.setdefault(student, {})
            if name not in files or files[name][0] <= moment:  # two uploads of one notebook: the newer counts
                files[name] = (moment, bundle.read(entry))
    return unpacked


# ---- grades out ----------------------------------------------------------------------------------------------


def write_canvas(grades: Grades, path: Path) -> Path:
    """Canvas's gradebook import (Grades > Import): Student, ID (the Canvas user id: the roster's lms_user_id),
    SIS User ID (the roster id), SIS Login ID, Section, one column per assignment, and the Points Possible row.
    Canvas matches rows by ID or SIS User ID; a column whose header is not an existing "Name (id)" becomes a new
    assignment."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["Student", "ID", "SIS User ID", "SIS Login ID", "Section", *grades.assignments])
        writer.writerow(["Points Possible", "", "", "", "", *(f"{grades.max_scores[a]:g}" for a in grades.assignments)])
        for student in grades.students:
            name = ", ".join(part for part in (student["last_name"], student["first_name"]) if part) or student["id"]
            scores = [grades.scores.get((student["id"], a)) for a in grades.assignments]
            writer.writerow(
                [name, student["lms_user_id"], student["id"], student["email"], "",
                 *("" if score is None else f"{score[0]:g}" for score in scores)]
            )  # fmt: skip
    return path


def write_moodle(grades: Grades, folder: Path) -> list[Path]:
    """Moodle's grading worksheet, one per assignment (Assignment > Upload grading worksheet): Identifier
    ("Participant <lms_user_id>", as in the submissions download), Full name, Email address, Grade, Maximum
    grade, Feedback comments (the flags)."""
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for assignment in grades.assignments:
        path = folder / f"moodle-{assignment}.csv"
        with path.open("w", newline="", encoding="utf-8") as handle:
            writer = csv.writer(handle)
            writer.writerow(["Identifier", "Full name", "Email address", "Grade", "Maximum grade", "Feedback comments"])
            for student in grades.students:
                if not student["lms_user_id"]:
                    continue  # Moodle matches by participant only
                score = grades.scores.get((student["id"], assignment))
                standing = grades.standing.get((student["id"], assignment))
                writer.writerow(
                    [f"Participant {student['lms_user_id']}",
                     " ".join(p for p in (student["first_name"], student["last_name"]) if p) or student["id"],
                     student["email"], "" if score is None else f"{score[0]:.2f}",
                     f"{grades.max_scores[assignment]:.2f}", standing.flag_text() if standing else ""]
                )  # fmt: skip
        written.append(path)
    return written
