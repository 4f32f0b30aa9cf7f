"""Writing Python source and compiling it: the one place minitf generates code.

Three things become generated Python: a graph (codegen.py, one line per node), a fused kernel (the same code
for a few nodes, fusion.py) and a jit region's loops (jit/python_source.py). All of them are written with a
`Source`: lines at an indentation level, identifiers from `Names` (readable, unique, never a keyword or a
builtin), values that are not plain literals kept as globals of the generated module. `Source.compile()`
registers the text under a file name of its own, so a traceback shows the failing generated line and
`inspect.getsource` returns the function's code, as for any Python file.

    code = Source("matmul + bias")
    with code.block("def f(x, w, b):"):
        code.line("return np.matmul(x, w) + b")
    f = code.compile(np=np)["f"]
"""

from __future__ import annotations

import builtins
import itertools
import keyword
import linecache
import math
import re
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, cast

from minitf.core import dtypes
from minitf.function.tracing.graph import SymbolicTensor

# The module name generated code runs under: minitf's warnings filter (core/op.py) keeps NumPy's 1/0 and overflow
# warnings quiet here too, as TensorFlow returns inf and nan silently.
GENERATED_MODULE = "minitf.generated"
DTYPE_NAMES = {d.name: d for d in dtypes.ALL}
INDENT = "    "
_files = itertools.count(1)


class Names:
    """Python identifiers for tensors and globals: readable (from node names), unique, never a keyword, builtin
    or one of the module's own names."""

    def __init__(self, reserved: set[str]) -> None:
        self.taken = set(reserved) | set(keyword.kwlist) | set(dir(builtins))
        self.of_tensor: dict[int, str] = {}

    def fresh(self, text: str) -> str:
        base = re.sub(r"\W", "_", text) or "t"
        if base[0].isdigit():
            base = "t_" + base
        name, n = base, 1
        while name in self.taken:
            name, n = f"{base}_{n}", n + 1
        self.taken.add(name)
        return name

    def tensor(self, t: SymbolicTensor) -> str:
        name = self.of_tensor.get(id(t))
        if name is None:
            text = t.op.name if t.value_index == 0 else f"{t.op.name}_{t.value_index}"
            name = self.of_tensor[id(t)] = self.fresh(text)
        return name


def literal(value: Any) -> str | None:
    """Python source for `value` when it is a plain literal that reads back equal, else None."""
    kind = type(value)  # exact types: NumPy's float64 is a float whose repr is "np.float64(...)"
    if value is None or kind in (bool, int, str, bytes):
        return repr(value)
    if kind is float:
        return repr(value) if math.isfinite(value) else None
    if isinstance(value, dtypes.DType) and value.name in DTYPE_NAMES:
        return value.name
    if isinstance(value, tuple | list):
        parts = [literal(v) for v in value]
        if any(p is None for p in parts):
            return None
        text = ", ".join(cast("list[str]", parts))  # no None left
        if isinstance(value, list):
            return f"[{text}]"
        return f"({text},)" if len(parts) == 1 else f"({text})"
    return None


class Source:
    """A generated module being written: its lines, its globals, and the names taken in it."""

    def __init__(self, title: str, **globals_: Any) -> None:
        self.title = title  # what the file name says the code is ("graph f", "fused kernel ...")
        self.globals: dict[str, Any] = {"__name__": GENERATED_MODULE, **globals_}
        self.names = Names(set(self.globals))
        self.lines: list[str] = []
        self.depth = 0

    def line(self, text: str) -> int:
        """Append one line at the current indentation; its line number (1-based) in the module."""
        self.lines.append(INDENT * self.depth + text)
        return len(self.lines)

    @contextmanager
    def block(self, header: str) -> Iterator[None]:
        """`header` (a `def`, `for`, ...) and, indented one level, the lines written inside the `with`."""
        self.line(header)
        self.depth += 1
        try:
            yield
        finally:
            self.depth -= 1

    def value(self, value: Any, name: str) -> str:
        """Source for `value`: a literal, or a global of the module named after `name` (arrays, graphs, ...)."""
        text = literal(value)
        if text is None:
            text = self.names.fresh(name)
            self.globals[text] = value
        return text

    def global_value(self, name: str, value: Any) -> str:
        """`value` as the global `name` (or a fresh name, if `name` holds something else already)."""
        if self.globals.get(name) is value:
            return name
        name = self.names.fresh(name)
        self.globals[name] = value
        return name

    @property
    def text(self) -> str:
        return "\n".join(self.lines) + "\n"

    def compile(self, **more_globals: Any) -> dict[str, Any]:
        """Run the module's text: its namespace, the functions it defines included."""
        return compile_source(self.text, self.title, {**self.globals, **more_globals})


def compile_source(text: str, title: str, namespace: dict[str, Any]) -> dict[str, Any]:
    """Compile and run generated `text` in `namespace` (returned), under a file name of its own that tracebacks
    and `inspect` can read the text from."""
    filename = f"<minitf {title} #{next(_files)}>"
    linecache.cache[filename] = (len(text), None, text.splitlines(True), filename)  # mtime None: kept, never reread
    namespace.setdefault("__name__", GENERATED_MODULE)
    exec(compile(text, filename, "exec"), namespace)  # our own generated code
    return namespace
