"""The feedback pages the grader writes itself (nbgrader writes one per graded notebook): a page for a refused
notebook that says what was wrong and how to hand it in again, and each student's index with their totals."""

from __future__ import annotations

import html
from pathlib import Path

from grader.paths import Term
from grader.records.rejections import HAND_IN_AGAIN, rejections

STYLE = (
    "<style>body{font-family:sans-serif;max-width:52em;margin:2em auto;line-height:1.45}"
    "table{border-collapse:collapse}td,th{border:1px solid #bbb;padding:.3em .6em;text-align:left}"
    ".flag{color:#a33}</style>"
)


def _page(title: str, body: str) -> str:
    return (
        f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>{html.escape(title)}</title>{STYLE}'
        f"</head><body><h1>{html.escape(title)}</h1>\n{body}\n</body></html>\n"
    )


def write_refusal_pages(term: Term, student: str, assignment: str) -> list[Path]:
    """A page for each refused notebook that has no graded copy: it scores 0, and the student learns why."""
    written = []
    for rejection in rejections(term, assignment, student):
        if (term.autograded / student / assignment / rejection.file).is_file():
            continue  # an earlier copy was graded: its page carries the refusal (grader/feedback.py)
        path = term.feedback / student / assignment / f"{Path(rejection.file).stem}.html"
        path.parent.mkdir(parents=True, exist_ok=True)
        body = (
            f"<p class='flag'><b>Your notebook could not be graded, so it scores 0 points.</b></p>"
            f"<p>What was wrong: {html.escape(rejection.reason)} (checked {html.escape(rejection.at)}).</p>"
            f"<p>How to hand it in again: {html.escape(HAND_IN_AGAIN)}</p>"
        )
        path.write_text(_page(f"{assignment} / {rejection.file}", body), encoding="utf-8")
        written.append(path)
    return written


def write_student_index(term: Term, student: str, standing: dict) -> Path:
    """feedback/<student>/index.html: every assignment's final score, its flags, links to its pages, the total."""
    rows = []
    total = top = 0.0
    for (who, assignment), entry in sorted(standing.items()):
        if who != student:
            continue
        links = ", ".join(
            f"<a href='{assignment}/{page.name}'>{html.escape(page.stem)}</a>"
            for page in sorted((term.feedback / student / assignment).glob("*.html"))
        )
        flags = "<br>".join(html.escape(flag) for flag in entry.flags)
        rows.append(
            f"<tr><td>{html.escape(assignment)}</td><td>{entry.score:g} / {entry.max_score:g}</td>"
            f"<td>{links}</td><td class='flag'>{flags}</td></tr>"
        )
        total += entry.score
        top += entry.max_score
    rows.append(f"<tr><th>total</th><th>{total:g} / {top:g}</th><td></td><td></td></tr>")
    table = "<table><tr><th>assignment</th><th>score</th><th>feedback</th><th>notes</th></tr>" + "".join(rows)
    path = term.feedback / student / "index.html"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(_page(f"Grades of {student}", table + "</table>"), encoding="utf-8")
    return path
