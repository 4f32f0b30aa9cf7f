"""benchmarks.lesson_speed reads the ratios that part 2's timing cells print: its rows name cells that exist, and it
reads the numbers out of the lines those cells print (and says when a line is missing)."""

from __future__ import annotations

import nbformat

from benchmarks.lesson_speed import PART2, SENTENCES, Sentence, reading

PRINTED = {
    "cell-37": "eager: 0.222 ms per call\ngraph: 0.205 ms per call\n"
    "speed-up of the graph: 1.08 (above 1: the graph was faster)\n",
    "cell-plot": "  1 small steps: graph time / eager time = 0.46\n 64 small steps: graph time / eager time = 0.51\n"
    "  8×8   matmul:   graph time / eager time = 0.42\n 16×16  matmul:   graph time / eager time = 0.41\n"
    "768×768 matmul:   graph time / eager time = 1.01\n",
    "cell-fusion-timing": "    1,000 numbers: eager    0.101 ms, graph    0.050 ms, jit_compile    0.049 ms, eager / "
    "jit_compile =  2.04\n1,000,000 numbers: eager    9.000 ms, graph    6.000 ms, jit_compile    5.000 ms, eager / "
    "jit_compile =  1.74\n",
    "cell-compare": "fit took 1.25 times as long as the hand-written loop\n",
}


def test_every_row_names_a_cell_of_its_lesson() -> None:
    for sentence in SENTENCES:
        notebook = nbformat.read(PART2 / f"{sentence.notebook}.ipynb", as_version=4)
        assert sentence.cell_id in {cell.id for cell in notebook.cells}, f"{sentence.notebook}: no {sentence.cell_id}"


def test_rows_read_the_printed_ratios_first_to_last() -> None:
    readings = [reading(sentence, PRINTED[sentence.cell_id]) for sentence in SENTENCES]
    assert readings == ["1.08", "0.46 → 0.51", "0.42 → 1.01", "2.04 → 1.74", "1.25"]


def test_a_missing_line_reads_as_not_printed() -> None:
    sentence = Sentence("02-graph-execution", "cell-plot", "", r"^768×768 matmul:\s+graph time / eager time = ([\d.]+)")
    assert reading(sentence, "answer exercises 4 to 6 first: the plot uses your functions and your stopwatch") == (
        "not printed"
    )
