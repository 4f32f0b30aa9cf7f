"""collect brings in what is valid, names every problem, and leaves the rest of the class untouched."""

from __future__ import annotations

import zipfile

import nbformat
import pytest
from grader_fixtures.submissions import ASSIGNMENT, FIXTURE_SOLUTIONS, NOTEBOOK, build, grader, new_term

from grader.paths import make_term
from grader.records.rejections import rejections
from grader.records.termstate import done_marker

pytestmark = pytest.mark.slow


@pytest.fixture()
def term(tmp_path):
    return new_term(tmp_path / "term", ["alice", "bob", "carol"])


def write(path, nb) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, path)


def test_folder_collect_takes_valid_work_and_rejects_unknown_students_broken_and_foreign_notebooks(term, tmp_path):
    inbox = tmp_path / "inbox"
    write(inbox / "alice" / NOTEBOOK, build(term))
    write(inbox / "alice" / "scratch.ipynb", build(term))
    write(inbox / "bob" / ASSIGNMENT / NOTEBOOK, build(term))  # nbgrader's nested layout works too
    (inbox / "carol").mkdir()
    (inbox / "carol" / NOTEBOOK).write_text('{"cells": [')
    write(inbox / "eve" / NOTEBOOK, build(term))
    result = grader(term, "collect", ASSIGNMENT, str(inbox))
    assert result.returncode == 1  # something was rejected
    assert "eve: unknown student (not in the roster)" in result.stdout
    assert "carol/exercises.ipynb: not a readable notebook" in result.stdout
    assert "alice/scratch.ipynb: not a notebook of fixture-basics" in result.stdout
    assert sorted(p.parent.parent.name for p in term.submitted.glob(f"*/{ASSIGNMENT}/*.ipynb")) == ["alice", "bob"]
    assert result.stdout.startswith("collect fixture-basics: 2 new, 0 updated, 0 unchanged, 3 rejected")
    # carol handed in something: her submission is kept (without a notebook) with the reason, and graded 0
    assert [(r.student, r.file) for r in rejections(term, ASSIGNMENT)] == [
        ("alice", "scratch.ipynb"),
        ("carol", NOTEBOOK),
    ]
    assert (term.submitted / "carol" / ASSIGNMENT).is_dir() and "no submission yet" not in result.stdout


def test_collect_refuses_links_to_the_solutions_and_other_files_that_are_not_regular(term, tmp_path):
    """A notebook linked to the instructor's solution would score full marks and show the solutions."""
    import os

    inbox = tmp_path / "inbox"
    (inbox / "alice").mkdir(parents=True)
    (inbox / "alice" / NOTEBOOK).symlink_to(term.solutions / ASSIGNMENT / NOTEBOOK)
    (inbox / "bob").symlink_to(term.solutions / ASSIGNMENT)
    (inbox / "carol").mkdir()
    os.mkfifo(inbox / "carol" / NOTEBOOK)
    result = grader(term, "collect", ASSIGNMENT, str(inbox))
    assert result.returncode == 1
    assert "alice/exercises.ipynb: is a symbolic link, not a file" in result.stdout
    assert "bob: the folder is a symbolic link; nothing collected" in result.stdout
    assert "carol/exercises.ipynb: is not a regular file" in result.stdout
    assert list(term.submitted.glob("*/*/*.ipynb")) == []
    assert {(r.student, r.file) for r in rejections(term, ASSIGNMENT)} == {("alice", NOTEBOOK), ("carol", NOTEBOOK)}


def test_collecting_again_keeps_identical_work_and_marks_changed_work_for_regrading(term, tmp_path):
    inbox = tmp_path / "inbox"
    write(inbox / "alice" / NOTEBOOK, build(term))
    assert grader(term, "collect", ASSIGNMENT, str(inbox)).returncode == 0
    marker = done_marker(term, "alice", ASSIGNMENT)
    marker.parent.mkdir(parents=True, exist_ok=True)
    marker.write_text("{}")
    again = grader(term, "collect", ASSIGNMENT, str(inbox))
    assert "0 new, 0 updated, 1 unchanged" in again.stdout and marker.exists()
    write(inbox / "alice" / NOTEBOOK, build(term, {"ex3-answer": "total = 45"}))
    changed = grader(term, "collect", ASSIGNMENT, str(inbox))
    assert "0 new, 1 updated, 0 unchanged" in changed.stdout and not marker.exists()


def test_zip_from_an_lms_is_collected_with_nbgraders_zip_collection(term, tmp_path):
    archive = tmp_path / "download.zip"
    text = nbformat.writes(build(term))
    with zipfile.ZipFile(archive, "w") as bundle:
        bundle.writestr(f"submissions/alice_{NOTEBOOK}", text)
        bundle.writestr(f"submissions/bob_{NOTEBOOK}", text)
        bundle.writestr(f"submissions/eve_{NOTEBOOK}", text)
    result = grader(term, "collect", ASSIGNMENT, str(archive))
    assert "eve: unknown student" in result.stdout
    assert (term.submitted / "alice" / ASSIGNMENT / NOTEBOOK).read_text() == (
        term.submitted / "bob" / ASSIGNMENT / NOTEBOOK
    ).read_text()
    assert nbformat.reads((term.submitted / "alice" / ASSIGNMENT / NOTEBOOK).read_text(), 4).cells


def test_roster_is_imported_from_csv_and_a_bad_roster_is_a_clear_error(tmp_path):
    term = make_term(tmp_path / "term", FIXTURE_SOLUTIONS)
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    roster = tmp_path / "roster.csv"
    roster.write_text("id,first_name,last_name,email\nalice,Alice,A,alice@example.org\n")
    result = grader(term, "collect", ASSIGNMENT, str(inbox), "--roster", str(roster))
    assert "roster: 1 student(s)" in result.stdout
    roster.write_text("name\nalice\n")
    bad = grader(term, "collect", ASSIGNMENT, str(inbox), "--roster", str(roster))
    assert bad.returncode == 2 and "needs a header row with an 'id' column" in bad.stderr


def test_collect_without_a_roster_or_for_an_unknown_assignment_is_a_clear_error(tmp_path):
    term = make_term(tmp_path / "term", FIXTURE_SOLUTIONS)
    (tmp_path / "inbox").mkdir()
    no_roster = grader(term, "collect", ASSIGNMENT, str(tmp_path / "inbox"))
    assert no_roster.returncode == 2 and "no students yet" in no_roster.stderr
    unknown = grader(term, "collect", "no-such-assignment", str(tmp_path / "inbox"))
    assert unknown.returncode == 2 and "unknown assignment 'no-such-assignment'" in unknown.stderr


def test_term_directory_inside_the_sources_is_refused(tmp_path):
    from grader.paths import DEFAULT_SOLUTIONS

    result = grader(make_term(tmp_path / "t", FIXTURE_SOLUTIONS), "report")  # sanity: a normal term works
    assert "no gradebook" in result.stderr
    import subprocess
    import sys

    from grader.paths import REPO

    inside = subprocess.run(
        [sys.executable, "-m", "grader", "--term", str(DEFAULT_SOLUTIONS / "term"), "report"],
        cwd=REPO,
        capture_output=True,
        text=True,
    )
    assert inside.returncode == 2 and "must not be inside" in inside.stderr
