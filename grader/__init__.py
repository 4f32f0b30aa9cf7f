"""The instructor's grading tool around nbgrader: release, check, collect, autograde, feedback, report."""

from grader.paths import ensure_tools_on_path

# nbgrader's gradebook shells out to `alembic` from this environment; make that work without activating it.
ensure_tools_on_path()
