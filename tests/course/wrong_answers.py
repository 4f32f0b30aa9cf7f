"""Run recorded wrong answers against a lesson's visible and hidden tests, quickly, without a Jupyter kernel.

The wrong answers live next to the right ones, one YAML file per assignment (tests/course/wrong_answers/<assignment>.yaml),
keyed by notebook and by the grade_id of the exercise's answer cell:

    03-tensor-properties:
      ex2-answer:
        - mistake: the height axis instead of the width axis
          answer: |
            video_rank = video.ndim
            ...

`answer` is what the student writes between the solution markers (dedented; a cell with several marked regions
takes a list, one entry per region). Everything outside the markers stays as the lesson has it.

How a notebook is run (once per notebook, in a fresh Python process on minitf, working directory = its folder):
the code cells execute top to bottom in one namespace, with the instructor's answers, as a graded run does. At each
exercise, before its answer runs, every variant (the solution and each recorded wrong answer) is tried on a shallow
copy of that namespace, twice:

- visible: the answer variant, then the test cell up to `### BEGIN HIDDEN TESTS` (what a student runs);
- hidden: the answer variant, then the visible part with its asserts removed (it may set up values the hidden
  part uses), then the hidden part (what only grading adds).

Then the instructor's answer and the whole test cell run in the shared namespace, and the notebook goes on.
Run as a script (`python tests/course/wrong_answers.py NOTEBOOK`), it prints one JSON report; `report` (the CLI's
`--report`) prints the counts for a set of notebooks.
"""

from __future__ import annotations

import ast
import contextlib
import io
import itertools
import json
import linecache
import os
import re
import subprocess
import sys
import textwrap
import traceback
import warnings
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import nbformat
import yaml

REPO = Path(__file__).resolve().parents[2]
WRONG_ANSWERS = REPO / "tests" / "course" / "wrong_answers"
HIDDEN_START = "### BEGIN HIDDEN TESTS"
HIDDEN_END = "### END HIDDEN TESTS"
SOLUTION_REGION = re.compile(r"^([ \t]*)### BEGIN SOLUTION[ \t]*\n(.*?)^[ \t]*### END SOLUTION[ \t]*\n?", re.M | re.S)
ANSWER_FILE = "<answer>"  # student code is compiled under this name (plus a number), to tell its errors from the test's
# Exceptions that a test cell raises by accident, not as a verdict a student can act on.
UNINFORMATIVE = {"NameError", "AttributeError", "NotImplementedError", "SyntaxError", "KeyError", "IndexError"}


# --- the data file ---------------------------------------------------------------------------------------------


def wrong_answers_file(assignment: str) -> Path:
    return WRONG_ANSWERS / f"{assignment}.yaml"


def load_wrong_answers(assignment: str) -> dict[str, dict[str, list[dict]]]:
    """{notebook stem: {answer grade_id: [{"mistake": ..., "answer": ...}, ...]}} for one assignment."""
    path = wrong_answers_file(assignment)
    if not path.exists():
        return {}
    return yaml.safe_load(path.read_text()) or {}


def wrong_answers_for(notebook: Path) -> dict[str, list[dict]]:
    return load_wrong_answers(notebook.parent.name).get(notebook.stem) or {}


# --- notebook cells --------------------------------------------------------------------------------------------


def _meta(cell) -> dict:
    return cell.get("metadata", {}).get("nbgrader", {})


def split_test(source: str) -> tuple[str, str]:
    """(visible part, hidden part) of a test cell's source."""
    if HIDDEN_START not in source:
        return source, ""
    visible, rest = source.split(HIDDEN_START, 1)
    hidden = rest.split(HIDDEN_END, 1)[0]
    return visible, hidden


def without_asserts(source: str) -> str:
    """The code with every `assert` statement removed (its set-up lines stay)."""

    class DropAsserts(ast.NodeTransformer):
        def visit_Assert(self, node):  # noqa: N802 (ast's naming)
            return ast.Pass()

    return ast.unparse(DropAsserts().visit(ast.parse(source)))


def with_answer(source: str, answer: str | list[str]) -> str:
    """The answer cell's source with the solution region(s) replaced by `answer` (indented like the markers)."""
    regions = list(SOLUTION_REGION.finditer(source))
    answers = [answer] if isinstance(answer, str) else list(answer)
    if len(answers) != len(regions):
        raise ValueError(f"the cell has {len(regions)} solution regions, but {len(answers)} answers are given")
    pieces, position = [], 0
    for match, text in zip(regions, answers):
        indent = match.group(1)
        pieces.append(source[position:match.start()])
        pieces.append(textwrap.indent(textwrap.dedent(text).rstrip("\n") + "\n", indent, lambda line: True))
        position = match.end()
    pieces.append(source[position:])
    return "".join(pieces)


def solution_answer(source: str) -> str:
    """The instructor's answer cell as it runs in a graded notebook (markers removed, code kept)."""
    return SOLUTION_REGION.sub(lambda m: textwrap.indent(m.group(2), "", lambda line: True), source)


@dataclass
class Exercise:
    grade_id: str  # of the answer cell
    test_id: str
    answer_source: str
    between: list[str]  # code cells between the answer and its test
    visible: str
    hidden: str


def exercises_of(notebook: nbformat.NotebookNode) -> list[tuple[int, Exercise]]:
    """(index of the answer cell, exercise) for every answer cell, paired with the next graded test cell."""
    cells = notebook.cells
    found = []
    for index, cell in enumerate(cells):
        if cell.cell_type != "code" or not _meta(cell).get("solution"):
            continue
        later = range(index + 1, len(cells))
        test_index = next(i for i in later if cells[i].cell_type == "code" and _meta(cells[i]).get("grade"))
        between = [cells[i].source for i in range(index + 1, test_index) if cells[i].cell_type == "code"]
        visible, hidden = split_test(cells[test_index].source)
        found.append((index, Exercise(_meta(cell)["grade_id"], _meta(cells[test_index])["grade_id"], cell.source,
                                      between, visible, hidden)))
    return found


# --- running code ----------------------------------------------------------------------------------------------


def _outcome(error: BaseException | None, where: str) -> dict:
    if error is None:
        return {"passed": True}
    frames = traceback.extract_tb(error.__traceback__)
    return {
        "passed": False,
        "where": where,  # "answer" (the answer cell itself failed) or "test"
        "error": type(error).__name__,
        "message": str(error).strip()[:500],
        "raised_in_answer": any(frame.filename.startswith(ANSWER_FILE[:-1]) for frame in frames),
    }


_cell_numbers = itertools.count()


def _run(code: str, namespace: dict, filename: str) -> None:
    """Execute `code` as Jupyter does: its source stays readable (inspect, AutoGraph) under a unique file name."""
    filename = f"{filename[:-1]}-{next(_cell_numbers)}>"
    linecache.cache[filename] = (len(code), None, code.splitlines(keepends=True), filename)
    exec(compile(code, filename, "exec"), namespace)  # noqa: S102 (running lesson code is the point)


def _try(steps: list[tuple[str, str, str]], namespace: dict) -> dict:
    """Run (code, filename, where) steps in order; the first exception ends the attempt."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        for code, filename, where in steps:
            try:
                _run(code, namespace, filename)
            except Exception as error:  # a failing test or a crashing answer: the verdict
                return _outcome(error, where)
    result = _outcome(None, "")
    result["stderr"] = err.getvalue()[-300:]
    return result


def evaluate(exercise: Exercise, answer_cell: str, namespace: dict) -> dict:
    """Visible and hidden verdicts for one answer cell, each on its own shallow copy of `namespace`."""
    answer_steps = [(answer_cell, ANSWER_FILE, "answer")] + [(code, "<lesson>", "answer") for code in exercise.between]
    visible = _try(answer_steps + [(exercise.visible, "<visible test>", "test")], dict(namespace))
    hidden_code = without_asserts(exercise.visible) + "\n" + exercise.hidden
    hidden = _try(answer_steps + [(hidden_code, "<hidden test>", "test")], dict(namespace)) if exercise.hidden else None
    return {"visible": visible, "hidden": hidden}


def run_notebook(path: Path, wrong: dict[str, list[dict]]) -> dict:
    """Every exercise of the notebook, with the solution and the recorded wrong answers; see the module docstring."""
    notebook = nbformat.read(path, as_version=4)
    by_index = dict(exercises_of(notebook))
    namespace: dict = {"__name__": "__main__"}
    report: dict = {"notebook": str(path), "exercises": {}, "lesson_errors": []}
    for index, cell in enumerate(notebook.cells):
        if cell.cell_type != "code":
            continue
        if index in by_index:
            exercise = by_index[index]
            entry = {"test_id": exercise.test_id, "has_hidden": bool(exercise.hidden.strip()), "wrong": []}
            entry["solution"] = evaluate(exercise, solution_answer(exercise.answer_source), namespace)
            for number, item in enumerate(wrong.get(exercise.grade_id) or []):
                try:
                    source = with_answer(exercise.answer_source, item["answer"])
                except ValueError as error:
                    entry["wrong"].append({"number": number, "mistake": item.get("mistake"), "bad_record": str(error)})
                    continue
                verdict = evaluate(exercise, source, namespace)
                entry["wrong"].append({"number": number, "mistake": item.get("mistake"), "hint": item.get("hint"),
                                       **verdict})
            report["exercises"][exercise.grade_id] = entry
            code = solution_answer(cell.source)
        else:
            code = cell.source
        result = _try([(code, "<lesson>", "lesson")], namespace)
        if not result["passed"]:
            report["lesson_errors"].append({"cell": index, **result})
    return report


def _prepare_process() -> None:
    """Headless and quiet, as a graded kernel is: no figure windows, no warnings on stderr."""
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    os.environ["MPLBACKEND"] = "Agg"
    warnings.simplefilter("ignore")


def run_in_subprocess(path: Path, wrong: dict[str, list[dict]] | None = None, timeout: float = 600) -> dict:
    """run_notebook in a fresh interpreter (its own minitf state), in the notebook's folder, on the working tree."""
    environment = dict(os.environ)
    environment["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), environment.get("PYTHONPATH")]))
    payload = json.dumps(wrong if wrong is not None else wrong_answers_for(path))
    completed = subprocess.run(
        [sys.executable, str(Path(__file__).resolve()), str(path.resolve())],
        input=payload, capture_output=True, text=True, cwd=path.parent, env=environment, timeout=timeout, check=False,
    )  # fmt: skip
    if completed.returncode != 0:
        raise RuntimeError(f"running {path} failed:\n{completed.stderr[-3000:]}")
    return json.loads(completed.stdout.strip().splitlines()[-1])


# --- verdicts ----------------------------------------------------------------------------------------------------


def rejected(verdict: dict | None) -> bool:
    return verdict is not None and not verdict["passed"]


def teaches(verdict: dict) -> bool:
    """A rejection a student can act on: an assert with a message, or an error raised inside their own code."""
    if verdict["passed"] or verdict.get("where") != "test":
        return False
    if verdict["error"] == "AssertionError":
        return bool(verdict["message"])
    return verdict["raised_in_answer"] and verdict["error"] not in UNINFORMATIVE


def counts(reports: list[dict]) -> dict:
    """The figures issue-style: exercises, wrong answers, and how many of them each kind of test rejects."""
    exercises = [entry for report in reports for entry in report["exercises"].values()]
    runs = [item for entry in exercises for item in entry["wrong"] if "bad_record" not in item]
    # Only answers whose own cell runs count: an answer cell that fails is caught before any test sees it.
    wrong = [item for item in runs if item["visible"].get("where") != "answer"]
    hidden_rejects = [item for item in wrong if rejected(item["hidden"])]
    both = [item for item in hidden_rejects if rejected(item["visible"])]
    checking = [
        entry for entry in exercises
        if len(entry["wrong"]) >= 2 and all(rejected(item.get("visible")) for item in entry["wrong"])
    ]  # fmt: skip
    return {
        "exercises": len(exercises),
        "wrong_answers": len(runs),
        "wrong_answers_that_run": len(wrong),
        "rejected_by_hidden": len(hidden_rejects),
        "rejected_by_visible": sum(rejected(item["visible"]) for item in wrong),
        "rejected_by_both": len(both),
        "visible_rate_of_hidden": round(len(both) / len(hidden_rejects), 4) if hidden_rejects else None,
        "visible_tests_rejecting_all_recorded": len(checking),
    }


def main(argv: list[str]) -> int:
    if argv and argv[0] == "--report":
        paths = [Path(arg) for arg in argv[1:]] or sorted((REPO / "solutions").glob("*/*.ipynb"))
        # The wrong answers are looked up by assignment folder and notebook name, wherever the notebook is.
        with ThreadPoolExecutor(max_workers=2) as pool:
            reports = list(pool.map(
                lambda path: run_in_subprocess(path, load_wrong_answers(path.parent.name).get(path.stem) or {}), paths
            ))
        print(json.dumps(counts(reports), indent=1))
        return 0
    _prepare_process()
    wrong = json.loads(sys.stdin.read() or "{}")
    report = run_notebook(Path(argv[0]), wrong)
    sys.stdout.write("\n" + json.dumps(report) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
