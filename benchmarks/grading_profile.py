"""Where one submission's grading time goes, beyond the time its cells run.

    .venv/bin/python -m benchmarks.grading_profile [--assignment part1-tensors] [--no-pool] [--notebooks N]

Grades one complete sample submission of an assignment with one worker, in this process (as root, in the
sandbox, as ``autograde`` grades it), and times each phase: nbgrader's per-submission setup and its
per-notebook sanitising, the kernels' starts (the student's kernel, the trusted one, and the wait for each),
the guard and channel installs, the student's cells, the instructor's cells the trusted kernel repeats, the
tests (and, inside them, the requests to the student's kernel), the kernels' teardown, the gradebook writes
and the single writer's transaction.  Time is wall time in the grader's process; the kernels run beside it,
so a phase is what the grader waited for.  Figures are printed, never asserted.
"""

from __future__ import annotations

import argparse
import functools
import os
import shutil
import tempfile
import time
import warnings
from collections import defaultdict
from pathlib import Path

from benchmarks.grading_workers import sample_class
from grader.commands.demo import _first_notebooks
from grader.paths import DEFAULT_SOLUTIONS

SPENT: dict[str, float] = defaultdict(float)
CALLS: dict[str, int] = defaultdict(int)
SLOW: list[tuple[float, str]] = []  # the student's cells over 1 s, the notebooks over 2 s
PROFILES = ["complete", "partial", "empty"]  # the first three sample submissions (grader.samples.write_class)


def timed(owner: type, name: str, label: str) -> None:
    """Wrap ``owner.name`` so that its wall time adds up under ``label``."""
    original = getattr(owner, name)

    @functools.wraps(original)
    def wrapper(*args, **kwargs):
        started = time.perf_counter()
        try:
            return original(*args, **kwargs)
        finally:
            seconds = time.perf_counter() - started
            SPENT[label] += seconds
            CALLS[label] += 1
            if name == "execute_cell" and seconds > 1:
                owner_self, cell = args[0], args[1]
                notebook = owner_self.resources.get("nbgrader", {}).get("notebook")
                SLOW.append((seconds, f"a cell: {notebook}: {cell.source.splitlines()[0][:60] if cell.source else ''}"))
            if name == "preprocess" and seconds > 2:
                notebook = (args[2] if len(args) > 2 else kwargs.get("resources") or {}).get("nbgrader", {})
                SLOW.append((seconds, f"a notebook: {notebook.get('notebook')}"))

    setattr(owner, name, wrapper)


def instrument() -> None:
    from nbclient.client import NotebookClient
    from nbconvert.writers import FilesWriter
    from nbgrader.api import Gradebook
    from nbgrader.converters.autograde import Autograde
    from nbgrader.converters.base import BaseConverter

    import grader.worker.worker as workers
    from grader.sandbox.spares import StudentSpare
    from grader.trusted.kernel import TrustedKernel
    from grader.worker.execute import GuardedExecute

    timed(Autograde, "init_assignment", "nbgrader: the submission's setup (init_assignment)")
    timed(BaseConverter, "convert_single_notebook", "notebook in all (sanitise + autograde + write)")
    timed(FilesWriter, "write", "nbgrader: writing the autograded notebook")
    timed(Gradebook, "__init__", "gradebook: opening (each time)")
    timed(NotebookClient, "start_new_kernel", "student kernel: start (launch, fork, sandbox)")
    timed(GuardedExecute, "start_new_kernel_client", "student kernel: wait until it answers")
    timed(GuardedExecute, "_install_guard", "student kernel: guard install (imports of the read-only cells)")
    timed(GuardedExecute, "_install_channel", "student kernel: channel install")
    timed(GuardedExecute, "_guard_call", "student kernel: guard calls (restore, snapshot, protect)")
    timed(NotebookClient, "execute_cell", "student kernel: its cells (own run time)")
    timed(NotebookClient, "_cleanup_kernel", "student kernel: teardown")
    timed(GuardedExecute, "_new_trusted_kernel", "trusted kernel: take the spare or start one; start the next spare")
    timed(TrustedKernel, "__init__", "trusted kernel: starting one (a spare or not)")
    timed(TrustedKernel, "take", "trusted kernel: the spare's replies (its prepared cells)")
    timed(TrustedKernel, "collect", "trusted kernel: replies of cells sent ahead (the spare's included)")
    timed(GuardedExecute, "_start_student_spare", "student kernel: starting the next notebook's")
    timed(StudentSpare, "ready", "student kernel: the spare's replies (its guard and channel)")
    timed(TrustedKernel, "wait_until_ready", "trusted kernel: wait until it answers (+ channel)")
    timed(TrustedKernel, "run_prelude", "trusted kernel: the instructor's cells it repeats")
    timed(GuardedExecute, "_run_test", "tests in all (prelude and requests included)")
    timed(GuardedExecute, "_ask_student", "tests: requests to the student's kernel")
    timed(TrustedKernel, "close", "trusted kernel: teardown")
    timed(GuardedExecute, "preprocess", "execution in all (GuardedExecute.preprocess)")
    timed(workers, "apply_result", "single writer: the grades into the term's gradebook")
    timed(workers.Worker, "_grade", "worker: the submission in all")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--assignment", default="part1-tensors")
    parser.add_argument("--notebooks", type=int, default=0, help="first N notebooks (0: all)")
    parser.add_argument("--no-pool", action="store_true")
    parser.add_argument(
        "--work",
        choices=PROFILES,
        default="complete",
        help="which sample submission: every answer, every other one, none",
    )
    args = parser.parse_args()
    warnings.filterwarnings("ignore")
    source = (
        _first_notebooks(DEFAULT_SOLUTIONS, args.assignment, args.notebooks) if args.notebooks else DEFAULT_SOLUTIONS
    )
    root = Path(tempfile.mkdtemp(prefix="grader-profile-"))
    try:
        from grader.commands.autograde import notebook_imports
        from grader.sandbox.prepare import Limits, prepare
        from grader.worker.worker import Task, Worker, make_kit, read_submission

        term = sample_class(source, args.assignment, PROFILES.index(args.work) + 1, root)
        student = f"s{PROFILES.index(args.work) + 1:03d}"
        modules = notebook_imports(term, {args.assignment})
        sandbox = prepare(term, Limits(), modules)
        kit = make_kit(term, [args.assignment], Limits(), True, modules, pool=not args.no_pool)
        started = time.perf_counter()
        worker = Worker(term.state / "workers" / "w", sandbox, kit)
        worker_start = time.perf_counter() - started
        instrument()
        task = Task(0, student, args.assignment, read_submission(term, student, args.assignment))
        cpu = os.times()
        started = time.perf_counter()
        result = worker.grade(task)
        import grader.worker.worker as workers

        if result.success:
            workers.apply_result(term, result)  # the instrumented one
        total = time.perf_counter() - started
        after = os.times()
        worker.close()
        notebooks = len(list((term.release / args.assignment).glob("*.ipynb")))
        kernels = "fresh kernels" if args.no_pool else "pool"
        print(
            f"{args.assignment}, {notebooks} notebooks, {args.work} work, {kernels}: "
            f"{result.message or 'graded'}; worker start {worker_start:.2f} s (once per worker); "
            f"load average {os.getloadavg()[0]:.1f}"
        )
        own_cpu = after.user + after.system - cpu.user - cpu.system
        print(f"submission: {total:.2f} s wall; the grader process's CPU {own_cpu:.2f} s")
        print(f"{'phase':<72} {'calls':>6} {'s':>8} {'s / notebook':>13}")
        for label, seconds in sorted(SPENT.items(), key=lambda item: -item[1]):
            print(f"{label:<72} {CALLS[label]:>6} {seconds:8.2f} {seconds / notebooks:13.3f}")
        for seconds, where in sorted(SLOW, reverse=True):
            print(f"{seconds:5.1f} s in {where}")
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
