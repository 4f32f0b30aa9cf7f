"""Warm kernels against fresh ones: wall and CPU time per class, and the seconds per notebook above its own run time.

    .venv/bin/python -m benchmarks.grading_pool [--fixture-students 8] [--students 4] [--notebooks 3 0]
        [--part2-students 2] [--kernels fresh pool] [--label main]

Builds sample classes (complete, partial, empty and seeded random work) of the fixture assignment, of the course's
first assignment (its first N notebooks; 0: all) and of its second assignment (all notebooks), and autogrades each
class with one worker, in fresh terms: with ``--no-pool`` (every kernel a fresh interpreter) and with the pool
(kernels forked from the worker's template). CPU seconds are those of the whole grading run (the grader, its
worker, the kernels and the template), so they mean something on a shared machine where wall time does not. A
notebook's own run time is the time its graded cells take in one plain, already started kernel (no sandbox, no
second kernel, no nbgrader, the kernels' environment); the overhead column is what grading adds to it. Peak memory
is the largest sum of the proportional set sizes (shared pages split among the processes that share them) of the
worker's kernels and template. Each run prints the machine's load average (1 minute) at its start and end: the
machine may be shared. The grades of both runs must be identical. Figures are printed, never asserted.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import warnings
from pathlib import Path

import nbformat
from nbclient import NotebookClient
from nbclient.exceptions import CellTimeoutError

from benchmarks.grading_workers import sample_class
from grader.commands.demo import FIXTURE_SOLUTIONS, _first_notebooks
from grader.commands.release import list_assignments
from grader.paths import DEFAULT_SOLUTIONS, REPO
from grader.sandbox.kernel_client import with_rechecking_waits
from grader.sandbox.pool import proc_mb
from grader.sandbox.prepare import KERNEL_ENV, sandbox_uids


def _grading_processes() -> list[str]:
    """The pids of kernels (sandbox users) and kernel templates running now."""
    uids, pids = sandbox_uids(), []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            status = Path(f"/proc/{pid}/status").read_text()
            command = Path(f"/proc/{pid}/cmdline").read_bytes()
        except OSError:
            continue
        uid = int(status.split("Uid:")[1].split()[0])
        if uid in uids or b"kernel_template.py" in command:
            pids.append(pid)
    return pids


class MemorySampler(threading.Thread):
    """The peak of the summed PSS of the grading processes, sampled twice a second."""

    def __init__(self) -> None:
        super().__init__(daemon=True)
        self.peak = 0.0
        self.running = True

    def run(self) -> None:
        while self.running:
            self.peak = max(self.peak, sum(proc_mb(pid, "Pss:", "smaps_rollup") for pid in _grading_processes()))
            time.sleep(0.5)


def own_run_seconds(folder: Path) -> float:
    """The time the graded cells of every notebook in ``folder`` take in a plain kernel that is already up, with the
    grader's time limit per cell (30 s); cells over 5 s are printed."""
    total = 0.0
    for path in sorted(folder.glob("*.ipynb")):
        nb = nbformat.read(path, as_version=4)
        client = with_rechecking_waits(
            NotebookClient(
                nb, kernel_name="python3", timeout=30, allow_errors=True, resources={"metadata": {"path": str(folder)}}
            )
        )
        with client.setup_kernel():
            started = time.perf_counter()
            for index, cell in enumerate(nb.cells):
                if cell.cell_type == "code":
                    before = time.perf_counter()
                    with contextlib.suppress(CellTimeoutError):
                        client.execute_cell(cell, index)
                    if time.perf_counter() - before > 5:
                        print(
                            f"    slow in a plain kernel: {path.name}: {time.perf_counter() - before:.1f} s: "
                            f"{cell.source.splitlines()[0][:70] if cell.source else ''}",
                            flush=True,
                        )
            total += time.perf_counter() - started
    return total


def grade(source: Path, assignment: str, students: int, workdir: Path, pool: bool) -> dict:
    root = Path(tempfile.mkdtemp(prefix="pool-" if pool else "fresh-", dir=workdir))
    term = sample_class(source, assignment, students, root)
    command = [
        sys.executable,
        "-m",
        "grader",
        "--term",
        str(term.root),
        "--solutions",
        str(source),
        "autograde",
        "--quiet",
        "--workers",
        "1",
        *([] if pool else ["--no-pool"]),
    ]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    load = os.getloadavg()[0]
    sampler = MemorySampler()
    sampler.start()
    started = time.perf_counter()
    run = subprocess.run(command, cwd=REPO, capture_output=True, text=True)
    seconds = time.perf_counter() - started
    sampler.running = False
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    assert run.returncode == 0, run.stdout + run.stderr
    notebooks = students * len(list((term.release / assignment).glob("*.ipynb")))
    table = run.stdout.splitlines()[1:-1]
    cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    return {
        "seconds": seconds,
        "graded": sum(float(line.split()[4]) for line in table),
        "cpu": cpu,
        "notebooks": notebooks,
        "table": table,
        "memory_mb": sampler.peak,
        "load": (load, os.getloadavg()[0]),
        "autograded": term.autograded,
        "root": root,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--fixture-students", type=int, default=8)
    parser.add_argument("--students", type=int, default=4)
    parser.add_argument("--notebooks", type=int, nargs="*", default=[3, 0], help="first N notebooks (0: all)")
    parser.add_argument("--part2-students", type=int, default=2, help="students of part 2's class (0: none)")
    parser.add_argument("--kernels", nargs="+", choices=["fresh", "pool"], default=["fresh", "pool"])
    parser.add_argument("--label", default="", help="a note for the pool's rows (e.g. the branch)")
    args = parser.parse_args()
    warnings.filterwarnings("ignore", message=".*not in session.*")
    os.environ.update(KERNEL_ENV)  # the plain kernel that measures the notebooks' own time: the kernels' settings
    classes = []
    if args.fixture_students:
        classes.append(("fixture-basics (1 notebook)", FIXTURE_SOLUTIONS, "fixture-basics", args.fixture_students))
    course = list_assignments(DEFAULT_SOLUTIONS)
    for count in args.notebooks:
        source = _first_notebooks(DEFAULT_SOLUTIONS, course[0], count) if count else DEFAULT_SOLUTIONS
        every = len(list((DEFAULT_SOLUTIONS / course[0]).glob("*.ipynb")))
        label = f"{course[0]} ({f'all {every}' if not count else f'first {count}'} notebooks)"
        classes.append((label, source, course[0], max(1, args.students // (2 if not count else 1))))
    if args.part2_students and len(course) > 1:
        every = len(list((DEFAULT_SOLUTIONS / course[1]).glob("*.ipynb")))
        classes.append((f"{course[1]} (all {every} notebooks)", DEFAULT_SOLUTIONS, course[1], args.part2_students))
    workdir = Path(tempfile.mkdtemp(prefix="grader-bench-pool-"))
    print(f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f} at the start", flush=True)
    rows = []
    try:
        for label, source, assignment, students in classes:
            runs = {kind: grade(source, assignment, students, workdir, pool=kind == "pool") for kind in args.kernels}
            tables = [[line.split()[:4] for line in figures["table"]] for figures in runs.values()]
            assert all(found == tables[0] for found in tables), "the pool must give the fresh kernels' grades"
            own = sum(own_run_seconds(folder / assignment) for folder in runs[args.kernels[0]]["autograded"].iterdir())
            for kind, figures in runs.items():
                name = f"{kind} ({args.label})" if kind == "pool" and args.label else kind
                per_notebook = figures["graded"] / figures["notebooks"]
                rows.append(
                    (
                        label,
                        students,
                        name,
                        figures,
                        per_notebook,
                        (figures["graded"] - own) / figures["notebooks"],
                        own,
                    )
                )
                print(
                    f"  {label}, {name}: {figures['seconds']:.1f} s wall ({figures['graded']:.1f} s grading the "
                    f"submissions), {figures['cpu']:.1f} s CPU, own run time {own:.1f} s, "
                    f"load average {figures['load'][0]:.1f} -> {figures['load'][1]:.1f}",
                    flush=True,
                )
                print("\n".join(f"    {line}" for line in figures["table"]), flush=True)
            for figures in runs.values():
                shutil.rmtree(figures["root"], ignore_errors=True)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    print(f"load average {os.getloadavg()[0]:.1f} at the end\n")
    print(
        "| class | submissions | kernels | notebooks | run wall s | run CPU s | grading the submissions s | "
        "s / notebook | notebooks' own run time s | s / notebook above its own run time | peak memory MB | "
        "load average |"
    )
    print("|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---|")
    for label, students, name, figures, per_notebook, overhead, own in rows:
        print(
            f"| {label} | {students} | {name} | {figures['notebooks']} | {figures['seconds']:.1f} | "
            f"{figures['cpu']:.1f} | {figures['graded']:.1f} | {per_notebook:.2f} | {own:.1f} | {overhead:.2f} | "
            f"{figures['memory_mb']:.0f} | {figures['load'][0]:.1f}-{figures['load'][1]:.1f} |"
        )


if __name__ == "__main__":
    main()
