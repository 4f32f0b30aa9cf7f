"""How long autograding takes: seconds per graded notebook and the total for 5, 15 and 30 submissions.

    .venv/bin/python benchmarks/grading.py [--counts 5 15 30] [--course-notebooks 3 --course-students 5]

Runs the real pipeline (collect, then autograde in the sandbox) on sample classes of the small fixture
assignment and, if solutions/ has an assignment, on its first notebooks.  Timings depend on the machine;
they are printed, never asserted.
"""

from __future__ import annotations

import argparse
import tempfile
import time
import warnings
from pathlib import Path

from grader.commands.autograde import autograde
from grader.commands.collect import collect_folder, import_roster
from grader.commands.demo import FIXTURE_SOLUTIONS, _first_notebooks
from grader.commands.release import list_assignments
from grader.commands.samples import write_class
from grader.paths import DEFAULT_SOLUTIONS, make_term
from grader.records.gradebook import ensure_assignment


def measure(source: Path, assignment: str, students: int) -> tuple[float, int, float]:
    """Total wall seconds of autograde, notebooks graded, and mean seconds per notebook."""
    with tempfile.TemporaryDirectory(prefix="grader-bench-") as tmp:
        term = make_term(Path(tmp) / "term", source)
        ensure_assignment(term, assignment)
        profiles = write_class(term.solutions, term.release, assignment, Path(tmp) / "inbox", students)
        roster = Path(tmp) / "roster.csv"
        roster.write_text("id\n" + "\n".join(profiles) + "\n")
        import_roster(term, roster)
        collect_folder(term, assignment, Path(tmp) / "inbox")
        started = time.perf_counter()
        outcomes = autograde(term, assignment, progress=False)
        total = time.perf_counter() - started
        assert all(o.status == "graded" for o in outcomes), outcomes
        notebooks = students * len(list((term.release / assignment).glob("*.ipynb")))
        return total, notebooks, total / notebooks


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--counts", type=int, nargs="+", default=[5, 15, 30])
    parser.add_argument("--course-notebooks", type=int, default=3)
    parser.add_argument("--course-students", type=int, default=5)
    args = parser.parse_args()
    warnings.filterwarnings("ignore", message=".*not in session.*")  # nbgrader's ORM chatter
    rows = []
    for count in args.counts:
        rows.append(("fixture-basics (1 notebook)", count, *measure(FIXTURE_SOLUTIONS, "fixture-basics", count)))
    course = list_assignments(DEFAULT_SOLUTIONS)
    if course and args.course_students:
        subset = _first_notebooks(DEFAULT_SOLUTIONS, course[0], args.course_notebooks)
        label = f"{course[0]} (first {args.course_notebooks} notebooks)"
        rows.append((label, args.course_students, *measure(subset, course[0], args.course_students)))
    print(f"\n{'assignment':<42} {'submissions':>11} {'total s':>9} {'notebooks':>9} {'s/notebook':>10}")
    for label, count, total, notebooks, per_notebook in rows:
        print(f"{label:<42} {count:>11} {total:>9.1f} {notebooks:>9} {per_notebook:>10.2f}")


if __name__ == "__main__":
    main()
