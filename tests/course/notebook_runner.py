"""Execute course notebooks headless on minitf or real TensorFlow and report what each cell did.

The lessons import the engine with one line, `import minitf as tf`; swapping that line for
`import tensorflow as tf` (and dropping cells tagged `minitf-only`) runs the same lesson on
TensorFlow, which is how the tests show that both engines teach the same thing.
"""

from __future__ import annotations

import copy
import os
import re
import time
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

import nbformat
from nbclient import NotebookClient

from grader.sandbox.kernel_client import with_rechecking_waits

REPO = Path(__file__).resolve().parents[2]
SOLUTIONS = REPO / "solutions"
COURSE = REPO / "course"

ENGINES = ("minitf", "tensorflow")
MINITF_IMPORT = "import minitf as tf"
TENSORFLOW_IMPORT = "import tensorflow as tf"
MINITF_ONLY_TAG = "minitf-only"
RANDOM_OUTPUT_TAG = "random-output"
CELL_TIMEOUT_SECONDS = 120

_NUMBER = re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")


@dataclass(frozen=True)
class CellRun:
    """What one executed cell produced, plus the nbgrader facts the tests ask about."""

    index: int
    source: str
    tags: tuple[str, ...]
    grade_id: str | None
    is_test: bool
    is_solution: bool
    stdout: str
    stderr: str
    errors: tuple[tuple[str, str], ...]  # (exception name, message)
    seconds: float = 0.0
    cell_id: str | None = None

    @property
    def failed(self) -> bool:
        return bool(self.errors)


@dataclass(frozen=True)
class NotebookRun:
    """All code cells of one executed notebook, and how long they took (kernel start-up excluded)."""

    path: Path
    engine: str
    cells: tuple[CellRun, ...] = field(repr=False)
    seconds: float
    widget_stdout: str = ""  # what widget callbacks printed (they print into widget state, not into a cell)
    widget_errors: tuple[tuple[str, str], ...] = ()

    def cell(self, grade_id: str) -> CellRun:
        return next(cell for cell in self.cells if cell.grade_id == grade_id)

    def by_id(self, cell_id: str) -> CellRun:
        return next(cell for cell in self.cells if cell.cell_id == cell_id)


def nbgrader_meta(cell: nbformat.NotebookNode) -> dict:
    return cell.get("metadata", {}).get("nbgrader", {})


def tags_of(cell: nbformat.NotebookNode) -> tuple[str, ...]:
    return tuple(cell.get("metadata", {}).get("tags", []))


def is_test_cell(cell: nbformat.NotebookNode) -> bool:
    """A graded code cell: the cell nbgrader scores (0 on any error or stderr output)."""
    return cell.cell_type == "code" and bool(nbgrader_meta(cell).get("grade"))


def for_engine(notebook: nbformat.NotebookNode, engine: str) -> nbformat.NotebookNode:
    """A copy of `notebook` that imports `engine` as tf; TensorFlow skips the minitf-only cells."""
    if engine not in ENGINES:
        raise ValueError(f"engine must be one of {ENGINES}, not {engine!r}")
    converted = copy.deepcopy(notebook)
    if engine == "minitf":
        return converted
    converted.cells = [cell for cell in converted.cells if MINITF_ONLY_TAG not in tags_of(cell)]
    for cell in converted.cells:
        if cell.cell_type == "code":
            lines = cell.source.split("\n")
            cell.source = "\n".join(
                TENSORFLOW_IMPORT if line.strip() == MINITF_IMPORT else line for line in lines
            )
    return converted


def _kernel_env() -> dict[str, str]:
    """The kernel imports the working tree's minitf, whatever the notebook's folder."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), env.get("PYTHONPATH")]))
    env.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    env["MPLBACKEND"] = "module://matplotlib_inline.backend_inline"
    return env


def _summarise(index: int, cell: nbformat.NotebookNode, seconds: float) -> CellRun:
    stdout, stderr, errors = [], [], []
    for output in cell.get("outputs", []):
        if output.output_type == "stream":
            (stdout if output.name == "stdout" else stderr).append(output.text)
        elif output.output_type == "error":
            errors.append((output.ename, output.evalue))
    meta = nbgrader_meta(cell)
    return CellRun(
        index=index,
        source=cell.source,
        tags=tags_of(cell),
        grade_id=meta.get("grade_id"),
        is_test=is_test_cell(cell),
        is_solution=bool(meta.get("solution")),
        stdout="".join(stdout),
        stderr="".join(stderr),
        errors=tuple(errors),
        seconds=seconds,
        cell_id=cell.get("id"),
    )


SWITCH_CELL = "from use_tensorflow import tf"


def with_switch(notebook: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """A copy of `notebook` as a student switches it: the line `from use_tensorflow import tf` in a new cell right
    below the setup cell, every other cell as it is (minitf-only cells included: they must skip themselves)."""
    switched = copy.deepcopy(notebook)
    setup = next(i for i, cell in enumerate(switched.cells) if cell.cell_type == "code")
    switched.cells.insert(setup + 1, nbformat.v4.new_code_cell(SWITCH_CELL, id="switch-to-tensorflow"))
    return switched


def execute(path: Path, engine: str = "minitf", switched: bool = False) -> NotebookRun:
    """Run every code cell of the notebook at `path` (errors are recorded, not raised). `switched`: run it as a
    student does after adding the engine switch below the setup cell ("Run All" on TensorFlow)."""
    notebook = nbformat.read(path, as_version=4)
    notebook = with_switch(notebook) if switched else for_engine(notebook, engine)
    client = with_rechecking_waits(NotebookClient(
        notebook,
        kernel_name="python3",
        timeout=CELL_TIMEOUT_SECONDS,
        allow_errors=True,
        resources={"metadata": {"path": str(path.parent)}},
    ))
    with client.setup_kernel(env=_kernel_env()):
        per_cell = []
        for index, cell in enumerate(notebook.cells):
            started = time.perf_counter()
            client.execute_cell(cell, index)
            per_cell.append(time.perf_counter() - started)
        seconds = sum(per_cell)
    cells = tuple(_summarise(i, cell, per_cell[i]) for i, cell in enumerate(notebook.cells)
                  if cell.cell_type == "code")
    widget_outputs = [output for state in client.widget_state.values() for output in state.get("outputs", [])]
    widget_stdout = [o.text for o in widget_outputs if o.output_type == "stream" and o.name == "stdout"]
    return NotebookRun(
        path=path,
        engine=engine,
        cells=cells,
        seconds=seconds,
        widget_stdout="".join(widget_stdout),
        widget_errors=tuple((o.ename, o.evalue) for o in widget_outputs if o.output_type == "error"),
    )


@cache
def execute_cached(path: Path, engine: str) -> NotebookRun:
    """Each notebook runs once per engine per test session; several tests read the same run."""
    return execute(path, engine)


def mask_numbers(text: str) -> str:
    """Text with every number replaced by '#' and spaces dropped (NumPy pads columns to the widest number)."""
    return re.sub(r"[ \t]+", "", _NUMBER.sub("#", text))


# Two engines print the same float to float precision, not to the bit (NumPy's kernels against TensorFlow's):
# printed numbers agree within this relative and absolute tolerance (float32 carries about 7 significant
# digits), or differ by one unit in the last printed digit of a number printed with 3 significant digits or
# more (two nearly equal values that round apart, as 0.12345 and 0.12344999 do at 4 decimals).
PRINTED_RTOL = 1e-5
PRINTED_ATOL = 1e-6


def _is_float(token: str) -> bool:
    return any(c in token for c in ".eE")


def _last_digit(token: str) -> float:
    """The value of one unit in the last printed digit of a decimal number (0.0125 -> 0.0001)."""
    mantissa, _, exponent = token.lower().partition("e")
    decimals = len(mantissa.partition(".")[2])
    return 10.0 ** (int(exponent or 0) - decimals)


def _significant_digits(token: str) -> int:
    return len(token.lower().partition("e")[0].lstrip("+-").replace(".", "").lstrip("0"))


def _numbers_agree(expected: str, actual: str) -> bool:
    if expected == actual:
        return True
    if not (_is_float(expected) and _is_float(actual)):
        return False  # integers (counts, shapes, indices) print exactly
    e, a = float(expected), float(actual)
    if e == 0 == a:
        return expected.startswith("-") == actual.startswith("-")  # the sign of a zero prints the same
    if abs(e - a) <= PRINTED_ATOL + PRINTED_RTOL * abs(e):
        return True
    unit = _last_digit(expected)
    return (unit == _last_digit(actual) and min(_significant_digits(expected), _significant_digits(actual)) >= 3
            and abs(e - a) <= unit * 1.000001)


def printed_difference(expected: str, actual: str) -> str | None:
    """None when `actual` printed what `expected` did: the same text (spacing aside) and the same numbers to
    float precision (`_numbers_agree`); otherwise what differs."""
    if mask_numbers(expected) != mask_numbers(actual):
        return "the text differs"
    pairs = zip(_NUMBER.findall(expected), _NUMBER.findall(actual))
    wrong = [f"{e} vs {a}" for e, a in pairs if not _numbers_agree(e, a)]
    return f"numbers differ: {', '.join(wrong[:5])}" if wrong else None


def solution_notebooks() -> list[Path]:
    """Instructor sources of every part: solutions/<assignment>/NN-slug.ipynb."""
    return sorted(p for p in SOLUTIONS.glob("*/*.ipynb") if ".ipynb_checkpoints" not in p.parts)


def released_notebook(solution: Path) -> Path:
    """Where nbgrader writes the student version of `solution`."""
    return COURSE / solution.parent.name / solution.name
