"""Grading with several workers: the same grades as one worker, and a worker that dies loses nothing."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import time
from pathlib import Path

import pytest
from grader_fixtures.submissions import (
    CORRECT,
    POINTS,
    build,
    gradebook_rows,
    grader,
    grader_command,
    new_term,
    sandbox_processes,
    scores,
    submit,
    submitted_term,
    table,
)

from grader.paths import REPO, Term

pytestmark = pytest.mark.slow

WRONG_SQUARE = {"ex1-answer": "def square(x):\n    return x + 1"}
WRONG_TOTAL = {"ex3-answer": "total = 44"}


def fixture_class(root: Path) -> Term:
    """Eight submissions: right, partly wrong, blank, a crash inside an answer, an empty folder, not a notebook."""
    students = [f"p{i}" for i in range(1, 9)]
    term = new_term(root, students)
    submit(term, "p1", build(term))
    submit(term, "p2", build(term, {**CORRECT, **WRONG_SQUARE}))
    submit(term, "p3", build(term, {}))
    submit(term, "p4", build(term, {**CORRECT, **WRONG_TOTAL}))
    submit(term, "p5", build(term, after={"ex2-answer": "import os\nos._exit(3)"}))
    (term.submitted / "p6" / "fixture-basics").mkdir(parents=True)
    submit(term, "p7", "{ this is not a notebook")
    submit(term, "p8", build(term, {**CORRECT, **WRONG_SQUARE, **WRONG_TOTAL}))
    return term


def test_two_workers_give_exactly_the_grades_of_one(tmp_path):
    one = fixture_class(tmp_path / "one")
    two = Term(tmp_path / "two", one.solutions)
    shutil.copytree(one.root, two.root)

    sequential = grader(one, "autograde", "--quiet", "--workers", "1")
    parallel = grader(two, "autograde", "--quiet", "--workers", "2")

    assert sequential.returncode == parallel.returncode == 1, sequential.stderr + parallel.stderr  # p7 fails
    assert table(parallel.stdout) == table(sequential.stdout), parallel.stdout + sequential.stdout
    assert table(parallel.stdout)["p1"] == ("graded", "4/4")
    assert table(parallel.stdout)["p7"][0] == "failed" and "not a readable notebook" in parallel.stdout
    assert gradebook_rows(two) == gradebook_rows(one)
    assert set(gradebook_rows(one)) == {f"p{i}" for i in range(1, 9)} - {"p7"}
    for student in ("p1", "p2", "p3", "p4", "p5", "p8"):
        folder = Path("autograded") / student / "fixture-basics"
        assert sorted(p.name for p in (two.root / folder).iterdir()) == sorted(
            p.name for p in (one.root / folder).iterdir()
        )
    assert not any((two.state / "workers").iterdir()), "the workers' scratch folders are removed"

    again = grader(two, "autograde", "--quiet", "--workers", "2")
    assert "7 already finished" in again.stdout and gradebook_rows(two) == gradebook_rows(one)


def _alive(pid: int) -> bool:
    """Running (a zombie waiting for init to reap it does not count)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0] != "Z"
    except OSError:
        return False


def _busy_worker(term: Term, deadline: float) -> int | None:
    """The pid of a worker that is grading a submission right now."""
    while time.monotonic() < deadline:
        for root in (term.state / "workers").glob("w-*"):
            pid_file = root / "pid"
            if pid_file.is_file() and any(root.glob("*-1/autograded/*/fixture-basics/*.ipynb")):
                return int(pid_file.read_text())
        time.sleep(0.05)
    return None


def test_a_killed_worker_costs_only_its_submission_which_is_graded_again(tmp_path):
    students = [f"k{i}" for i in range(1, 6)]
    term = submitted_term(tmp_path / "term", students, WRONG_SQUARE)
    run = subprocess.Popen(
        grader_command(term, "autograde", "--quiet", "--workers", "2"),
        cwd=REPO,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    victim = _busy_worker(term, time.monotonic() + 300)
    assert victim is not None, "no worker started grading"
    os.kill(victim, signal.SIGKILL)
    stdout, stderr = run.communicate(timeout=900)

    assert run.returncode == 0, stderr
    # once: a submission handed to the killed worker ahead of the one it graded was not begun, and is not retried
    assert stdout.count("graded again after its worker stopped") == 1, stdout
    assert "5 graded" in stdout
    wrong = {**POINTS, "ex1-tests": 0}
    assert scores(term) == {s: (wrong if n % 2 else POINTS) for n, s in enumerate(students)}
    deadline = time.monotonic() + 15
    while sandbox_processes() and time.monotonic() < deadline:
        time.sleep(0.2)
    assert sandbox_processes() == []  # the dead worker's kernels went with it


def test_killing_the_run_ends_its_workers_and_their_kernels(tmp_path):
    students = [f"r{i}" for i in range(1, 4)]
    term = new_term(tmp_path / "term", students)
    for student in students:
        submit(term, student, build(term))
    run = subprocess.Popen(
        grader_command(term, "autograde", "--quiet", "--workers", "2"),
        cwd=REPO,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    workers = []
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline and _busy_worker(term, time.monotonic() + 0.1) is None:
        pass
    workers = [int(p.read_text()) for p in (term.state / "workers").glob("w-*/pid")]
    assert workers
    run.kill()  # only the run itself: its workers must follow
    run.wait()
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline and (sandbox_processes() or any(map(_alive, workers))):
        time.sleep(0.2)
    assert not any(map(_alive, workers))
    assert sandbox_processes() == []
