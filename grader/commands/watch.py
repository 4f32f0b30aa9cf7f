"""watch: grade submissions as they arrive in a folder (an exchange or an LMS sync folder), with feedback.

Each round collects the folder like ``collect`` (new and changed work only: identical work is left
alone), autogrades what is not finished yet (finished work keeps its grade) and writes the feedback of
what it just graded.  All state lives in the term (collected copies, completion markers), so a watcher
that is stopped and started again carries on without regrading anything.  A file still being written
is not collected until the folder has stayed the same for one interval.
"""

from __future__ import annotations

import signal
import time
from collections.abc import Callable
from pathlib import Path

from grader.paths import GraderError, Term
from grader.sandbox.prepare import Limits


def snapshot(folder: Path) -> dict[str, tuple[int, int]]:
    """Size and modification time of every file below ``folder``: what changes when work arrives."""
    found = {}
    for path in folder.rglob("*"):
        try:
            info = path.lstat()
        except OSError:  # removed while we looked
            continue
        if not path.is_dir():
            found[str(path.relative_to(folder))] = (info.st_size, info.st_mtime_ns)
    return found


def _stop_on_term_signal() -> None:
    def stop(*_):
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, stop)


def grading_round(
    term: Term,
    assignment: str,
    folder: Path,
    limits: Limits,
    workers: int | None,
    scheduler: str | None,
    reported: set[str],
    say: Callable[[str], None],
) -> int:
    """Collect, autograde the unfinished, write their feedback; returns how many submissions were graded."""
    from grader.commands.autograde import autograde as grade
    from grader.commands.collect import collect_folder
    from grader.records.feedback import generate_feedback
    from grader.records.termstate import find_submissions, is_finished

    report = collect_folder(term, assignment, folder)
    for label in report.collected + report.updated:
        say(f"collected {label}")
    for label, problems in (("REJECTED", report.rejected), ("OLDER, NOT TAKEN", report.kept_newer)):
        for problem in problems:
            if problem not in reported:  # once per problem, not every round
                reported.add(problem)
                say(f"{label} {problem}")
    waiting = [(s, a) for s, a in find_submissions(term, assignment, None) if not is_finished(term, s, a)]
    if not waiting:
        return 0
    outcomes = grade(term, assignment, limits=limits, progress=False, workers=workers, scheduler=scheduler)
    graded = [o for o in outcomes if o.status == "graded"]
    for outcome in outcomes:
        if outcome.status == "failed" and outcome.message not in reported:
            reported.add(outcome.message)
            say(f"FAILED {outcome.student}/{outcome.assignment}: {outcome.message}")
    for outcome in graded:
        pages = []
        if any((term.autograded / outcome.student / assignment).glob("*.ipynb")):
            pages = generate_feedback(term, assignment, outcome.student, progress=False)
        where = f", feedback in {pages[0].parent}" if pages else ""
        say(f"graded {outcome.student}/{assignment}: {outcome.score:g}/{outcome.max_score:g}{where}")
    return len(graded)


def watch(
    term: Term,
    assignment: str,
    folder: Path,
    limits: Limits | None = None,
    interval: float = 10.0,
    workers: int | None = None,
    scheduler: str | None = None,
    once: bool = False,
    say: Callable[[str], None] | None = None,
) -> None:
    """Poll ``folder`` every ``interval`` seconds until stopped (Ctrl-C, SIGTERM), or one round with ``once``."""
    from grader.records.gradebook import ensure_assignment, known_assignment

    def default_say(line: str) -> None:
        print(f"{time.strftime('%H:%M:%S')} {line}", flush=True)

    say = say or default_say
    known_assignment(term, assignment)
    if not folder.is_dir():
        raise GraderError(f"{folder} is not a folder to watch")
    ensure_assignment(term, assignment)
    limits = limits or Limits()
    reported: set[str] = set()
    _stop_on_term_signal()
    say(f"watching {folder} for {assignment} (every {interval:g} s; Ctrl-C stops, a restart carries on)")
    handled: dict | None = None  # the folder as of the last round
    previous = snapshot(folder)
    settled = True
    while True:
        if once or (settled and previous != handled):
            try:
                grading_round(term, assignment, folder, limits, workers, scheduler, reported, say)
                handled = previous
            except GraderError as error:  # e.g. an autograde started by hand holds the term: try again later
                say(f"not graded this round: {error}")
        if once:
            return
        time.sleep(interval)
        current = snapshot(folder)
        settled = current == previous  # still arriving: wait until the folder holds still for one interval
        previous = current
