"""The term commands: collect, autograde, feedback, report, demo."""

from __future__ import annotations

import argparse
from pathlib import Path

from grader.sandbox.prepare import Limits


def _collect(args: argparse.Namespace) -> int:
    from grader.commands.collect import DEFAULT_ZIP_PATTERN, collect_folder, collect_zip, import_roster

    if args.roster:
        print(f"roster: {import_roster(args.term, args.roster)} student(s) from {args.roster}")
    if args.source.suffix.lower() == ".zip":
        report = collect_zip(args.term, args.assignment, args.source, args.pattern or DEFAULT_ZIP_PATTERN)
    else:
        report = collect_folder(args.term, args.assignment, args.source)
    report.print()
    return 1 if report.rejected else 0


def _autograde(args: argparse.Namespace) -> int:
    from grader.commands.autograde import autograde, print_outcomes

    limits = Limits(cell_timeout=args.timeout, memory_mb=args.memory)
    outcomes = autograde(
        args.term,
        args.assignment,
        args.student,
        limits,
        regrade=args.regrade,
        progress=not args.quiet,
        guard=not args.no_guard,
        trusted_kernel=not args.no_trusted_kernel,
        workers=args.workers,
        scheduler=args.scheduler,
        pool=not args.no_pool,
    )
    print_outcomes(outcomes)
    return 1 if any(o.status == "failed" for o in outcomes) else 0


def _regrade(args: argparse.Namespace) -> int:
    from grader.commands.regrade import regrade

    limits = Limits(cell_timeout=args.timeout, memory_mb=args.memory)
    report = regrade(
        args.term, args.assignment, limits, workers=args.workers, scheduler=args.scheduler, progress=not args.quiet
    )
    report.print()
    return 1 if any(change.new is None for change in report.regraded) else 0


def _watch(args: argparse.Namespace) -> int:
    from grader.commands.collect import import_roster
    from grader.commands.watch import watch

    if args.roster:
        print(f"roster: {import_roster(args.term, args.roster)} student(s) from {args.roster}")
    limits = Limits(cell_timeout=args.timeout, memory_mb=args.memory)
    try:
        watch(
            args.term, args.assignment, args.folder, limits, args.interval, args.workers, args.scheduler, once=args.once
        )
    except KeyboardInterrupt:
        print("watch stopped; start it again to carry on (finished work is not graded again)")
    return 0


def _feedback(args: argparse.Namespace) -> int:
    from grader.records.feedback import generate_feedback

    pages = generate_feedback(args.term, args.assignment, args.student, progress=not args.quiet)
    print(f"{len(pages)} feedback page(s) in {args.term.feedback}")
    return 0


def _report(args: argparse.Namespace) -> int:
    from grader.records.report import grade_table, plot, read_grades, write_csv

    grades = read_grades(args.term)
    csv_path = args.term.reports / "grades.csv"
    write_csv(grades, csv_path)
    print(grade_table(grades))
    print(f"\ngrades: {csv_path}")
    for path in plot(grades, args.term.reports):
        print(f"plot:   {path}")
    return 0


def _demo(args: argparse.Namespace) -> int:
    from grader.commands.demo import run_demo

    run_demo(args.term, args.students, None if args.notebooks == 0 else args.notebooks)
    return 0


def _workers(text: str) -> int:
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"--workers needs a whole number of at least 1, not {text!r}")
    return int(text)


def _add_worker_options(sub: argparse.ArgumentParser) -> None:
    sub.add_argument(
        "--workers",
        type=_workers,
        default=None,
        help="submissions graded at once, each by its own process (default: the machine's cores)",
    )
    sub.add_argument(
        "--scheduler",
        metavar="ADDRESS",
        help="grade on the workers of this Dask scheduler (tcp://host:8786) instead of locally",
    )


def register(commands: argparse._SubParsersAction) -> None:
    sub = commands.add_parser("collect", help="bring submissions into the term (folder or LMS zip)")
    sub.add_argument("assignment")
    sub.add_argument(
        "source", type=Path, help="folder with <student>/<notebook>.ipynb, or a zip of <student>_<notebook>.ipynb files"
    )
    sub.add_argument("--roster", type=Path, help="CSV with columns id[,first_name,last_name,email,lms_user_id]")
    sub.add_argument(
        "--pattern", help="regular expression for zip file names with (?P<student_id>) and (?P<file_id>) groups"
    )
    sub.set_defaults(run=_collect)

    sub = commands.add_parser("autograde", help="grade collected submissions in the sandbox (resumable)")
    sub.add_argument("--assignment")
    sub.add_argument("--student")
    sub.add_argument("--regrade", action="store_true", help="grade finished submissions again")
    sub.add_argument("--timeout", type=int, default=Limits.cell_timeout, help="seconds per cell (%(default)s)")
    sub.add_argument("--memory", type=int, default=Limits.memory_mb, help="MB per kernel (%(default)s)")
    sub.add_argument("--quiet", action="store_true", help="no progress bar")
    _add_worker_options(sub)
    sub.add_argument(
        "--no-guard",
        action="store_true",
        help="no in-kernel guard in the student's kernel (before each test it ends the processes "
        "student code left running and restores library functions replaced since the "
        "read-only cells ran); only to see what the guard prevents",
    )
    sub.add_argument(
        "--no-trusted-kernel",
        action="store_true",
        help="run the graded test cells in the student's kernel, as plain nbgrader does, instead of "
        "in a second, trusted kernel where no student code runs; only to see what the trusted "
        "kernel prevents",
    )
    sub.add_argument(
        "--no-pool",
        action="store_true",
        help="start every kernel as a fresh interpreter instead of forking it from the worker's "
        "warm template (slower; the grades are the same)",
    )
    sub.set_defaults(run=_autograde)

    sub = commands.add_parser(
        "regrade",
        help="after fixing a test in solutions/: update the term's tests, "
        "regrade the notebooks they touch, list changed scores",
    )
    sub.add_argument("--assignment")
    sub.add_argument("--timeout", type=int, default=Limits.cell_timeout, help="seconds per cell (%(default)s)")
    sub.add_argument("--memory", type=int, default=Limits.memory_mb, help="MB per kernel (%(default)s)")
    sub.add_argument("--quiet", action="store_true", help="no progress bar")
    _add_worker_options(sub)
    sub.set_defaults(run=_regrade)

    sub = commands.add_parser("watch", help="grade submissions as they arrive in a folder, with feedback")
    sub.add_argument("assignment")
    sub.add_argument("folder", type=Path, help="folder with <student>/<notebook>.ipynb (an exchange, an LMS sync)")
    sub.add_argument("--roster", type=Path, help="CSV with columns id[,first_name,...] to import first")
    sub.add_argument("--interval", type=float, default=10.0, help="seconds between looks (%(default)s)")
    sub.add_argument("--once", action="store_true", help="one round, then exit (for cron)")
    sub.add_argument("--timeout", type=int, default=Limits.cell_timeout, help="seconds per cell (%(default)s)")
    sub.add_argument("--memory", type=int, default=Limits.memory_mb, help="MB per kernel (%(default)s)")
    _add_worker_options(sub)
    sub.set_defaults(run=_watch)

    sub = commands.add_parser("feedback", help="HTML feedback per student (hidden tests stay hidden)")
    sub.add_argument("--assignment")
    sub.add_argument("--student")
    sub.add_argument("--quiet", action="store_true", help="no progress bar")
    sub.set_defaults(run=_feedback)

    sub = commands.add_parser("report", help="grades.csv for the LMS, scores.png and pass_rates.png")
    sub.set_defaults(run=_report)

    sub = commands.add_parser("demo", help="the whole cycle on sample submissions (term: a new temp dir)")
    sub.add_argument("--students", type=int, default=4, help="sample students besides the two misbehaving")
    sub.add_argument(
        "--notebooks",
        type=int,
        default=3,
        help="grade only the assignment's first N notebooks (0: all; default %(default)s)",
    )
    sub.set_defaults(run=_demo)
