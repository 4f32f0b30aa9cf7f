"""Part 2's sentences about speed, as the lessons' own cells measure them on each engine.

`python -m benchmarks.lesson_speed` runs the chapters that time something (02, 03, 05) headless on minitf and on
TensorFlow, reads the ratios their cells print and puts them side by side, one row per sentence of the prose. A lesson
grades no timing and its tests assert none (timings depend on the machine); this table is where a reader checks that
what the prose says holds on both engines: the matrix-size ratio of 02 comes closer to 1 as n grows, the 200×200
product gains little from a graph, and 03's fusion reading is the engine's own.
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PART2 = REPO / "solutions" / "part2-basics"
ENGINES = ("minitf", "tensorflow")


@dataclass(frozen=True)
class Sentence:
    """A sentence of a lesson and the printed ratios that back it: `first` (and, for a trend, `last`)."""

    notebook: str
    cell_id: str
    says: str
    first: str  # a regular expression whose group is the number
    last: str = ""


SENTENCES = [
    Sentence("02-graph-execution", "cell-37", '02 "the graph cannot be much faster here": eager / graph, 200×200',
             r"speed-up of the graph: ([\d.]+)"),
    Sentence("02-graph-execution", "cell-plot", "02 small steps: graph / eager, 1 step → 64 steps",
             r"^\s*1 small steps: graph time / eager time = ([\d.]+)",
             r"^\s*64 small steps: graph time / eager time = ([\d.]+)"),
    Sentence("02-graph-execution", "cell-plot", "02 matrix size, heading for 1: graph / eager, n = 8 → 768",
             r"^\s*8×8\s+matmul:\s+graph time / eager time = ([\d.]+)",
             r"^768×768 matmul:\s+graph time / eager time = ([\d.]+)"),
    Sentence("03-compiling", "cell-fusion-timing", "03 fusion, read per engine: eager / jit_compile, 1e3 → 1e6",
             r"^\s*1,000 numbers: .*eager / jit_compile =\s*([\d.]+)",
             r"^1,000,000 numbers: .*eager / jit_compile =\s*([\d.]+)"),
    Sentence("05-keras", "cell-compare", "05 fit / the hand-written loop (printed, no claim)",
             r"fit took ([\d.]+) times as long"),
]  # fmt: skip


def reading(sentence: Sentence, printed: str) -> str:
    """The sentence's ratio (or 'first → last') in what its cell printed, or why there is none."""
    numbers = []
    for pattern in filter(None, (sentence.first, sentence.last)):
        found = re.search(pattern, printed, re.M)
        if found is None:
            return "not printed"
        numbers.append(found.group(1))
    return " → ".join(numbers)


def main() -> None:
    sys.path.insert(0, str(REPO / "tests" / "course"))
    from notebook_runner import execute  # the test extra's runner, needed only when this benchmark runs

    notebooks = sorted({sentence.notebook for sentence in SENTENCES})
    printed = {
        (notebook, engine): execute(PART2 / f"{notebook}.ipynb", engine) for notebook in notebooks for engine in ENGINES
    }
    print(f"{'sentence of the lesson (what the cell printed)':62} {'minitf':>14} {'TensorFlow':>14}")
    for sentence in SENTENCES:
        cells = [printed[sentence.notebook, engine].by_id(sentence.cell_id).stdout for engine in ENGINES]
        print(f"{sentence.says:62} " + " ".join(f"{reading(sentence, text):>14}" for text in cells))


if __name__ == "__main__":
    main()
