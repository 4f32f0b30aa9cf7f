"""Every thing has one name: an import names the module that defines what it imports.

A module that only passes on names defined elsewhere (a "shim", left behind when code moves) gives a reader two
places for one thing. The public namespaces are the exception, since they are the API: `minitf` itself,
`minitf.api.*` (`tf.math`, `tf.nn`, ...), `minitf.keras` with `keras.layers` and `keras.models`, and
`minitf.distribute`. Code outside minitf/ may import from them; code inside minitf/ names the defining module.

The check reads the source (no engine code runs): for each `from M import x` (in minitf/, tests/, benchmarks/,
and the code cells of the notebooks in solutions/ and course/) where M is a minitf module, `x` must be a submodule
of M or bound in M by something other than an import (a `def`, a `class`, an assignment). Attribute reads through
an imported module (`from minitf.core import dtypes` ... `dtypes.float32`) are held to the same rule.
"""

from __future__ import annotations

import ast
import functools
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "minitf"
# The public namespaces: they list names defined elsewhere, by design (tests/engine/test_engine_layout.py checks
# that minitf/api/ defines nothing of its own).
API = ("minitf", "minitf.api", "minitf.keras", "minitf.keras.layers", "minitf.keras.models", "minitf.distribute")
SCANNED = ("minitf", "tests", "benchmarks", "solutions", "course")


def is_api(module: str) -> bool:
    return module in API or module.startswith("minitf.api.")


@dataclass
class Module:
    """What a module's top level binds: names it defines, and names it imports (name -> (module, name there))."""

    name: str
    is_package: bool
    defined: set[str] = field(default_factory=set)
    imported: dict[str, tuple[str, str]] = field(default_factory=dict)


def module_names() -> dict[str, Path]:
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(ROOT).with_suffix("").parts
        found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def _top_level(body: list[ast.stmt]) -> Iterator[ast.stmt]:
    """Statements that run when the module is imported (inside `if`, `try` and `with` too, not in functions)."""
    for node in body:
        yield node
        if isinstance(node, ast.If | ast.Try | ast.With):
            for block in ("body", "orelse", "finalbody"):
                yield from _top_level(getattr(node, block, []))
            for handler in getattr(node, "handlers", []):
                yield from _top_level(handler.body)


def _source_module(node: ast.ImportFrom, importer: str, is_package: bool) -> str:
    if not node.level:
        return node.module or ""
    package = importer.split(".") if is_package else importer.split(".")[:-1]
    package = package[: len(package) - (node.level - 1)]
    return ".".join(package + ([node.module] if node.module else []))


def _aliases(node: ast.Assign, imported: dict[str, tuple[str, str]]) -> dict[str, tuple[str, str]]:
    """`a = b` or `a, c = b, d` where `b` and `d` are imported names: new names for imported things."""
    if len(node.targets) != 1:
        return {}
    target, value = node.targets[0], node.value
    pairs = list(zip(target.elts, value.elts)) if isinstance(target, ast.Tuple) and isinstance(value, ast.Tuple) else []
    pairs = pairs or [(target, value)]
    if all(isinstance(t, ast.Name) and isinstance(v, ast.Name) and v.id in imported for t, v in pairs):
        return {t.id: imported[v.id] for t, v in pairs}  # type: ignore[attr-defined]
    return {}


def read_module(name: str, source: str, is_package: bool) -> Module:
    module = Module(name, is_package)
    for node in _top_level(ast.parse(source).body):
        if isinstance(node, ast.ImportFrom):
            base = _source_module(node, name, is_package)
            for alias in node.names:
                module.imported[alias.asname or alias.name] = (base, alias.name)
        elif isinstance(node, ast.Import):
            for alias in node.names:  # `import a.b as c` binds a module: no re-export
                module.defined.add(alias.asname or alias.name.partition(".")[0])
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            module.defined.add(node.name)
        elif isinstance(node, ast.Assign) and _aliases(node, module.imported):
            module.imported.update(_aliases(node, module.imported))
        elif isinstance(node, ast.Assign | ast.AnnAssign | ast.AugAssign | ast.For | ast.With):
            targets = node.targets if isinstance(node, ast.Assign) else [getattr(node, "target", None)]
            if isinstance(node, ast.With):
                targets = [item.optional_vars for item in node.items]
            for target in targets:
                for leaf in ast.walk(target) if target is not None else ():
                    if isinstance(leaf, ast.Name):
                        module.defined.add(leaf.id)
    return module


@functools.cache
def engine_modules() -> dict[str, Module]:
    return {
        name: read_module(name, path.read_text(), path.name == "__init__.py") for name, path in module_names().items()
    }


def defining_module(modules: dict[str, Module], module: str, name: str) -> str:
    """Where `name`, imported from `module`, is defined: `module` itself, or the end of its chain of imports."""
    seen = set()
    while (module, name) not in seen:
        seen.add((module, name))
        found = modules.get(module)
        if found is None or name in found.defined or f"{module}.{name}" in modules or name not in found.imported:
            return module
        module, name = found.imported[name]
    return module


@dataclass(frozen=True)
class Shim:
    """One import that does not name the defining module."""

    where: str
    line: int
    module: str
    name: str
    defined_in: str

    def __str__(self) -> str:
        return f"{self.where}:{self.line}: {self.name} from {self.module}, defined in {self.defined_in}"


def _code_of(path: Path) -> str:
    if path.suffix != ".ipynb":
        return path.read_text()
    cells = json.loads(path.read_text())["cells"]
    lines = []
    for cell in cells:  # one cell after another, magics blanked (line numbers then count across cells)
        if cell["cell_type"] == "code":
            source = "".join(cell["source"])
            lines += ["" if line.lstrip().startswith(("%", "!")) else line for line in source.splitlines()] + [""]
    return "\n".join(lines)


_IMPORT = re.compile(r"^[ \t]*(?:from[ \t]+[\w.]+[ \t]+import[ \t]*(?:\([^)]*\)|.*)|import[ \t].*)$", re.M)


def _imports(source: str) -> Iterator[ast.Import | ast.ImportFrom]:
    """The import statements of a source, wherever they are (parsing only them: the files are many)."""
    for match in _IMPORT.finditer(source):
        line = source.count("\n", 0, match.start()) + 1
        try:
            (node,) = ast.parse(
                match.group().strip().split("#")[0] if "(" not in match.group() else match.group().strip()
            ).body
        except SyntaxError:  # text in a docstring that looks like an import
            continue
        if isinstance(node, ast.Import | ast.ImportFrom):
            node.lineno = line
            yield node


def _attribute_reads(source: str, names: dict[str, str]) -> Iterator[tuple[int, str, str]]:
    """`name.attribute` for the given names (a text search: a mention in a docstring counts too)."""
    pattern = re.compile(r"(?<![\w.])(" + "|".join(map(re.escape, names)) + r")\.(\w+)")
    for number, line in enumerate(source.splitlines(), 1):
        for match in pattern.finditer(line.partition("#")[0]):
            yield number, match.group(1), match.group(2)


def shims_in(
    where: str, source: str, modules: dict[str, Module], importer: str = "", is_package: bool = False
) -> list[Shim]:
    """The imports in `source` that name a module which only passes the name on."""
    inside_engine = importer.startswith("minitf") and not is_api(importer)
    found = []
    aliases: dict[str, str] = {}  # local name -> the minitf module it stands for
    for node in _imports(source):
        if isinstance(node, ast.ImportFrom):
            base = _source_module(node, importer, is_package)
            if base not in modules or (is_api(base) and not inside_engine):
                continue
            for alias in node.names:
                if f"{base}.{alias.name}" in modules:
                    aliases[alias.asname or alias.name] = f"{base}.{alias.name}"
                    continue
                home = defining_module(modules, base, alias.name)
                if home != base:
                    found.append(Shim(where, node.lineno, base, alias.name, home))
        else:
            for alias in node.names:
                if alias.asname and alias.name in modules:
                    aliases[alias.asname] = alias.name
    checked = {name: base for name, base in aliases.items() if inside_engine or not is_api(base)}
    if checked:
        for line, name, attribute in _attribute_reads(source, checked):
            home = defining_module(modules, checked[name], attribute)
            if home != checked[name]:
                found.append(Shim(where, line, checked[name], attribute, home))
    return found


def scanned_files() -> Iterator[Path]:
    for top in SCANNED:
        for path in sorted((ROOT / top).rglob("*")):
            if path.suffix in (".py", ".ipynb") and ".ipynb_checkpoints" not in path.parts:
                yield path


def all_shims() -> list[Shim]:
    modules = engine_modules()
    names = {path: name for name, path in module_names().items()}
    found = []
    for path in scanned_files():
        importer = names.get(path, "")
        found += shims_in(
            path.relative_to(ROOT).as_posix(), _code_of(path), modules, importer, path.name == "__init__.py"
        )
    return found


def reexport_only_modules(modules: dict[str, Module]) -> list[str]:
    """Modules (API namespaces aside) whose top level imports names from elsewhere and defines nothing."""
    return sorted(
        name
        for name, module in modules.items()
        if not is_api(name)
        and not (module.defined - {"__all__"})
        and any(f"{base}.{orig}" not in modules for base, orig in module.imported.values() if base != "__future__")
    )


def test_no_module_only_passes_names_on() -> None:
    shims = reexport_only_modules(engine_modules())
    assert not shims, (
        f"modules that only import names defined elsewhere: {shims}. Import each name from the module that defines "
        "it and delete the module (a package __init__ keeps its docstring: where to read what)."
    )


def test_every_import_names_the_defining_module() -> None:
    shims = all_shims()
    assert not shims, (
        f"{len(shims)} imports name a module that only passes the name on (it is defined elsewhere): "
        + "; ".join(map(str, shims[:40]))
        + ". Import the name from the module that defines it."
    )


def test_the_shim_finder_follows_chains_and_spares_the_api() -> None:
    modules = {
        name: read_module(name, source, package)
        for name, source, package in [
            ("minitf.ops.a", "def f(): pass\nX = 1\n", False),
            ("minitf.ops.b", "from minitf.ops.a import f\nfrom minitf.ops.a import X as X\n", False),
            ("minitf.ops.c", "from minitf.ops.b import f\n", False),
            ("minitf.api.math", "from minitf.ops.a import f\n", False),
        ]
    }
    assert defining_module(modules, "minitf.ops.c", "f") == "minitf.ops.a"
    assert reexport_only_modules(modules) == ["minitf.ops.b", "minitf.ops.c"]
    user = "from minitf.ops.b import X\nfrom minitf.ops.a import f\nfrom minitf.api.math import f\n"
    assert [str(s) for s in shims_in("t.py", user, modules)] == ["t.py:1: X from minitf.ops.b, defined in minitf.ops.a"]
    reads = "from minitf.ops import b\nfrom minitf.api import math\nb.f\nmath.f\n"
    assert [s.line for s in shims_in("t.py", reads, {**modules, "minitf.ops": Module("minitf.ops", True)})] == [3]
    inside = shims_in("m.py", "from minitf.api.math import f\n", modules, "minitf.keras.x")
    assert [s.defined_in for s in inside] == ["minitf.ops.a"]
