"""minitf stays a package a student can read: modules import each other in one direction only, imports sit
at the top of a module (or say why not), and every file is short enough to read in one sitting.

The checks read the source (no engine code runs), so they are fast and name the file to fix.
"""

from __future__ import annotations

import ast
from collections.abc import Collection
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "minitf"
MAX_LINES = 450


def _modules() -> dict[str, Path]:
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(ROOT).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        found[name] = path
    return found


def _relative(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


def _imported(node: ast.Import | ast.ImportFrom, importer: str, is_package: bool, modules: Collection[str]) -> set[str]:
    """The minitf modules an import statement loads, relative imports resolved against the importing module
    (`from minitf.ops import shapes` and, inside minitf/ops/, `from . import shapes` load minitf.ops.shapes)."""
    if isinstance(node, ast.Import):
        found = set()
        for alias in node.names:
            name = alias.name
            while name and name not in modules:  # `import minitf.ops.shapes` also names its packages
                name = name.rpartition(".")[0]
            if name:
                found.add(name)
        return found
    base = node.module or ""
    if node.level:
        package = importer.split(".") if is_package else importer.split(".")[:-1]
        package = package[: len(package) - (node.level - 1)]
        base = ".".join(package + ([base] if base else []))
    if not base.startswith("minitf"):
        return set()
    names = {f"{base}.{alias.name}" for alias in node.names}
    return {name for name in names if name in modules} | ({base} & set(modules))


def _import_graph(sources: dict[str, tuple[str, bool]]) -> dict[str, set[str]]:
    """Module -> the modules it imports, counting every import: at the top, inside functions (deferred), and under
    `if TYPE_CHECKING:` (a circle through any of them is a circle a reader has to untangle)."""
    graph = {}
    for name, (source, is_package) in sources.items():
        edges: set[str] = set()
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, ast.Import | ast.ImportFrom):
                edges |= _imported(node, name, is_package, sources.keys())
        # `from minitf.keras import naming` inside minitf/keras/ counts as an edge to minitf.keras: Python looks the
        # name up in the package's __init__ first, so the module depends on what that __init__ binds (a module
        # that needs a sibling writes `import minitf.keras.naming as naming` or imports from the module itself)
        graph[name] = {target for target in edges if target != name}
    return graph


def _engine_sources() -> dict[str, tuple[str, bool]]:
    return {name: (path.read_text(), path.name == "__init__.py") for name, path in _modules().items()}


def _circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The groups of modules that import each other, directly or around a circle (strongly connected
    components of more than one module, found with Tarjan's algorithm), each sorted."""
    order: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[list[str]] = []

    def visit(node: str) -> None:
        order[node] = low[node] = len(order)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph.get(node, ())):
            if nxt not in order:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], order[nxt])
        if low[node] == order[node]:
            group = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                groups.append(sorted(group))

    for start in sorted(graph):
        if start not in order:
            visit(start)
    return sorted(groups)


def test_modules_import_each_other_in_one_direction_only() -> None:
    circles = _circles(_import_graph(_engine_sources()))
    assert not circles, (
        f"{len(circles)} groups of minitf's modules import each other in a circle (imports inside "
        f"functions count): "
        + "; ".join(" <-> ".join(group) for group in circles)
        + ". Put the shared code where both can import it, or the code that needs both above them. A module inside "
        "a package that writes `from minitf.keras import naming` reads the package's __init__ (which imports the "
        "module back): write `import minitf.keras.naming as naming` or import from the module itself."
    )


def test_the_circle_finder_finds_each_circle() -> None:
    assert _circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"e"}, "e": {"d"}}) == [["a", "b", "c"], ["d", "e"]]
    assert _circles({"a": {"b"}, "b": set(), "c": {"a", "b"}}) == []


def test_imports_inside_functions_and_relative_imports_count() -> None:
    sources = {
        "minitf.a": ("def f():\n    from minitf import b  # deferred\n", False),
        "minitf.b": ("from . import c\n", False),
        "minitf.c": ("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import minitf.a.x\n", False),
        "minitf.a.x": ("", False),
    }
    graph = _import_graph(sources)
    assert graph == {
        "minitf.a": {"minitf.b"},
        "minitf.b": {"minitf.c"},
        "minitf.c": {"minitf.a.x"},
        "minitf.a.x": set(),
    }
    assert _circles(graph) == [] and _circles({**graph, "minitf.a.x": {"minitf.b"}}) == [
        ["minitf.a.x", "minitf.b", "minitf.c"]
    ]


def test_a_module_reading_names_from_its_own_package_closes_a_circle_through_the_package_init() -> None:
    sources = {
        "minitf.k": ("from minitf.k import b\n", True),  # the package's __init__ loads its modules
        "minitf.k.b": ("from minitf.k import n\n", False),  # reads `n` out of the package: back to its __init__
        "minitf.k.n": ("", False),
        "minitf.j": ("from minitf.j import c\n", True),
        "minitf.j.c": ("import minitf.j.m as m\n", False),  # names the module: no edge to the package
        "minitf.j.m": ("", False),
    }
    graph = _import_graph(sources)
    assert graph["minitf.k.b"] == {"minitf.k", "minitf.k.n"} and graph["minitf.j.c"] == {"minitf.j.m"}
    assert _circles(graph) == [["minitf.k", "minitf.k.b"]]


def _unexplained_local_imports(path: Path) -> list[int]:
    source = path.read_text()
    lines = source.splitlines()
    found = []
    for function in ast.walk(ast.parse(source)):
        if not isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            continue
        for node in ast.walk(function):
            if isinstance(node, ast.Import | ast.ImportFrom):
                here, above = lines[node.lineno - 1], lines[node.lineno - 2].strip()
                if "#" not in here and not above.startswith("#"):
                    found.append(node.lineno)
    return sorted(set(found))


def test_imports_inside_functions_say_why() -> None:
    offenders = {}
    for path in _modules().values():
        lines = _unexplained_local_imports(path)
        if lines:
            offenders[_relative(path)] = lines
    assert not offenders, (
        f"imports inside functions without a comment saying why (line numbers): {offenders}. "
        "Import at the top of the module, or put a one-line reason on or above the import."
    )


def test_files_are_short_enough_to_read_in_one_sitting() -> None:
    too_long = {}
    for path in _modules().values():
        count = len(path.read_text().splitlines())
        if count > MAX_LINES:
            too_long[_relative(path)] = count
    assert not too_long, (
        f"files over {MAX_LINES} lines: {too_long}. Split them by idea (docs/architecture.md lists what each "
        "file is about); every minitf file keeps to the limit, none is exempt."
    )


def _left_out_table(node: ast.stmt) -> bool:
    """`LEFT_OUT: dict[str, str] = {...}` or `__getattr__ = left_out.module_getattr(...)`."""
    targets = [node.target] if isinstance(node, ast.AnnAssign) else getattr(node, "targets", [])
    return [ast.unparse(t) for t in targets] in (["LEFT_OUT"], ["__getattr__"])


def test_public_namespaces_are_built_one_way() -> None:
    """Every public namespace (`tf.math`, `tf.config.experimental`, ...) is a module of minitf/api/ that imports
    its names from where they are defined: no definitions, no `SimpleNamespace`s (`__all__`, `tf.version`'s
    numbers and the table of names left out with its `__getattr__` (minitf/left_out.py) excepted)."""
    offenders = {}
    for path in sorted((PACKAGE / "api").rglob("*.py")):
        if path.name == "version.py":
            continue
        body = ast.parse(path.read_text()).body
        defined = [
            type(node).__name__
            for node in body
            if not isinstance(node, ast.Import | ast.ImportFrom)
            and not (isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant))
            and not (isinstance(node, ast.Assign) and [ast.unparse(t) for t in node.targets] == ["__all__"])
            and not _left_out_table(node)
        ]
        if defined:
            offenders[_relative(path)] = defined
    assert not offenders, (
        f"public namespaces that define things instead of listing names: {offenders}. Define "
        "the function or class in the package of its idea and import it into the namespace."
    )
