"""Short excerpts of minitf's own source, for the lessons that open the engine (minitf only).

A lesson that has just taught an engine idea (dtypes, broadcasting, the tape, tracing, compiling) ends with a
`minitf-only` cell such as `show("broadcast shapes")`: it prints the 10-30 lines of minitf that implement the idea,
read from the live object with `inspect`, with the file they live in and their line numbers. What a student reads
is therefore always the code that ran, never a pasted copy.

`EXCERPTS` is the one place that says where each excerpt's object lives. Objects are reached through TensorFlow's
public names where there is one (`tf.GradientTape`, the op TensorFlow calls `AddV2`), so that moving code between
files does not break a lesson; internal functions are named here, once. `tests/course/test_engine_excerpts.py` fails
when an excerpt's object disappears, its cut markers are gone, or it grows beyond `MAX_LINES` lines.

`show` also takes any object (`show(tf.add)`), for students who want to read further.
"""

from __future__ import annotations

import importlib
import inspect
import re
import textwrap
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

MAX_LINES = 30  # a lesson's excerpt is read in a minute; longer ones belong to docs/reading-minitf.md
MIN_LINES = 3
ROOT = Path(__file__).resolve().parent.parent  # paths are printed relative to this: minitf/core/op.py, ...
_TYPE_IGNORE = re.compile(r"\s*# type: ignore(\[[^\]]*\])?")  # for the type checker, not for the reader


@dataclass(frozen=True)
class Excerpt:
    """Where one excerpt's object lives, and which of its lines to show.

    find:  returns the live object (called when the excerpt is shown, so importing this module imports nothing).
    start: the excerpt begins at the object's first line containing this text (default: its first line).
    stop:  the excerpt ends just before the first later line containing this text (default: its last line).
    """

    find: Callable[[], Any]
    start: str | None = None
    stop: str | None = None


@dataclass(frozen=True)
class Source:
    """An excerpt's text as it is in the file now: `lines` start at line `first` of `path`."""

    title: str
    path: str
    first: int
    lines: list[str]

    @property
    def last(self) -> int:
        return self.first + len(self.lines) - 1

    def __str__(self) -> str:
        body = textwrap.dedent("\n".join(_TYPE_IGNORE.sub("", line) for line in self.lines)).splitlines()
        width = len(str(self.last))
        numbered = [f"{self.first + i:>{width}}  {line}".rstrip() for i, line in enumerate(body)]
        return "\n".join([f"{self.path}, lines {self.first}-{self.last}: {self.title}", *numbered])


def _attribute(path: str, module: str = "minitf") -> Callable[[], Any]:
    """An attribute path below a module: below `import minitf as tf` ("GradientTape._backward_call") where
    TensorFlow has a public name, else below the minitf module that defines it."""

    def find() -> Any:
        obj: Any = importlib.import_module(module)
        for part in path.split("."):
            obj = getattr(obj, part)
        return obj

    return find


def _op(tensorflow_name: str, part: str) -> Callable[[], Any]:
    """A part (`kernel`, `check`, `shape`, `grad`) of the op TensorFlow calls `tensorflow_name` (`AddV2`, `Mul`)."""

    def find() -> Any:
        return getattr(op_named(tensorflow_name), part)

    return find


def op_named(tensorflow_name: str) -> Any:
    """The `Op` registered under TensorFlow's op name: `op_named("AddV2")` is the op behind `tf.add` and `+`."""
    importlib.import_module("minitf")  # importing minitf defines (registers) every op
    registry = importlib.import_module("minitf.core.op").REGISTRY
    return registry[tensorflow_name]


# name -> where its object lives. The lessons that show each one are listed in docs/reading-minitf.md.
EXCERPTS: dict[str, Excerpt] = {
    # part 1, 02: a tensor is a NumPy value and a dtype, and never changes
    "EagerTensor": Excerpt(
        lambda: type(importlib.import_module("minitf").constant(0.0)), start="class EagerTensor", stop="_numpy = numpy"
    ),
    # part 1, 07: the dtype tf.constant picks, and the check that refuses mixed dtypes
    "dtype inference": Excerpt(_attribute("infer", "minitf.core.dtypes")),
    "AddV2 dtype check": Excerpt(_op("AddV2", "check")),
    # part 1, 08: the broadcasting rule on shapes
    "broadcast shapes": Excerpt(_attribute("broadcast_shapes", "minitf.core.shape_rules")),
    # part 2, 01: walking the tape backwards, and one op's gradient rule
    "tape backward step": Excerpt(_attribute("GradientTape._backward_call")),
    "Mul gradient": Excerpt(_op("Mul", "grad")),
    # part 2, 02: one door for eager and traced calls, and the cache key that decides retracing
    "bind": Excerpt(_attribute("bind", "minitf.core.op")),
    "trace cache key": Excerpt(_attribute("trace_type", "minitf.function.cache_keys")),
    # part 2, 03: how elementwise fusion groups operations
    "fusion groups": Excerpt(
        _attribute("elementwise_fusion", "minitf.function.compiling.fusion"), stop="changes: Changes = []"
    ),
}


def source(target: str | Any, start: str | None = None, stop: str | None = None) -> Source:
    """The current source of an excerpt (by name) or of any function, method or class, cut by the markers."""
    if isinstance(target, str):
        excerpt = EXCERPTS[target]
        obj, title = excerpt.find(), target
        start, stop = start or excerpt.start, stop or excerpt.stop
    else:
        obj, title = target, getattr(target, "__qualname__", repr(target))
    obj = inspect.unwrap(obj)
    lines, first = inspect.getsourcelines(obj)
    lines = [line.rstrip("\n") for line in lines]
    begin = 0
    if start is not None:
        begin = _index(lines, start, 0, title)
    end = len(lines)
    if stop is not None:
        end = _index(lines, stop, begin + 1, title)
    while end > begin and not lines[end - 1].strip():
        end -= 1  # no trailing blank lines
    path = Path(inspect.getsourcefile(obj) or "").resolve()
    shown = path.relative_to(ROOT).as_posix() if path.is_relative_to(ROOT) else str(path)
    return Source(title, shown, (first or 1) + begin, lines[begin:end])


def _index(lines: list[str], marker: str, after: int, title: str) -> int:
    for i in range(after, len(lines)):
        if marker in lines[i]:
            return i
    raise LookupError(f"the excerpt {title!r} has no line containing {marker!r} any more; update minitf/reading.py")


def show(target: str | Any, start: str | None = None, stop: str | None = None) -> None:
    """Print an excerpt (by name, see EXCERPTS) or any object's source, with its file and line numbers."""
    print(source(target, start, stop))
    print()
