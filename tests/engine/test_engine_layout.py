"""minitf stays a package a student can read: modules import each other in one direction only, imports sit
at the top of a module (or say why not), and every file is short enough to read in one sitting.

The checks read the source (no engine code runs), so they are fast and name the file to fix.
"""

from __future__ import annotations

import ast
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


def _imported(node: ast.Import | ast.ImportFrom, modules: dict[str, Path]) -> set[str]:
    """The minitf modules an import statement loads (`from minitf.ops import shapes` loads minitf.core.shape_rules)."""
    if isinstance(node, ast.Import):
        return {alias.name for alias in node.names if alias.name in modules}
    if node.module is None or not node.module.startswith("minitf"):
        return set()
    names = {f"{node.module}.{alias.name}" for alias in node.names}
    return {name for name in names if name in modules} | ({node.module} & modules.keys())


def _top_level_graph(modules: dict[str, Path]) -> dict[str, set[str]]:
    graph = {}
    for name, path in modules.items():
        tree = ast.parse(path.read_text())
        edges: set[str] = set()
        for node in tree.body:
            if isinstance(node, ast.Import | ast.ImportFrom):
                edges |= _imported(node, modules)
        # a package's own __init__ is loaded first anyway; a module "importing" its package is no edge back
        graph[name] = {target for target in edges if target != name and not name.startswith(target + ".")}
    return graph


def _find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    done: set[str] = set()
    path: list[str] = []
    on_path: set[str] = set()

    def visit(node: str) -> list[str] | None:
        path.append(node)
        on_path.add(node)
        for nxt in sorted(graph.get(node, ())):
            if nxt in on_path:
                return path[path.index(nxt):] + [nxt]
            if nxt not in done:
                cycle = visit(nxt)
                if cycle:
                    return cycle
        path.pop()
        on_path.discard(node)
        done.add(node)
        return None

    for start in sorted(graph):
        if start not in done:
            cycle = visit(start)
            if cycle:
                return cycle
    return None


def test_modules_import_each_other_in_one_direction_only() -> None:
    cycle = _find_cycle(_top_level_graph(_modules()))
    assert cycle is None, ("minitf's modules import each other in a cycle: " + " -> ".join(cycle or [])
                           + ". Move the shared code into a module both can import.")


def test_the_cycle_finder_finds_a_cycle() -> None:
    assert _find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _find_cycle({"a": {"b"}, "b": set(), "c": {"a", "b"}}) is None


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
    assert not offenders, (f"imports inside functions without a comment saying why (line numbers): {offenders}. "
                           "Import at the top of the module, or put a one-line reason on or above the import.")


def test_files_are_short_enough_to_read_in_one_sitting() -> None:
    too_long = {}
    for path in _modules().values():
        count = len(path.read_text().splitlines())
        if count > MAX_LINES:
            too_long[_relative(path)] = count
    assert not too_long, (f"files over {MAX_LINES} lines: {too_long}. Split them by idea "
                          "(docs/architecture.md lists what each file is about).")
