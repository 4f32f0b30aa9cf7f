"""Reading and preparing the term's gradebook (nbgrader's SQLite database)."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from grader.commands.release import generate_student_version, list_assignments
from grader.paths import GraderError, Term


def known_assignment(term: Term, assignment: str) -> None:
    if assignment not in list_assignments(term.solutions):
        known = ", ".join(list_assignments(term.solutions)) or "none"
        raise GraderError(f"unknown assignment {assignment!r} (assignments in {term.solutions}: {known})")


def ensure_assignment(term: Term, assignment: str) -> None:
    """Record the assignment's cells (tests included) in the term's gradebook, as nbgrader needs for grading."""
    from nbgrader.api import Gradebook, MissingEntry

    known_assignment(term, assignment)
    term.root.mkdir(parents=True, exist_ok=True)
    with Gradebook(term.db_url) as gradebook:
        try:
            gradebook.find_assignment(assignment)
            return
        except MissingEntry:
            pass
    with tempfile.TemporaryDirectory(prefix="grader-term-") as tmp:
        generate_student_version(term.solutions, assignment, Path(tmp), db_url=term.db_url)
        release = term.release / assignment
        release.parent.mkdir(parents=True, exist_ok=True)
        if not release.exists():
            os.replace(Path(tmp) / "release" / assignment, release)
    os.chmod(term.gradebook, 0o600)


def roster(term: Term) -> set[str]:
    from nbgrader.api import Gradebook

    if not term.gradebook.exists():
        return set()
    with Gradebook(term.db_url) as gradebook:
        return {student.id for student in gradebook.students}
