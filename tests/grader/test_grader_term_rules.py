"""The rules of a term without grading: late penalties, term.toml, LMS file names and zip times, timeouts found in
an autograded notebook, natural order. (The term run end to end: test_grader_term.py.)"""

from __future__ import annotations

import zipfile
from datetime import UTC, datetime

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_notebook

from grader.paths import GraderError, Term
from grader.records.late import Deadline, late_note, parse_late_policy, read_deadlines, write_deadlines
from grader.records.lms import unpack
from grader.records.report import natural
from grader.records.standing import TIMEOUT_MESSAGE, timed_out_answers

HOUR = 3600.0


@pytest.mark.parametrize(
    ("seconds", "expected"),
    [(0, 0.0), (1, 1.0), (24 * HOUR, 1.0), (24 * HOUR + 1, 2.0), (30 * 24 * HOUR, 3.0)],
)
def test_a_penalty_per_started_day_grows_with_each_day_and_never_passes_the_score(seconds, expected):
    deadline = Deadline(due=datetime(2026, 12, 1, tzinfo=UTC), late="penalty", penalty=25, per="day")
    assert deadline.penalty_for(seconds, score=3.0, max_score=4.0) == expected


def test_policies_none_and_zero_and_hourly_penalties():
    assert Deadline(late="none").penalty_for(10 * HOUR, 3.0, 4.0) == 0.0
    assert Deadline(late="zero").penalty_for(1, 3.0, 4.0) == 3.0
    assert Deadline(late="penalty", penalty=10, per="hour").penalty_for(2 * HOUR + 1, 4.0, 4.0) == pytest.approx(1.2)


def test_an_extension_moves_only_that_students_due_date():
    due, later = datetime(2026, 12, 1, tzinfo=UTC), datetime(2026, 12, 3, tzinfo=UTC)
    deadline = Deadline(due=due, extensions={"carol": later})
    assert (deadline.due_for("carol"), deadline.due_for("bob")) == (later, due)


def test_term_toml_round_trips_due_dates_policies_and_extensions(tmp_path):
    term = Term(tmp_path)
    deadlines = {
        "part1-tensors": Deadline(
            due=datetime(2026, 12, 1, 23, 59, tzinfo=UTC),
            late="penalty",
            penalty=12.5,
            per="hour",
            extensions={"o'brien.s": datetime(2026, 12, 3, tzinfo=UTC)},
        ),
        "part2-basics": Deadline(late="zero"),
    }
    write_deadlines(term, deadlines)
    assert read_deadlines(term) == deadlines


def test_a_bad_term_toml_is_a_clear_error(tmp_path):
    (tmp_path / "term.toml").write_text('[assignments.a]\nlate = "half"\n')
    with pytest.raises(GraderError, match="late must be one of"):
        read_deadlines(Term(tmp_path))


def test_late_policy_on_the_command_line():
    assert parse_late_policy("10%/day") == ("penalty", 10.0, "day")
    assert parse_late_policy("2.5%/hour") == ("penalty", 2.5, "hour")
    assert parse_late_policy("zero")[0] == "zero"
    with pytest.raises(GraderError, match="like 10%/day"):
        parse_late_policy("10 per day")


def test_late_note_reads_as_days_hours_minutes():
    assert late_note(26 * HOUR + 60) == "1 d 2 h late"
    assert late_note(90) == "2 min late"


def _zip(tmp_path, entries: dict[str, tuple[int, ...]]):
    path = tmp_path / "download.zip"
    with zipfile.ZipFile(path, "w") as bundle:
        for name, when in entries.items():
            bundle.writestr(zipfile.ZipInfo(name, when), f"{{}} {name}")
    return path


def test_canvas_names_match_by_lms_id_keep_the_newer_upload_and_its_time(tmp_path):
    archive = _zip(
        tmp_path,
        {
            "testalice_1001_501_exercises.ipynb": (2026, 11, 30, 20, 0, 0),
            "testbob_LATE_1002_502_exercises.ipynb": (2026, 12, 2, 2, 0, 0),
            "testbob_LATE_1002_503_exercises-1.ipynb": (2026, 12, 2, 3, 0, 0),
            "nobody_1999_504_exercises.ipynb": (2026, 11, 30, 20, 0, 0),
            "testalice_1001_501_notes.txt": (2026, 11, 30, 20, 0, 0),
        },
    )
    unpacked = unpack(archive, "canvas", {"1001": "alice", "1002": "bob"})
    assert sorted(unpacked.students) == ["alice", "bob"]
    when, data = unpacked.students["bob"]["exercises.ipynb"]
    assert data.endswith(b"exercises-1.ipynb") and when == datetime(2026, 12, 2, 3, 0).astimezone()
    assert unpacked.rejected == [("nobody_1999_504_exercises.ipynb", "no roster row has lms_user_id 1999")]
    assert unpacked.ignored == 1


def test_moodle_folders_match_by_participant_below_any_outer_folder(tmp_path):
    archive = _zip(
        tmp_path,
        {
            "A1/Alice Test_1001_assignsubmission_file_/exercises.ipynb": (2026, 11, 30, 20, 0, 0),
            "Bob Test_1002_assignsubmission_file_/exercises.ipynb": (2026, 11, 30, 21, 0, 0),
        },
    )
    unpacked = unpack(archive, "moodle", {"1001": "alice", "1002": "bob"})
    assert {s: list(f) for s, f in unpacked.students.items()} == {
        "alice": ["exercises.ipynb"],
        "bob": ["exercises.ipynb"],
    }


def test_default_pattern_matches_the_file_name_not_the_folders_above_it(tmp_path):
    archive = _zip(tmp_path, {"course_2026/week_1/alice_exercises.ipynb": (2026, 11, 30, 20, 0, 0)})
    assert list(unpack(archive, "default", {}).students) == ["alice"]


def test_a_pattern_without_the_groups_it_needs_is_a_clear_error(tmp_path):
    archive = _zip(tmp_path, {"alice_exercises.ipynb": (2026, 11, 30, 20, 0, 0)})
    with pytest.raises(GraderError, match=r"needs a \(\?P<file_id>"):
        unpack(archive, r"(?P<student_id>\w+)\.ipynb", {})


def test_a_timed_out_answer_is_named_for_the_tests_after_it():
    def cell(grade_id, **flags):
        made = new_code_cell("x", metadata={"nbgrader": {"grade_id": grade_id, **flags}})
        return made

    stopped = cell("ex1-answer", solution=True)
    stopped.outputs = [
        nbformat.v4.new_output("error", ename="CellTimeoutError", evalue=TIMEOUT_MESSAGE.format(limit=30))
    ]
    nb = new_notebook(
        cells=[
            stopped,
            cell("ex1-tests", grade=True),
            cell("ex1-more", grade=True),
            cell("ex2-answer", solution=True),
            cell("ex2-tests", grade=True),
        ]
    )
    assert timed_out_answers(nb) == {
        "ex1-tests": "your answer cell (ex1-answer) ran past the 30 s limit",
        "ex1-more": "your answer cell (ex1-answer) ran past the 30 s limit",
    }


def test_natural_order_puts_ex2_before_ex10():
    assert sorted(["nb:ex10-tests", "nb:ex2-tests", "nb:ex1-tests"], key=natural) == [
        "nb:ex1-tests",
        "nb:ex2-tests",
        "nb:ex10-tests",
    ]
