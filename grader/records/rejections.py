"""What collect refused, kept in the term with its reason until the student hands in again.

A refused notebook must not vanish: the score table, the report's flag column and the student's feedback page
all read this record (``.grader/rejected/<assignment>.json``: student -> file -> reason and time).  Collecting a
readable copy of the file later removes its entry.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

from grader.paths import Term

HAND_IN_AGAIN = (
    "Open the notebook in JupyterLab to check that it opens, save it (File > Save Notebook), and hand in the "
    ".ipynb file itself again, under its original name."
)


@dataclass(frozen=True)
class Rejection:
    student: str
    file: str
    reason: str
    at: str  # when collect refused it (UTC)

    def line(self) -> str:
        return f"{self.file} rejected: {self.reason}"


def _path(term: Term, assignment: str) -> Path:
    return term.state / "rejected" / f"{assignment}.json"


def _load(term: Term, assignment: str) -> dict[str, dict[str, dict[str, str]]]:
    path = _path(term, assignment)
    return json.loads(path.read_text()) if path.is_file() else {}


def _save(term: Term, assignment: str, data: dict) -> None:
    path = _path(term, assignment)
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_suffix(".tmp")
    temporary.write_text(json.dumps(data, indent=1, sort_keys=True))
    os.replace(temporary, path)


def update(term: Term, assignment: str, refused: list[Rejection], accepted: list[tuple[str, str]]) -> None:
    """Record this collect's refusals and forget earlier ones for the (student, file) pairs it accepted."""
    data = _load(term, assignment)
    for student, file in accepted:
        data.get(student, {}).pop(file, None)
    for rejection in refused:
        data.setdefault(rejection.student, {})[rejection.file] = {"reason": rejection.reason, "at": rejection.at}
    _save(term, assignment, {student: files for student, files in data.items() if files})


def rejections(term: Term, assignment: str, student: str | None = None) -> list[Rejection]:
    return [
        Rejection(who, file, entry["reason"], entry["at"])
        for who, files in sorted(_load(term, assignment).items())
        if student is None or who == student
        for file, entry in sorted(files.items())
    ]
