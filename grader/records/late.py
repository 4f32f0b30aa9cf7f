"""Deadlines and late work: due dates, a late policy and per-student extensions, kept in the term's ``term.toml``.

nbgrader's gradebook has the pieces (an assignment's ``duedate``, a submission's ``timestamp`` and
``extension``, a notebook's ``late_submission_penalty``) but nothing fills them in but its own exchange.  Here
the term's file is the one place an instructor states them (by hand or with ``grader deadline``); every command
that reads grades first copies them into the gradebook (``apply_late_work``), with the submission times that
``collect`` keeps in each submission's ``timestamp.txt``, and computes each notebook's penalty from the final
score (manual grades included), so formgrader, the report and the feedback all show the same numbers.

    [assignments.part1-tensors]
    due = "2026-12-01T23:59:00+00:00"
    late = "penalty"      # none: lateness is shown, nothing deducted; zero: late work scores 0
    penalty = 10          # per cent of a notebook's points ...
    per = "day"           # ... for every started day (or hour) past the due date, at most the notebook's score

    [extensions.part1-tensors]
    carol = "2026-12-03T23:59:00+00:00"
"""

from __future__ import annotations

import json
import math
import os
import re
import tomllib
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from grader.paths import GraderError, Term

POLICIES = ("none", "penalty", "zero")
PERIODS = {"hour": 3600, "day": 86400}


@dataclass
class Deadline:
    """One assignment's due date and late policy; extensions move the due date of single students."""

    due: datetime | None = None
    late: str = "none"
    penalty: float = 0.0  # per cent of a notebook's points per started period
    per: str = "day"
    extensions: dict[str, datetime] = field(default_factory=dict)

    def due_for(self, student: str) -> datetime | None:
        return self.extensions.get(student, self.due)

    def describe(self) -> str:
        if self.due is None:
            return "no due date"
        rule = {
            "none": "late work is marked, nothing deducted",
            "zero": "late work scores 0",
            "penalty": f"late work loses {self.penalty:g}% of the points per started {self.per}",
        }[self.late]
        return f"due {stamp(self.due)}; {rule}"

    def penalty_for(self, seconds_late: float, score: float, max_score: float) -> float:
        """Points a notebook loses for being ``seconds_late`` seconds late, never more than its score."""
        if seconds_late <= 0 or self.late == "none":
            return 0.0
        if self.late == "zero":
            return score
        periods = math.ceil(seconds_late / PERIODS[self.per])
        return min(score, round(max_score * self.penalty / 100 * periods, 6))


def stamp(moment: datetime) -> str:
    """A time as the term's tables and pages show it: ISO 8601 in UTC, to the second."""
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def parse_time(text: str, what: str) -> datetime:
    """An ISO 8601 time; one without a zone is taken as UTC (say the zone to be sure)."""
    try:
        moment = datetime.fromisoformat(text.strip())
    except ValueError:
        raise GraderError(f"{what}: {text!r} is not a time like 2026-12-01T23:59:00+00:00") from None
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def config_file(term: Term) -> Path:
    return term.root / "term.toml"


def read_deadlines(term: Term) -> dict[str, Deadline]:
    path = config_file(term)
    if not path.is_file():
        return {}
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as error:
        raise GraderError(f"{path} is not valid TOML: {error}") from None
    deadlines: dict[str, Deadline] = {}
    for name, settings in data.get("assignments", {}).items():
        late = settings.get("late", "none")
        per = settings.get("per", "day")
        if late not in POLICIES or per not in PERIODS:
            raise GraderError(f"{path}: [assignments.{name}] late must be one of {POLICIES}, per one of hour, day")
        due = settings.get("due")
        deadlines[name] = Deadline(
            due=parse_time(str(due), f"{path} [assignments.{name}] due") if due else None,
            late=late,
            penalty=float(settings.get("penalty", 0)),
            per=per,
        )
    for name, students in data.get("extensions", {}).items():
        deadline = deadlines.setdefault(name, Deadline())
        for student, until in students.items():
            deadline.extensions[student] = parse_time(str(until), f"{path} [extensions.{name}] {student}")
    return deadlines


def write_deadlines(term: Term, deadlines: dict[str, Deadline]) -> None:
    """Write ``term.toml`` (TOML strings are JSON strings, so ``json.dumps`` quotes keys and values)."""
    lines = ["# Deadlines and late work of this term (docs/running-a-term.md); `grader deadline` edits it.", ""]
    for name, deadline in sorted(deadlines.items()):
        lines.append(f"[assignments.{json.dumps(name)}]")
        if deadline.due is not None:
            lines.append(f"due = {json.dumps(deadline.due.isoformat())}")
        lines += [f"late = {json.dumps(deadline.late)}", f"penalty = {deadline.penalty:g}"]
        lines += [f"per = {json.dumps(deadline.per)}", ""]
        if deadline.extensions:
            lines.append(f"[extensions.{json.dumps(name)}]")
            lines += [f"{json.dumps(s)} = {json.dumps(t.isoformat())}" for s, t in sorted(deadline.extensions.items())]
            lines.append("")
    term.root.mkdir(parents=True, exist_ok=True)
    temporary = config_file(term).with_suffix(".tmp")
    temporary.write_text("\n".join(lines), encoding="utf-8")
    os.replace(temporary, config_file(term))


def read_timestamp(folder: Path) -> datetime | None:
    """When a submission was handed in, as ``collect`` recorded it (nbgrader's ``timestamp.txt``)."""
    path = folder / "timestamp.txt"
    if not path.is_file() or path.is_symlink():
        return None
    try:
        return parse_time(path.read_text().strip(), str(path))
    except GraderError:
        return None


def write_timestamp(folder: Path, moment: datetime) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "timestamp.txt").write_text(moment.astimezone(UTC).isoformat(timespec="seconds") + "\n")


def _naive_utc(moment: datetime | None) -> datetime | None:
    """nbgrader's gradebook keeps times as naive UTC."""
    return None if moment is None else moment.astimezone(UTC).replace(tzinfo=None)


def apply_late_work(term: Term) -> None:
    """Copy due dates, extensions and submission times into the gradebook and set every notebook's penalty."""
    from nbgrader.api import Gradebook

    if not term.gradebook.exists():
        return
    deadlines = read_deadlines(term)
    with Gradebook(term.db_url) as gradebook:
        for assignment in gradebook.assignments:
            deadline = deadlines.get(assignment.name, Deadline())
            assignment.duedate = _naive_utc(deadline.due)
            for submission in assignment.submissions:
                student = submission.student.id
                submitted = read_timestamp(term.submitted / student / assignment.name)
                if submitted is not None:
                    submission.timestamp = _naive_utc(submitted)
                own_due = deadline.due_for(student)
                submission.extension = (
                    own_due - deadline.due if own_due is not None and deadline.due is not None else None
                )
                seconds = lateness(submission.timestamp, _naive_utc(own_due))
                for notebook in submission.notebooks:
                    penalty = deadline.penalty_for(seconds, float(notebook.score), float(notebook.max_score))
                    notebook.late_submission_penalty = penalty or None
        gradebook.db.commit()


def lateness(submitted: datetime | None, due: datetime | None) -> float:
    """Seconds past the due date (0 when on time or when either time is unknown)."""
    if submitted is None or due is None:
        return 0.0
    return max(0.0, (submitted - due).total_seconds())


def late_note(seconds: float) -> str:
    """'3 h 20 min late', '2 d 1 h late'."""
    minutes = math.ceil(seconds / 60)
    days, rest = divmod(minutes, 1440)
    hours, minutes = divmod(rest, 60)
    parts = [f"{days} d"] * bool(days) + [f"{hours} h"] * bool(hours) + [f"{minutes} min"] * bool(minutes)
    return " ".join(parts[:2]) + " late"


def parse_late_policy(text: str) -> tuple[str, float, str]:
    """'none', 'zero' or '<percent>%/<hour|day>' -> (policy, percent, period)."""
    if text in ("none", "zero"):
        return text, 0.0, "day"
    found = re.fullmatch(r"(\d+(?:\.\d+)?)%/(hour|day)", text)
    if not found:
        raise GraderError(f"--late takes none, zero or a penalty like 10%/day or 2%/hour, not {text!r}")
    return "penalty", float(found.group(1)), found.group(2)
