"""The course in JupyterLab, driven in Debian's Chromium the way a student uses it.

JupyterLab serves a copy of the course set up by the repository's `postBuild` (as on Binder). Each step leaves
a screenshot in artifacts/browser/<test>/ (a failed step's ends in -FAILED.png).
"""

from __future__ import annotations

import importlib.util
import json
import re

import pytest
from lab_page import TEXT_OUTPUT, LabPage, exact
from lab_server import RunningLab
from playwright.sync_api import Locator, Page, expect
from screenshots import StepRecorder

pytestmark = pytest.mark.slow

WELCOME = "course/part1-tensors/01-welcome.ipynb"
# The welcome lesson has no widget and no figure; 05 is the earliest chapter whose slider redraws a matplotlib figure.
WIDGET_LESSON = "course/part1-tensors/05-batches.ipynb"


def notebook_cells(lab: RunningLab, path: str) -> list[dict]:
    return json.loads((lab.home / path).read_text())["cells"]


def index_of(cells: list[dict], grade_id: str) -> int:
    """Position of the nbgrader cell with this grade_id (positions in the file are positions on the page)."""
    for index, cell in enumerate(cells):
        if cell.get("metadata", {}).get("nbgrader", {}).get("grade_id") == grade_id:
            return index
    raise AssertionError(f"no cell with grade_id {grade_id!r}")


def first_exercise(cells: list[dict]) -> int:
    """Position of the first answer cell."""
    answers = (i for i, cell in enumerate(cells) if cell.get("metadata", {}).get("nbgrader", {}).get("solution"))
    return min(answers)


def source(cell: dict) -> str:
    return "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]


def expect_run_all_to_stop_at_the_first_exercise(lab_page: LabPage, cells: list[dict]) -> int:
    """Run All in a fresh student notebook: the lesson cells run cleanly, the first unanswered exercise stops it.

    Returns the index of the cell that raised NotImplementedError (the answer cell, or its test cell when the
    answer defines a function)."""
    exercise = first_exercise(cells)
    failing = exercise if "raise NotImplementedError" in source(cells[exercise]).split("def ", 1)[0] else exercise + 1
    lab_page.menu("Run", "Run All Cells")
    expect(lab_page.error_outputs(failing)).to_contain_text("NotImplementedError")
    lab_page.wait_until_kernel_idle()
    expect(lab_page.error_outputs()).to_have_count(1)
    for index, cell in enumerate(cells[:exercise]):
        if cell["cell_type"] == "code":
            expect(lab_page.prompt(index)).to_have_text(re.compile(r"^\[\d+\]:$"))
    return failing


def expect_rendered(image: Locator) -> None:
    """One <img> that the browser has loaded and decoded (so it is on screen, and in the screenshot)."""
    expect(image).to_have_count(1)
    image.scroll_into_view_if_needed()
    image.evaluate("img => img.decode()")
    assert image.evaluate("img => img.naturalWidth") > 0, "the figure is an empty image"


# Pixels darker than paper white in a decoded <img>: how much of a figure is actually drawn.
COUNT_INK = """img => {
    const canvas = document.createElement("canvas");
    canvas.width = img.naturalWidth;
    canvas.height = img.naturalHeight;
    const context = canvas.getContext("2d");
    context.drawImage(img, 0, 0);
    const pixels = context.getImageData(0, 0, canvas.width, canvas.height).data;
    let ink = 0;
    for (let i = 0; i < pixels.length; i += 4) {
        if (pixels[i + 3] > 0 && 0.299 * pixels[i] + 0.587 * pixels[i + 1] + 0.114 * pixels[i + 2] < 240) ink++;
    }
    return ink;
}"""


@pytest.fixture
def steps(page: Page, request: pytest.FixtureRequest) -> StepRecorder:
    """Screenshots of this test go to artifacts/browser/<test name without test_>/."""
    return StepRecorder(page, request.node.name.removeprefix("test_"))


@pytest.fixture
def lab_page(page: Page, steps: StepRecorder, lab: RunningLab) -> LabPage:
    """JupyterLab in a fresh tab, with a fresh workspace (no tabs left over from another test)."""
    opened = LabPage(page)
    with steps.step("open-jupyterlab"):
        opened.open_lab(lab.lab_url("lab?reset"))
    return opened


def test_welcome_lesson_runs_checks_answers_and_validates(
    lab: RunningLab, lab_page: LabPage, steps: StepRecorder
) -> None:
    cells = notebook_cells(lab, WELCOME)
    answer1, tests1 = index_of(cells, "ex1-answer"), index_of(cells, "ex1-tests")
    answer2, tests2 = index_of(cells, "ex2-answer"), index_of(cells, "ex2-tests")
    code_cells = sum(cell["cell_type"] == "code" for cell in cells)

    with steps.step("open-from-file-browser"):
        lab_page.open_from_file_browser(WELCOME)
        expect(lab_page.notebook().locator(".validate-button")).to_be_visible()

    with steps.step("run-all-stops-at-first-exercise"):
        failing = expect_run_all_to_stop_at_the_first_exercise(lab_page, cells)
        assert failing == answer1
        lab_page.show(answer1)

    with steps.step("wrong-answer-fails-its-test"):
        lab_page.replace_cell_source(answer1, "answer = tf.constant(41)")
        lab_page.run_cell(answer1)
        lab_page.run_cell(tests1)
        expect(lab_page.error_outputs(tests1)).to_contain_text("answer should be 42, but it is 41")
        lab_page.show(tests1)

    with steps.step("right-answer-passes-its-test"):
        lab_page.replace_cell_source(answer1, "answer = tf.constant(42)")
        lab_page.run_cell(answer1)
        lab_page.run_cell(tests1)
        expect(lab_page.cell(tests1).locator(".jp-OutputArea-output")).to_have_count(0)
        lab_page.show(tests1)

    with steps.step("second-exercise-answered"):
        lab_page.replace_cell_source(answer2, "def double(x):\n    return x * 2")
        lab_page.run_cell(answer2)
        lab_page.run_cell(tests2)
        expect(lab_page.cell(tests2).locator(".jp-OutputArea-output")).to_have_count(0)

    with steps.step("restart-and-run-all-without-errors"):
        lab_page.menu("Kernel", "Restart Kernel and Run All Cells…")
        lab_page.accept_dialog("Restart Kernel?")
        last_code = max(index for index, cell in enumerate(cells) if cell["cell_type"] == "code")
        expect(lab_page.prompt(last_code)).to_have_text(f"[{code_cells}]:")
        lab_page.wait_until_kernel_idle()
        expect(lab_page.error_outputs()).to_have_count(0)
        expect(lab_page.notebook().locator(TEXT_OUTPUT).first).to_contain_text("tf.Tensor(")

    with steps.step("validate-passes"):
        lab_page.notebook().locator(".validate-button").click()
        results = lab_page.page.locator(".jp-Dialog").filter(has_text="Validation Results")
        expect(results.locator(".validation-success")).to_contain_text("Success! Your notebook passes all the tests.")
    results.locator(".jp-Dialog-button.jp-mod-accept").click()
    expect(results).to_have_count(0)


def test_slider_redraws_its_figure_in_the_batches_lesson(
    lab: RunningLab, lab_page: LabPage, steps: StepRecorder
) -> None:
    cells = notebook_cells(lab, WIDGET_LESSON)
    widget_cell = next(index for index, cell in enumerate(cells) if "widgets.interact(" in source(cell))

    with steps.step("open-from-file-browser"):
        lab_page.open_from_file_browser(WIDGET_LESSON)

    with steps.step("run-all-renders-widget-and-figure"):
        expect_run_all_to_stop_at_the_first_exercise(lab_page, cells)
        lab_page.show(widget_cell)  # in view before the figure is awaited (and in a failure's screenshot)
        output = lab_page.cell(widget_cell).locator(".widget-output")
        figure = output.locator(".jp-OutputArea-output img")
        expect_rendered(figure)
        slider = lab_page.cell(widget_cell).locator(".widget-slider")
        expect(slider.locator(".widget-readout")).to_have_text("5")
        expect(output).to_contain_text("batch size 5:")
        ink_before = figure.evaluate(COUNT_INK)

    with steps.step("slider-moved-figure-redrawn"):
        image_before = figure.get_attribute("src")
        slider.locator(".noUi-handle").focus()
        lab_page.page.keyboard.press("ArrowRight")
        expect(slider.locator(".widget-readout")).to_have_text("6")
        expect(output).to_contain_text("batch size 6:")
        expect(figure).not_to_have_attribute("src", image_before or "")
        expect_rendered(figure)
        # Every batch size shows all 16 tiles at about the same size: a half-drawn figure has far less ink.
        ink_after = figure.evaluate(COUNT_INK)
        assert ink_after > 0.7 * ink_before, f"redrawn figure half drawn: {ink_after} dark pixels, was {ink_before}"
        expect(lab_page.error_outputs()).to_have_count(1)  # still only the unanswered exercise


def test_nbgrader_assignment_list_and_formgrader_open(lab: RunningLab, lab_page: LabPage, steps: StepRecorder) -> None:
    page = lab_page.page
    parts = sorted(path.name for path in (lab.home / "course").iterdir() if path.is_dir())
    home_before = sorted(path.name for path in lab.home.iterdir())

    with steps.step("assignment-list-shows-every-part-as-downloaded"):
        lab_page.menu("Nbgrader", "Assignment List")
        downloaded = page.locator("#fetched_assignments_list")
        for part in parts:
            expect(downloaded).to_contain_text(part)
        # Nothing is left to fetch: the learner's copies are the notebooks in course/.
        expect(page.locator("#released_assignments_list button", has_text=exact("Fetch"))).to_have_count(0)

    with steps.step("assignment-list-opens-a-lesson-in-course"):
        row = downloaded.locator(".list_item", has_text=parts[-1]).first
        row.locator("a.assignment-notebooks-link").click()  # unfolds the part's notebooks
        first_notebook = sorted(path.name for path in (lab.home / "course" / parts[-1]).glob("*.ipynb"))[0]
        row.locator(".nested_list_item a", has_text=exact(first_notebook.removesuffix(".ipynb"))).click()
        tab = page.locator("#jp-main-dock-panel .lm-TabBar-tab.lm-mod-current")
        expect(tab).to_contain_text(first_notebook)
        assert sorted(path.name for path in lab.home.iterdir()) == home_before, "a second copy of the course appeared"

    with steps.step("formgrader"):
        lab_page.menu("Nbgrader", "Formgrader")
        formgrader = page.frame_locator("#jp-main-dock-panel iframe:visible")
        expect(formgrader.locator("body")).to_contain_text("Manage Assignments")
        expect(formgrader.locator("body")).to_contain_text("part1-tensors")


def test_engine_switch_below_the_setup_cell(lab: RunningLab, lab_page: LabPage, steps: StepRecorder) -> None:
    """The welcome lesson's way to run a lesson on real TensorFlow, typed into a lesson as a student does."""
    lesson = "course/part2-basics/01-gradient-tape.ipynb"
    cells = notebook_cells(lab, lesson)
    setup = next(i for i, cell in enumerate(cells) if "setup" in cell.get("metadata", {}).get("tags", []))
    # The browser's kernel runs in this interpreter's environment: Binder's has no TensorFlow, the full one has.
    has_tensorflow = importlib.util.find_spec("tensorflow") is not None
    expected = "now runs on TensorFlow" if has_tensorflow else "TensorFlow is not installed here"

    with steps.step("open-lesson"):
        lab_page.open_from_file_browser(lesson)

    with steps.step("insert-the-switch-below-the-setup-cell"):
        lab_page.run_cell(setup)
        lab_page.cell(setup).locator(".jp-InputPrompt").click()  # select the setup cell again (Shift+Enter moved on)
        lab_page.page.keyboard.press("Escape")
        lab_page.page.keyboard.press("b")  # a new cell below the setup cell, as the lesson says
        lab_page.replace_cell_source(setup + 1, "from use_tensorflow import tf")
        lab_page.run_cell(setup + 1)
        expect(lab_page.text_outputs(setup + 1)).to_contain_text(expected)
        expect(lab_page.error_outputs(setup + 1)).to_have_count(0)

    with steps.step("the-next-cell-uses-the-chosen-engine"):
        lab_page.cell(setup + 1).locator(".jp-InputPrompt").click()
        lab_page.page.keyboard.press("Escape")
        lab_page.page.keyboard.press("b")
        lab_page.replace_cell_source(setup + 2, "print(tf.__name__, tf.constant([1.0, 2.0]) * 2)")
        lab_page.run_cell(setup + 2)
        engine = "tensorflow" if has_tensorflow else "minitf"
        expect(lab_page.text_outputs(setup + 2)).to_contain_text(f"{engine} tf.Tensor([2. 4.]")
