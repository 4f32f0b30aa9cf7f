"""What a term records about its submissions: which are collected, which are finished, and with what score.

A submission counts as finished only when nbgrader has committed its grades and the grader has written its
completion marker (``.grader/done/<assignment>/<student>.json``, outside the folders student code can touch).
Every command that reads or changes that state (autograde, regrade, collect, watch, feedback, report) asks here.
"""

from __future__ import annotations

import fcntl
import json
import os
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import IO

from grader.paths import GraderError, Term


@dataclass
class Outcome:
    """How grading one submission ended; a finished one's completion marker holds it."""

    student: str
    assignment: str
    status: str  # graded | skipped (finished earlier) | failed
    score: float | None = None
    max_score: float | None = None
    seconds: float = 0.0
    message: str = ""
    kernel_mb: float | None = None  # the largest resident size of a kernel of its worker so far
    worker: str = ""  # host:pid of the process that graded it
    early_kernels: int = 0  # its notebooks whose student's kernel was started before they came (warm kernels)


def done_marker(term: Term, student: str, assignment: str) -> Path:
    return term.state / "done" / assignment / f"{student}.json"


def is_finished(term: Term, student: str, assignment: str) -> bool:
    return done_marker(term, student, assignment).is_file()


def write_marker(term: Term, outcome: Outcome) -> None:
    marker = done_marker(term, outcome.student, outcome.assignment)
    marker.parent.mkdir(parents=True, exist_ok=True)
    temporary = marker.with_suffix(".tmp")
    temporary.write_text(json.dumps(asdict(outcome), indent=1))
    os.replace(temporary, marker)  # atomic: a marker is either absent or complete


def find_submissions(term: Term, assignment: str | None, student: str | None) -> list[tuple[str, str]]:
    """(student, assignment) pairs in submitted/, filtered; asking for a student with none is an error."""
    pairs = []
    if term.submitted.is_dir():
        for student_dir in sorted(p for p in term.submitted.iterdir() if p.is_dir()):
            for assignment_dir in sorted(p for p in student_dir.iterdir() if p.is_dir()):
                pairs.append((student_dir.name, assignment_dir.name))
    if student:
        pairs = [pair for pair in pairs if pair[0] == student]
        if not pairs:
            raise GraderError(f"no submissions from student {student!r} in {term.submitted}")
    if assignment:
        pairs = [pair for pair in pairs if pair[1] == assignment]
    return pairs


def recorded_score(term: Term, student: str, assignment: str) -> tuple[float, float]:
    """(score, maximum) of a submission as the term's gradebook has it."""
    from nbgrader.api import Gradebook

    with Gradebook(term.db_url) as gradebook:
        submission = gradebook.find_submission(assignment, student)
        return float(submission.score), float(submission.max_score)


def lock_term(term: Term) -> IO[str]:
    """Hold the term's grading lock for as long as the returned file stays open (it dies with the process)."""
    term.state.mkdir(parents=True, exist_ok=True)
    lock = (term.state / "autograde.lock").open("w")
    try:  # two runs on one term would grade the same submission twice
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        raise GraderError(f"another autograde is running on {term.root}; wait for it or stop it") from None
    return lock
