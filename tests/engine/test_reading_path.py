"""docs/reading-minitf.md, the reading path through the engine, cannot drift from the code that runs.

Each stop has an example (a few lines of minitf use) and names the objects that example runs. The tests run the
example under `sys.settrace` and check that every object named is reached (a function or method ran; a class had
one of its methods run or an instance handed to a function; an op was handed to a function, as `bind(op, ...)`),
that the functions are named in the order the example first runs them, that every object lives in a file the
stop names (and every file named holds one of them), that each stop's line count is roughly right, and that the
files and links the path names exist. Names are import paths, resolved when the tests run, so a file that moves
makes them fail instead of leaving the path silently wrong.
"""

from __future__ import annotations

import contextlib
import importlib
import inspect
import io
import linecache
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from types import CodeType, FrameType
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "reading-minitf.md"
MINITF = ROOT / "minitf"
TOLERANCE = 0.25  # "about 140 lines" holds while the objects have 105-175 lines
FIELDS = ("Example", "Where", "Read", "Look for", "Question", "Lessons")
EXAMPLE = re.compile(r"```python\n(.*?)```", re.S)


@dataclass
class Stop:
    title: str
    fields: dict[str, str]
    example: str = ""

    @property
    def files(self) -> list[str]:
        return re.findall(r"`(minitf/[\w/]+\.py)`", self.fields.get("Where", ""))

    @property
    def objects(self) -> list[str]:
        return re.findall(r"`(minitf(?:\.\w+)+)`", self.fields.get("Read", ""))

    @property
    def stated_lines(self) -> int:
        found = re.search(r"\(about ([\d,]+) lines\)", self.fields["Read"])
        assert found, f"stop {self.title!r}: the Read line ends with (about N lines)"
        return int(found.group(1).replace(",", ""))


def parse_stops(text: str) -> list[Stop]:
    stops = []
    for section in re.split(r"^## ", text, flags=re.M)[1:]:
        title, _, body = section.partition("\n")
        if not re.match(r"\d+\. ", title):
            continue
        stop = Stop(title, {})
        for item in re.split(r"^- \*\*", body, flags=re.M)[1:]:
            name, _, text_ = item.partition(":**")
            if name == "Example":
                code = EXAMPLE.search(text_)
                stop.example = inspect.cleandoc("\n" + code.group(1)) + "\n" if code else ""
            stop.fields[name] = " ".join(text_.split())
        stops.append(stop)
    return stops


STOPS = parse_stops(DOC.read_text())


def resolve(qualified: str) -> Any:
    """`minitf.core.op.bind`, `minitf.autodiff.tape.GradientTape.gradient`: the longest importable module, then
    attributes (looked up on classes without calling descriptors, so a property stays a property)."""
    return _resolve(qualified)[0]


def _resolve(qualified: str) -> tuple[Any, Any]:
    """The object and the module its name starts from."""
    parts = qualified.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            module = importlib.import_module(".".join(parts[:cut]))
        except ModuleNotFoundError:
            continue
        obj: Any = module
        for name in parts[cut:]:
            obj = inspect.getattr_static(obj, name) if inspect.isclass(obj) else getattr(obj, name)
        return obj, module
    raise ModuleNotFoundError(qualified)


@dataclass
class Named:
    """One object the path names, and how to tell that an example reached it."""

    name: str
    obj: Any
    code: CodeType | None = None  # a function or method: its code ran (ordered)
    cls: type | None = None  # a class: one of its methods ran, or an instance was an argument
    file: Path | None = None
    lines: int = 1

    @classmethod
    def of(cls, name: str) -> Named:
        obj, module = _resolve(name)
        function = obj.fget if isinstance(obj, property) else getattr(obj, "__func__", obj)
        if inspect.isfunction(function):
            code = function.__code__
            if not Path(code.co_filename).resolve().is_relative_to(MINITF):  # a library's decorator
                code = inspect.unwrap(function).__code__  # (minitf's own wrappers, `tf.add`'s dispatch, stay)
            return cls(
                name, obj, code=code, file=Path(code.co_filename).resolve(), lines=len(inspect.getsourcelines(code)[0])
            )
        if inspect.isclass(obj):
            return cls(
                name,
                obj,
                cls=obj,
                file=Path(inspect.getsourcefile(obj) or "").resolve(),
                lines=len(inspect.getsourcelines(obj)[0]),
            )
        # A value, such as an Op: one line, in the module that defines its name.
        return cls(name, obj, file=Path(module.__file__ or "").resolve())


@dataclass
class Run:
    """What an example reached: code objects in the order they first ran, and the objects handed to functions."""

    first_call: dict[CodeType, int] = field(default_factory=dict)
    arguments: set[int] = field(default_factory=set)  # id() of watched objects seen as arguments
    argument_types: set[type] = field(default_factory=set)

    def reached(self, named: Named) -> bool:
        if named.code is not None:
            return named.code in self.first_call
        if named.cls is not None:
            prefix, file = named.cls.__qualname__ + ".", str(named.file)
            return named.cls in self.argument_types or any(
                code.co_filename == file and code.co_qualname.startswith(prefix) for code in self.first_call
            )
        return id(named.obj) in self.arguments

    def nearby(self, named: Named) -> str:
        """What the example did run in the file of an object it did not reach, for the failure message."""
        ran = [code.co_qualname for code in self.first_call if code.co_filename == str(named.file)]
        return f" (in its file it runs {', '.join(ran[:8])})" if ran else ""


def run_example(source: str, title: str, watched: list[Named]) -> Run:
    """Run an example twice (the first run fills caches, so the second shows what every call runs) and record
    what the second run reaches."""
    filename = f"<reading path: {title}>"
    linecache.cache[filename] = (len(source), None, source.splitlines(keepends=True), filename)  # for AutoGraph
    code = compile(source, filename, "exec")
    import minitf as tf

    with contextlib.redirect_stdout(io.StringIO()):
        exec(code, {"tf": tf, "__name__": "__reading_example__"})
    run = Run()
    ids = {id(n.obj) for n in watched if n.code is None and n.cls is None}
    classes = {n.cls for n in watched if n.cls is not None}

    def tracer(frame: FrameType, event: str, arg: Any) -> None:
        if event == "call":
            run.first_call.setdefault(frame.f_code, len(run.first_call))
            for value in frame.f_locals.values():  # at a call: the arguments
                if id(value) in ids:
                    run.arguments.add(id(value))
                if type(value) in classes:
                    run.argument_types.add(type(value))
        return None  # no line events: calls are all that is counted

    previous = sys.gettrace()
    sys.settrace(tracer)
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            exec(code, {"tf": tf, "__name__": "__reading_example__"})
    finally:
        sys.settrace(previous)
    return run


def reach_problems(stop: Stop) -> list[str]:
    """What is wrong with a stop's Read list, given what its example runs (empty: nothing)."""
    named = [Named.of(name) for name in stop.objects]
    run = run_example(stop.example, stop.title, named)
    problems = [f"{n.name} is not reached when the example runs{run.nearby(n)}" for n in named if not run.reached(n)]
    ordered = [(run.first_call[n.code], n.name) for n in named if n.code is not None and n.code in run.first_call]
    for (first, earlier), (second, later) in zip(ordered, ordered[1:]):
        if second < first:
            problems.append(f"{later} runs before {earlier}: name the functions in the order the example runs them")
    return problems


def place_problems(stop: Stop) -> list[str]:
    """Files the stop names that do not exist or hold nothing it names; objects outside the files it names."""
    files = {(ROOT / f).resolve() for f in stop.files}
    problems = [f"{f.relative_to(ROOT)} does not exist" for f in files if not f.exists()]
    homes = set()
    for name in stop.objects:
        try:
            named = Named.of(name)
        except (ImportError, AttributeError) as error:
            problems.append(f"{name} does not exist ({error})")
            continue
        homes.add(named.file)
        if named.file not in files:
            where = named.file.relative_to(ROOT) if named.file else "?"
            problems.append(f"{name} is in {where}, which the stop does not name")
    problems += [f"{f.relative_to(ROOT)} holds nothing the stop names" for f in files if f.exists() and f not in homes]
    return problems


def _lines(stop: Stop) -> int:
    return sum(Named.of(name).lines for name in stop.objects)


def test_reading_path_has_stops_in_order() -> None:
    assert len(STOPS) >= 6, "the reading path lists its stops as '## 1. Title' sections"
    numbers = [int(stop.title.split(".")[0]) for stop in STOPS]
    assert numbers == list(range(1, len(STOPS) + 1))


@pytest.mark.parametrize("stop", STOPS, ids=lambda stop: stop.title)
def test_each_stop_has_an_example_and_says_where_what_to_look_for_a_question_and_lessons(stop: Stop) -> None:
    missing = [name for name in FIELDS if not stop.fields.get(name)]
    assert not missing, f"stop {stop.title!r} lacks {missing}"
    assert stop.example, f"stop {stop.title!r}: the Example is a ```python block of minitf use"
    assert stop.files and stop.objects, f"stop {stop.title!r} names no file or no object"
    assert "?" in stop.fields["Question"], f"stop {stop.title!r}: the question asks something"


@pytest.mark.parametrize("stop", STOPS, ids=lambda stop: stop.title)
def test_every_object_named_lives_in_a_file_its_stop_names(stop: Stop) -> None:
    problems = place_problems(stop)
    assert not problems, f"stop {stop.title!r}: {problems}; update docs/reading-minitf.md"


@pytest.mark.parametrize("stop", STOPS, ids=lambda stop: stop.title)
def test_the_example_reaches_every_object_named_in_the_order_named(stop: Stop) -> None:
    problems = reach_problems(stop)
    assert not problems, f"stop {stop.title!r}: {problems}; update docs/reading-minitf.md"


def test_no_object_is_named_twice() -> None:
    names = [name for stop in STOPS for name in stop.objects]
    assert len(names) == len(set(names)), sorted({n for n in names if names.count(n) > 1})


@pytest.mark.parametrize("stop", STOPS, ids=lambda stop: stop.title)
def test_each_stop_states_its_length_roughly_right(stop: Stop) -> None:
    actual, stated = _lines(stop), stop.stated_lines
    assert abs(actual - stated) <= TOLERANCE * stated, (
        f"stop {stop.title!r} says about {stated} lines, but its objects have {actual} now"
    )


def test_the_whole_path_is_as_long_as_the_introduction_says() -> None:
    intro = DOC.read_text().split("\n## ", 1)[0]
    found = re.search(r"about ([\d,]+) lines", intro)
    assert found, "the introduction says how long the whole path is (about N lines)"
    stated = int(found.group(1).replace(",", ""))
    actual = sum(_lines(stop) for stop in STOPS)
    assert abs(actual - stated) <= TOLERANCE * stated, (
        f"the introduction says about {stated} lines, the stops have {actual}"
    )


def test_every_minitf_path_the_page_mentions_exists() -> None:
    mentioned = set(re.findall(r"`(minitf/[\w/.]*)`", DOC.read_text()))
    missing = sorted(path for path in mentioned if not (ROOT / path).exists())
    assert not missing, f"docs/reading-minitf.md mentions {missing}, which do not exist"


def test_links_lead_to_files_that_exist() -> None:
    broken = [
        target
        for target in re.findall(r"\]\(([^)#]+)\)", DOC.read_text())
        if not target.startswith("http") and not (DOC.parent / target).exists()
    ]
    assert not broken, f"links to missing files: {broken}"


def test_the_reading_path_is_linked_from_readme_and_architecture() -> None:
    assert "docs/reading-minitf.md" in (ROOT / "README.md").read_text()
    assert "reading-minitf.md" in (ROOT / "docs" / "architecture.md").read_text()


# --- the checks themselves catch a wrong stop ---


def _stop(example: str, objects: list[str], files: list[str]) -> Stop:
    text = "\n".join(
        [
            "## 1. A stop",
            "- **Example:**",
            "  ```python",
            *(f"  {line}" for line in example.splitlines()),
            "  ```",
            f"- **Where:** {', '.join(f'`{f}`' for f in files)}",
            f"- **Read:** {', '.join(f'`{o}`' for o in objects)} (about 10 lines)",
            "",
        ]
    )
    (stop,) = parse_stops(text)
    return stop


def test_a_stop_naming_code_its_example_never_runs_is_caught() -> None:
    stop = _stop(
        "tf.add(tf.constant(1.0), 2.0)",
        ["minitf.core.op.bind", "minitf.function.compiling.execute.replay_graph"],
        ["minitf/core/op.py", "minitf/function/compiling/execute.py"],
    )
    assert reach_problems(stop) == [
        "minitf.function.compiling.execute.replay_graph is not reached when the example runs"
    ]


def test_a_stop_naming_an_op_or_class_its_example_never_uses_is_caught() -> None:
    stop = _stop(
        "tf.add(tf.constant(1.0), 2.0)",
        [
            "minitf.ops.math.binary_math.Add",
            "minitf.ops.math.binary_math.Mul",
            "minitf.core.op.GradContext",
            "minitf.core.tensor.EagerTensor",
        ],
        ["minitf/ops/math/binary_math.py", "minitf/core/op.py", "minitf/core/tensor.py"],
    )
    assert reach_problems(stop) == [
        "minitf.ops.math.binary_math.Mul is not reached when the example runs (in its file it runs add)",
        "minitf.core.op.GradContext is not reached when the example runs (in its file it runs bind, run_eager)",
    ]


def test_a_stop_naming_functions_out_of_order_is_caught() -> None:
    stop = _stop(
        "tf.add(tf.constant(1.0), 2.0)", ["minitf.core.op.run_eager", "minitf.core.op.bind"], ["minitf/core/op.py"]
    )
    assert reach_problems(stop) == [
        "minitf.core.op.bind runs before minitf.core.op.run_eager: "
        "name the functions in the order the example runs them"
    ]


def test_a_stop_naming_a_missing_file_or_an_object_elsewhere_is_caught() -> None:
    stop = _stop(
        "pass",
        ["minitf.core.op.bind", "minitf.autodiff.tape.GradientTape.gradient"],
        ["minitf/core/op.py", "minitf/no_such_file.py", "minitf/core/dtypes.py"],
    )
    assert sorted(place_problems(stop)) == [
        "minitf.autodiff.tape.GradientTape.gradient is in minitf/autodiff/tape.py, which the stop does not name",
        "minitf/core/dtypes.py holds nothing the stop names",
        "minitf/no_such_file.py does not exist",
    ]
