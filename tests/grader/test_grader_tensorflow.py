"""Fair: TensorFlow's import logs on stderr never cost a passing test its points."""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest
from grader_fixtures.submissions import grader

from grader.commands.collect import import_roster
from grader.commands.samples import fill, solution_answers
from grader.paths import make_term
from grader.records.gradebook import ensure_assignment

SOURCES = Path(__file__).parents[1] / "grader_fixtures" / "solutions_tf"

pytestmark = [pytest.mark.slow, pytest.mark.tf]


def test_a_test_cell_that_imports_tensorflow_keeps_its_points(tmp_path):
    term = make_term(tmp_path / "term", SOURCES)
    ensure_assignment(term, "fixture-tf")
    (tmp_path / "roster.csv").write_text("id\nada\n")
    import_roster(term, tmp_path / "roster.csv")
    notebook = "tensorflow-noise.ipynb"
    answered = fill(
        nbformat.read(term.release / "fixture-tf" / notebook, as_version=4),
        solution_answers(SOURCES / "fixture-tf" / notebook),
    )
    folder = term.submitted / "ada" / "fixture-tf"
    folder.mkdir(parents=True)
    nbformat.write(answered, folder / notebook)

    result = grader(term, "autograde", "--quiet", "--timeout", "120")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "2/2" in result.stdout
    graded = nbformat.read(term.autograded / "ada" / "fixture-tf" / notebook, as_version=4)
    test_cell = graded.cells[-1]
    assert [o for o in test_cell.outputs if o.get("name") == "stderr"] == []
