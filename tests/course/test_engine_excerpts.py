"""The lessons that open the engine: each ends with a `minitf-only` cell printing a short excerpt of minitf's source
(`minitf/reading.py`). These tests fail when an excerpt's object moves away or disappears, when its cut markers are
gone, when it grows past MAX_LINES lines or shrinks to nothing, and when a lesson loses its engine cell."""

from __future__ import annotations

import ast

import nbformat
import pytest
from notebook_runner import MINITF_ONLY_TAG, is_test_cell, tags_of

from minitf import reading
from minitf.reading import EXCERPTS, MAX_LINES, MIN_LINES, ROOT, show, source

SOLUTIONS = ROOT / "solutions"
# Each lesson on an engine idea, and the excerpts its engine cell shows (in this order).
ENGINE_LESSONS = {
    "part1-tensors/02-intro-to-tensors": ["EagerTensor"],
    "part1-tensors/07-data-types": ["dtype inference", "AddV2 dtype check"],
    "part1-tensors/08-arithmetic": ["broadcast shapes"],
    "part2-basics/01-gradient-tape": ["tape backward step", "Mul gradient"],
    "part2-basics/02-graph-execution": ["bind", "trace cache key"],
    "part2-basics/03-compiling": ["fusion groups"],
}
MAX_LINES_PER_LESSON = 45  # two excerpts at most, read in a few minutes
# What the markdown above each engine cell tells students to look for: names that must be in the excerpts too.
LOOK_FOR = {
    "part1-tensors/02-intro-to-tensors": ["__slots__", "_value", "_dtype", "numpy"],
    "part1-tensors/07-data-types": ["infer", "same_dtype"],
    "part1-tensors/08-arithmetic": ["ValueError", "None"],
    "part2-basics/01-gradient-tape": ["_backward_call", "grads.get", "call.op.grad(call, g)", "unbroadcast"],
    "part2-basics/02-graph-execution": ["bind", "run_eager", "state.graph", "TensorSpec", "Literal"],
    "part2-basics/03-compiling": ["joins"],
}


def _shown(cell: nbformat.NotebookNode) -> list[str]:
    """The excerpt names a cell passes to `show(...)`."""
    names = []
    for node in ast.walk(ast.parse(cell.source)):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "show":
            first = node.args[0] if node.args else None
            assert isinstance(first, ast.Constant) and isinstance(first.value, str), (
                f"show(...) in a lesson names an excerpt of minitf/reading.py, not {ast.unparse(node)}")
            names.append(first.value)
    return names


def _lesson(name: str) -> list[nbformat.NotebookNode]:
    return nbformat.read(SOLUTIONS / f"{name}.ipynb", as_version=4).cells


@pytest.mark.parametrize("name", sorted(EXCERPTS))
def test_excerpt_is_short_code_from_minitf_as_the_file_has_it(name: str) -> None:
    excerpt = source(name)
    assert excerpt.path.startswith("minitf/"), f"{name!r} is read from {excerpt.path}, outside minitf/"
    code = [line for line in excerpt.lines if line.strip()]
    assert len(code) >= MIN_LINES, f"{name!r} shows {len(code)} lines of code; it has lost what it showed"
    assert len(excerpt.lines) <= MAX_LINES, (
        f"{name!r} ({excerpt.path}, lines {excerpt.first}-{excerpt.last}) has grown to {len(excerpt.lines)} lines; "
        f"a lesson shows at most {MAX_LINES}: cut it with start=/stop= markers in minitf/reading.py")
    in_file = (ROOT / excerpt.path).read_text().splitlines()[excerpt.first - 1:excerpt.last]
    assert in_file == excerpt.lines, f"{name!r}: the printed line numbers do not match {excerpt.path}"


def test_show_prints_the_file_the_lines_and_their_numbers(capsys: pytest.CaptureFixture[str]) -> None:
    show("bind")
    printed = capsys.readouterr().out.splitlines()
    excerpt = source("bind")
    assert printed[0] == f"{excerpt.path}, lines {excerpt.first}-{excerpt.last}: bind"
    assert printed[1].split()[:3] == [str(excerpt.first), "def", "bind(op:"]
    assert len(printed) == 1 + len(excerpt.lines) + 1  # heading, the lines, a blank line


@pytest.mark.parametrize("name", sorted(EXCERPTS))
def test_printed_excerpt_leaves_out_comments_meant_for_the_type_checker(name: str) -> None:
    assert "# type: ignore" not in str(source(name))


def test_show_reads_any_function_and_cuts_it_with_markers() -> None:
    import minitf as tf

    whole = source(tf.GradientTape.gradient)
    assert whole.lines[0].strip().startswith("def gradient(")
    cut = source(tf.GradientTape.gradient, start="grads = self._backward", stop="self._end_answer()")
    assert cut.first > whole.first and cut.lines[0].strip().startswith("grads = self._backward")
    assert len(cut.lines) < len(whole.lines)


def test_a_marker_that_is_gone_says_which_excerpt_to_update() -> None:
    with pytest.raises(LookupError, match="minitf/reading.py"):
        source("bind", start="a line bind never had")


def test_op_named_finds_the_op_behind_the_public_function() -> None:
    import minitf as tf

    with tf.GradientTape() as tape:
        x = tf.constant(2.0)
        tape.watch(x)
        tf.add(x, x)
    assert tape._calls[-1].op is reading.op_named("AddV2")


@pytest.mark.parametrize("lesson", sorted(ENGINE_LESSONS))
def test_engine_lesson_ends_with_a_minitf_only_cell_showing_its_excerpts(lesson: str) -> None:
    cells = _lesson(lesson)
    showing = [i for i, cell in enumerate(cells) if cell.cell_type == "code" and _shown(cell)]
    assert len(showing) == 1, f"{lesson}: expected one cell calling show(...), found cells {showing}"
    index = showing[0]
    cell = cells[index]
    assert MINITF_ONLY_TAG in tags_of(cell), f"{lesson}: the engine cell must be tagged {MINITF_ONLY_TAG}"
    assert _shown(cell) == ENGINE_LESSONS[lesson]
    assert cells[index - 1].cell_type == "markdown", f"{lesson}: say above the engine cell what to look for"
    later_tests = [c.metadata.get("nbgrader", {}).get("grade_id") for c in cells[index:] if is_test_cell(c)]
    assert not later_tests, f"{lesson}: the engine cell comes after the exercises, but {later_tests} follow it"
    total = sum(len(source(name).lines) for name in ENGINE_LESSONS[lesson])
    assert total <= MAX_LINES_PER_LESSON, f"{lesson} shows {total} lines of minitf; keep it to a few minutes' read"


def test_every_excerpt_is_shown_by_a_lesson_and_no_lesson_shows_an_unknown_one() -> None:
    shown: set[str] = set()
    for path in sorted(SOLUTIONS.glob("*/*.ipynb")):
        for cell in nbformat.read(path, as_version=4).cells:
            if cell.cell_type == "code":
                shown.update(_shown(cell))
    assert shown <= set(EXCERPTS), f"lessons show excerpts minitf/reading.py does not define: {shown - set(EXCERPTS)}"
    assert set(EXCERPTS) <= shown, f"excerpts no lesson shows: {set(EXCERPTS) - shown}"
    listed = {name for names in ENGINE_LESSONS.values() for name in names}
    assert listed == shown, "ENGINE_LESSONS lists exactly the excerpts the lessons show"



@pytest.mark.parametrize("lesson", sorted(LOOK_FOR))
def test_what_the_lesson_says_to_look_for_is_in_the_excerpts(lesson: str) -> None:
    cells = _lesson(lesson)
    index = next(i for i, cell in enumerate(cells) if cell.cell_type == "code" and _shown(cell))
    text = cells[index - 1].source
    code = "\n".join(line for name in ENGINE_LESSONS[lesson] for line in source(name).lines)
    for name in LOOK_FOR[lesson]:
        assert f"`{name}" in text, f"{lesson}: the note above the engine cell no longer mentions `{name}`"
        assert name in code, (f"{lesson}: the note above the engine cell points at `{name}`, which the excerpts "
                              f"{ENGINE_LESSONS[lesson]} no longer contain; update the note")
