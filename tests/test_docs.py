"""The docs are reference: no dated measurements outside the one generated file, and that file is complete."""

import functools
import os
import re
from pathlib import Path
from typing import Any

from benchmarks import measurements

ROOT = Path(__file__).resolve().parent.parent
GENERATED = ROOT / "docs" / "measurements.md"
MONTHS = "January|February|March|April|May|June|July|August|September|October|November|December"
# A date in prose ("2 December 2026", "December 2026", "2026-12-04") marks a measurement typed in by hand.
DATED = re.compile(rf"\b(\d{{1,2}} )?({MONTHS}) 20\d\d\b|\b20\d\d-\d\d-\d\d\b")
SKIPPED_FOLDERS = {"artifacts", "node_modules", "__pycache__"}  # besides hidden ones (.venv, caches)


@functools.cache
def _prose_docs() -> list[Path]:
    """Every Markdown file of the project (not those of tools' caches, the environment or test artifacts)."""
    found = []
    for folder, subfolders, files in os.walk(ROOT):
        subfolders[:] = [name for name in subfolders if not name.startswith(".") and name not in SKIPPED_FOLDERS]
        found += [Path(folder) / name for name in files if name.endswith(".md")]
    return sorted(found)


def test_no_doc_but_the_generated_one_carries_a_dated_figure() -> None:
    dated = {
        str(path.relative_to(ROOT)): DATED.findall(path.read_text())
        for path in _prose_docs()
        if path != GENERATED and DATED.search(path.read_text())
    }
    assert not dated, (
        f"dated figures typed into the docs: {dated}. Measure with `python -m benchmarks --write` and link to "
        "docs/measurements.md instead."
    )


def test_the_date_check_catches_a_dated_figure() -> None:
    assert DATED.search("ran in 58 s (2 December 2026)") and DATED.search("on 2026-12-04, 40x")
    assert not DATED.search("the 30 s cell limit, 2^24 statements")


NUMBER = r"\d[\d,]*(?:\.\d+)?"
# A figure only a run can give, typed into prose: a duration, a speed or size ratio ("3x", "4 times"), a share, a count
# of tests, or a hedged number ("about 600 MB", "some 20 calls"; not "about 180 lines" of code, which
# tests/engine/test_reading_path.py checks).
MEASURED = re.compile(
    rf"(?<![\w.^/])(?:{NUMBER}\s?(?:ns|µs|us|ms|s|sec|seconds?|min|minutes?|hours?|%)(?!\w)"
    rf"|{NUMBER}\s?(?:x|×|times)(?![\w×])(?!\s?\d)"
    rf"|{NUMBER}\s(?:tests|passed|failed|test cases)\b"
    r"|\b(?:tens|hundreds|thousands) of (?:milli|micro)?seconds\b"
    rf"|\b(?:about|some|roughly|nearly|around|almost|up to)\s"
    rf"(?:{NUMBER}(?![\d,.])(?!\s+lines\b)|a third|a quarter|half)\b)"
)
# Figures in prose that are settings of the code or of a lesson, not measurements: (doc, phrase) -> what sets it.
SETTINGS = {
    ("docs/architecture.md", "0.25 s"): "grader/sandbox/kernel_client.py: WAIT_SLICE",
    ("docs/grading.md", "0.25 s"): "grader/sandbox/kernel_client.py: WAIT_SLICE",
    ("docs/grading.md", "600 s"): "grader/sandbox/prepare.py: Limits.cpu_seconds (RLIMIT_CPU)",
    ("docs/grading.md", "30 s"): "grader/sandbox/prepare.py: Limits.cell_timeout (--timeout)",
    ("docs/grading-internals.md", "5 s"): "grader/sandbox/pool.py: how long a launcher gets after SIGTERM",
    ("docs/running-a-term.md", "30 s"): "grader/sandbox/prepare.py: Limits.cell_timeout",
    ("docs/running-a-term.md", "5 s"): "the --timeout of the transcript's run",
    ("docs/datasets.md", "92 %"): "the digits chapter's accuracy bar (tests/course/test_digits_chapter.py)",
    ("docs/datasets.md", "about 180"): "the data set: 1,797 digits of ten classes",
    ("course_data/README.md", "about 180"): "the data set: 1,797 digits of ten classes",
    ("docs/lessons.md", "5 minutes"): "the reading-time estimate's rule",
    ("docs/lessons.md", "150 ms"): "the accepted window of the stopwatch exercise's hidden test (KnownCost)",
    ("docs/lessons.md", "30 times"): "benchmarks.timing_grades' default --runs",
}


def _prose(path: Path) -> str:
    """The text a reader takes as prose: fenced blocks (commands, generated transcripts) and code spans blanked."""
    text = re.sub(r"```.*?```", lambda block: "\n" * block.group().count("\n"), path.read_text(), flags=re.S)
    return re.sub(r"`[^`\n]*`", "``", text)


def _measured_figures() -> set[tuple[str, str]]:
    return {
        (str(path.relative_to(ROOT)), found.group())
        for path in _prose_docs()
        if path != GENERATED
        for found in MEASURED.finditer(_prose(path))
    }


def test_no_doc_but_the_generated_one_types_a_measured_figure() -> None:
    typed = sorted(_measured_figures() - set(SETTINGS))
    assert not typed, (
        f"figures typed into the docs by hand: {typed}. Link to the table in docs/measurements.md that shows them "
        "(`python -m benchmarks --write`), or, for a setting of the code, add it to SETTINGS with what sets it."
    )


def test_every_setting_the_figure_check_lets_through_is_still_in_its_doc() -> None:
    assert not set(SETTINGS) - _measured_figures(), f"stale: {set(SETTINGS) - _measured_figures()}"


def test_the_figure_check_catches_measured_figures_and_leaves_other_numbers() -> None:
    for typed in (
        "ran in 58 s",
        "took 1.5 minutes",
        "3.2x faster",
        "2 times the memory",
        "4194 passed",
        "120 tests",
        "about 600 MB per worker",
        "for 86 % of values",
        "some 20 NumPy calls",
        "12 ms",
        "about 1,250 ms",
        "tens of milliseconds a case",
    ):
        assert MEASURED.search(typed), typed
    for other in (
        "an 8×8 image",
        "2^24 statements",
        "tf.float32",
        "part 2 shows",
        "the 2x2 matrix",
        "TensorFlow 2.21",
        "(about 1,250 lines)",
    ):
        assert not MEASURED.search(other), other


def test_grading_doc_stays_a_short_reference() -> None:
    lines = (ROOT / "docs" / "grading.md").read_text().splitlines()
    assert len(lines) <= 300, f"docs/grading.md has {len(lines)} lines; move design detail to grading-internals.md"
    overview = lines[: next(i for i, line in enumerate(lines) if line.startswith("## "))]
    assert len(overview) <= 40, f"docs/grading.md's overview takes {len(overview)} lines: keep it to one screen"
    assert sum(bool(re.match(r"\d\. ", line)) for line in overview) >= 3, "the overview lists the steps of a grade"


def _says_when_where_and_with_what_it_was_measured(text: str) -> None:
    assert text.startswith("# Measurements") and "`python -m benchmarks --write`" in text
    for label in ("- measured: ", "- machine: ", "- versions: "):
        assert label in text, f"docs/measurements.md lacks its {label.strip('- :')} line"
    assert re.search(r"- measured: 20\d\d-\d\d-\d\d", text)
    for module, heading, _ in measurements.SECTIONS:
        assert f"## {heading}\n" in text and f"`python -m {module}`" in text, f"no section for {module}"
    assert f"## {measurements.FAST_TIER}\n" in text


def test_the_generated_file_says_when_where_and_with_what_it_was_measured() -> None:
    _says_when_where_and_with_what_it_was_measured(GENERATED.read_text())


def test_one_command_writes_the_whole_file(tmp_path: Path, monkeypatch: Any) -> None:
    monkeypatch.setattr(measurements, "section", lambda module: f"table printed by {module}")
    monkeypatch.setattr(measurements, "fast_tier", lambda: "N passed")
    measurements.write(tmp_path / "measurements.md")
    text = (tmp_path / "measurements.md").read_text()
    _says_when_where_and_with_what_it_was_measured(text)
    assert all(f"table printed by {module}" in text for module, _, _ in measurements.SECTIONS)
    main = (ROOT / "benchmarks" / "__main__.py").read_text()
    assert '"--write" in sys.argv' in main and "measurements.write()" in main, "`python -m benchmarks --write`"


def test_every_benchmark_is_a_section_of_the_generated_file_or_says_why_not() -> None:
    modules = {f"benchmarks.{path.stem}" for path in (ROOT / "benchmarks").glob("*.py")}
    modules -= {"benchmarks.__init__", "benchmarks.__main__", "benchmarks.measurements"}
    sections = {module for module, _, _ in measurements.SECTIONS}
    assert not sections & set(measurements.ON_DEMAND), "a benchmark is both a section and left out"
    missing = modules - sections - set(measurements.ON_DEMAND)
    assert not missing, f"{missing}: add a section to measurements.SECTIONS, or to ON_DEMAND with why it is left out"
    assert not (sections | set(measurements.ON_DEMAND)) - modules, "a section names a benchmark that does not exist"


def test_the_readme_says_how_to_reproduce_the_generated_file() -> None:
    readme = (ROOT / "README.md").read_text()
    assert "`./run bench --write`" in readme and "(docs/measurements.md)" in readme


def test_measuring_one_section_again_replaces_only_its_table_and_dates_it(tmp_path: Path, monkeypatch: Any) -> None:
    page = tmp_path / "measurements.md"
    page.write_text(
        "# Measurements\n\n- measured: 2026-01-01 00:00 UTC, commit abc\n\n"
        "## Eager ops and the tape\n\n`python -m benchmarks.chain`: a chain.\n\n```text\nold chain table\n```\n\n"
        "## One op\n\n`python -m benchmarks.dispatch`: one op.\n\n```text\nold op table\n```\n"
    )
    monkeypatch.setattr(measurements, "section", lambda module: f"table printed by {module}")
    measurements.rewrite_sections(["benchmarks.chain"], page)
    text = page.read_text()
    assert "table printed by benchmarks.chain" in text and "old chain table" not in text
    assert "old op table" in text and "table printed by benchmarks.dispatch" not in text
    assert re.search(r"measured again: 20\d\d-\d\d-\d\d .*, commit \w+", text)
    assert text.startswith("# Measurements\n\n- measured: 2026-01-01")


def test_measuring_a_new_section_puts_it_before_the_next_listed_one(tmp_path: Path, monkeypatch: Any) -> None:
    page = tmp_path / "measurements.md"
    page.write_text(
        "# Measurements\n\nAn intro of older code.\n\n- measured: 2026-01-01 00:00 UTC, commit abc\n\n"
        "## One op\n\n`python -m benchmarks.dispatch`: one op.\n\n```text\nop table\n```\n\n"
        "## Keras fit\n\n`python -m benchmarks.keras_fit`: fit.\n\n```text\nfit table\n```\n"
    )
    monkeypatch.setattr(measurements, "section", lambda module: f"table printed by {module}")
    measurements.rewrite_sections(["benchmarks.graphs"], page)
    text = page.read_text()
    assert text.index("op table") < text.index("table printed by benchmarks.graphs") < text.index("## Keras fit")
    assert text.count("## Graphs\n") == 1 and "`python -m benchmarks.graphs`: " in text
    assert text.startswith(f"# Measurements\n\n{measurements.INTRO}\n- measured: 2026-01-01")


def _anchors(path: Path) -> set[str]:
    """The anchors a Markdown viewer makes of a file's headings (lower case, punctuation dropped, spaces to -)."""
    headings = re.findall(r"^#+ (.+)$", path.read_text(), re.M)
    return {re.sub(r"[^\w\- ]", "", h.strip().lower()).replace(" ", "-") for h in headings}


def test_every_link_to_a_doc_and_its_heading_resolves() -> None:
    broken = []
    for path in _prose_docs():
        for target, anchor in re.findall(r"\]\(([^)#\s]*\.md|)(?:#([^)\s]+))?\)", path.read_text()):
            linked = (path.parent / target) if target else path
            if not linked.exists() or (anchor and anchor not in _anchors(linked)):
                broken.append(f"{path.relative_to(ROOT)} -> {target}#{anchor}")
    assert not broken, f"links to missing docs or headings: {broken}"
