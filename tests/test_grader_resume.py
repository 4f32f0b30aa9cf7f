"""Killing autograde mid-run loses nothing: the rerun finishes the rest and changes no finished grade."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from grader_fixtures.submissions import CORRECT, POINTS, build, grader, new_term, scores, submit

from grader.autograde import done_marker
from grader.paths import REPO
from grader.sandbox import sandbox_uids

pytestmark = pytest.mark.slow

WRONG = {"ex1-answer": "def square(x):\n    return x + 1", "ex3-answer": "total = 44"}


def sandbox_processes() -> list[str]:
    uids = sandbox_uids()  # grader-sandbox and the users of concurrent workers
    names = []
    for pid in os.listdir("/proc"):
        try:
            status = Path(f"/proc/{pid}/status").read_text()
        except OSError:
            continue
        fields = dict(line.split(":", 1) for line in status.splitlines() if ":" in line)
        if "Uid" in fields and int(fields["Uid"].split()[0]) in uids:
            names.append(fields["Name"].strip())
    return names


def test_killed_run_resumes_and_keeps_finished_grades(tmp_path):
    students = [f"s{i}" for i in range(1, 7)]
    term = new_term(tmp_path / "term", students)
    for number, student in enumerate(students):
        submit(term, student, build(term, {**CORRECT, **(WRONG if number % 2 else {})}))
    command = [sys.executable, "-m", "grader", "--term", str(term.root), "--solutions", str(term.solutions),
               "autograde", "--quiet"]
    run = subprocess.Popen(command, cwd=REPO, start_new_session=True,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
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
