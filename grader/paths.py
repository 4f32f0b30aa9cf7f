"""Where the repository, the instructor sources and a term's grading data live."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
GRADER_DIR = REPO / "grader"
NBGRADER_CONFIG = GRADER_DIR / "settings" / "nbgrader_config.py"
DEFAULT_SOLUTIONS = REPO / "solutions"
DEFAULT_COURSE = REPO / "course"


class GraderError(Exception):
    """A problem the instructor can fix (bad input, wrong folder); shown without a traceback."""


@dataclass(frozen=True)
class Term:
    """A term directory: submissions, autograded copies, feedback and the gradebook of one course run.

    It is kept apart from solutions/ and course/ so grading data never mixes with what students receive.
    """

    root: Path
    solutions: Path = DEFAULT_SOLUTIONS

    @property
    def gradebook(self) -> Path:
        return self.root / "gradebook.db"

    @property
    def db_url(self) -> str:
        return f"sqlite:///{self.gradebook}"

    @property
    def submitted(self) -> Path:
        return self.root / "submitted"

    @property
    def autograded(self) -> Path:
        return self.root / "autograded"

    @property
    def feedback(self) -> Path:
        return self.root / "feedback"

    @property
    def reports(self) -> Path:
        return self.root / "reports"

    @property
    def release(self) -> Path:
        """The term's own copy of the student notebooks (generate_assignment writes it with the gradebook)."""
        return self.root / "release"

    @property
    def downloaded(self) -> Path:
        return self.root / "downloaded"

    @property
    def state(self) -> Path:
        """Grader bookkeeping (completion markers, kernelspec) kept out of nbgrader's folders."""
        return self.root / ".grader"


def make_term(root: str | os.PathLike[str], solutions: str | os.PathLike[str] | None = None) -> Term:
    """Resolve and validate a term directory; refuse places that would mix grading data with sources."""
    term_root = Path(root).resolve()
    source = Path(solutions).resolve() if solutions else DEFAULT_SOLUTIONS
    for forbidden in (source, DEFAULT_SOLUTIONS, DEFAULT_COURSE):
        if term_root == forbidden or forbidden in term_root.parents:
            raise GraderError(f"the term directory {term_root} must not be inside {forbidden}")
    return Term(root=term_root, solutions=source)


def ensure_tools_on_path() -> None:
    """nbgrader shells out to ``alembic`` from the same environment; make that work without activating it."""
    import sys

    bindir = str(Path(sys.executable).parent)
    parts = os.environ.get("PATH", "").split(os.pathsep)
    if bindir not in parts:
        os.environ["PATH"] = os.pathsep.join([bindir, *parts])
