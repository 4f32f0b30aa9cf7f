"""`python -m tools.term_guide`: the transcripts in docs/running-a-term.md, from a real run of the guide's term.

The guide shows each command of a term with the output it printed. This module runs that term: the bundled
fixture assignment (one notebook, three exercises, 4 points) released to students, six students under a deadline
with a late penalty of 25 % per started day: alice on time and bob a day and two hours late (a Canvas zip, matched
by the roster's LMS ids), carol late but within her extension (the same zip, her second upload), dave a corrupt
notebook (a Moodle zip), erin half done and then, newer, complete (a folder; an older copy that arrives later is
not taken) and frank an answer cell that loops past the cell time limit. The instructor's ex3 test is wrong at
first (it wants 44, not 45); frank's ex3 is graded by hand in formgrader; then the test is fixed and `regrade`
runs. The final grades: alice 4, bob 2 (4 - 2 late), carol 4, dave 0 (refused), erin 4, frank 4 (by hand).

`python -m tools.term_guide` runs it in a scratch folder (as root: grading needs the sandbox; a few minutes) and
rewrites each code block of the guide that follows a `<!-- transcript: NAME -->` line with that step's output.
tests/grader/test_grader_term.py runs the same term, checks every page, table and export against the final
grades, and checks that the guide's blocks are its output (paths, clock times and seconds aside).
"""

from __future__ import annotations

import html
import json
import os
import re
import shlex
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
import zipfile
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

import nbformat

from grader.commands.demo import FIXTURE_SOLUTIONS
from grader.commands.samples import fill, solution_answers
from grader.paths import NBGRADER_CONFIG, REPO, Term, make_term
from grader.settings.lognoise import without_log_noise

GUIDE = REPO / "docs" / "running-a-term.md"
ASSIGNMENT = "fixture-basics"
NOTEBOOK = "exercises.ipynb"
TERM_NAME = "~/ws2026"  # the term folder as the guide names it
DUE = "2026-11-30T23:59:00+00:00"
EXTENSION = "2026-12-03T23:59:00+00:00"
ROSTER = """id,first_name,last_name,email,lms_user_id
alice,Alice,Anders,alice@example.org,1001
bob,Bob,Brown,bob@example.org,1002
carol,Carol,Chen,carol@example.org,1003
dave,Dave,Diaz,dave@example.org,1004
erin,Erin,Evans,erin@example.org,1005
frank,Frank,Fischer,frank@example.org,1006
"""
FINAL = {"alice": 4.0, "bob": 2.0, "carol": 4.0, "dave": 0.0, "erin": 4.0, "frank": 4.0}
LOOP = "while True:\n    pass"
CORRUPT = '{"cells": ['
HALF_DONE_UNIT = "def unit(v):\n    return v"  # erin's first ex2: forgets to scale
SLIP, FIX = "assert total == 44", "assert total == 45"  # the instructor's wrong ex3 test, and its fix
_TRANSCRIPT = re.compile(r"(<!-- transcript: (?P<name>[^>]+?) -->\n```[\w-]*\n)(?P<body>.*?)(?=```)", re.S)
#: a progress bar's line: "autograde:  50%|...", "feedback: 0submission [00:00, ..."
_PROGRESS = re.compile(r"^[\w .-]+: .*(\d+%\||\[\d\d:\d\d)")


@dataclass
class Run:
    """A term run step by step: each step's process result and its transcript as the guide shows it."""

    root: Path  # the scratch folder: the instructor's working folder (zips, inboxes, the roster)
    term: Term
    answers: dict[str, str]  # the instructor's answers, by answer cell
    out: dict[str, subprocess.CompletedProcess] = field(default_factory=dict)
    shown: dict[str, str] = field(default_factory=dict)

    def command(self, *args: str) -> list[str]:
        """The grader on this term (the guide's `grader` alias) with the scratch solutions/ and course/."""
        hidden = ["--term", str(self.term.root), "--solutions", str(self.term.solutions)]
        return [sys.executable, "-m", "grader", *hidden, "--course", str(self.root / "course"), *args]

    def step(self, name: str, *args: str, expect: int = 0) -> subprocess.CompletedProcess:
        result = subprocess.run(
            self.command(*args), cwd=self.root, env=_environment(), capture_output=True, text=True, timeout=900
        )
        assert result.returncode == expect, f"{name}: exit {result.returncode}\n{result.stdout}\n{result.stderr}"
        self.record(name, f"grader {shlex.join(args)}", without_progress(result.stderr) + result.stdout, result)
        return result

    def record(self, name: str, shown_command: str | None, output: str, result=None) -> None:
        text = output if shown_command is None else f"$ {shown_command}\n{output}"
        self.shown[name] = self.local(text)
        self.out[name] = result or subprocess.CompletedProcess([], 0, output, "")

    def local(self, text: str) -> str:
        """Paths as the guide writes them: the term as ~/ws2026, the rest relative to the working folder."""
        for folder in {self.term.root, self.term.root.resolve()}:
            text = text.replace(str(folder), TERM_NAME)
        for folder in {self.root, self.root.resolve()}:
            text = text.replace(f"{folder}/", "")
        return "\n".join(line.rstrip() for line in text.strip("\n").splitlines()) + "\n"

    def notebook(self, answers: dict[str, str]) -> nbformat.NotebookNode:
        """The released student notebook with these answer cells filled in."""
        return fill(nbformat.read(self.root / "course" / ASSIGNMENT / NOTEBOOK, as_version=4), answers)


def _environment() -> dict[str, str]:
    """This repository's grader first, whatever folder the command runs in."""
    return {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))}


def without_progress(stderr: str) -> str:
    """stderr without progress bars (they redraw a line with carriage returns)."""
    lines = [piece for piece in re.split(r"[\r\n]", stderr) if piece.strip() and not _PROGRESS.match(piece)]
    return "".join(f"{line}\n" for line in lines)


def masked(text: str) -> str:
    """A transcript without what changes from run to run: clock times, seconds taken, the sandbox user's uid."""
    text = re.sub(r"(?m)^\d\d:\d\d:\d\d ", "hh:mm:ss ", text)
    text = re.sub(r"(?m) +\d+\.\d(?=  |$)", " s.s", text)  # the score table's seconds column
    return re.sub(r"\(uid \d+;", "(uid N;", text)


def set_ex3_test(solutions: Path, old: str, new: str) -> None:
    path = solutions / ASSIGNMENT / NOTEBOOK
    nb = nbformat.read(path, as_version=4)
    cell = next(c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") == "ex3-tests")
    assert old in cell.source, cell.source
    cell.source = cell.source.replace(old, new)
    nbformat.write(nb, path)


def utc(text: str) -> datetime:
    return datetime.fromisoformat(text).replace(tzinfo=UTC)


def zip_time(moment: datetime) -> tuple[int, int, int, int, int, int]:
    """A zip entry's time: local wall-clock time without a zone, as an LMS's server writes it."""
    year, month, day, hour, minute, second = moment.astimezone().timetuple()[:6]
    return year, month, day, hour, minute, second


def hand_in(folder: Path, nb: nbformat.NotebookNode, moment: datetime) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, folder / NOTEBOOK)
    os.utime(folder / NOTEBOOK, (moment.timestamp(), moment.timestamp()))


def results_table(page: Path) -> str:
    """The "Your results" table of a feedback page, as text: one row a line, cells between bars."""
    table = re.search(r"<table.*?</table>", page.read_text(), re.S)
    assert table, f"no results table in {page}"
    rows = []
    for row in re.findall(r"<tr.*?</tr>", table.group(0), re.S):
        cells = [html.unescape(re.sub(r"<[^>]+>", "", cell)).strip() for cell in re.findall(r"<t[dh].*?</t[dh]>", row)]
        rows.append(" | ".join(cells))
    return "\n".join(rows) + "\n"


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _formgrader_call(port: int, token: str, path: str, body: dict | None = None):
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}{path}",
        data=None if body is None else json.dumps(body).encode(),
        method="GET" if body is None else "PUT",
        headers={"Authorization": f"token {token}", "Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=30) as reply:
        return json.loads(reply.read())


def override_in_formgrader(run: Run, student: str, grade_name: str, score: float) -> str:
    """Start `grader formgrader` and give a manual score through formgrader's own API, as its page does; return
    what the command printed before the server's log."""
    port, token = _free_port(), "term-guide-token"
    server = subprocess.Popen(
        run.command("formgrader", "--port", str(port)),
        cwd=run.root,
        env={**_environment(), "JUPYTER_TOKEN": token},
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        for _ in range(240):
            try:
                _formgrader_call(port, token, "/formgrader/api/status")
                break
            except OSError:
                assert server.poll() is None, server.stdout.read() if server.stdout else ""
                time.sleep(0.5)
        notebooks = _formgrader_call(port, token, f"/formgrader/api/submitted_notebooks/{ASSIGNMENT}/exercises")
        submission = next(n for n in notebooks if n["student"] == student)
        grades = _formgrader_call(port, token, f"/formgrader/api/grades?submission_id={submission['id']}")
        grade = next(g for g in grades if g["name"] == grade_name)
        changed = _formgrader_call(port, token, f"/formgrader/api/grade/{grade['id']}", {"manual_score": score})
        assert changed["manual_score"] == score
        assignments = _formgrader_call(port, token, "/formgrader/api/assignments")
        assert [a["name"] for a in assignments] == [ASSIGNMENT]
    finally:
        server.terminate()  # the command became the server (exec): SIGTERM stops JupyterLab
        try:
            output, _ = server.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            server.kill()
            raise
    own = []
    for line in output.splitlines():
        if line.startswith("["):  # JupyterLab's log begins
            break
        own.append(line.replace(f"127.0.0.1:{port}", "127.0.0.1:8888") + "\n")
    return "".join(own)


def validate_as_student(run: Run, nb: nbformat.NotebookNode) -> None:
    """A student's Validate on their notebook: ``nbgrader validate`` in their folder, with the course's nbgrader
    settings where postBuild puts them for Binder (the user's Jupyter config folder).  The kernel also echoes what
    it writes to stderr onto the terminal; library log lines are left out of the transcript, as grading and
    validation leave them out (grader/settings/lognoise.py)."""
    folder, config = run.root / "student", run.root / "jupyter-config"
    folder.mkdir()
    config.mkdir()
    (config / "nbgrader_config.py").write_text(f"load_subconfig({str(NBGRADER_CONFIG)!r})\n")
    nbformat.write(nb, folder / NOTEBOOK)
    result = subprocess.run(
        [sys.executable, "-m", "nbgrader", "validate", NOTEBOOK],
        cwd=folder,
        env={**_environment(), "JUPYTER_CONFIG_DIR": str(config)},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, f"validate: exit {result.returncode}\n{result.stdout}\n{result.stderr}"
    run.record("validate", f"nbgrader validate {NOTEBOOK}", without_log_noise(result.stderr) + result.stdout, result)


def run_term(root: Path) -> Run:
    """The guide's term, start to end, in ``root`` (which must be empty)."""
    solutions = root / "solutions"
    shutil.copytree(FIXTURE_SOLUTIONS / ASSIGNMENT, solutions / ASSIGNMENT)
    set_ex3_test(solutions, FIX, SLIP)
    run = Run(root, make_term(root / "ws2026", solutions), solution_answers(solutions / ASSIGNMENT / NOTEBOOK))
    run.step("release", "release")
    half_done = run.notebook({**run.answers, "ex2-answer": HALF_DONE_UNIT})
    validate_as_student(run, half_done)
    run.step("deadline", "deadline", ASSIGNMENT, "--due", DUE, "--late", "25%/day", "--extend", f"carol={EXTENSION}")
    run.record("term.toml", None, (run.term.root / "term.toml").read_text())
    (root / "students.csv").write_text(ROSTER)
    right, blank = nbformat.writes(run.notebook(run.answers)), nbformat.writes(run.notebook({}))
    with zipfile.ZipFile(root / "submissions.zip", "w") as bundle:
        for name, moment in (
            ("andersalice_1001_55501_exercises.ipynb", "2026-11-30T20:00:00"),
            ("brownbob_late_1002_55502_exercises.ipynb", "2026-12-02T02:00:00"),
            ("chencarol_late_1003_55503_exercises.ipynb", "2026-12-01T09:00:00"),
            ("chencarol_late_1003_55504_exercises-1.ipynb", "2026-12-02T10:00:00"),
            ("strangerx_1999_55599_exercises.ipynb", "2026-11-30T20:00:00"),
        ):
            text = blank if "55503" in name else right  # carol's first upload is blank, her second complete
            bundle.writestr(zipfile.ZipInfo(name, zip_time(utc(moment))), text)
    run.step(
        "canvas", "collect", ASSIGNMENT, "submissions.zip", "--pattern", "canvas", "--roster", "students.csv", expect=1
    )
    with zipfile.ZipFile(root / "moodle.zip", "w") as bundle:
        folder = "FX-Assignment-1/Dave Diaz_1004_assignsubmission_file_"
        bundle.writestr(zipfile.ZipInfo(f"{folder}/{NOTEBOOK}", zip_time(utc("2026-11-30T21:00:00"))), CORRUPT)
    run.step("moodle", "collect", ASSIGNMENT, "moodle.zip", "--pattern", "moodle", expect=1)
    hand_in(root / "inbox" / "erin", half_done, utc("2026-11-29T10:00:00"))
    hand_in(root / "inbox" / "frank", run.notebook({**run.answers, "ex3-answer": LOOP}), utc("2026-11-30T22:00:00"))
    hand_in(root / "inbox2" / "erin", run.notebook(run.answers), utc("2026-11-30T12:00:00"))
    run.step("folder", "collect", ASSIGNMENT, "inbox")
    run.step("resubmission", "collect", ASSIGNMENT, "inbox2")
    run.step("autograde", "autograde", "--timeout", "5")
    run.step("watch older copy", "watch", ASSIGNMENT, "inbox", "--once")
    run.step("feedback", "feedback")
    run.step("formgrader check", "formgrader", "--check")
    run.record("formgrader", "grader formgrader", override_in_formgrader(run, "frank", "ex3-tests", 1))
    run.step("report after the manual grade", "report")
    run.step("feedback after the manual grade", "feedback")
    run.record("frank's results", None, results_table(run.term.feedback / "frank" / ASSIGNMENT / "exercises.html"))
    set_ex3_test(solutions, SLIP, FIX)
    run.step("regrade", "regrade", "--timeout", "5")
    run.step("report", "report")
    run.step("feedback again", "feedback")
    return run


def guide_blocks(text: str) -> dict[str, str]:
    """Transcript name -> the text of its code block in the guide."""
    return {found["name"]: found["body"] for found in _TRANSCRIPT.finditer(text)}


def rewrite_guide(text: str, shown: dict[str, str]) -> str:
    missing = set(guide_blocks(text)) - set(shown)
    if missing:
        raise SystemExit(f"the guide has transcripts this run does not make: {', '.join(sorted(missing))}")
    return _TRANSCRIPT.sub(lambda found: found.group(1) + shown[found["name"]], text)


def main() -> None:
    with tempfile.TemporaryDirectory(prefix="term-guide-") as scratch:
        run = run_term(Path(scratch))
    text = GUIDE.read_text()
    unused = sorted(set(run.shown) - set(guide_blocks(text)))
    GUIDE.write_text(rewrite_guide(text, run.shown))
    print(f"{GUIDE.relative_to(REPO)}: {len(guide_blocks(text))} transcript(s) written")
    if unused:
        print(f"steps without a place in the guide (add a `<!-- transcript: NAME -->` line): {', '.join(unused)}")


if __name__ == "__main__":
    main()
