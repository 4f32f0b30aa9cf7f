"""Do the graded timing exercises ever flip a grade? Grade each answer many times on a busy machine and count.

The stopwatch exercises of part 2's graph chapter are graded by timing `KnownCost`, a function that sleeps for
known times. Sleeping never ends early, so a wrong measurement fails for sure; a correct one fails only if the
machine delays every timed call by tens of milliseconds. This script checks that margin: it grades the
instructor's answer and every recorded wrong answer of those exercises `--runs` times (the whole test cell, visible
and hidden part, as nbgrader runs it), while `--load` processes keep the cores busy, and counts the flips: a
correct answer that fails, or a wrong answer that passes.

    python -m benchmarks.timing_grades --engine minitf --runs 30
    python -m benchmarks.timing_grades --engine tensorflow --runs 30

It prints one line per answer and, last, a JSON summary. Like every benchmark here it measures; the test suite runs
a short version (tests/grader/test_timing_grades.py).
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import multiprocessing
import os
import sys
import time
from pathlib import Path

import nbformat

REPO = Path(__file__).resolve().parents[1]
NOTEBOOK = REPO / "solutions" / "part2-basics" / "02-graph-execution.ipynb"
EXERCISES = ("ex5-answer", "ex6-answer")
#: measurements the solution's tests leave behind: (true cost, the test's upper limit) in seconds, for the margins
MEASURED = {
    "ex5-answer": {
        "once": (0.06, 0.3),
        "fastest": (0.12, 0.27),
        "single": (0.08, 0.3),
        "middle": (0.10, 0.3),
        "slow": (0.31, 0.6),
    },
    "ex6-answer": {
        "comparison.eager_seconds": (0.30, 0.5),
        "comparison.graph_seconds": (0.04, 0.25),
        "hidden_eager": (0.03, 0.2),
        "hidden_graph": (0.15, 0.35),
    },
}
#: the longest a load process spins, whatever happens to this script
LOAD_LIMIT_SECONDS = 3600


def _spin(stop, limit: float) -> None:
    """Keep one core busy until told to stop (or until the limit)."""
    end = time.monotonic() + limit
    count = 0
    while not stop.is_set() and time.monotonic() < end:
        for _ in range(100_000):
            count += 1


@contextlib.contextmanager
def busy_cores(processes: int):
    """`processes` busy loops for as long as the block runs."""
    stop = multiprocessing.Event()
    workers = [
        multiprocessing.Process(target=_spin, args=(stop, LOAD_LIMIT_SECONDS), daemon=True) for _ in range(processes)
    ]
    for worker in workers:
        worker.start()
    try:
        yield
    finally:
        stop.set()
        for worker in workers:
            worker.join(timeout=10)
            if worker.is_alive():
                worker.terminate()


def _runner():
    """tests/course/wrong_answers.py, which runs lesson code as Jupyter does (sources readable for AutoGraph)."""
    if str(REPO / "tests" / "course") not in sys.path:
        sys.path.insert(0, str(REPO / "tests" / "course"))
    import wrong_answers

    return wrong_answers


def _lesson_state(engine: str, upto: set[str]) -> dict:
    """{grade_id: (exercise, the namespace just before its answer cell)}, running the notebook's cells in order."""
    runner = _runner()
    notebook = nbformat.read(NOTEBOOK, as_version=4)
    exercises = dict(runner.exercises_of(notebook))
    namespace: dict = {"__name__": "__main__"}
    before: dict = {}
    remaining = set(upto)
    for index, cell in enumerate(notebook.cells):
        if cell.cell_type != "code" or not remaining:
            continue
        if engine == "tensorflow" and "minitf-only" in cell.get("metadata", {}).get("tags", []):
            continue
        source = cell.source
        if engine == "tensorflow":
            source = source.replace("import minitf as tf", "import tensorflow as tf")
        if index in exercises:
            exercise = exercises[index]
            if exercise.grade_id in remaining:
                before[exercise.grade_id] = (exercise, dict(namespace))
                remaining.discard(exercise.grade_id)
            source = runner.solution_answer(source)
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            runner._run(source, namespace, "<lesson>")
    return before


def grade_once(exercise, answer_cell: str, namespace: dict) -> tuple[bool, dict]:
    """The whole test cell after this answer, as nbgrader runs it: (passed, the namespace it left)."""
    runner = _runner()
    state = dict(namespace)
    test = exercise.visible + exercise.hidden
    try:
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            runner._run(answer_cell, state, "<answer>")
            for code in exercise.between:
                runner._run(code, state, "<lesson>")
            runner._run(test, state, "<test>")
    except Exception:  # a failing assert (or a crashing answer): the grade is 0
        return False, state
    return True, state


def _lookup(state: dict, name: str) -> float | None:
    """A measurement the test cell left: `fastest`, or `comparison.eager_seconds` for a dict entry."""
    value: object = state
    for part in name.split("."):
        value = value.get(part) if isinstance(value, dict) else None
    try:
        return float(value)  # a float or a NumPy scalar
    except (TypeError, ValueError):
        return None


def measure(engine: str, runs: int, load: int, exercises: tuple[str, ...] = EXERCISES) -> dict:
    """Grade every answer of the exercises `runs` times under load; the counts per answer."""
    runner = _runner()
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    os.environ["MPLBACKEND"] = "Agg"
    before = _lesson_state(engine, set(exercises))
    wrong = runner.wrong_answers_for(NOTEBOOK)
    results: dict = {"engine": engine, "runs": runs, "load_processes": load, "cores": os.cpu_count(), "answers": []}
    rows = []
    for grade_id in exercises:
        exercise, namespace = before[grade_id]
        rows.append((grade_id, "solution", runner.solution_answer(exercise.answer_source), True, namespace, exercise))
        for item in wrong.get(grade_id) or []:
            rows.append(
                (
                    grade_id,
                    item["mistake"],
                    runner.with_answer(exercise.answer_source, item["answer"]),
                    False,
                    namespace,
                    exercise,
                )
            )
    tallies = {
        (row[0], row[1]): {"passed": 0, "failed": 0, "overshoot_ms": 0.0, "margin_left_ms": None} for row in rows
    }
    started = time.monotonic()
    with busy_cores(load):
        for _ in range(runs):
            for grade_id, mistake, source, should_pass, namespace, exercise in rows:  # interleaved: same load for all
                passed, state = grade_once(exercise, source, namespace)
                tally = tallies[grade_id, mistake]
                tally["passed" if passed else "failed"] += 1
                if should_pass:
                    for name, (cost, limit) in MEASURED.get(grade_id, {}).items():
                        value = _lookup(state, name)
                        if value is None:
                            continue
                        tally["overshoot_ms"] = max(tally["overshoot_ms"], round((value - cost) * 1e3, 1))
                        left = round((limit - value) * 1e3, 1)
                        tally["margin_left_ms"] = (
                            left if tally["margin_left_ms"] is None else min(tally["margin_left_ms"], left)
                        )
    for grade_id, mistake, _source, should_pass, _namespace, _exercise in rows:
        tally = tallies[grade_id, mistake]
        flips = tally["failed"] if should_pass else tally["passed"]
        entry = {
            "exercise": grade_id,
            "answer": mistake,
            "expected": "pass" if should_pass else "fail",
            **tally,
            "flips": flips,
        }
        if not should_pass:
            entry.pop("overshoot_ms")
            entry.pop("margin_left_ms")
        results["answers"].append(entry)
    results["seconds"] = round(time.monotonic() - started, 1)
    results["flips"] = sum(entry["flips"] for entry in results["answers"])
    return results


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--engine", choices=["minitf", "tensorflow"], default="minitf")
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--load", type=int, default=os.cpu_count() or 2, help="busy processes (default: one a core)")
    parser.add_argument("--exercise", action="append", choices=EXERCISES, help="default: both")
    args = parser.parse_args(argv)
    results = measure(args.engine, args.runs, args.load, tuple(args.exercise or EXERCISES))
    for entry in results["answers"]:
        margin = (
            f"  worst overshoot {entry['overshoot_ms']:.1f} ms, closest to a limit {entry['margin_left_ms']} ms"
            if "overshoot_ms" in entry
            else ""
        )
        print(
            f"{results['engine']:10} {entry['exercise']:10} {entry['answer'][:58]:58} expected {entry['expected']}: "
            f"{entry['passed']:3} passed {entry['failed']:3} failed, {entry['flips']} flips{margin}"
        )
    print(json.dumps(results))


if __name__ == "__main__":
    main()
