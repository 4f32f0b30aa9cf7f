"""A term as an instructor runs it, end to end on real kernels and nbgrader's gradebook, graded once per module.

The term is the one docs/running-a-term.md shows (tools/term_guide.py runs it; its docstring tells the story):
a deadline with a late penalty, one late and one extended student, Canvas and Moodle zips and folders, a refused
notebook, a resubmission and an older copy, an answer cell past the time limit, a manual grade in formgrader, a
test fixed mid-term and a regrade. Every table, page and export is checked against the final grades, and the
guide's transcripts against the commands' output:

    alice 4/4, bob 2/4 (4 - 2 late), carol 4/4, dave 0/4 (rejected), erin 4/4, frank 4/4 (graded by hand).
"""

from __future__ import annotations

import csv
import difflib
import html
import os
import re
from datetime import datetime
from pathlib import Path

import nbformat
import pytest
from grader_fixtures.submissions import ASSIGNMENT, FIXTURE_SOLUTIONS, NOTEBOOK, grader

from grader.paths import make_term
from tools.term_guide import FINAL, GUIDE, Run, guide_blocks, masked, run_term

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def run(tmp_path_factory) -> Run:
    assert os.environ.get("MACHINE_WIDE_TEST"), "this module grades in the sandbox: run it under tests/grader/"
    return run_term(tmp_path_factory.mktemp("term-run"))


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
    assert any(c.source == run.answers["ex2-answer"] for c in kept.cells)


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
    assert canvas[2][:2] == ["Anders, Alice", "1001"]
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


# ---- 8. the guide ---------------------------------------------------------------------------------------------


def test_the_guide_shows_each_commands_real_output(run):
    """docs/running-a-term.md's transcripts are this run's output, paths, clock times and seconds aside; after a
    change to what a command prints, `python -m tools.term_guide` writes them again."""
    blocks = guide_blocks(GUIDE.read_text())
    assert sorted(blocks) == sorted(run.shown)
    for name, text in blocks.items():
        expected = masked(run.shown[name])
        diff = "\n".join(difflib.unified_diff(masked(text).splitlines(), expected.splitlines(), "guide", "run"))
        assert masked(text) == expected, f"transcript {name!r} is stale (python -m tools.term_guide):\n{diff}"
