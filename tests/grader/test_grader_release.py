"""release regenerates student notebooks deterministically; check names every drifted file."""

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from grader.paths import REPO

pytestmark = pytest.mark.slow

FIXTURE_SOLUTIONS = Path(__file__).parents[1] / "grader_fixtures" / "solutions"


def grader(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "grader", *args], cwd=REPO, capture_output=True, text=True, timeout=600
    )


@pytest.fixture()
def sources(tmp_path: Path) -> tuple[Path, Path]:
    solutions = tmp_path / "solutions"
    shutil.copytree(FIXTURE_SOLUTIONS, solutions)
    return solutions, tmp_path / "course"


def test_release_twice_gives_byte_identical_files_and_reports_nothing_changed(sources):
    solutions, course = sources
    first = grader("--solutions", str(solutions), "--course", str(course), "release")
    assert first.returncode == 0, first.stderr
    released = course / "fixture-basics" / "exercises.ipynb"
    before = released.read_bytes()
    second = grader("--solutions", str(solutions), "--course", str(course), "release")
    assert second.returncode == 0, second.stderr
    assert "unchanged" in second.stdout
    assert released.read_bytes() == before


def test_released_notebook_hides_solutions_and_hidden_tests_and_has_clean_metadata(sources):
    solutions, course = sources
    assert grader("--solutions", str(solutions), "--course", str(course), "release").returncode == 0
    text = (course / "fixture-basics" / "exercises.ipynb").read_text()
    notebook = json.loads(text)
    assert "HIDDEN-CHECK" not in text and "return x * x" not in text
    assert "raise NotImplementedError()" in text
    kernelspec = {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"}
    assert notebook["metadata"] == {"kernelspec": kernelspec, "language_info": {"name": "python"}}
    for cell in notebook["cells"]:
        assert set(cell["metadata"]) <= {"nbgrader", "tags", "editable", "deletable"}
        if cell["cell_type"] == "code":
            assert cell["outputs"] == [] and cell["execution_count"] is None


def test_check_passes_in_sync_and_lists_changed_missing_and_stale_files(sources):
    solutions, course = sources
    args = ("--solutions", str(solutions), "--course", str(course))
    assert grader(*args, "release").returncode == 0
    assert grader(*args, "check").returncode == 0

    released = course / "fixture-basics" / "exercises.ipynb"
    released.write_text(released.read_text().replace("Exercise 1", "Exercise one"))
    (course / "fixture-basics" / "notes.txt").write_text("left over")
    shutil.copy(solutions / "fixture-basics" / "exercises.ipynb", solutions / "fixture-basics" / "more.ipynb")
    result = grader(*args, "check")
    assert result.returncode == 1
    assert "changed: course/fixture-basics/exercises.ipynb" in result.stderr
    assert "missing: course/fixture-basics/more.ipynb" in result.stderr
    assert "stale:   course/fixture-basics/notes.txt" in result.stderr

    assert grader(*args, "release").returncode == 0
    assert not (course / "fixture-basics" / "notes.txt").exists()
    assert grader(*args, "check").returncode == 0


def test_release_of_unknown_assignment_is_a_clear_error(sources):
    solutions, course = sources
    result = grader("--solutions", str(solutions), "--course", str(course), "release", "no-such-assignment")
    assert result.returncode == 2
    assert "unknown assignment 'no-such-assignment'" in result.stderr
