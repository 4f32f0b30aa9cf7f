"""feedback: one HTML page per student and notebook that says which tests failed and why, hidden tests hidden."""

from __future__ import annotations

import sys
from pathlib import Path

from grader.autograde import find_submissions, is_finished
from grader.nbconfig import api_for
from grader.paths import GraderError, Term
from grader.termconfig import term_config


def generate_feedback(term: Term, assignment: str | None = None, student: str | None = None,
                      progress: bool = True) -> list[Path]:
    from tqdm import tqdm

    pairs = [  # finished, and with a notebook to comment on (an empty submission has none)
        (who, what) for who, what in find_submissions(term, assignment, student)
        if is_finished(term, who, what) and any((term.autograded / who / what).glob("*.ipynb"))
    ]
    if not pairs:
        raise GraderError("no graded submissions yet: run `autograde` first")
    api = api_for(term_config(term))
    written: list[Path] = []
    problems: list[str] = []
    for who, what in tqdm(pairs, desc="feedback", unit="submission", disable=not progress, file=sys.stderr):
        result = api.generate_feedback(what, who, force=True)
        if not result.get("success"):
            problems.append(f"{who}/{what}: {(result.get('error') or '').strip().splitlines()[-1:]}")
            continue
        written += sorted((term.feedback / who / what).glob("*.html"))
    if problems:
        raise GraderError("feedback failed for:\n  " + "\n  ".join(problems))
    return written
