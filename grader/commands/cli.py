"""Command line: ``python -m grader <command>``; each command says what it did or fails clearly."""

from __future__ import annotations

import argparse
import os
import sys
import warnings
from pathlib import Path

from grader.paths import DEFAULT_COURSE, DEFAULT_SOLUTIONS, GraderError, ensure_tools_on_path, make_term


def _release(args: argparse.Namespace) -> int:
    from grader.commands.binder_link import placeholder_warning, write_binder_links
    from grader.commands.release import release
    from grader.paths import REPO

    if args.solutions.resolve() == DEFAULT_SOLUTIONS:
        for path in write_binder_links(REPO, args.solutions):
            print(f"Binder link updated from pyproject.toml: {path.relative_to(REPO)}")
        warning = placeholder_warning(REPO)
        if warning:
            print(warning, file=sys.stderr)
    changes = release(args.solutions, args.course, args.assignment)
    for name, touched in changes.items():
        state = f"{len(touched)} file(s) updated" if touched else "unchanged"
        print(f"{args.course.name}/{name}: {state}")
        for path in touched:
            print(f"  {path}")
    return 0


def _check(args: argparse.Namespace) -> int:
    from grader.commands.release import check

    drift = check(args.solutions, args.course, args.assignment)
    if drift:
        print("course/ is out of sync with solutions/ (run `python -m grader release`):", file=sys.stderr)
        for line in drift.lines():
            print(f"  {line}", file=sys.stderr)
        return 1
    print("course/ is in sync with solutions/")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m grader", description=__doc__)
    parser.add_argument(
        "--solutions", type=Path, default=DEFAULT_SOLUTIONS, help="instructor sources (default: %(default)s)"
    )
    parser.add_argument(
        "--course", type=Path, default=DEFAULT_COURSE, help="generated student notebooks (default: %(default)s)"
    )
    parser.add_argument(
        "--term",
        type=Path,
        default=None,
        help="term directory with submissions, gradebook and feedback (default: $GRADER_TERM "
        "or ./term; demo: a new temporary folder)",
    )
    commands = parser.add_subparsers(dest="command", required=True)

    sub = commands.add_parser("release", help="regenerate course/ from solutions/")
    sub.add_argument("assignment", nargs="?", help="one assignment (default: all)")
    sub.set_defaults(run=_release)

    sub = commands.add_parser("check", help="exit 1 and list files when course/ and solutions/ drift apart")
    sub.add_argument("assignment", nargs="?", help="one assignment (default: all)")
    sub.set_defaults(run=_check)

    _add_term_commands(commands)
    return parser


def _add_term_commands(commands: argparse._SubParsersAction) -> None:
    """Term commands live in grader/commands/term.py; registered here so --help lists them."""
    from grader.commands.term import register

    register(commands)


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    ensure_tools_on_path()
    warnings.filterwarnings("ignore", module="sqlalchemy")  # nbgrader's ORM warnings say nothing to instructors
    warnings.filterwarnings("ignore", message=".*not in session.*")
    args.solutions = args.solutions.resolve()
    args.course = args.course.resolve()
    try:
        if args.term is None and args.command != "demo":
            args.term = Path(os.environ.get("GRADER_TERM", "term"))
        if args.command not in ("release", "check", "demo"):
            args.term = make_term(args.term, args.solutions)
        return args.run(args)
    except GraderError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted: rerun the same command to continue where it stopped", file=sys.stderr)
        return 130
