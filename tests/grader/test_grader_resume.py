"""Killing autograde mid-run loses nothing: the rerun finishes the rest and changes no finished grade."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import time

import pytest
from grader_fixtures.submissions import POINTS, grader, grader_command, sandbox_processes, scores, submitted_term

from grader.paths import REPO
from grader.records.termstate import done_marker

pytestmark = pytest.mark.slow

WRONG = {"ex1-answer": "def square(x):\n    return x + 1", "ex3-answer": "total = 44"}


def test_killed_run_resumes_and_keeps_finished_grades(tmp_path):
    students = [f"s{i}" for i in range(1, 7)]
    term = submitted_term(tmp_path / "term", students, WRONG)
    run = subprocess.Popen(
        grader_command(term, "autograde", "--quiet"),
        cwd=REPO,
        start_new_session=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    markers = term.state / "done" / "fixture-basics"
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline and len(list(markers.glob("*.json"))) < 2:
        time.sleep(0.2)
    time.sleep(1.0)  # let it get into the middle of the next submission
    os.killpg(run.pid, signal.SIGKILL)
    run.wait()

    finished = sorted(p.stem for p in markers.glob("*.json"))
    assert 2 <= len(finished) < len(students), "the kill should land mid-run"
    marker_bytes = {s: done_marker(term, s, "fixture-basics").read_bytes() for s in finished}
    before = scores(term)
    with sqlite3.connect(term.gradebook) as db:
        assert db.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    deadline = time.monotonic() + 15
    while sandbox_processes() and time.monotonic() < deadline:
        time.sleep(0.2)
    assert sandbox_processes() == []  # the kernel died with the grader

    result = grader(term, "autograde", "--quiet")
    assert result.returncode == 0, result.stderr
    after = scores(term)
    for student in finished:
        assert after[student] == before[student]
        assert done_marker(term, student, "fixture-basics").read_bytes() == marker_bytes[student]
        assert f"{student} " in result.stdout and "finished earlier" in result.stdout
    wrong = {**POINTS, "ex1-tests": 0, "ex3-tests": 0}
    assert after == {s: (wrong if n % 2 else POINTS) for n, s in enumerate(students)}
