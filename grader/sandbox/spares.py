"""Kernels started ahead: the next notebook's trusted kernel and student's kernel, started while one notebook runs
(``GuardedExecute.warm``; one of each per worker), and the submission a worker grades next."""

from __future__ import annotations

import contextlib
import os
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from nbclient.util import run_sync

from grader.sandbox.pool import kill_launcher, read_replies


class StudentSpare:
    """The student's kernel for the next notebook of the same submission, started while this one runs.

    Its working folder is a copy of the same grading folder (without notebooks, see grader/sandbox/launch.py), which
    does not change between a submission's notebooks; right after its start it was sent the guard (with the
    next notebook's read-only imports) and the channel, the grader's code only.  No other student's
    submission can take it: ``folder`` is the submission's own grading folder.
    """

    def __init__(
        self, km, kc, sockets: Path | None, folder: str, notebook: str, modules: list[str], sent: list[str], digest: str
    ) -> None:
        self.km, self.kc, self.sockets, self.sent = km, kc, sockets, sent
        self.folder, self.notebook, self.modules, self.digest = folder, notebook, modules, digest
        self.answered: bool | None = None  # the replies, once read

    def ready(self, timeout: float) -> bool:
        """True once the guard and the channel are in; False if the kernel died or they failed.  Once it has
        answered, its launcher has copied the working folder: the folder may change from then on."""
        if self.answered is None:
            replies = read_replies(
                lambda wait: run_sync(self.kc.get_shell_msg)(timeout=wait),
                self.sent,
                timeout,
                lambda: run_sync(self.km.is_alive)(),
            )
            self.answered = replies is not None and all(reply["content"].get("status") == "ok" for reply in replies)
        return self.answered

    def close(self) -> None:
        with contextlib.suppress(Exception):  # it may have died already
            self.kc.stop_channels()
            kill_launcher(self.km)
            run_sync(self.km.shutdown_kernel)(now=True)
        if self.sockets is not None:
            shutil.rmtree(self.sockets, ignore_errors=True)


@dataclass
class NextSubmission:
    """The submission this worker grades after the current one (the run hands a worker its next task ahead):
    its first notebook's student kernel is started while the current submission's last notebook runs."""

    assignment: str
    notebook: str  # the first notebook nbgrader will grade (they go in sorted order)
    submitted: Path  # its files, written by the worker where its grading will read them
    folder: Path  # its grading folder, where nbgrader's autograde will lay it out


#: the next notebook's student's kernel, started while this one runs (``GuardedExecute.warm``; one per worker)
STUDENT_SPARES: list[StudentSpare] = []
#: set by the worker (grader/worker/worker.py) while it grades a submission: asks for the next one, None while unknown
NEXT_SUBMISSION: Callable[[], NextSubmission | None] | None = None
#: notebooks whose student's kernel was a spare, since the worker last set it to 0 (reported per submission)
EARLY_KERNELS = 0


def stage_grading_folder(submitted: Path, source: Path, target: Path, ignore: list[str]) -> None:
    """Lay out a grading folder as nbgrader's autograde does, notebooks aside: the submission's other files,
    then the instructor's files of the assignment over them (``find_all_files`` with nbgrader's ignore list)."""
    from nbgrader.utils import find_all_files

    shutil.rmtree(target, ignore_errors=True)
    target.mkdir(parents=True)
    for root in (submitted, source):
        for name in find_all_files(str(root), [*ignore, "*.ipynb"]):
            copy = target / os.path.relpath(name, root)
            copy.parent.mkdir(parents=True, exist_ok=True)
            copy.unlink(missing_ok=True)
            shutil.copy(name, copy)


def settle_student_spares(timeout: float = 120) -> None:
    """Wait until every spare student kernel has copied its working folder (it answered), before the worker
    replaces the folder's files with the next submission's grading; a spare that fails is ended."""
    for spare in list(STUDENT_SPARES):
        if not spare.ready(timeout):
            STUDENT_SPARES.remove(spare)
            spare.close()


def close_student_spares() -> None:
    """Stop the spare kernels (the worker is done)."""
    while STUDENT_SPARES:
        STUDENT_SPARES.pop().close()
