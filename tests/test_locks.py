"""The pinned installs agree with pyproject.toml and with each other (requirements/lock.py writes them)."""

import importlib.util
import re
import tomllib
from pathlib import Path

import pytest
from packaging.requirements import Requirement

ROOT = Path(__file__).resolve().parent.parent
_spec = importlib.util.spec_from_file_location("lock", ROOT / "requirements" / "lock.py")
assert _spec and _spec.loader
lock = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(lock)

DEV, LAB = ROOT / "requirements" / "dev.txt", ROOT / "requirements" / "lab.txt"
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
SELF = lock.normalise(PROJECT["name"])


def _environment_pins() -> dict[str, str]:
    text = (ROOT / "environment.yml").read_text()
    return {lock.normalise(n): v for n, v in re.findall(r"^\s+- ([A-Za-z0-9_.-]+)==(\S+)$", text, re.M)}


@pytest.mark.parametrize("path", [DEV, LAB], ids=["dev", "lab"])
def test_each_lock_was_generated_from_this_pyproject(path: Path) -> None:
    stamp = next(line for line in path.read_text().splitlines() if line.startswith(lock.FINGERPRINT))
    assert stamp.removeprefix(lock.FINGERPRINT) == lock.fingerprint(), (
        f"{path.name} was resolved from another pyproject.toml: run `./run lock` and commit the locks"
    )


def test_binder_environment_pins_exactly_the_lab_lock() -> None:
    assert _environment_pins() == lock.pins(LAB), "environment.yml differs from requirements/lab.txt: run ./run lock"


def test_the_lab_lock_has_the_dev_lock_versions() -> None:
    dev, lab = lock.pins(DEV), lock.pins(LAB)
    differ = {name: (version, dev.get(name)) for name, version in lab.items() if dev.get(name) != version}
    assert not differ, f"lab.txt and dev.txt pin these differently (lab, dev): {differ}"


def _wanted(extra: str) -> list[Requirement]:
    """The direct requirements of an extra, the extras it names of this project followed."""
    found = [Requirement(r) for r in PROJECT["dependencies"]]
    todo, seen = [extra], set()
    while todo:
        name = todo.pop()
        seen.add(name)
        for text in PROJECT["optional-dependencies"][name]:
            requirement = Requirement(text)
            if lock.normalise(requirement.name) == SELF:
                todo += [e for e in requirement.extras if e not in seen]
            else:
                found.append(requirement)
    return found


@pytest.mark.parametrize(("extra", "path"), [("dev", DEV), ("lab", LAB)], ids=["dev", "lab"])
def test_every_requirement_of_pyproject_is_locked_within_its_range(extra: str, path: Path) -> None:
    pinned = lock.pins(path)
    outside = {
        str(r): pinned.get(lock.normalise(r.name))
        for r in _wanted(extra)
        if pinned.get(lock.normalise(r.name)) is None or pinned[lock.normalise(r.name)] not in r.specifier
    }
    assert not outside, f"locked outside pyproject.toml's ranges, or missing: {outside}"


def test_tensorflow_is_locked_at_the_version_the_course_is_checked_against() -> None:
    assert lock.pins(DEV)["tensorflow-cpu"].startswith("2.21."), "upgrading TensorFlow is a deliberate change"


def test_setup_installs_from_the_lock() -> None:
    run = (ROOT / "run").read_text()
    assert "-r requirements/dev.txt" in run and "--no-deps -e ." in run
