"""What a lesson's prose says a cell shows, the cell shows: on both engines (on minitf for `minitf-only` cells).

Each claim names the notebook, the cell (by its id) and the text its output must contain (or must not contain).
A sentence of a lesson that states what a cell prints (N traces, an error, an operation removed, a kernel fused) has
a claim here; what depends on the machine (timings) is printed by the cell from its own measurement instead and has
none (docs/lessons.md, "Claims the tests check").
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest
from notebook_runner import execute_cached

REPO = Path(__file__).resolve().parents[2]
PART2 = REPO / "solutions" / "part2-basics"


@dataclass(frozen=True)
class Claim:
    notebook: str
    cell_id: str
    says: str  # the sentence of the prose, shortened
    shows: tuple[str, ...] = ()  # the output contains each of these
    hides: tuple[str, ...] = ()  # and none of these
    minitf_only: bool = False


CLAIMS = [
    # 02 · Graph execution
    Claim("02-graph-execution", "cell-05", "Python's print runs once, while tracing; tf.print on every call",
          ("tf.print (every call) sees: 2", "tf.print (every call) sees: 3", "traced 1 time(s)")),
    Claim("02-graph-execution", "cell-07", "tensors trace per dtype and shape, Python values per value",
          ("double(tf.constant(7)      ) reused a graph", "double(tf.constant([3, 4]) ) reused a graph",
           "double(Python 2            ) traced a new graph", "double(Python 2 again      ) reused a graph")),
    Claim("02-graph-execution", "cell-07", "input_signature: one graph for every length; reduce_retracing widens after "
          "a second shape; other inputs get a TypeError",
          ("input_signature: 1 trace(s)", "reduce_retracing: 2 trace(s)", "total(a matrix) -> TypeError")),
    Claim("02-graph-execution", "cell-17", "both branches of an if on a tensor are in one graph",
          ("traced 1 time(s): both branches are in one graph",)),
    Claim("02-graph-execution", "cell-side-effects", "Python side effects run only while tracing",
          ("3 calls -> the list holds 1 item(s), the Python counter says 1",)),
    Claim("02-graph-execution", "cell-side-effects", "a Variable created inside a tf.function is refused (ValueError)",
          ("ValueError: tf.function only supports singleton tf.Variables created on the first call.",)),
    Claim("02-graph-execution", "cell-eagerly", "run_functions_eagerly runs the Python on every call",
          ("the Python counter now says 3", "functions run eagerly: True", "switched back: False")),
    Claim("02-graph-execution", "cell-26", "a Python for loop is unrolled; an if on a tensor and a tf.range loop stay "
          "one node each", ("AddV2        add_2", "'StatelessIf'", "'StatelessWhile'")),
    # Speed: what depends on the engine and the machine is printed by the cell from its own measurement.
    Claim("02-graph-execution", "cell-37", "the matmul exercise's timings, measured with the student's stopwatch",
          ("eager: ", "graph: ", " ms per call", "speed-up of the graph: ")),
    Claim("02-graph-execution", "cell-plot", "two experiments, graph time / eager time: small steps and matrix sizes "
          "up to 768 (the title says whether the matrix-size ratio came closer to 1)",
          ("  1 small steps: graph time / eager time = ", " 64 small steps: graph time / eager time = ",
           "  8×8   matmul:   graph time / eager time = ", "768×768 matmul:   graph time / eager time = ")),
    # 03 · What compiling does
    Claim("03-compiling", "cell-04", "every line became nodes: Placeholder for the argument, Identity for the result",
          ("15 operations traced", "['Placeholder', 'Const', 'Const', 'Mul', 'Exp'", "'Tanh', 'Identity']")),
    Claim("03-compiling", "cell-06", "the generated code has no Exp, no second Sin, no + 0.0 or * 1.0; 2.0 * 3.0 is "
          "one constant, mul_folded; a function model calls a second function Tanh_fused for the fused operations",
          ("def model(x):", "Tanh_fused = ops.Tanh_fused(x, mul_folded)", "def Tanh_fused(x, mul_folded):",
           "ops.Sin(mul_1)", "ops.AddV2(Sin, Sin)"), ("Exp", "Sin_1", "add_y", "mul_2"), minitf_only=True),
    Claim("03-compiling", "cell-08", "get_experimental_options: False for the two disable_ switches",
          ("'disable_model_pruning': False", "'disable_meta_optimizer': False")),
    Claim("03-compiling", "cell-12", "constant folding leaves the size at 14 (a new constant for the Mul); the last "
          "pruning removes the constants nothing reads",
          ("constant folding on model: 14 -> 14 nodes", "folded mul (Mul) into a constant",
           "removed mul/x (Const), which nothing uses", "removed mul/y (Const), which nothing uses"), minitf_only=True),
    Claim("03-compiling", "cell-23", "minitf files h / 1.0 under arithmetic simplification and the duplicate sigmoid "
          "under common-subexpression elimination",
          ("arithmetic simplification on layer", "truediv (RealDiv) is just Relu:0",
           "common-subexpression elimination on layer", "Sigmoid_1 (Sigmoid) merged into Sigmoid",
           "removed Max (Max), which nothing uses", "folded add (AddV2) into a constant",
           "fused MatMul + AddV2 + Relu"), minitf_only=True),
    Claim("03-compiling", "cell-fused-code", "jit_compile=True: the optimised HLO has one fusion node, with the tanh",
          ("hlo            fusion nodes: 0, the tanh is in it: True",
           "optimized_hlo  fusion nodes: 1, the tanh is in it: True")),
    Claim("03-compiling", "cell-fused-stages-code",
          "minitf's loop_ir is the fused kernel as one loop over the elements, the tanh a clamped rational function",
          ("kernel fusion_0(", "for i0 in 0..3:", "= max(", "= min(", "= div("), minitf_only=True),
    Claim("03-compiling", "cell-this-cpu-code", "a million numbers: the loop is split over the cores; the cell counts "
          "the FMA instructions and the widest vector registers of the machine code",
          ("parallel for i0 in 0..1000000:", "fused multiply-add instructions: ", "widest vector registers: ",
           "cores this process may use: "), minitf_only=True),
    Claim("03-compiling", "cell-40", "branches has two fused kernels: sin * 2.0, then exp, cos and their sum",
          ("mul_fused = ops.mul_fused(", "add_fused = ops.add_fused(mul_fused)"), minitf_only=True),
    Claim("03-compiling", "cell-fusion-timing", "read your own numbers: the cell prints eager, graph and jit_compile "
          "times and their ratio from a thousand to a million numbers (its verdict goes into the figure's title)",
          ("    1,000 numbers: eager", "1,000,000 numbers: eager", "eager / jit_compile =")),
    Claim("03-compiling", "cell-25", "the backward pass is part of the graph: a Cos node, a larger graph",
          ("forward graph has a Cos node: False", "gradient graph has a Cos node (d sin(w)/dw = cos(w)): True",
           "the gradient graph is larger: True")),
    # 04 · Neural network
    Claim("04-neural-network", "ex5-answer", "44 batches of 32 and one of 29: the step traces twice",
          ("900 steps; graphs traced: 2",)),
    # 05 · From scratch to Keras
    Claim("05-keras", "cell-summary", "the summary's total is 2,410: 64 · 32 + 32 and 32 · 10 + 10",
          ("dense (Dense)", "2,080", "dense_1 (Dense)", "330", "Total params: 2,410")),
    Claim("05-keras", "cell-evaluate", "early stopping ends fit before its 50 epochs; the model reads the test digits",
          ("fit stopped before epoch 50: True", "test accuracy above 95 %: True")),
    Claim("05-keras", "cell-graph", "fit's step has chapter 04's forward pass, a LogSoftmax loss, a ReluGrad and four "
          "assign_sub updates, plus Keras's AssignAdd counters",
          ("MatMul               5", "Relu                 1", "LogSoftmax           1", "ReluGrad             1",
           "AssignSubVariableOp  4", "AssignAddVariableOp  5"), minitf_only=True),
    Claim("05-keras", "cell-save", "the reloaded model has the same weights and predicts the same",
          ("the reloaded model has the same weights: True", "and predicts the same logits: True")),
    Claim("05-keras", "cell-evaluate", "the cell prints the test loss and accuracy", ("test loss ", "test accuracy ")),
    Claim("05-keras", "cell-fit", "fit's epochs and best val_loss, as measured", ("fit ran ", " epochs in ",
          "the best val_loss, ", "history keys: ['accuracy', 'loss', 'val_accuracy', 'val_loss']")),
    Claim("05-keras", "cell-compare", "the time each training took on this computer, and the accuracies",
          ("chapter 04's loop: ", "model.fit: ", "test accuracy ", "times as long as the hand-written loop")),
    # 07 · Summary
    Claim("07-summary", "cell-keras-example", "a Sequential model of Dense layers: a kernel and a bias per layer",
          ("weights: [(4, 3), (3,), (3, 2), (2,)]", "parameters: 4 · 3 + 3 + 3 · 2 + 2 = 23")),
    # 08 · Inside minitf
    Claim("08-inside-minitf", "cell-03", "the passes, one at a time, on chapter 03's model",
          ("removed Exp (Exp), which nothing uses", "folded mul (Mul) into a constant", "add (AddV2) is just mul_1:0",
           "mul_2 (Mul) is just Sin:0", "Identity (Identity) is just Tanh:0", "Sin_1 (Sin) merged into Sin",
           "fused 4 elementwise ops (Mul -> Sin -> AddV2 -> Tanh)", "pruning: 3 operations left"),
          minitf_only=True),
    Claim("08-inside-minitf", "cell-rules-table", "simplification is a table: patterns such as Neg(Neg) and Mul",
          ("Identity\n", "Neg(Neg)\n", "Mul\n", "AddV2\n"), hides=("Abs(Abs)",), minitf_only=True),
    Claim("08-inside-minitf", "cell-abs-values", "abs(abs(x)) is abs(x): the values agree on both engines",
          ("abs(abs(x)) equals abs(x): True",)),
    Claim("08-inside-minitf", "cell-rules-fires", "the rule added in one line removes the second Abs",
          ("Abs_1 (Abs) is just Abs:0", "  Abs = Abs(x:0)", "result: [6.  1.5 0.  9. ]"), hides=("Abs_1 = ",),
          minitf_only=True),
]


def _cases() -> list:
    """Each claim on minitf, and on TensorFlow unless its cell is minitf-only."""
    cases = []
    for index, claim in enumerate(CLAIMS):
        name = f"{claim.notebook}:{claim.cell_id}:{index}"
        cases.append(pytest.param(claim, "minitf", id=f"{name}:minitf"))
        if not claim.minitf_only:
            cases.append(pytest.param(claim, "tensorflow", id=f"{name}:tensorflow", marks=pytest.mark.tf))
    return cases


def test_every_claim_names_a_cell_that_exists() -> None:
    import nbformat

    for claim in CLAIMS:
        notebook = nbformat.read(PART2 / f"{claim.notebook}.ipynb", as_version=4)
        cells = {cell.id: cell for cell in notebook.cells}
        assert claim.cell_id in cells, f"{claim.notebook} has no cell {claim.cell_id!r} ({claim.says})"
        tagged = "minitf-only" in cells[claim.cell_id].get("metadata", {}).get("tags", [])
        assert tagged == claim.minitf_only, (
            f"{claim.notebook}:{claim.cell_id} is {'' if tagged else 'not '}minitf-only, so the claim should "
            f"{'' if tagged else 'not '}be checked on minitf alone"
        )


@pytest.mark.slow
@pytest.mark.parametrize(("claim", "engine"), _cases())
def test_cell_shows_what_the_lesson_says(claim: Claim, engine: str) -> None:
    run = execute_cached(PART2 / f"{claim.notebook}.ipynb", engine)
    cell = run.by_id(claim.cell_id)
    assert not cell.failed, f"{claim.notebook}:{claim.cell_id} failed on {engine}: {cell.errors}"
    missing = [text for text in claim.shows if text not in cell.stdout]
    present = [text for text in claim.hides if text in cell.stdout]
    assert not missing and not present, (
        f"{claim.notebook}:{claim.cell_id} on {engine} should back the sentence {claim.says!r}, but its output "
        f"lacks {missing} and has {present}:\n{cell.stdout}"
    )


def notebook_size(path: Path) -> tuple[int, int, int]:
    """Words of prose (markdown cells), cells, graded exercises: what docs/lessons.md's time estimate is made of."""
    import json
    import re

    cells = json.loads(path.read_text())["cells"]
    words = sum(len(re.findall(r"\w+", "".join(c["source"]))) for c in cells if c["cell_type"] == "markdown")
    exercises = sum(1 for c in cells if c["metadata"].get("nbgrader", {}).get("grade") is True)
    return words, len(cells), exercises


def test_time_table_in_lessons_md_matches_the_notebooks() -> None:
    import re

    text = (REPO / "docs" / "lessons.md").read_text()
    rows = dict(re.findall(r"^\| `(part\d-[a-z]+/[0-9a-z-]+)` \| ([0-9,]+ \| \d+ \| \d+) \|", text, re.M))
    notebooks = sorted((REPO / "solutions").glob("part*/*.ipynb"))
    for path in notebooks:
        name = f"{path.parent.name}/{path.stem}"
        words, cells, exercises = notebook_size(path)
        assert rows.get(name) == f"{words:,} | {cells} | {exercises}", (
            f"docs/lessons.md's time table should list {name} with {words:,} words, {cells} cells and {exercises} "
            f"exercises, not {rows.get(name)}"
        )
