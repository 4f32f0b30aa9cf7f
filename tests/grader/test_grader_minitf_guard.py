"""Replacing the tensor class's `==` (minitf's, the course's engine) earns nothing: the trusted kernel never sees the
replacement, and the in-kernel guard alone (tests in the student's kernel) puts the original back."""

from __future__ import annotations

import nbformat
import pytest
from grader_fixtures.submissions import grader
from nbformat.v4 import new_code_cell, new_notebook

from grader.commands.collect import import_roster
from grader.paths import make_term
from grader.records.gradebook import ensure_assignment

pytestmark = pytest.mark.slow

CHEAT = "x = tf.constant([0, 0])\ntf.Tensor.__eq__ = lambda self, other: tf.constant([True, True])"


def nbgrader_meta(grade_id: str, **flags) -> dict:
    return {
        "nbgrader": {
            "grade": False,
            "solution": False,
            "locked": False,
            "grade_id": grade_id,
            "schema_version": 3,
            **flags,
        }
    }


def graded_scores(tmp_path, *options: str) -> dict[str, str]:
    source = tmp_path / "src" / "tensors"
    source.mkdir(parents=True)
    cells = [
        new_code_cell("import numpy as np\nimport minitf as tf", metadata=nbgrader_meta("setup", locked=True)),
        new_code_cell(
            "### BEGIN SOLUTION\nx = tf.constant([1, 2])\n### END SOLUTION",
            metadata=nbgrader_meta("answer", solution=True),
        ),
        new_code_cell(
            "assert bool(tf.reduce_all(x == tf.constant([1, 2]))), 'x should hold [1, 2]'",
            metadata=nbgrader_meta("tests", grade=True, locked=True, points=1),
        ),
    ]
    for number, cell in enumerate(cells):
        cell.id = f"cell{number}"
    kernelspec = {"name": "python3", "display_name": "Python 3 (ipykernel)", "language": "python"}
    nbformat.write(new_notebook(cells=cells, metadata={"kernelspec": kernelspec}), source / "tensors.ipynb")
    term = make_term(tmp_path / "term", source.parent)
    ensure_assignment(term, "tensors")
    (tmp_path / "roster.csv").write_text("id\nhonest\ncheat\n")
    import_roster(term, tmp_path / "roster.csv")
    for student, answer in (("honest", "x = tf.constant([1, 2])"), ("cheat", CHEAT)):
        notebook = nbformat.read(term.release / "tensors" / "tensors.ipynb", as_version=4)
        notebook.cells[1].source = answer
        (term.submitted / student / "tensors").mkdir(parents=True)
        nbformat.write(notebook, term.submitted / student / "tensors" / "tensors.ipynb")
    result = grader(term, "autograde", "--quiet", *options)
    assert result.returncode == 0, result.stdout + result.stderr
    return {line.split()[0]: line.split()[3] for line in result.stdout.splitlines()[1:-1]}


def test_replacing_a_tensor_operator_does_not_help(tmp_path):
    assert graded_scores(tmp_path) == {"cheat": "0/1", "honest": "1/1"}


def test_the_trusted_kernel_alone_stops_the_operator_cheat(tmp_path):
    assert graded_scores(tmp_path, "--no-guard") == {"cheat": "0/1", "honest": "1/1"}


def test_the_guard_alone_stops_the_operator_cheat_in_the_students_kernel(tmp_path):
    assert graded_scores(tmp_path, "--no-trusted-kernel") == {"cheat": "0/1", "honest": "1/1"}


def test_without_the_trusted_kernel_and_the_guard_the_operator_cheat_would_work(tmp_path):
    assert graded_scores(tmp_path, "--no-guard", "--no-trusted-kernel") == {"cheat": "1/1", "honest": "1/1"}
