"""A term as an instructor runs it, end to end on real kernels and nbgrader's gradebook, graded once per module.

Six students hand in the fixture assignment (4 points) under a deadline with a late penalty of 25 % per started
day: alice on time and bob a day and two hours late (a Canvas zip, matched by the roster's LMS ids), carol late
but within her extension (the same zip, her second upload), dave a corrupt notebook (a Moodle zip), erin half
done and then, newer, complete (a folder; an older copy that arrives later must not replace it) and frank an
answer cell that loops past the cell time limit. The instructor's ex3 test is wrong at first (it wants 44, not
45); frank's ex3 is graded by hand in formgrader; then the test is fixed and `regrade` runs. Every table, page
and export is checked against the final grades:

    alice 4/4, bob 2/4 (4 - 2 late), carol 4/4, dave 0/4 (rejected), erin 4/4, frank 4/4 (graded by hand).
"""

from __future__ import annotations

import csv
import html
import json
import os
import re
import shutil
import socket
import subprocess
import time
import urllib.request
import zipfile
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

import nbformat
import pytest
from grader_fixtures.submissions import (
    ASSIGNMENT,
    CORRECT,
    FIXTURE_SOLUTIONS,
    NOTEBOOK,
    build,
    grader,
    grader_command,
)

from grader.paths import REPO, Term, make_term

pytestmark = pytest.mark.slow

DUE = "2026-11-30T23:59:00+00:00"
EXTENSION = "2026-12-03T23:59:00+00:00"
ROSTER = """id,first_name,last_name,email,lms_user_id
alice,Alice,Test,alice@example.org,1001
bob,Bob,Test,bob@example.org,1002
carol,Carol,Test,carol@example.org,1003
dave,Dave,Test,dave@example.org,1004
erin,Erin,Test,erin@example.org,1005
frank,Frank,Test,frank@example.org,1006
"""
FINAL = {"alice": 4.0, "bob": 2.0, "carol": 4.0, "dave": 0.0, "erin": 4.0, "frank": 4.0}
LOOP = "while True:\n    pass"
CORRUPT = '{"cells": ['


def utc(text: str) -> datetime:
    return datetime.fromisoformat(text).replace(tzinfo=UTC)


def zip_time(moment: datetime) -> tuple[int, ...]:
    """A zip entry's time: local wall-clock time without a zone, as an LMS's server writes it."""
    return moment.astimezone().timetuple()[:6]


def set_ex3_test(solutions: Path, old: str, new: str) -> None:
    path = solutions / ASSIGNMENT / NOTEBOOK
    nb = nbformat.read(path, as_version=4)
    cell = next(c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") == "ex3-tests")
    assert old in cell.source
    cell.source = cell.source.replace(old, new)
    nbformat.write(nb, path)


def hand_in(folder: Path, nb: nbformat.NotebookNode, moment: datetime) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, folder / NOTEBOOK)
    os.utime(folder / NOTEBOOK, (moment.timestamp(), moment.timestamp()))


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def formgrader_call(port: int, token: str, path: str, body: dict | None = None):
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}{path}",
        data=None if body is None else json.dumps(body).encode(),
        method="GET" if body is None else "PUT",
        headers={"Authorization": f"token {token}", "Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=30) as reply:
        return json.loads(reply.read())


def override_in_formgrader(term: Term, student: str, grade_name: str, score: float) -> str:
    """Start `grader formgrader` and give a manual score through formgrader's own API, as its page does."""
    port, token = free_port(), "term-test-token"
    server = subprocess.Popen(
        [*grader_command(term, "formgrader", "--port", str(port))],
        cwd=REPO,
        env={**os.environ, "JUPYTER_TOKEN": token},
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        for _ in range(240):
            try:
                formgrader_call(port, token, "/formgrader/api/status")
                break
            except OSError:
                assert server.poll() is None, server.stdout.read() if server.stdout else ""
                time.sleep(0.5)
        notebooks = formgrader_call(port, token, f"/formgrader/api/submitted_notebooks/{ASSIGNMENT}/exercises")
        submission = next(n for n in notebooks if n["student"] == student)
        grades = formgrader_call(port, token, f"/formgrader/api/grades?submission_id={submission['id']}")
        grade = next(g for g in grades if g["name"] == grade_name)
        changed = formgrader_call(port, token, f"/formgrader/api/grade/{grade['id']}", {"manual_score": score})
        assert changed["manual_score"] == score
        assignments = formgrader_call(port, token, "/formgrader/api/assignments")
        assert [a["name"] for a in assignments] == [ASSIGNMENT]
    finally:
        server.terminate()  # the command became the server (exec): SIGTERM stops JupyterLab
        try:
            output, _ = server.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            server.kill()
            raise
    return output


@dataclass
class Run:
    term: Term
    out: dict[str, subprocess.CompletedProcess] = field(default_factory=dict)

    def step(self, name: str, *args: str, expect: int = 0) -> subprocess.CompletedProcess:
        result = grader(self.term, *args)
        assert result.returncode == expect, f"{name}: {result.stdout}\n{result.stderr}"
        self.out[name] = result
        return result


@pytest.fixture(scope="module")
def run(tmp_path_factory) -> Run:
    root = tmp_path_factory.mktemp("term-run")
    solutions = root / "solutions"
    shutil.copytree(FIXTURE_SOLUTIONS / ASSIGNMENT, solutions / ASSIGNMENT)
    set_ex3_test(solutions, "assert total == 45", "assert total == 44")  # the instructor's slip
    term = make_term(root / "term", solutions)
    run = Run(term)
    (root / "roster.csv").write_text(ROSTER)
    run.step(
        "deadline",
        "deadline",
        ASSIGNMENT,
        "--due",
        DUE,
        "--late",
        "25%/day",
        "--extend",
        f"carol={EXTENSION}",
    )
    (root / "empty").mkdir()
    run.step("first collect", "collect", ASSIGNMENT, str(root / "empty"), "--roster", str(root / "roster.csv"))
    right = nbformat.writes(build(term))  # from the term's release copy, which the first collect made

    canvas = root / "submissions.zip"
    with zipfile.ZipFile(canvas, "w") as bundle:
        for name, moment in (
            ("testalice_1001_55501_exercises.ipynb", "2026-11-30T20:00:00"),
            ("testbob_late_1002_55502_exercises.ipynb", "2026-12-02T02:00:00"),
            ("testcarol_late_1003_55503_exercises.ipynb", "2026-12-01T09:00:00"),
            ("testcarol_late_1003_55504_exercises-1.ipynb", "2026-12-02T10:00:00"),
            ("strangerx_1999_55599_exercises.ipynb", "2026-11-30T20:00:00"),
        ):
            text = right if "55503" not in name else nbformat.writes(build(term, {}))  # carol's first upload: blank
            bundle.writestr(zipfile.ZipInfo(name, zip_time(utc(moment))), text)
    run.step("canvas", "collect", ASSIGNMENT, str(canvas), "--pattern", "canvas", expect=1)

    moodle = root / "moodle.zip"
    with zipfile.ZipFile(moodle, "w") as bundle:
        folder = "FX-Assignment-1/Dave Test_1004_assignsubmission_file_"
        bundle.writestr(zipfile.ZipInfo(f"{folder}/{NOTEBOOK}", zip_time(utc("2026-11-30T21:00:00"))), CORRUPT)
    run.step("moodle", "collect", ASSIGNMENT, str(moodle), "--pattern", "moodle", expect=1)

    first, second = root / "inbox-first", root / "inbox-second"
    hand_in(
        first / "erin", build(term, {**CORRECT, "ex2-answer": "def unit(v):\n    return v"}), utc("2026-11-29T10:00:00")
    )
    hand_in(first / "frank", build(term, {**CORRECT, "ex3-answer": LOOP}), utc("2026-11-30T22:00:00"))
    hand_in(second / "erin", build(term), utc("2026-11-30T12:00:00"))
    run.step("folder", "collect", ASSIGNMENT, str(first))
    run.step("resubmission", "collect", ASSIGNMENT, str(second))
    run.step("autograde", "autograde", "--quiet", "--timeout", "5")
    run.step("watch older copy", "watch", ASSIGNMENT, str(first), "--once")
    run.step("feedback", "feedback", "--quiet")
    run.step("formgrader check", "formgrader", "--check")
    run.out["formgrader"] = subprocess.CompletedProcess([], 0, override_in_formgrader(term, "frank", "ex3-tests", 1))
    run.step("report after the manual grade", "report")
    run.step("feedback after the manual grade", "feedback", "--quiet")
    set_ex3_test(solutions, "assert total == 44", "assert total == 45")  # the fix
    run.step("regrade", "regrade", "--quiet", "--timeout", "5")
    run.step("report", "report")
    run.step("feedback again", "feedback", "--quiet")
    return run


def read_csv(path: Path) -> list[dict[str, str]]:
    with path.open(newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def page(run: Run, student: str) -> str:
    """The text of a student's feedback page, without its markup (and with HTML entities decoded)."""
    text = (run.term.feedback / student / ASSIGNMENT / "exercises.html").read_text()
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", text)).split())


# ---- 1. deadlines and late work -----------------------------------------------------------------------------


def test_deadline_and_extension_are_kept_in_the_term_and_in_nbgraders_gradebook(run):
    from nbgrader.api import Gradebook

    assert "due 2026-11-30T23:59:00Z; late work loses 25% of the points per started day" in run.out["deadline"].stdout
    assert "extension: carol until 2026-12-03T23:59:00+00:00" in run.out["deadline"].stdout
    with Gradebook(run.term.db_url) as gradebook:
        assignment = gradebook.find_assignment(ASSIGNMENT)
        assert assignment.duedate == datetime(2026, 11, 30, 23, 59)
        times = {s.student.id: s.timestamp for s in assignment.submissions}
        carol = gradebook.find_submission(ASSIGNMENT, "carol")
        assert carol.duedate == datetime(2026, 12, 3, 23, 59) and carol.total_seconds_late == 0
        bob = gradebook.find_submission(ASSIGNMENT, "bob")
        assert bob.total_seconds_late == 26 * 3600 + 60
    assert times["alice"] == datetime(2026, 11, 30, 20, 0)  # from the zip entry
    assert times["carol"] == datetime(2026, 12, 2, 10, 0)  # her second, newer upload
    assert times["erin"] == datetime(2026, 11, 30, 12, 0)  # from the file's modification time


def test_late_work_loses_its_penalty_in_the_score_table_report_and_feedback(run):
    autograde = run.out["autograde"].stdout
    bob_row = next(line for line in autograde.splitlines() if line.startswith("bob "))
    assert "1/4" in bob_row and "1 d 2 h late (handed in 2026-12-02T02:00:00Z), -2 points" in bob_row
    carol_row = next(line for line in autograde.splitlines() if line.startswith("carol "))
    assert "extension to 2026-12-03T23:59:00Z" in carol_row and "late" not in carol_row
    assert "bob" in run.out["report"].stdout and "-2 points" in run.out["report"].stdout
    bob = page(run, "bob")
    assert "late penalty -2 1 d 2 h late (handed in 2026-12-02T02:00:00Z), -2 points" in bob
    assert "total 2 / 4" in bob


def test_the_newer_of_two_hand_ins_is_kept_and_the_older_is_named(run):
    assert "1 updated" in run.out["resubmission"].stdout
    watch = run.out["watch older copy"].stdout
    assert "OLDER, NOT TAKEN erin: the work here was handed in 2026-11-29T10:00:00Z" in watch
    kept = nbformat.read(run.term.submitted / "erin" / ASSIGNMENT / NOTEBOOK, as_version=4)
    assert any(c.source == CORRECT["ex2-answer"] for c in kept.cells)


# ---- 2. nothing rejected in silence ---------------------------------------------------------------------------


def test_a_rejected_notebook_is_in_the_score_table_report_and_has_a_feedback_page(run):
    moodle = run.out["moodle"].stdout
    assert (
        moodle.startswith("collect fixture-basics: 0 new")
        and "REJECTED: dave/exercises.ipynb: not a readable" in moodle
    )
    dave_row = next(line for line in run.out["autograde"].stdout.splitlines() if line.startswith("dave "))
    assert "0/4" in dave_row and "exercises.ipynb rejected: not a readable notebook" in dave_row
    row = next(r for r in read_csv(run.term.reports / "grades.csv") if r["id"] == "dave")
    assert row[ASSIGNMENT] == "0" and "exercises.ipynb rejected: not a readable notebook" in row["flags"]
    text = page(run, "dave")
    assert "could not be graded, so it scores 0 points" in text and "not a readable notebook" in text
    assert "hand in the .ipynb file itself again" in text


def test_an_unknown_lms_id_is_rejected_by_name(run):
    assert "strangerx_1999_55599_exercises.ipynb (in submissions.zip): no roster row has lms_user_id 1999" in (
        run.out["canvas"].stdout
    )


# ---- 3. feedback that matches the final grade -----------------------------------------------------------------


def test_feedback_results_table_is_built_from_the_final_grades(run):
    frank = page(run, "frank")
    assert "graded by hand (the automatic check said: failed: your answer cell (ex3-answer) ran past the 5 s" in frank
    assert "ex3-tests 1 / 1 graded by hand" in frank and "total 4 / 4" in frank
    for student, score in FINAL.items():
        if student != "dave":
            assert f"total {score:g} / 4" in page(run, student), student


def test_regrade_rebuilds_the_stale_pages_and_lists_flagged_submissions(run):
    regrade = run.out["regrade"].stdout
    assert "alice/fixture-basics: 3 -> 4 (of 4)" in regrade and "erin/fixture-basics: 3 -> 4 (of 4)" in regrade
    assert "feedback: " in regrade and "page(s) rebuilt" in regrade
    assert "NEEDS MANUAL GRADING frank/fixture-basics" in regrade
    assert "NEEDS MANUAL GRADING frank/fixture-basics" in run.out["report"].stdout
    assert "out of date" not in run.out["report"].stdout
    assert "0 feedback page(s) written" in run.out["feedback again"].stdout  # nothing was stale
    assert "ex3-tests 1 / 1 passed" in page(run, "alice")


def report_scores(output: str) -> dict[str, float]:
    """Student -> score of the fixture assignment in `report`'s table ('bob   2 / 4  flags')."""
    rows = (re.match(r"(\w+)\s+([\d.]+) / 4\b", line) for line in output.splitlines())
    return {row.group(1): float(row.group(2)) for row in rows if row}


def test_regrade_lines_give_final_scores_as_report_csv_and_pages_do(run):
    lines = re.findall(r"(\w+)/fixture-basics: ([\d.]+) -> ([\d.]+) \(of 4(.*)\)", run.out["regrade"].stdout)
    moved = {student: (float(old), float(new), note) for student, old, new, note in lines}
    assert moved["bob"] == (1.0, 2.0, ", after -2 points for late work")  # 3 - 2 -> 4 - 2
    assert moved["alice"] == (3.0, 4.0, "")
    before = report_scores(run.out["report after the manual grade"].stdout)
    assert before == {**FINAL, "alice": 3.0, "bob": 1.0, "carol": 3.0, "erin": 3.0}
    csv_scores = {row["id"]: float(row[ASSIGNMENT]) for row in read_csv(run.term.reports / "grades.csv")}
    for student, (old, new, _) in moved.items():
        assert old == before[student] and new == FINAL[student] == csv_scores[student], student
        assert f"total {new:g} / 4" in page(run, student), student
    assert report_scores(run.out["report"].stdout) == FINAL


def test_manual_grading_marks_pages_stale_until_feedback_rebuilds_them(run):
    assert "6 feedback page(s) written" in run.out["feedback"].stdout  # 5 graded notebooks and dave's refusal
    report = run.out["report after the manual grade"].stdout
    assert "feedback out of date for 1 submission(s); rebuild them with: grader feedback" in report
    assert "1 feedback page(s) written" in run.out["feedback after the manual grade"].stdout  # frank's only
    assert "graded by hand: exercises:ex3-tests" in run.out["report"].stdout


# ---- 4. formgrader on the term --------------------------------------------------------------------------------


def test_formgrader_runs_on_the_term_and_its_manual_grade_counts(run):
    check = run.out["formgrader check"].stdout
    assert f"course root:   {run.term.root}" in check and "6 student(s)" in check
    assert (run.term.root / "nbgrader_config.py").is_file()
    row = next(r for r in read_csv(run.term.reports / "grades.csv") if r["id"] == "frank")
    assert row[ASSIGNMENT] == "4"


def test_formgrader_without_a_term_is_a_clear_error(tmp_path):
    result = grader(make_term(tmp_path / "none", FIXTURE_SOLUTIONS), "formgrader", "--check")
    assert result.returncode == 2 and "the first `collect` creates the term" in result.stderr


# ---- 5. timeouts said plainly ---------------------------------------------------------------------------------


def test_an_answer_cell_past_the_time_limit_is_named_in_table_report_and_page(run):
    frank_row = next(line for line in run.out["autograde"].stdout.splitlines() if line.startswith("frank "))
    assert "exercises: your answer cell (ex3-answer) ran past the 5 s limit" in frank_row
    row = next(r for r in read_csv(run.term.reports / "grades.csv") if r["id"] == "frank")
    assert "your answer cell (ex3-answer) ran past the 5 s limit" in row["flags"]
    assert "ran past the 5 s time limit for a cell and was stopped" in page(run, "frank")


# ---- 6. LMS round trip ----------------------------------------------------------------------------------------


def test_canvas_and_moodle_exports_carry_the_final_grades_in_their_import_formats(run):
    canvas = list(csv.reader((run.term.reports / "canvas.csv").open()))
    assert canvas[0] == ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", ASSIGNMENT]
    assert canvas[1][0] == "Points Possible" and canvas[1][5] == "4"
    assert {row[2]: float(row[5]) for row in canvas[2:]} == FINAL
    assert canvas[2][:2] == ["Test, Alice", "1001"]
    moodle = read_csv(run.term.reports / f"moodle-{ASSIGNMENT}.csv")
    assert {row["Identifier"]: float(row["Grade"]) for row in moodle} == {
        f"Participant {1001 + n}": FINAL[s] for n, s in enumerate(sorted(FINAL))
    }
    assert "-2 points" in next(r for r in moodle if r["Identifier"] == "Participant 1002")["Feedback comments"]


def test_generic_csv_carries_the_final_grades(run):
    rows = read_csv(run.term.reports / "grades.csv")
    assert {row["id"]: float(row[ASSIGNMENT]) for row in rows} == FINAL
    assert {row["id"]: float(row["total"]) for row in rows} == FINAL


# ---- 7. statistics an instructor reads ------------------------------------------------------------------------


def test_per_test_and_per_notebook_statistics_match_the_grades(run):
    tests = read_csv(run.term.reports / "tests.csv")
    assert [r["test"] for r in tests] == ["ex1-tests", "ex2-tests", "ex3-tests"]
    ex3 = tests[2]
    assert (ex3["points"], ex3["graded"], ex3["full marks"]) == ("1", "6", "5")  # dave has 0, frank by hand
    notebooks = read_csv(run.term.reports / "notebooks.csv")
    assert notebooks == [
        {
            "assignment": ASSIGNMENT,
            "notebook": "exercises",
            "points": "4",
            "graded": "6",
            "mean": f"{sum(FINAL.values()) / 6:.2f}",
            "median": "4",
        }
    ]


def test_each_student_has_an_index_page_with_totals_linking_their_pages(run):
    index = (run.term.feedback / "bob" / "index.html").read_text()
    assert "2 / 4" in index and f"href='{ASSIGNMENT}/exercises.html'" in index and "-2 points" in index
    dave = (run.term.feedback / "dave" / "index.html").read_text()
    assert "0 / 4" in dave and "rejected" in dave
