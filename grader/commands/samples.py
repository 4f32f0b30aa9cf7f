"""Sample submissions built from an assignment's sources: complete, partial and empty work, for demo and benchmark."""

from __future__ import annotations

import copy
import random
import re
from pathlib import Path

import nbformat

SOLUTION_MARKER = re.compile(r"^[ \t]*### (BEGIN|END) SOLUTION[^\n]*\n?", re.M)


def _grade_id(cell) -> str:
    return cell.get("metadata", {}).get("nbgrader", {}).get("grade_id") or ""


def solution_answers(source_notebook: Path) -> dict[str, str]:
    """The instructor's answer for every solution cell, without the solution markers."""
    nb = nbformat.read(source_notebook, as_version=4)
    return {
        _grade_id(cell): SOLUTION_MARKER.sub("", cell.source)
        for cell in nb.cells
        if cell.metadata.get("nbgrader", {}).get("solution")
    }


def fill(student_notebook: nbformat.NotebookNode, answers: dict[str, str]) -> nbformat.NotebookNode:
    """A copy of the student notebook with the given solution cells answered."""
    nb = copy.deepcopy(student_notebook)
    for cell in nb.cells:
        if _grade_id(cell) in answers:
            cell.source = answers[_grade_id(cell)]
    return nb


def write_class(
    source: Path, release: Path, assignment: str, destination: Path, count: int, seed: int = 0
) -> dict[str, str]:
    """Write ``count`` submissions as destination/<student>/<notebook>.ipynb; return each student's profile.

    The first three are complete, partial and empty; the rest answer a seeded random share of exercises.
    """
    rng = random.Random(seed)
    profiles: dict[str, str] = {}
    notebooks = sorted((release / assignment).glob("*.ipynb"))
    for number in range(1, count + 1):
        student = f"s{number:03d}"
        profile = ["complete", "partial", "empty"][number - 1] if number <= 3 else "random"
        profiles[student] = profile
        folder = destination / student
        folder.mkdir(parents=True, exist_ok=True)
        for notebook in notebooks:
            answers = solution_answers(source / assignment / notebook.name)
            ids = sorted(answers)
            if profile == "partial":
                ids = ids[::2]
            elif profile == "empty":
                ids = []
            elif profile == "random":
                ids = [i for i in ids if rng.random() < 0.7]
            filled = fill(nbformat.read(notebook, as_version=4), {i: answers[i] for i in ids})
            nbformat.write(filled, folder / notebook.name)
    return profiles
