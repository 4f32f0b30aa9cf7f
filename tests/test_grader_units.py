"""The grader's notebook transformations, checked on single cells."""

from __future__ import annotations

from nbformat import NotebookNode
from nbformat.v4 import new_code_cell, new_output

from grader.execution import defined_names, imported_modules
from grader.preprocessors import DropLogNoise, HideHiddenTests

TF_LINES = (
    "WARNING: All log messages before absl::InitializeLog() is called are written to STDERR\n"
    "I0000 00:00:1795990431.832919       1 port.cc:153] oneDNN custom operations are on.\n"
    "2026-11-29 21:00:00.000000: I tensorflow/core/util/port.cc:153] oneDNN custom operations are on.\n"
)


def run(preprocessor, cell):
    return preprocessor.preprocess_cell(cell, {}, 0)[0]


def test_log_noise_is_dropped_line_by_line_and_real_warnings_stay():
    cell = new_code_cell("import tensorflow", outputs=[
        new_output("stream", name="stderr", text=TF_LINES),
        new_output("stream", name="stderr", text=TF_LINES + "UserWarning: this one is real\n"),
        new_output("stream", name="stdout", text="I0000 00:00:1.0 1 port.cc:1] stays on stdout\n"),
    ])
    outputs = run(DropLogNoise(), cell).outputs
    assert [(o.name, o.text) for o in outputs] == [
        ("stderr", "UserWarning: this one is real\n"), ("stdout", "I0000 00:00:1.0 1 port.cc:1] stays on stdout\n")]


def test_hidden_tests_are_blanked_and_their_errors_keep_only_the_message():
    source = ("assert f(1) == 1, 'visible'\n### BEGIN HIDDEN TESTS\nassert f(2) == 4, 'f(2) should be 4'\n"
              "### END HIDDEN TESTS\n")
    cell = new_code_cell(source, metadata={"nbgrader": {"grade": True, "grade_id": "t", "points": 1}}, outputs=[
        NotebookNode(output_type="error", ename="AssertionError", evalue="f(2) should be 4",
                     traceback=["----> 3 assert f(2) == 4, 'f(2) should be 4'", "AssertionError: f(2) should be 4"])])
    hidden = run(HideHiddenTests(), cell)
    assert "f(2) == 4" not in hidden.source and "assert f(1) == 1, 'visible'" in hidden.source
    assert hidden.outputs[0].traceback == ["AssertionError: f(2) should be 4"]


def test_cells_without_hidden_tests_keep_their_full_traceback():
    cell = new_code_cell("assert False, 'x'", outputs=[NotebookNode(
        output_type="error", ename="AssertionError", evalue="x", traceback=["line 1", "AssertionError: x"])])
    assert run(HideHiddenTests(), cell).outputs[0].traceback == ["line 1", "AssertionError: x"]


def test_names_and_imports_of_a_read_only_cell_are_found():
    source = ("import numpy as np\nimport os.path\nfrom math import sqrt as root\n"
              "def helper(): pass\nx, (y, z) = 1, (2, 3)")
    assert defined_names(source) == ["np", "os", "root", "helper", "x", "y", "z"]
    assert imported_modules(source) == ["numpy", "os.path", "math"]
    assert defined_names("def broken(:") == []
