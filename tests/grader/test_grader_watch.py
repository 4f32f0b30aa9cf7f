"""watch: submissions dropped into a folder are collected, graded and get feedback; a restart regrades nothing."""

from __future__ import annotations

import json
import re
import signal
import subprocess
import time
from pathlib import Path

import nbformat
import pytest
from grader_fixtures.submissions import ASSIGNMENT, CORRECT, NOTEBOOK, build, grader_command, new_term

from grader.paths import REPO, Term
from grader.records.termstate import done_marker

pytestmark = pytest.mark.slow


def _drop(inbox: Path, student: str, nb: nbformat.NotebookNode) -> None:
    """Write the way a sync client does: to a temporary name, then renamed into place."""
    folder = inbox / student
    folder.mkdir(parents=True, exist_ok=True)
    partial = folder / f".{NOTEBOOK}.part"
    nbformat.write(nb, partial)
    partial.rename(folder / NOTEBOOK)


def _wait_for(condition, what: str, seconds: float = 300) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(0.2)
    raise AssertionError(f"timed out waiting for {what}")


def _score(term: Term, student: str) -> float | None:
    marker = done_marker(term, student, ASSIGNMENT)
    return json.loads(marker.read_text())["score"] if marker.is_file() else None


def _watch(term: Term, inbox: Path, log: Path, *extra: str) -> subprocess.Popen:
    command = grader_command(term, "watch", ASSIGNMENT, str(inbox), "--interval", "0.5", "--workers", "2", *extra)
    return subprocess.Popen(command, cwd=REPO, stdout=log.open("a"), stderr=subprocess.STDOUT)


def test_watch_grades_work_as_it_arrives_and_a_restart_regrades_nothing(tmp_path):
    term = new_term(tmp_path / "term", ["w1", "w2", "w3"])
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    log = tmp_path / "watch.log"
    watcher = _watch(term, inbox, log)
    try:
        time.sleep(1)
        _drop(inbox, "w1", build(term))
        feedback = term.feedback / "w1" / ASSIGNMENT / "exercises.html"
        _wait_for(feedback.is_file, "w1's feedback")
        assert _score(term, "w1") == 4

        _drop(inbox, "w2", build(term, {**CORRECT, "ex3-answer": "total = 44"}))
        _drop(inbox, "stranger", build(term))
        _wait_for(lambda: (term.feedback / "w2" / ASSIGNMENT / "exercises.html").is_file(), "w2's feedback")
        assert _score(term, "w2") == 3

        _drop(inbox, "w1", build(term, {}))  # handed in again: the new work replaces the old grade
        _wait_for(lambda: _score(term, "w1") == 0, "w1's second submission to be graded")
        _wait_for(lambda: "graded w1/fixture-basics: 0/4" in log.read_text(), "the watcher's line for it")
    finally:
        watcher.send_signal(signal.SIGTERM)
        watcher.wait(timeout=120)
    text = log.read_text()
    assert "graded w1/fixture-basics: 4/4, feedback in" in text
    assert "graded w2/fixture-basics: 3/4" in text
    assert text.count("REJECTED stranger") == 1  # not in the roster: said once, not every round
    assert "watch stopped" in text

    markers = {s: done_marker(term, s, ASSIGNMENT).read_bytes() for s in ("w1", "w2")}
    pages = {s: (term.feedback / s / ASSIGNMENT / "exercises.html").stat().st_mtime_ns for s in ("w1", "w2")}
    again = subprocess.run(
        grader_command(term, "watch", ASSIGNMENT, str(inbox), "--once"),
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert again.returncode == 0, again.stderr
    assert not re.search(r"^\S+ (graded|collected) ", again.stdout, re.M), again.stdout
    assert {s: done_marker(term, s, ASSIGNMENT).read_bytes() for s in ("w1", "w2")} == markers
    assert {s: (term.feedback / s / ASSIGNMENT / "exercises.html").stat().st_mtime_ns for s in ("w1", "w2")} == pages
