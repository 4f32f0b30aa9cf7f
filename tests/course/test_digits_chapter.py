"""The digits chapter (part 2, chapter 04): its accuracy bar holds for every seed of a correct solution on both
engines, and grading it end to end, in the sandbox, gives the solution full marks and a flawed answer partial ones."""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path
from typing import Any

import nbformat
import numpy as np
import pytest
from grader_fixtures.submissions import grader

from grader.commands.collect import import_roster
from grader.records.gradebook import ensure_assignment
from grader.paths import make_term
from grader.commands.samples import fill, solution_answers

REPO = Path(__file__).resolve().parents[2]
ASSIGNMENT = "part2-basics"
CHAPTER = REPO / "solutions" / ASSIGNMENT / "04-neural-network.ipynb"
# Every seed of a correct solution must clear the bar: twenty on each engine (DIGITS_SEEDS=N for a quicker look).
SEEDS = range(int(os.environ.get("DIGITS_SEEDS", "20")))
MINITF_IMPORT = "import minitf as tf"


def cells_by_id() -> dict[str, str]:
    return {cell.id: cell.source for cell in nbformat.read(CHAPTER, as_version=4).cells}


def training_recipe(cells: dict[str, str]) -> tuple[str, float]:
    """The training cell as the solution has it (its seed made a placeholder) and the bar its test sets."""
    loop = cells["ex5-answer"]
    assert loop.count("init_params(seed=0)") == 1, "the training cell should start from init_params(seed=0)"
    bar = re.findall(r"test_accuracy > ([0-9.]+)", cells["ex5-tests"])
    assert bar and len(set(bar)) == 1, "the training test should state one test-accuracy bar"
    return loop.replace("init_params(seed=0)", "init_params(seed=SEED)"), float(bar[0])


def chapter_namespace(engine: str, cells: dict[str, str]) -> dict[str, Any]:
    """The chapter's setup, data, features, network and solution functions, run on one engine (no plots shown)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    setup = cells["setup"]
    assert MINITF_IMPORT in setup
    if engine == "tensorflow":
        setup = setup.replace(MINITF_IMPORT, "import tensorflow as tf")
    namespace: dict[str, Any] = {}
    exec(setup, namespace)
    namespace["tqdm"] = lambda iterable, **options: iterable  # the bar is for people; here it would only print
    for cell_id in ("cell-03", "cell-07", "cell-09", "ex2-answer", "ex3-answer", "ex4-answer", "cell-batches"):
        exec(cells[cell_id], namespace)
    plt.close("all")
    return namespace


def seed_accuracies(engine: str) -> list[float]:
    cells = cells_by_id()
    loop, _ = training_recipe(cells)
    namespace = chapter_namespace(engine, cells)
    accuracies = []
    for seed in SEEDS:
        exec(loop.replace("SEED", str(seed)), namespace)
        W1, b1, W2, b2 = (v.numpy().astype(np.float64) for v in namespace["model_params"])
        logits = np.maximum(namespace["test_x"].numpy() @ W1 + b1, 0) @ W2 + b2
        accuracies.append(float(np.mean(np.argmax(logits, axis=1) == namespace["test_labels_np"])))
    return accuracies




@pytest.mark.slow
@pytest.mark.parametrize("engine", ["minitf", pytest.param("tensorflow", marks=pytest.mark.tf)])
def test_every_seed_of_the_solution_clears_the_accuracy_bar_with_margin(engine: str) -> None:
    _, bar = training_recipe(cells_by_id())
    accuracies = seed_accuracies(engine)
    print(f"\n{engine}: test accuracy over {len(accuracies)} seeds from {min(accuracies):.1%} to {max(accuracies):.1%}")
    assert min(accuracies) > bar + 0.03, (
        f"on {engine} the solution's worst seed reaches {min(accuracies):.1%}, too close to the bar of {bar:.0%}: "
        "a correct student answer could fail"
    )


def test_training_recipe_and_bar_are_what_the_text_says() -> None:
    cells = cells_by_id()
    loop, bar = training_recipe(cells)
    assert "range(20)" in loop and "shuffled_order(epoch)" in loop and "model_params, 0.5)" in loop
    assert loop.count(", 32)") == 2, "batches of 32 digits"
    assert bar == 0.92
    text = "\n".join(source for key, source in cells.items() if key.startswith("cell-"))
    assert "**20 epochs** with batches of **32** digits and learning rate **0.5**" in text
    assert "more than **92 %**" in text


def score_table(output: str) -> dict[str, str]:
    """student -> 'points/total' from the grader's summary table."""
    rows = [line.split() for line in output.splitlines()]
    return {row[0]: next(cell for cell in row if re.fullmatch(r"[0-9.]+/[0-9.]+", cell)) for row in rows
            if len(row) > 1 and any(re.fullmatch(r"[0-9.]+/[0-9.]+", cell) for cell in row)}


@pytest.mark.slow
@pytest.mark.machine_wide
def test_grading_the_chapter_gives_the_solution_full_marks_and_a_flawed_answer_partial_ones(tmp_path: Path) -> None:
    sources = tmp_path / "sources" / ASSIGNMENT
    sources.mkdir(parents=True)
    shutil.copy2(CHAPTER, sources / CHAPTER.name)
    term = make_term(tmp_path / "term", sources.parent)
    ensure_assignment(term, ASSIGNMENT)
    (tmp_path / "roster.csv").write_text("id\nsolver\nslip\n")
    import_roster(term, tmp_path / "roster.csv")
    released = nbformat.read(term.release / ASSIGNMENT / CHAPTER.name, as_version=4)
    answers = solution_answers(CHAPTER)
    flawed = {
        **answers,
        # features divided by 255 (exercise 1, 1 point) and the confusion matrix transposed (exercise 7, 2 points)
        "ex1-answer": answers["ex1-answer"].replace("/ 16.0", "/ 255.0"),
        "ex7-answer": answers["ex7-answer"].replace("confusion_matrix(y, predicted,", "confusion_matrix(predicted, y,"),
    }
    assert flawed["ex1-answer"] != answers["ex1-answer"] and flawed["ex7-answer"] != answers["ex7-answer"]
    for student, filled in (("solver", answers), ("slip", flawed)):
        folder = term.submitted / student / ASSIGNMENT
        folder.mkdir(parents=True)
        nbformat.write(fill(released, filled), folder / CHAPTER.name)

    result = grader(term, "autograde", "--quiet", timeout=1800)
    assert result.returncode == 0, result.stdout + result.stderr
    total = sum(cell.metadata["nbgrader"].get("points", 0) for cell in released.cells
                if cell.metadata.get("nbgrader", {}).get("grade"))
    assert total == 15
    table = score_table(result.stdout)
    assert table.get("solver") == f"{total}/{total}", result.stdout
    assert table.get("slip") == f"{total - 3}/{total}", result.stdout
