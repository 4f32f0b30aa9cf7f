"""Grading throughput with 1, 2 and 4 workers: notebooks per minute, speed-up, each kernel's peak memory.

    .venv/bin/python benchmarks/grading_workers.py [--workers 1 2 4] [--students 8] [--notebooks 3]

Builds one sample class (complete, partial, empty and seeded random work) of the course's first assignment
(its first N notebooks; 0: all) and of the fixture assignment, and autogrades the same class once per worker
count, each time in a fresh term, in the sandbox as the grader runs it.  The speed-up is against one worker,
which grades one submission after another as the sequential grader did.  Peak memory is the largest resident
size of any kernel (the student's or the trusted one).  Figures depend on the machine and its load: they are
printed, never asserted.
"""

from __future__ import annotations

import argparse
import os
import shutil
import tempfile
import time
import warnings
from pathlib import Path

from grader.commands.autograde import autograde
from grader.commands.collect import collect_folder, import_roster
from grader.commands.demo import FIXTURE_SOLUTIONS, _first_notebooks
from grader.commands.release import list_assignments
from grader.commands.samples import write_class
from grader.paths import DEFAULT_SOLUTIONS, Term, make_term
from grader.records.gradebook import ensure_assignment


def sample_class(source: Path, assignment: str, students: int, root: Path) -> Term:
    """A term in ``root`` with a sample class of ``students`` collected (complete, partial, empty, random work)."""
    term = make_term(root / "term", source)
    ensure_assignment(term, assignment)
    profiles = write_class(term.solutions, term.release, assignment, root / "inbox", students)
    (root / "roster.csv").write_text("id\n" + "\n".join(profiles) + "\n")
    import_roster(term, root / "roster.csv")
    collect_folder(term, assignment, root / "inbox")
    return term


def measure(source: Path, assignment: str, students: int, workers: int, workdir: Path) -> dict:
    root = Path(tempfile.mkdtemp(prefix=f"w{workers}-", dir=workdir))
    term = sample_class(source, assignment, students, root)
    started = time.perf_counter()
    outcomes = autograde(term, assignment, progress=False, workers=workers)
    seconds = time.perf_counter() - started
    assert all(o.status == "graded" for o in outcomes), outcomes
    notebooks = students * len(list((term.release / assignment).glob("*.ipynb")))
    scores = sorted((o.student, o.score) for o in outcomes)
    shutil.rmtree(root, ignore_errors=True)
    return {
        "seconds": seconds,
        "notebooks": notebooks,
        "per_minute": 60 * notebooks / seconds,
        "kernel_mb": max(o.kernel_mb or 0 for o in outcomes),
        "scores": scores,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2, 4])
    parser.add_argument("--students", type=int, default=8)
    parser.add_argument("--notebooks", type=int, default=3, help="first N notebooks of the course (0: all)")
    parser.add_argument("--fixture-students", type=int, default=16)
    args = parser.parse_args()
    warnings.filterwarnings("ignore", message=".*not in session.*")
    classes = []
    if args.fixture_students:
        classes.append(("fixture-basics (1 notebook)", FIXTURE_SOLUTIONS, "fixture-basics", args.fixture_students))
    course = list_assignments(DEFAULT_SOLUTIONS)
    if course and args.students:
        source = _first_notebooks(DEFAULT_SOLUTIONS, course[0], args.notebooks) if args.notebooks else DEFAULT_SOLUTIONS
        label = f"{course[0]} ({'all' if not args.notebooks else f'first {args.notebooks}'} notebooks)"
        classes.append((label, source, course[0], args.students))
    workdir = Path(tempfile.mkdtemp(prefix="grader-bench-workers-"))
    print(f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f} at the start")
    rows = []
    try:
        for label, source, assignment, students in classes:
            baseline = None
            for workers in args.workers:
                figures = measure(source, assignment, students, workers, workdir)
                baseline = baseline or figures
                assert figures["scores"] == baseline["scores"], "the same class must get the same grades"
                rows.append((label, students, workers, figures, baseline["seconds"] / figures["seconds"]))
                print(
                    f"  {label}: {workers} worker(s) {figures['seconds']:.1f} s, "
                    f"{figures['per_minute']:.1f} notebooks/min, kernel peak {figures['kernel_mb']:.0f} MB, "
                    f"load average {os.getloadavg()[0]:.1f}",
                    flush=True,
                )
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    print(f"load average {os.getloadavg()[0]:.1f} at the end\n")
    print(
        f"| {'class':<36} | submissions | workers | notebooks | seconds | notebooks/min | speed-up | kernel peak MB |"
    )
    print(f"|{'-' * 38}|------------:|--------:|----------:|--------:|--------------:|---------:|---------------:|")
    for label, students, workers, figures, speedup in rows:
        print(
            f"| {label:<36} | {students:>11} | {workers:>7} | {figures['notebooks']:>9} | "
            f"{figures['seconds']:>7.1f} | {figures['per_minute']:>13.1f} | {speedup:>8.2f} | "
            f"{figures['kernel_mb']:>14.0f} |"
        )


if __name__ == "__main__":
    main()
