"""The docs are reference: no dated measurements outside the one generated file, and that file is complete."""

import re
from pathlib import Path
from typing import Any

from benchmarks import measurements

ROOT = Path(__file__).resolve().parent.parent
GENERATED = ROOT / "docs" / "measurements.md"
MONTHS = "January|February|March|April|May|June|July|August|September|October|November|December"
# A date in prose ("2 December 2026", "December 2026", "2026-12-04") marks a measurement typed in by hand.
DATED = re.compile(rf"\b(\d{{1,2}} )?({MONTHS}) 20\d\d\b|\b20\d\d-\d\d-\d\d\b")


def _prose_docs() -> list[Path]:
    return [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


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


def test_grading_doc_stays_a_short_reference() -> None:
    lines = (ROOT / "docs" / "grading.md").read_text().splitlines()
    assert len(lines) <= 300, f"docs/grading.md has {len(lines)} lines; move design detail to grading-internals.md"


def test_the_generated_file_says_when_where_and_with_what_it_was_measured() -> None:
    text = GENERATED.read_text()
    assert text.startswith("# Measurements") and "`python -m benchmarks --write`" in text
    for label in ("- measured: ", "- machine: ", "- versions: "):
        assert label in text, f"docs/measurements.md lacks its {label.strip('- :')} line"
    assert re.search(r"- measured: 20\d\d-\d\d-\d\d", text)
    for module, heading, _ in measurements.SECTIONS:
        assert f"## {heading}\n" in text and f"`python -m {module}`" in text, f"no section for {module}"


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
