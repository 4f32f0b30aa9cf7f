"""The term commands: collect, autograde, feedback, report, demo."""

from __future__ import annotations

import argparse
from pathlib import Path

from grader.sandbox.prepare import Limits


def _collect(args: argparse.Namespace) -> int:
    from grader.commands.collect import collect_folder, collect_zip, import_roster
    from grader.records.late import apply_late_work

    if args.roster:
        print(f"roster: {import_roster(args.term, args.roster)} student(s) from {args.roster}")
    if args.source.suffix.lower() == ".zip":
        report = collect_zip(args.term, args.assignment, args.source, args.pattern or "default")
    else:
        report = collect_folder(args.term, args.assignment, args.source)
    report.print(verbose=args.verbose)
    apply_late_work(args.term)  # formgrader shows due dates and submission times from the first collect on
    return 1 if report.rejected else 0


def _autograde(args: argparse.Namespace) -> int:
    from grader.commands.autograde import autograde, print_outcomes
    from grader.records.standing import standings

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
    print_outcomes(outcomes, standings(args.term))
    return 1 if any(o.status == "failed" for o in outcomes) else 0


def _regrade(args: argparse.Namespace) -> int:
    from grader.commands.regrade import regrade

    limits = Limits(cell_timeout=args.timeout, memory_mb=args.memory)
    report = regrade(
        args.term, args.assignment, limits, workers=args.workers, scheduler=args.scheduler, progress=not args.quiet
    )
    report.print()
    _after_grades_changed(args.term, {(c.student, c.assignment) for c in report.regraded if c.new is not None})
    return 1 if any(change.new is None for change in report.regraded) else 0


def _after_grades_changed(term, touched: set[tuple[str, str]]) -> None:
    """Rebuild the feedback pages that exist for ``touched`` submissions, then list what still needs a person."""
    from grader.records.feedback import generate_feedback, stale_feedback
    from grader.records.standing import standings

    rebuilt = 0
    for student, assignment in sorted(touched):
        if (term.feedback / student / assignment).is_dir():
            rebuilt += len(generate_feedback(term, assignment, student, progress=False))
    if rebuilt:
        print(f"feedback: {rebuilt} page(s) rebuilt in {term.feedback}")
    stale = stale_feedback(term)
    if stale:
        print(f"feedback out of date for {len(stale)} submission(s); rebuild them with: grader feedback")
    for (student, assignment), entry in sorted(standings(term).items()):
        if entry.needs_manual_grade:
            print(f"NEEDS MANUAL GRADING {student}/{assignment}: open formgrader (grader formgrader)")


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

    pages = generate_feedback(
        args.term, args.assignment, args.student, progress=not args.quiet, only_stale=not args.all
    )
    print(f"{len(pages)} feedback page(s) written in {args.term.feedback} (each student's index.html links them)")
    return 0


def _report(args: argparse.Namespace) -> int:
    from grader.records.lms import write_canvas, write_moodle
    from grader.records.report import grade_table, plot, read_grades, write_csv, write_statistics

    grades = read_grades(args.term)
    folder = args.term.reports
    write_csv(grades, folder / "grades.csv")
    print(grade_table(grades))
    print(f"\ngrades:  {folder / 'grades.csv'}")
    print(f"canvas:  {write_canvas(grades, folder / 'canvas.csv')}")
    for path in write_moodle(grades, folder):
        print(f"moodle:  {path}")
    for path in write_statistics(grades, folder):
        print(f"stats:   {path}")
    for path in plot(grades, folder):
        print(f"plot:    {path}")
    _after_grades_changed(args.term, set())
    return 0


def _deadline(args: argparse.Namespace) -> int:
    from grader.paths import GraderError
    from grader.records.late import (
        Deadline,
        apply_late_work,
        parse_late_policy,
        parse_time,
        read_deadlines,
        write_deadlines,
    )

    deadlines = read_deadlines(args.term)
    if args.assignment is not None:
        from grader.records.gradebook import known_assignment

        known_assignment(args.term, args.assignment)
        deadline = deadlines.setdefault(args.assignment, Deadline())
        if args.due:
            deadline.due = parse_time(args.due, "--due")
        if args.late:
            deadline.late, deadline.penalty, deadline.per = parse_late_policy(args.late)
        for grant in args.extend or []:
            student, _, until = grant.partition("=")
            if not until:
                raise GraderError(f"--extend takes STUDENT=TIME, not {grant!r}")
            deadline.extensions[student] = parse_time(until, f"--extend {student}")
        if args.due or args.late or args.extend:
            write_deadlines(args.term, deadlines)
            apply_late_work(args.term)
    for name, deadline in sorted(deadlines.items()):
        print(f"{name}: {deadline.describe()}")
        for student, until in sorted(deadline.extensions.items()):
            print(f"  extension: {student} until {until.isoformat()}")
    if not deadlines:
        print(f"no deadlines in {args.term.root / 'term.toml'}")
    return 0


def _formgrader(args: argparse.Namespace) -> int:
    from grader.commands.formgrader import serve

    return serve(args.term, args.port, args.check, args.open)


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
        "--pattern",
        help="names in a zip: canvas, moodle, default (<student>_<notebook>.ipynb), or a regular expression with "
        "a (?P<file_id>) group and a (?P<student_id>) or (?P<lms_user_id>) group, matched against the file's name "
        "(or, if it has a /, against its last folders and name)",
    )
    sub.add_argument("--verbose", action="store_true", help="list every file taken, not only the problems")
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
    sub.add_argument("--all", action="store_true", help="rebuild every page, not only those whose grades changed")
    sub.set_defaults(run=_feedback)

    sub = commands.add_parser(
        "report",
        help="grades.csv, canvas.csv and moodle-<assignment>.csv for the LMS, tests.csv, notebooks.csv, "
        "scores.png and pass_rates.png; lists flagged submissions and out-of-date feedback",
    )
    sub.set_defaults(run=_report)

    sub = commands.add_parser(
        "deadline", help="show or set an assignment's due date, late policy and extensions (term.toml)"
    )
    sub.add_argument("assignment", nargs="?", help="the assignment to change (none: show all)")
    sub.add_argument("--due", help="due date and time, ISO 8601 with its zone: 2026-12-01T23:59:00+01:00")
    sub.add_argument("--late", help="none (marked only), zero, or a penalty per started period: 10%%/day, 2%%/hour")
    sub.add_argument("--extend", action="append", metavar="STUDENT=TIME", help="a student's own due date (repeatable)")
    sub.set_defaults(run=_deadline)

    sub = commands.add_parser("formgrader", help="JupyterLab with nbgrader's formgrader on this term (manual grading)")
    sub.add_argument("--port", type=int, default=8888, help="port on the loopback (%(default)s)")
    sub.add_argument("--check", action="store_true", help="check the term's formgrader configuration and exit")
    sub.add_argument("--open", action="store_true", help="open a browser")
    sub.set_defaults(run=_formgrader)

    sub = commands.add_parser("demo", help="the whole cycle on sample submissions (term: a new temp dir)")
    sub.add_argument("--students", type=int, default=4, help="sample students besides the two misbehaving")
    sub.add_argument(
        "--notebooks",
        type=int,
        default=3,
        help="grade only the assignment's first N notebooks (0: all; default %(default)s)",
    )
    sub.set_defaults(run=_demo)
