"""A submission's final standing: its score after manual grades and the late penalty, and every flag a reader
must see beside it (late, refused notebooks, answer cells stopped by the time limit, manual review).

The score table, the report, the LMS exports and the feedback pages all read grades through here, so they
cannot disagree.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

import nbformat

from grader.paths import Term
from grader.records.late import apply_late_work, late_note, read_deadlines, stamp
from grader.records.rejections import rejections
from grader.records.termstate import is_finished

#: what a cell stopped by the time limit shows (grader/termconfig.py puts it in nbgrader's Execute.error_on_timeout)
TIMEOUT_MESSAGE = "this cell ran past the {limit} s time limit for a cell and was stopped"
_TIMEOUT_LIMIT = re.compile(r"past the (\d+) s time limit")


def _meta(cell) -> dict:
    return cell.get("metadata", {}).get("nbgrader", {})


def _timeout_limit(cell) -> str | None:
    """The limit (as text, 'the time limit' if unknown) when this cell was stopped by it, else None."""
    for output in cell.get("outputs", []):
        if output.get("output_type") == "error" and output.get("ename") == "CellTimeoutError":
            found = _TIMEOUT_LIMIT.search(output.get("evalue", ""))
            return f"the {found.group(1)} s limit" if found else "the time limit"
    return None


def timed_out_answers(nb: nbformat.NotebookNode) -> dict[str, str]:
    """Test grade id -> why it could not use its answer: the answer cell before it ran past the time limit."""
    found: dict[str, str] = {}
    pending: str | None = None
    for cell in nb.cells:
        meta = _meta(cell)
        if meta.get("solution") and not meta.get("grade"):
            limit = _timeout_limit(cell)
            pending = None if limit is None else f"your answer cell ({meta.get('grade_id')}) ran past {limit}"
        elif meta.get("grade") and cell.cell_type == "code" and pending:
            found[meta.get("grade_id", "")] = pending
    return found


def late_flag(seconds: float, submitted: datetime | None, penalty: float) -> str:
    """'1 d 2 h late (handed in 2026-12-02T01:00:00Z), -0.4 points'; ``submitted``: naive UTC (nbgrader's)."""
    when = f" (handed in {stamp(submitted.replace(tzinfo=UTC))})" if submitted else ""
    return f"{late_note(seconds)}{when}, -{penalty:g} points"


@dataclass
class Standing:
    student: str
    assignment: str
    raw: float  # the sum of its grades (manual grades included)
    penalty: float  # points taken for late work
    max_score: float
    submitted: datetime | None
    due: datetime | None
    seconds_late: float
    needs_manual_grade: bool
    flags: list[str] = field(default_factory=list)

    @property
    def score(self) -> float:
        return self.raw - self.penalty

    def flag_text(self) -> str:
        return "; ".join(self.flags)


def _timeouts(folder: Path) -> list[str]:
    notes = []
    for path in sorted(folder.glob("*.ipynb")):
        try:
            nb = nbformat.read(path, as_version=4)
        except Exception:  # an autograded copy is the grader's own file; an unreadable one has no timeouts to show
            continue
        notes += [f"{path.stem}: {why}" for why in sorted(set(timed_out_answers(nb).values()))]
    return notes


def standings(term: Term, assignment: str | None = None) -> dict[tuple[str, str], Standing]:
    """(student, assignment) -> standing, for every finished submission (after the late work is applied)."""
    from nbgrader.api import Gradebook

    apply_late_work(term)
    deadlines = read_deadlines(term)
    result: dict[tuple[str, str], Standing] = {}
    with Gradebook(term.db_url) as gradebook:
        for entry in gradebook.assignments:
            if assignment is not None and entry.name != assignment:
                continue
            deadline = deadlines.get(entry.name)
            refused: dict[str, list[str]] = {}
            for rejection in rejections(term, entry.name):
                refused.setdefault(rejection.student, []).append(rejection.line())
            for submission in entry.submissions:
                student = submission.student.id
                if not is_finished(term, student, entry.name):
                    continue
                submitted = submission.timestamp.replace(tzinfo=UTC) if submission.timestamp else None
                due = deadline.due_for(student) if deadline else None
                seconds = float(submission.total_seconds_late)
                penalty = float(submission.late_submission_penalty or 0)
                standing = Standing(
                    student,
                    entry.name,
                    float(submission.score),
                    penalty,
                    float(submission.max_score),
                    submitted,
                    due,
                    seconds,
                    bool(submission.needs_manual_grade),
                )
                if seconds > 0:
                    standing.flags.append(late_flag(seconds, submission.timestamp, penalty))
                elif due is not None and deadline is not None and due != deadline.due:
                    standing.flags.append(f"extension to {stamp(due)}")
                standing.flags += refused.get(student, [])
                standing.flags += _timeouts(term.autograded / student / entry.name)
                if submission.needs_manual_grade:
                    standing.flags.append("needs manual grading (formgrader)")
                manual = sorted(
                    f"{n.name}:{g.name}" for n in submission.notebooks for g in n.grades if g.manual_score is not None
                )
                if manual:
                    standing.flags.append(f"graded by hand: {', '.join(manual)}")
                result[(student, entry.name)] = standing
    return result
