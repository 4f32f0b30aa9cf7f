"""Binder builds the repository as it is: these tests pin down what repo2docker reads and what students get.

repo2docker (mybinder.org) installs `environment.yml`, then runs `postBuild`; both must sit at the top level
(a `binder/` or `.binder/` folder would make it ignore them). The package list lives in pyproject.toml only.
"""

from __future__ import annotations

import ast
import copy
import json
import os
import re
import shutil
import stat
import subprocess
import sys
import tomllib
from importlib.metadata import packages_distributions
from pathlib import Path

import pytest
import yaml
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

REPO = Path(__file__).resolve().parents[1]
WELCOME = Path("course/part1-tensors/01-welcome.ipynb")
PROJECT_PACKAGES = {"minitf", "grader"}
# Binder gives about 2 GB; the kernel that runs a lesson must leave room for JupyterLab and the browser's data.
KERNEL_MEMORY_BUDGET_MB = 1024


def pyproject() -> dict:
    return tomllib.loads((REPO / "pyproject.toml").read_text())


def conda_environment() -> dict:
    return yaml.safe_load((REPO / "environment.yml").read_text())


def lab_requirements() -> list[Requirement]:
    """What `pip install -e .[lab]` asks for: the base dependencies plus the lab extra."""
    project = pyproject()["project"]
    return [Requirement(line) for line in project["dependencies"] + project["optional-dependencies"]["lab"]]


def split_conda_dependencies() -> tuple[list[str], list[str]]:
    conda, pip = [], []
    for entry in conda_environment()["dependencies"]:
        if isinstance(entry, dict):
            pip.extend(entry["pip"])
        else:
            conda.append(entry)
    return conda, pip


def test_environment_yml_installs_the_lab_extra_and_lists_no_packages_of_its_own() -> None:
    conda, pip = split_conda_dependencies()
    conda_names = {re.split(r"[=<>!\s]", entry, maxsplit=1)[0] for entry in conda}
    assert conda_names == {"python", "pip"}, f"environment.yml should only bring Python and pip, not {conda_names}"
    assert pip == ["-e .[lab]"], f"environment.yml should pip-install the project's lab extra, not {pip}"


def test_environment_yml_python_satisfies_requires_python() -> None:
    conda, _ = split_conda_dependencies()
    python = next(entry for entry in conda if entry.startswith("python"))
    version = python.split("=", 1)[1].lstrip("=")
    requires = pyproject()["project"]["requires-python"]
    assert Requirement(f"python{requires}").specifier.contains(Version(version)), (
        f"environment.yml's {python} does not satisfy requires-python {requires}"
    )


def test_lab_extra_leaves_out_tensorflow_to_fit_binder_memory() -> None:
    names = {canonicalize_name(requirement.name) for requirement in lab_requirements()}
    heavy = {name for name in names if name.startswith(("tensorflow", "torch", "jax"))}
    assert not heavy, f"the lab extra (Binder's environment) should not install {heavy}: real TensorFlow is optional"


def imported_modules(notebook: Path) -> set[str]:
    """Top-level modules that a notebook's code cells import (magics and shell lines are skipped)."""
    modules: set[str] = set()
    for cell in json.loads(notebook.read_text())["cells"]:
        if cell["cell_type"] != "code":
            continue
        lines = "".join(cell["source"]).splitlines()
        code = "\n".join(line for line in lines if not line.lstrip().startswith(("%", "!")))
        for node in ast.walk(ast.parse(code)):
            if isinstance(node, ast.Import):
                modules |= {alias.name.split(".")[0] for alias in node.names}
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                modules.add(node.module.split(".")[0])
    return modules


def test_lab_extra_provides_every_package_the_course_imports() -> None:
    declared = {canonicalize_name(requirement.name) for requirement in lab_requirements()}
    distributions = packages_distributions()
    missing = {}
    for notebook in sorted(REPO.glob("course/*/*.ipynb")):
        for module in imported_modules(notebook) - set(sys.stdlib_module_names) - PROJECT_PACKAGES:
            providers = {canonicalize_name(name) for name in distributions.get(module, [module])}
            if not providers & declared:
                missing.setdefault(module, []).append(notebook.name)
    assert not missing, f"course notebooks import packages that `pip install -e .[lab]` does not install: {missing}"


def test_binder_config_sits_at_the_top_level() -> None:
    for folder in ("binder", ".binder"):
        assert not (REPO / folder).exists(), f"a {folder}/ folder makes repo2docker ignore the top-level files"
    post_build = REPO / "postBuild"
    assert post_build.read_text().startswith("#!"), "postBuild needs a shebang line"
    assert post_build.stat().st_mode & stat.S_IXUSR, "repo2docker runs postBuild only if it is executable"


def test_readme_binder_badge_and_postbuild_open_the_welcome_lesson() -> None:
    badge = re.search(r"\]\((https://mybinder\.org/v2/gh/[^)\s]+)\)", (REPO / "README.md").read_text())
    assert badge, "README.md should have a 'launch binder' badge linking to mybinder.org"
    assert badge.group(1).endswith(f"?urlpath=lab/tree/{WELCOME.as_posix()}"), badge.group(1)
    default_url = re.search(r'default_url = "/lab/tree/([^"]+)"', (REPO / "postBuild").read_text())
    assert default_url and default_url.group(1) == WELCOME.as_posix()
    assert (REPO / WELCOME).is_file()


def answered(student: dict, solution: dict) -> dict:
    """A copy of the student notebook with each answer cell replaced by the solution's answer (markers removed)."""
    student = copy.deepcopy(student)
    answers = {
        cell["metadata"]["nbgrader"]["grade_id"]: "".join(cell["source"])
        for cell in solution["cells"]
        if cell.get("metadata", {}).get("nbgrader", {}).get("solution")
    }
    for cell in student["cells"]:
        grade_id = cell.get("metadata", {}).get("nbgrader", {}).get("grade_id")
        if grade_id in answers:
            lines = answers[grade_id].splitlines()
            cell["source"] = "\n".join(line for line in lines if not re.search(r"### (BEGIN|END) SOLUTION", line))
    return student


# Runs inside the fresh environment, with its own nbclient: prints one JSON line about the run.
EXECUTE_IN_FRESH_ENVIRONMENT = r"""
import json, sys
import nbformat
from nbclient import NotebookClient

notebook = nbformat.reads(sys.stdin.read(), as_version=4)
probe = "import minitf, resource, sys\n" \
        "print(sys.prefix); print(minitf.__file__); print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)"
notebook.cells.append(nbformat.v4.new_code_cell(probe))
NotebookClient(notebook, kernel_name="python3", timeout=600, resources={"metadata": {"path": sys.argv[1]}}).execute()
problems = [
    output.get("ename") or output.get("text")
    for cell in notebook.cells
    for output in cell.get("outputs", [])
    if output["output_type"] == "error" or output.get("name") == "stderr"
]
prefix, minitf_file, peak_kb = notebook.cells[-1].outputs[0]["text"].split()
print(json.dumps({"problems": problems, "kernel_prefix": prefix, "minitf": minitf_file, "peak_kb": int(peak_kb)}))
"""


@pytest.mark.slow
def test_fresh_lab_environment_runs_the_welcome_lesson_and_checks_its_answers(tmp_path: Path) -> None:
    """Self-study the README's way: a new virtualenv, `pip install -e ".[lab]"`, then the first lesson answered."""
    checkout = tmp_path / "tf-core-course"
    checkout.mkdir()
    for name in ("pyproject.toml", "README.md", "environment.yml", "postBuild"):
        shutil.copy2(REPO / name, checkout / name)
    for folder in ("minitf", "grader", "course", "solutions"):
        shutil.copytree(REPO / folder, checkout / folder, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    venv = tmp_path / "venv"
    python = venv / "bin" / "python"
    environment = {key: value for key, value in os.environ.items() if not key.startswith(("PYTHON", "VIRTUAL_ENV"))}
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, env=environment, timeout=300)
    subprocess.run(
        [str(python), "-m", "pip", "install", "-q", "--disable-pip-version-check", "-e", ".[lab]"],
        cwd=checkout, env=environment, check=True, timeout=1200,
    )  # fmt: skip

    student = json.loads((checkout / WELCOME).read_text())
    solution = json.loads((checkout / "solutions" / WELCOME.relative_to("course")).read_text())
    run = subprocess.run(
        [str(python), "-c", EXECUTE_IN_FRESH_ENVIRONMENT, str(checkout / WELCOME.parent)],
        input=json.dumps(answered(student, solution)), capture_output=True, text=True,
        cwd=checkout / WELCOME.parent, env=environment, check=False, timeout=900,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr[-3000:]
    report = json.loads(run.stdout.strip().splitlines()[-1])
    assert report["problems"] == [], f"the answered welcome lesson printed errors: {report['problems']}"
    assert Path(report["kernel_prefix"]).resolve() == venv.resolve(), "the kernel did not run in the fresh environment"
    assert Path(report["minitf"]).resolve().is_relative_to(checkout.resolve()), report["minitf"]
    peak_mb = report["peak_kb"] / 1024
    print(f"\nwelcome lesson kernel peak memory: {peak_mb:.0f} MB")
    assert peak_mb < KERNEL_MEMORY_BUDGET_MB, f"the welcome lesson's kernel peaked at {peak_mb:.0f} MB"

    # The Validate button runs `nbgrader validate`: it must pass the answered lesson and catch a wrong answer.
    notebook = checkout / WELCOME
    notebook.write_text(json.dumps(answered(student, solution)))
    assert "Success! Your notebook passes all the tests." in validate(venv, notebook, environment)
    wrong = answered(student, solution)
    for cell in wrong["cells"]:
        if cell.get("metadata", {}).get("nbgrader", {}).get("grade_id") == "ex1-answer":
            cell["source"] = "answer = tf.constant(41)"
    notebook.write_text(json.dumps(wrong))
    report_of_wrong = validate(venv, notebook, environment)
    assert "VALIDATION FAILED" in report_of_wrong and "answer should be 42, but it is 41" in report_of_wrong


def validate(venv: Path, notebook: Path, environment: dict[str, str]) -> str:
    """What `nbgrader validate` (the Validate button's command) prints for a notebook, in the fresh environment."""
    run = subprocess.run(
        [str(venv / "bin" / "nbgrader"), "validate", notebook.name],
        cwd=notebook.parent, env=environment, capture_output=True, text=True, check=False, timeout=600,
    )  # fmt: skip
    return run.stdout + run.stderr
