"""docs/reading-minitf.md, the reading path through the engine, cannot drift from the code: every object it names
exists in the file it names with it, each stop's line count is roughly right, and its links lead somewhere."""

from __future__ import annotations

import importlib
import inspect
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "reading-minitf.md"
TOLERANCE = 0.25  # "about 140 lines" holds while the objects have 105-175 lines
FIELDS = ("Where", "Read", "Look for", "Question", "Lessons")


@dataclass
class Stop:
    title: str
    fields: dict[str, str]

    @property
    def files(self) -> list[str]:
        return re.findall(r"`(minitf/[\w/]+\.py)`", self.fields["Where"])

    @property
    def objects(self) -> list[str]:
        return re.findall(r"`(minitf(?:\.\w+)+)`", self.fields["Read"])

    @property
    def stated_lines(self) -> int:
        found = re.search(r"\(about ([\d,]+) lines\)", self.fields["Read"])
        assert found, f"stop {self.title!r}: the Read line ends with (about N lines)"
        return int(found.group(1).replace(",", ""))


def _stops() -> list[Stop]:
    stops = []
    for section in re.split(r"^## ", DOC.read_text(), flags=re.M)[1:]:
        title, _, body = section.partition("\n")
        if not re.match(r"\d+\. ", title):
            continue
        fields: dict[str, str] = {}
        for item in re.split(r"^- \*\*", body, flags=re.M)[1:]:
            name, _, text = item.partition(":**")
            fields[name] = " ".join(text.split())
        stops.append(Stop(title, fields))
    return stops


STOPS = _stops()


def resolve(qualified: str) -> Any:
    """`minitf.core.op.bind`, `minitf.autodiff.tape.GradientTape.gradient`: the longest importable module, then
    attributes."""
    parts = qualified.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj: Any = importlib.import_module(".".join(parts[:cut]))
        except ModuleNotFoundError:
            continue
        for name in parts[cut:]:
            obj = getattr(obj, name)
        return obj
    raise ModuleNotFoundError(qualified)


def _defined_in(obj: Any) -> Path | None:
    """The file that defines a function, method or class (None for other values, such as an Op)."""
    target = inspect.unwrap(obj)
    if inspect.isfunction(target) or inspect.isclass(target) or inspect.ismethod(target):
        return Path(inspect.getsourcefile(target) or "").resolve()
    return None


def _lines(obj: Any) -> int:
    return len(inspect.getsourcelines(inspect.unwrap(obj))[0]) if _defined_in(obj) else 1


def test_reading_path_has_stops_in_order() -> None:
    assert len(STOPS) >= 6, "the reading path lists its stops as '## 1. Title' sections"
    numbers = [int(stop.title.split(".")[0]) for stop in STOPS]
    assert numbers == list(range(1, len(STOPS) + 1))


@pytest.mark.parametrize("stop", STOPS, ids=lambda stop: stop.title)
def test_each_stop_says_where_what_to_look_for_a_question_and_lessons(stop: Stop) -> None:
    missing = [name for name in FIELDS if not stop.fields.get(name)]
    assert not missing, f"stop {stop.title!r} lacks {missing}"
    assert stop.files and stop.objects, f"stop {stop.title!r} names no file or no object"
    assert "?" in stop.fields["Question"], f"stop {stop.title!r}: the question asks something"


@pytest.mark.parametrize("stop", STOPS, ids=lambda stop: stop.title)
def test_every_object_named_exists_in_a_file_its_stop_names(stop: Stop) -> None:
    files = {(ROOT / f).resolve() for f in stop.files}
    for f in files:
        assert f.exists(), f"stop {stop.title!r}: {f.relative_to(ROOT)} does not exist"
    misplaced = []
    for name in stop.objects:
        try:
            obj = resolve(name)
        except (ImportError, AttributeError) as error:
            pytest.fail(f"stop {stop.title!r} names {name}, which does not exist ({error}); update the reading path")
        where = _defined_in(obj)
        if where is not None and where not in files:
            misplaced.append(f"{name} is in {where.relative_to(ROOT)}")
    assert not misplaced, f"stop {stop.title!r}: objects outside the files it names: {misplaced}"


@pytest.mark.parametrize("stop", STOPS, ids=lambda stop: stop.title)
def test_each_stop_states_its_length_roughly_right(stop: Stop) -> None:
    actual = sum(_lines(resolve(name)) for name in stop.objects)
    stated = stop.stated_lines
    assert abs(actual - stated) <= TOLERANCE * stated, (
        f"stop {stop.title!r} says about {stated} lines, but its objects have {actual} now")


def test_the_whole_path_is_as_long_as_the_introduction_says() -> None:
    intro = DOC.read_text().split("\n## ", 1)[0]
    found = re.search(r"about ([\d,]+) lines", intro)
    assert found, "the introduction says how long the whole path is (about N lines)"
    stated = int(found.group(1).replace(",", ""))
    actual = sum(_lines(resolve(name)) for stop in STOPS for name in stop.objects)
    assert abs(actual - stated) <= TOLERANCE * stated, (
        f"the introduction says about {stated} lines, the stops have {actual}")


def test_links_lead_to_files_that_exist() -> None:
    broken = [target for target in re.findall(r"\]\(([^)#]+)\)", DOC.read_text())
              if not target.startswith("http") and not (DOC.parent / target).exists()]
    assert not broken, f"links to missing files: {broken}"


def test_the_reading_path_is_linked_from_readme_and_architecture() -> None:
    assert "docs/reading-minitf.md" in (ROOT / "README.md").read_text()
    assert "reading-minitf.md" in (ROOT / "docs" / "architecture.md").read_text()
