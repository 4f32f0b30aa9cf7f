"""The pre-commit hooks run the same checks as `./run test`'s lint step (which CI runs), so a commit meets CI's checks
first; that step fails on unformatted code and on a noqa that suppresses nothing."""

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
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


def _lint_step(tmp_path: Path, source: str) -> subprocess.CompletedProcess[str]:
    """`./run`'s lint() as written there, run on a project of one file under this project's ruff settings."""
    run = (ROOT / "run").read_text()
    body = run[run.index("lint() {") + len("lint() {") : run.index("}", run.index("lint() {"))]
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    (tmp_path / ".venv" / "bin").mkdir(parents=True)
    (tmp_path / ".venv" / "bin" / "ruff").symlink_to(Path(sys.executable).parent / "ruff")
    (tmp_path / "module.py").write_text(source)
    return subprocess.run(["bash", "-euc", body], cwd=tmp_path, capture_output=True, text=True)


def test_the_lint_step_passes_formatted_code(tmp_path: Path) -> None:
    run = _lint_step(tmp_path, "def f(a: int) -> list[int]:\n    return [a, 2, 3]\n")
    assert run.returncode == 0, run.stdout + run.stderr


@pytest.mark.parametrize(
    ("source", "report"),
    [
        ("def f( a ):\n  return [a,2,\n 3]\n", "would be reformatted"),
        ("x = 1  # noqa: E501\n", "RUF100"),
    ],
    ids=["unformatted", "noqa_that_suppresses_nothing"],
)
def test_the_lint_step_fails_on(tmp_path: Path, source: str, report: str) -> None:
    run = _lint_step(tmp_path, source)
    assert run.returncode != 0 and report in run.stdout + run.stderr, run.stdout + run.stderr


def test_ci_runs_the_readmes_test_command() -> None:
    commands = [line.strip() for line in (ROOT / ".ci" / "run").read_text().splitlines()]
    assert "./run test" in commands and "./run test" in (ROOT / "README.md").read_text()
    run = (ROOT / "run").read_text()
    test_verb = run[run.index("\n  test)") : run.index(";;", run.index("\n  test)"))].splitlines()
    assert "lint" in [line.strip() for line in test_verb], "./run test runs the lint step before the tests"
