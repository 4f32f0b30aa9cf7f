"""The pre-commit hooks run the same checks as `./run test`'s lint step, so a commit meets CI's checks first."""

import re
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent


def _run_checks() -> set[str]:
    """The commands of `./run`'s lint() function and its mypy call, without the `.venv/bin/` prefix."""
    run = (ROOT / "run").read_text()
    lint = run[run.index("lint() {") : run.index("}", run.index("lint() {"))]
    commands = {line.strip().removeprefix(".venv/bin/").rstrip(" .") for line in lint.splitlines()[1:]}
    commands = {c for c in commands if c and not c.startswith("#")}
    if re.search(r"^\s+\.venv/bin/mypy\b", run, re.M):
        commands.add("mypy")
    return commands


def _hooks() -> set[str]:
    config = yaml.safe_load((ROOT / ".pre-commit-config.yaml").read_text())
    entries = {hook["entry"] for repo in config["repos"] for hook in repo["hooks"]}
    return {e.removeprefix(".venv/bin/").replace(" --force-exclude", "") for e in entries}


def test_pre_commit_runs_what_the_lint_step_runs() -> None:
    assert _run_checks() == {"ruff check", "ruff format --check", "mypy"}, _run_checks()
    assert _hooks() == _run_checks(), f"pre-commit runs {_hooks()}, ./run test runs {_run_checks()}"


def test_ruff_reports_noqa_comments_that_suppress_nothing() -> None:
    assert "RUF100" in (ROOT / "pyproject.toml").read_text()
