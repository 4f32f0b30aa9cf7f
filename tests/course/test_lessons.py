"""The course notebooks: well-formed, runnable on both engines, and failing for students until answered.

Every notebook in solutions/<assignment>/ is picked up, so new parts are tested without editing this file.
Conventions: docs/lessons.md.
"""

from __future__ import annotations

import re
from pathlib import Path

import nbformat
import pytest
from notebook_runner import (
    MINITF_IMPORT,
    MINITF_ONLY_TAG,
    RANDOM_OUTPUT_TAG,
    NotebookRun,
    execute,
    execute_cached,
    is_test_cell,
    mask_numbers,
    printed_difference,
    nbgrader_meta,
    released_notebook,
    solution_notebooks,
    tags_of,
)

SOLUTIONS = solution_notebooks()
SETUP_LINES = (
    "import os",
    'os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")',
    "import numpy as np",
    MINITF_IMPORT,
)
TIMING_CODE = re.compile(r"\bimport time\b|\btime\.\w+\(|timeit|perf_counter|process_time|%%?time\b")


def _name(path: Path) -> str:
    return f"{path.parent.name}/{path.stem}"


each_solution = pytest.mark.parametrize("solution", SOLUTIONS, ids=_name)
each_engine = pytest.mark.parametrize("engine", ["minitf", pytest.param("tensorflow", marks=pytest.mark.tf)])


def _read(path: Path) -> nbformat.NotebookNode:
    return nbformat.read(path, as_version=4)


def _grade_id(cell: nbformat.NotebookNode) -> str | None:
    return nbgrader_meta(cell).get("grade_id")


def _label(cell) -> str:
    return f"cell {cell.index} ({cell.grade_id or 'ungraded'})"


def _assert_runs_cleanly(run: NotebookRun) -> None:
    errors = [f"{_label(cell)}: {name}: {message}" for cell in run.cells for name, message in cell.errors]
    errors += [f"a widget callback: {name}: {message}" for name, message in run.widget_errors]
    assert not errors, f"{_name(run.path)} on {run.engine} raised:\n" + "\n".join(errors)
    noisy = [f"{_label(c)}: {c.stderr.strip()[:300]}" for c in run.cells if c.is_test and c.stderr]
    heading = f"{_name(run.path)} on {run.engine}: nbgrader scores 0 for stderr in a test cell:\n"
    assert not noisy, heading + "\n".join(noisy)


def test_course_has_lessons() -> None:
    assert SOLUTIONS, "no notebooks found in solutions/<assignment>/"


# (d) structure: checked on the files as committed.


@pytest.mark.parametrize(
    "notebook",
    SOLUTIONS + [released_notebook(s) for s in SOLUTIONS if released_notebook(s).exists()],
    ids=lambda path: f"{path.parts[-3]}/{_name(path)}",
)
def test_notebook_is_committed_clean(notebook: Path) -> None:
    nb = _read(notebook)
    dirty = [i for i, cell in enumerate(nb.cells) if cell.cell_type == "code" and cell.outputs]
    dirty += [i for i, cell in enumerate(nb.cells) if cell.cell_type == "code" and cell.execution_count]
    assert not dirty, f"cells {sorted(set(dirty))} have outputs or an execution count; clear them"
    assert nb.metadata.get("kernelspec", {}).get("name") == "python3", "kernelspec must be python3"
    assert "widgets" not in nb.metadata, "saved widget state must not be committed"


@each_solution
def test_setup_cell_comes_first_and_imports_minitf(solution: Path) -> None:
    cells = _read(solution).cells
    title = cells[0]
    assert title.cell_type == "markdown" and title.source.startswith("# "), "the first cell is the title"
    setup = next(cell for cell in cells if cell.cell_type == "code")
    meta = nbgrader_meta(setup)
    assert "setup" in tags_of(setup), "the first code cell must be tagged 'setup'"
    read_only = {"grade_id": "setup", "grade": False, "solution": False, "locked": True}
    assert {key: meta.get(key) for key in read_only} == read_only, f"setup cell needs {read_only}, not {meta}"
    lines = setup.source.splitlines()
    missing = [line for line in SETUP_LINES if line not in lines]
    assert not missing, f"setup cell lacks the exact lines {missing}"


@each_solution
def test_graded_cells_have_points_and_unique_ids(solution: Path) -> None:
    cells = [cell for cell in _read(solution).cells if nbgrader_meta(cell)]
    ids = [_grade_id(cell) for cell in cells]
    duplicates = sorted({grade_id for grade_id in ids if ids.count(grade_id) > 1})
    assert None not in ids and not duplicates, f"grade_ids must be set and unique; duplicated: {duplicates}"
    assert all(nbgrader_meta(cell).get("schema_version") == 3 for cell in cells), "use schema_version 3"
    pointless = [_grade_id(c) for c in cells if is_test_cell(c) and not nbgrader_meta(c).get("points")]
    assert not pointless, f"test cells without points: {pointless}"
    solutions = [c for c in cells if c.cell_type == "code" and nbgrader_meta(c).get("solution")]
    unmarked = [_grade_id(c) for c in solutions if "### BEGIN SOLUTION" not in c.source]
    assert not unmarked, f"solution cells without ### BEGIN SOLUTION: {unmarked}"


@each_solution
def test_chapter_has_at_least_two_graded_tests(solution: Path) -> None:
    tests = [cell for cell in _read(solution).cells if is_test_cell(cell)]
    assert len(tests) >= 2, f"a chapter needs at least 2 graded test cells, this one has {len(tests)}"


@each_solution
def test_test_cells_never_time_anything(solution: Path) -> None:
    tests = [cell for cell in _read(solution).cells if is_test_cell(cell)]
    timed = [_grade_id(cell) for cell in tests if TIMING_CODE.search(cell.source)]
    assert not timed, f"test cells must not time code (results vary with machine load): {timed}"


MINITF_ONLY_MARK = "# minitf only"  # use_tensorflow.py's MINITF_ONLY_MARK: the line a cell skips itself by


@each_solution
def test_minitf_only_cells_say_so_in_their_first_line(solution: Path) -> None:
    """The tag is invisible in JupyterLab, and the engine switch skips a cell by its first line: the two agree."""
    code = [cell for cell in _read(solution).cells if cell.cell_type == "code"]
    tagged = [cell for cell in code if MINITF_ONLY_TAG in tags_of(cell)]
    unmarked = [cell.id for cell in tagged if not cell.source.startswith(MINITF_ONLY_MARK)]
    untagged = [cell.id for cell in code if cell.source.startswith(MINITF_ONLY_MARK) and cell not in tagged]
    assert not unmarked, f"cells tagged {MINITF_ONLY_TAG} should start with the line '{MINITF_ONLY_MARK}: ...': {unmarked}"
    assert not untagged, f"cells starting with '{MINITF_ONLY_MARK}' should be tagged {MINITF_ONLY_TAG}: {untagged}"
    for folder in (solution.parent, released_notebook(solution).parent):
        assert f'MINITF_ONLY_MARK = "{MINITF_ONLY_MARK}"' in (folder / "use_tensorflow.py").read_text()


# (a), (b) the instructor versions run and pass their own tests on both engines.


@pytest.mark.slow
@each_solution
def test_solution_passes_its_tests_on_minitf(solution: Path) -> None:
    _assert_runs_cleanly(execute_cached(solution, "minitf"))


@pytest.mark.slow
@pytest.mark.tf
@each_solution
def test_solution_prints_the_same_on_tensorflow_as_on_minitf(solution: Path) -> None:
    on_tensorflow = execute_cached(solution, "tensorflow")
    _assert_runs_cleanly(on_tensorflow)
    on_minitf = execute_cached(solution, "minitf")
    shared_cells = [cell for cell in on_minitf.cells if MINITF_ONLY_TAG not in cell.tags]
    assert len(shared_cells) == len(on_tensorflow.cells)
    pairs = zip(shared_cells, on_tensorflow.cells)
    printed = [(_label(real), real.tags, real.stdout, mini.stdout) for mini, real in pairs]
    printed.append(("widget callbacks", (), on_tensorflow.widget_stdout, on_minitf.widget_stdout))
    differences = []
    for label, tags, expected, actual in printed:
        if RANDOM_OUTPUT_TAG in tags:
            expected, actual = mask_numbers(expected), mask_numbers(actual)
        difference = printed_difference(expected, actual)
        if difference:
            differences.append(f"{label}: {difference}\n--- tensorflow\n{expected}--- minitf\n{actual}")
    assert not differences, "printed output differs between engines:\n" + "\n".join(differences)


@pytest.mark.slow
@pytest.mark.tf
@each_solution
def test_run_all_after_switching_to_tensorflow_raises_nothing(solution: Path) -> None:
    """As a student does it: `from use_tensorflow import tf` below the setup cell, then Run All. Every cell runs
    without an error or a line on stderr, and each minitf-only cell prints that it skipped itself."""
    run = execute(solution, switched=True)
    errors = [f"{_label(cell)}: {name}: {message[:300]}" for cell in run.cells for name, message in cell.errors]
    errors += [f"a widget callback: {name}: {message}" for name, message in run.widget_errors]
    assert not errors, f"{_name(solution)}, Run All after the switch to TensorFlow, raised:\n" + "\n".join(errors)
    switch = run.by_id("switch-to-tensorflow")
    assert "now runs on TensorFlow" in switch.stdout, switch.stdout
    noisy = [f"{_label(cell)}: {cell.stderr.strip()[:300]}" for cell in run.cells if cell.stderr]
    assert not noisy, f"{_name(solution)} on TensorFlow writes to stderr (red in JupyterLab):\n" + "\n".join(noisy)
    unskipped = [_label(c) for c in run.cells if MINITF_ONLY_TAG in c.tags and "Skipped on TensorFlow" not in c.stdout]
    assert not unskipped, f"minitf-only cells that did not skip themselves on TensorFlow: {unskipped}"


# (c) the released student version fails, with a message meant for the student, until answered.


@pytest.mark.slow
@each_engine
@each_solution
def test_released_notebook_fails_until_answered(solution: Path, engine: str) -> None:
    released = released_notebook(solution)
    assert released.exists(), f"{released} is missing: generate course/ from solutions/ with nbgrader"
    run = execute_cached(released, engine)
    tests = [cell for cell in run.cells if cell.is_test]
    assert any(cell.failed for cell in tests), "an unanswered notebook must fail at least one test cell"
    problems = [f"{_label(cell)} passes without an answer" for cell in tests if not cell.failed]
    for cell in (cell for cell in tests if cell.failed):
        name, message = cell.errors[0]
        if not (name == "NotImplementedError" or (name == "AssertionError" and message.strip())):
            problems.append(f"{_label(cell)} fails with {name}: {message!r}, not a message for the student")
    problems += [
        f"{_label(cell)} (not an exercise) crashes: {cell.errors[0]}"
        for cell in run.cells
        if cell.failed and not cell.is_test and not cell.is_solution
    ]
    assert not problems, f"{_name(released)} on {engine}:\n" + "\n".join(problems)


# (e) the whole part stays quick enough for a student's laptop and for CI.
