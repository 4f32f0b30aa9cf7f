"""release: regenerate course/ from solutions/ with nbgrader; check: fail when the two drift apart."""

from __future__ import annotations

import filecmp
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from grader.commands.notebooks import normalise_file
from grader.paths import GraderError
from grader.settings.nbconfig import api_for, check_result, course_config


def list_assignments(source: Path) -> list[str]:
    """Assignment folders in ``source`` that hold at least one notebook."""
    if not source.is_dir():
        return []
    return sorted(
        entry.name
        for entry in source.iterdir()
        if entry.is_dir() and not entry.name.startswith((".", "_")) and any(entry.glob("*.ipynb"))
    )


def generate_student_version(source: Path, assignment: str, workdir: Path, db_url: str | None = None) -> Path:
    """Run nbgrader's generate_assignment into ``workdir`` and normalise the result; return its folder."""
    if not (source / assignment).is_dir():
        raise GraderError(f"unknown assignment {assignment!r}: no folder {source / assignment}")
    release_root = workdir / "release"
    config = course_config(
        root=workdir, source=source, release=release_root, db_url=db_url or f"sqlite:///{workdir / 'gb.db'}"
    )
    check_result(
        api_for(config).generate_assignment(assignment, force=True, create=True), f"generate_assignment {assignment}"
    )
    built = release_root / assignment
    for notebook in sorted(built.rglob("*.ipynb")):
        normalise_file(notebook)
    return built


def _relative_files(folder: Path) -> set[Path]:
    if not folder.is_dir():
        return set()
    return {path.relative_to(folder) for path in folder.rglob("*") if path.is_file()}


@dataclass
class Drift:
    """Differences between the committed student version and a fresh build."""

    changed: list[Path] = field(default_factory=list)
    missing: list[Path] = field(default_factory=list)  # should exist in course/ but does not
    extra: list[Path] = field(default_factory=list)  # exists in course/ but nothing generates it

    def __bool__(self) -> bool:
        return bool(self.changed or self.missing or self.extra)

    def lines(self) -> list[str]:
        return (
            [f"changed: {p}" for p in self.changed]
            + [f"missing: {p}" for p in self.missing]
            + [f"stale:   {p}" for p in self.extra]
        )


def compare_trees(expected: Path, actual: Path, label: Path) -> Drift:
    """Compare file sets and bytes of two folders; paths in the result are prefixed with ``label``."""
    want, have = _relative_files(expected), _relative_files(actual)
    drift = Drift()
    drift.missing = sorted(label / p for p in want - have)
    drift.extra = sorted(label / p for p in have - want)
    drift.changed = sorted(label / p for p in want & have if not filecmp.cmp(expected / p, actual / p, shallow=False))
    return drift


def _sync_tree(built: Path, target: Path) -> list[Path]:
    """Make ``target`` an exact copy of ``built``, touching only files whose bytes differ."""
    touched: list[Path] = []
    target.mkdir(parents=True, exist_ok=True)
    want, have = _relative_files(built), _relative_files(target)
    for rel in sorted(have - want):
        (target / rel).unlink()
        touched.append(rel)
    for rel in sorted(want):
        destination = target / rel
        if destination.is_file() and filecmp.cmp(built / rel, destination, shallow=False):
            continue
        destination.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(built / rel, destination)
        touched.append(rel)
    for folder in sorted((p for p in target.rglob("*") if p.is_dir()), reverse=True):
        if not any(folder.iterdir()):
            folder.rmdir()
    return touched


def _selected(source: Path, course: Path, assignment: str | None) -> list[str]:
    if assignment:
        return [assignment]
    names = set(list_assignments(source))
    if course.is_dir():
        names |= {p.name for p in course.iterdir() if p.is_dir() and not p.name.startswith(".")}
    return sorted(names)


def release(source: Path, course: Path, assignment: str | None = None) -> dict[str, list[Path]]:
    """Regenerate course/<assignment> (or every assignment) from the sources; return changed files."""
    changes: dict[str, list[Path]] = {}
    for name in _selected(source, course, assignment):
        target = course / name
        if not (source / name).is_dir():
            if assignment:
                raise GraderError(f"unknown assignment {name!r}: no folder {source / name}")
            shutil.rmtree(target)  # generated output whose source is gone
            changes[name] = [Path("(whole folder removed)")]
            continue
        with tempfile.TemporaryDirectory(prefix="grader-release-") as tmp:
            built = generate_student_version(source, name, Path(tmp))
            changes[name] = _sync_tree(built, target)
    return changes


def check(source: Path, course: Path, assignment: str | None = None) -> Drift:
    """Build every assignment afresh and compare with course/; an empty Drift means in sync."""
    total = Drift()
    for name in _selected(source, course, assignment):
        label = Path(course.name) / name
        if not (source / name).is_dir():
            total.extra.extend(sorted(label / p for p in _relative_files(course / name)))
            continue
        with tempfile.TemporaryDirectory(prefix="grader-check-") as tmp:
            built = generate_student_version(source, name, Path(tmp))
            drift = compare_trees(built, course / name, label)
        total.changed += drift.changed
        total.missing += drift.missing
        total.extra += drift.extra
    return total
