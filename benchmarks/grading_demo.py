"""Worker time per notebook on the demo class, graded as `grader demo` grades it (default workers: one per core).

    .venv/bin/python -m benchmarks.grading_demo [--runs 2]

The class is the demo's (grader/commands/demo.py): four sample students (complete, partial, empty and random
work), a cheater and a crasher, on the first three notebooks of the course's first assignment. Each run builds it
in a fresh term and runs `autograde` on it. Worker time is the score table's seconds column (a submission's time
in its worker, from its start to its result) summed over the class; CPU is that of the whole grading run (the
grader, its workers, their kernel templates and kernels). Both are given per notebook, with the machine's load
average (1 minute) at the start and end of the run: on a shared machine worker time grows with the load, CPU
time much less. Figures are printed, never asserted.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from grader.commands.demo import demo_class
from grader.paths import REPO


def measure() -> dict:
    root = Path(tempfile.mkdtemp(prefix="grader-bench-demo-"))
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            term, assignment = demo_class(root / "term")
        notebooks = len(list((term.release / assignment).glob("*.ipynb")))
        submissions = len([p for p in term.submitted.iterdir() if p.is_dir()])
        command = [sys.executable, "-m", "grader", "--term", str(term.root), "--solutions", str(term.solutions)]
        load = os.getloadavg()[0]
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        started = time.perf_counter()
        run = subprocess.run([*command, "autograde", "--quiet"], cwd=REPO, capture_output=True, text=True)
        wall = time.perf_counter() - started
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        assert run.returncode == 0, run.stdout + run.stderr
        table = run.stdout.splitlines()[1:-1]
        return {
            "notebooks": notebooks * submissions,
            "worker": sum(float(line.split()[4]) for line in table),
            "cpu": (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime),
            "wall": wall,
            "load": (load, os.getloadavg()[0]),
            "table": table,
        }
    finally:
        shutil.rmtree(root, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=2)
    args = parser.parse_args()
    print(f"{os.cpu_count()} cores; demo class, default workers")
    print(f"{'run':>3} {'notebooks':>9} {'worker s/nb':>11} {'CPU s/nb':>9} {'wall s':>7} {'load':>11}")
    for number in range(1, args.runs + 1):
        figures = measure()
        count = figures["notebooks"]
        print(
            f"{number:>3} {count:>9} {figures['worker'] / count:>11.2f} {figures['cpu'] / count:>9.2f} "
            f"{figures['wall']:>7.1f} {figures['load'][0]:>5.1f}->{figures['load'][1]:<5.1f}",
            flush=True,
        )


if __name__ == "__main__":
    main()
