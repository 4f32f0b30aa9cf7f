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

from grader.commands.binder_link import binder_url, is_placeholder, placeholder_warning, write_binder_links

REPO = Path(__file__).resolve().parents[2]
WELCOME = Path("course/part1-tensors/01-welcome.ipynb")
PROJECT_PACKAGES = {"minitf", "grader", "course_data"}
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


def test_environment_yml_installs_the_locked_lab_extra_and_lists_no_packages_of_its_own() -> None:
    """Python and pip from conda; then pip installs the lab lock's pins (tests/test_locks.py compares them with
    requirements/lab.txt) and the project itself."""
    conda, pip = split_conda_dependencies()
    conda_names = {re.split(r"[=<>!\s]", entry, maxsplit=1)[0] for entry in conda}
    assert conda_names == {"python", "pip"}, f"environment.yml should only bring Python and pip, not {conda_names}"
    assert pip[-1] == "-e .", f"environment.yml should end by installing the project itself, not {pip[-1]}"
    unpinned = [entry for entry in pip[:-1] if not re.fullmatch(r"[A-Za-z0-9_.-]+==\S+", entry)]
    assert not unpinned, f"environment.yml should pin every package exactly (./run lock writes it): {unpinned}"


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
probe = "import minitf, resource, sys\nfrom course_data import load_digits\nassert len(load_digits()[0]) == 1797\n" \
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
    """Self-study the README's way: a new virtualenv, the lab lock and the project, then the first lesson answered."""
    checkout = tmp_path / "tf-core-course"
    checkout.mkdir()
    for name in ("pyproject.toml", "README.md", "LICENSE", "environment.yml", "postBuild"):
        shutil.copy2(REPO / name, checkout / name)
    for folder in ("minitf", "grader", "course_data", "course", "solutions", "requirements"):
        shutil.copytree(REPO / folder, checkout / folder, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    venv = tmp_path / "venv"
    python = venv / "bin" / "python"
    environment = {key: value for key, value in os.environ.items() if not key.startswith(("PYTHON", "VIRTUAL_ENV"))}
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, env=environment, timeout=300)
    for arguments in (["-r", "requirements/lab.txt"], ["--no-deps", "-e", "."]):  # the README's two steps
        subprocess.run(
            [str(python), "-m", "pip", "install", "-q", "--disable-pip-version-check", *arguments],
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


# --- what a learner meets on Binder: the launch link, the Assignment List, and the switch to real TensorFlow ---


def readme_badge_url() -> str:
    badge = re.search(r"\]\((https://mybinder\.org/v2/gh/[^)\s]+)\)", (REPO / "README.md").read_text())
    assert badge, "README.md should have a 'launch binder' badge linking to mybinder.org"
    return badge.group(1)


def markdown_of(notebook: Path) -> str:
    cells = json.loads(notebook.read_text())["cells"]
    return "\n".join("".join(cell["source"]) for cell in cells if cell["cell_type"] == "markdown")


def test_readme_badge_and_welcome_lesson_link_to_the_address_set_in_pyproject() -> None:
    url = binder_url(REPO)
    assert readme_badge_url() == url, f"README's badge should be {url} (from pyproject.toml), not {readme_badge_url()}"
    for notebook in (REPO / WELCOME, REPO / "solutions" / WELCOME.relative_to("course")):
        links = re.findall(r"\]\((https://mybinder\.org/[^)\s]+)\)", markdown_of(notebook))
        assert links == [url], f"{notebook.relative_to(REPO)} should link to Binder as pyproject.toml says: {links}"


def test_release_writes_the_binder_links_from_pyproject_and_warns_about_the_placeholder(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    (root / "solutions" / "part1-tensors").mkdir(parents=True)
    shutil.copy(REPO / "README.md", root / "README.md")
    welcome = root / "solutions" / WELCOME.relative_to("course")
    shutil.copy(REPO / "solutions" / WELCOME.relative_to("course"), welcome)
    settings = (REPO / "pyproject.toml").read_text()
    (root / "pyproject.toml").write_text(settings)
    assert is_placeholder(root), "the committed address names the placeholder account OWNER"
    (root / "pyproject.toml").write_text(settings.replace("github.com/OWNER/", "github.com/course-team/"))
    assert not is_placeholder(root)
    changed = write_binder_links(root, root / "solutions")
    assert sorted(changed) == sorted([root / "README.md", welcome]), f"both links should be rewritten, not {changed}"
    url = "https://mybinder.org/v2/gh/course-team/tf-core-course/main?urlpath=lab/tree/" + str(WELCOME)
    assert re.findall(r"\]\((https://mybinder\.org/v2/[^)\s]+)\)", (root / "README.md").read_text()) == [url]
    assert re.findall(r"\]\((https://mybinder\.org/[^)\s]+)\)", markdown_of(welcome)) == [url]
    assert json.loads(welcome.read_text()) == _with_link(REPO / "solutions" / WELCOME.relative_to("course"), url)
    assert write_binder_links(root, root / "solutions") == [], "a second run changes nothing"


def _with_link(notebook: Path, url: str) -> dict:
    content = json.loads(notebook.read_text())
    for cell in content["cells"]:
        cell["source"] = [re.sub(r"https://mybinder\.org/v2/gh/[^)\s]+", url, line) for line in cell["source"]]
    return content


def test_release_warning_names_the_placeholder_until_the_address_is_set(tmp_path: Path) -> None:
    settings = (REPO / "pyproject.toml").read_text()
    (tmp_path / "pyproject.toml").write_text(settings)
    warning = placeholder_warning(tmp_path)
    assert warning is not None and "OWNER" in warning and "pyproject.toml" in warning, warning
    (tmp_path / "pyproject.toml").write_text(settings.replace("github.com/OWNER/", "github.com/course-team/"))
    assert placeholder_warning(tmp_path) is None


def test_welcome_lesson_documents_the_engine_switch_that_exists() -> None:
    text = markdown_of(REPO / WELCOME)
    assert "from use_tensorflow import tf" in text, "the welcome lesson should show the line that switches engines"
    assert "change the last line of the setup cell" not in text, "the setup cell is read-only: don't ask to edit it"
    for part in sorted(path for path in (REPO / "course").iterdir() if path.is_dir()):
        assert (part / "use_tensorflow.py").is_file(), f"{part.name} lacks use_tensorflow.py next to its lessons"
    copies = {(path.parent.name, path.read_bytes()) for path in (REPO / "solutions").glob("*/use_tensorflow.py")}
    assert len({content for _, content in copies}) == 1, "every part should ship the same use_tensorflow.py"


SWITCH = (
    "import sys\n{hide}sys.path.insert(0, {folder!r})\nfrom use_tensorflow import tf\nprint('engine:', tf.__name__)"
)


def run_switch(hide_tensorflow: bool, nbgrader: str | None = None) -> subprocess.CompletedProcess:
    """`from use_tensorflow import tf` as a lesson cell runs it: with or without TensorFlow, under nbgrader or not."""
    hide = "sys.modules['tensorflow'] = None  # as on Binder: import tensorflow fails\n" if hide_tensorflow else ""
    code = SWITCH.format(hide=hide, folder=str(REPO / "course" / "part1-tensors"))
    environment = {key: value for key, value in os.environ.items() if key != "NBGRADER_EXECUTION"}
    environment["PYTHONPATH"] = str(REPO)
    if nbgrader:
        environment["NBGRADER_EXECUTION"] = nbgrader
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=environment, timeout=300)


def test_engine_switch_without_tensorflow_says_so_and_keeps_minitf() -> None:
    run = run_switch(hide_tensorflow=True)
    assert run.returncode == 0 and not run.stderr, f"the switch should not fail without TensorFlow:\n{run.stderr}"
    assert "TensorFlow is not installed here" in run.stdout, run.stdout
    assert run.stdout.strip().endswith("engine: minitf"), run.stdout


@pytest.mark.tf
@pytest.mark.slow  # starts TensorFlow in a fresh process
def test_engine_switch_with_tensorflow_gives_tensorflow() -> None:
    run = run_switch(hide_tensorflow=False)
    assert run.returncode == 0, run.stderr[-2000:]
    assert "now runs on TensorFlow" in run.stdout, run.stdout
    assert run.stdout.strip().endswith("engine: tensorflow"), run.stdout


@pytest.mark.parametrize("execution", ["autograde", "validate"])
def test_engine_switch_changes_nothing_when_nbgrader_runs_the_notebook(execution: str) -> None:
    run = run_switch(hide_tensorflow=False, nbgrader=execution)
    assert run.returncode == 0 and not run.stderr, run.stderr[-2000:]
    assert "this line changes nothing here" in run.stdout, run.stdout
    assert run.stdout.strip().endswith("engine: minitf"), "grading must run a lesson on its setup cell's engine"


@pytest.mark.slow
@pytest.mark.tf
def test_a_lesson_with_the_engine_switch_runs_on_tensorflow(tmp_path: Path) -> None:
    """The welcome lesson, answered, with the switch in a cell below its setup: every cell runs on TensorFlow."""
    sys.path.insert(0, str(REPO / "tests" / "course"))
    from notebook_runner import execute

    solution = json.loads((REPO / "solutions" / WELCOME.relative_to("course")).read_text())
    notebook = answered(json.loads((REPO / WELCOME).read_text()), solution)
    setup = next(i for i, cell in enumerate(notebook["cells"]) if "setup" in cell.get("metadata", {}).get("tags", []))
    switch = {"cell_type": "code", "metadata": {}, "source": "from use_tensorflow import tf", "outputs": [],
              "execution_count": None, "id": "switch"}  # fmt: skip
    probe = dict(switch, id="probe", source="print('engine:', tf.__name__, type(tf.constant(1.0)).__module__)")
    notebook["cells"][setup + 1 : setup + 1] = [switch]
    notebook["cells"].append(probe)
    shutil.copy2(REPO / WELCOME.parent / "use_tensorflow.py", tmp_path / "use_tensorflow.py")
    path = tmp_path / WELCOME.name
    path.write_text(json.dumps(notebook))
    run = execute(path, "minitf")  # the notebook as the student has it: the switch itself picks TensorFlow
    errors = [(cell.index, cell.errors) for cell in run.cells if cell.failed]
    assert not errors, f"the welcome lesson with the switch raised: {errors}"
    switched = next(cell for cell in run.cells if cell.index == setup + 1)
    assert "now runs on TensorFlow" in switched.stdout, switched.stdout
    assert run.cells[-1].stdout.startswith("engine: tensorflow tensorflow"), run.cells[-1].stdout


ASSIGNMENT_LIST = """
import json, sys
from nbgrader.server_extensions.assignment_list.handlers import AssignmentList
panel = AssignmentList()
panel.root_dir = sys.argv[1]
print(json.dumps(panel.list_released_assignments()))
"""


@pytest.mark.slow
def test_binder_assignment_list_offers_every_part_as_the_course_folder(tmp_path: Path) -> None:
    """postBuild in a fresh home, then what nbgrader's Assignment List panel asks the server for."""
    home = tmp_path / "home"
    home.mkdir()
    for folder in ("course", "solutions", "grader"):
        shutil.copytree(REPO / folder, home / folder, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    shutil.copy2(REPO / "postBuild", home / "postBuild")
    environment = {key: value for key, value in os.environ.items() if not key.startswith("JUPYTER")}
    environment.update(HOME=str(home), PATH=f"{Path(sys.executable).parent}{os.pathsep}{environment.get('PATH', '')}")
    subprocess.run(["bash", "postBuild"], cwd=home, env=environment, check=True, timeout=600, capture_output=True)
    before = sorted(path.name for path in home.iterdir())
    listed = subprocess.run(
        [sys.executable, "-c", ASSIGNMENT_LIST, str(home)],
        cwd=home, env=environment, check=True, timeout=300, capture_output=True, text=True,
    )  # fmt: skip
    answer = json.loads(listed.stdout.strip().splitlines()[-1])
    assert answer["success"], answer["value"]
    parts = sorted(path.name for path in (REPO / "course").iterdir() if path.is_dir())
    offered = {item["assignment_id"]: item for item in answer["value"]}
    assert sorted(offered) == parts, f"the Assignment List should offer {parts}, not {sorted(offered)}"
    for part, item in offered.items():
        assert item["status"] == "fetched" and item["path"] == f"course/{part}", (
            f"{part} should show as already downloaded, as the notebooks in course/{part}: {item['status']}, "
            f"{item.get('path')}"
        )
        notebooks = sorted(notebook["path"] for notebook in item["notebooks"])
        assert notebooks == sorted(f"course/{part}/{path.name}" for path in (REPO / "course" / part).glob("*.ipynb"))
    assert sorted(path.name for path in home.iterdir()) == before, "listing the assignments wrote into the home folder"
    assert not set(parts) & set(before), f"a second copy of the course sits next to course/: {before}"


def test_every_repository_file_post_build_names_exists() -> None:
    """postBuild writes paths of the repository into the user's Jupyter config; a moved file breaks Binder."""
    text = (REPO / "postBuild").read_text()
    named = re.findall(r"\$PWD/([\w./-]+)", text)
    assert named, "postBuild names no file of the repository"
    missing = [path for path in named if not (REPO / path).exists()]
    assert not missing, f"postBuild names files that do not exist: {missing}"
