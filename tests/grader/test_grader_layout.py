"""The grader stays laid out by role and readable: every file is short enough to read in one sitting, and its
modules import each other in one direction only, counting imports inside functions too (a circle through a
deferred import still ties two modules into one idea that cannot be read, or tested, apart)."""

from __future__ import annotations

import ast
from pathlib import Path

GRADER = Path(__file__).resolve().parents[2] / "grader"
MAX_LINES = 450
#: the subpackages, each named for what runs where (docs/architecture.md lists their files)
ROLES = {"commands", "records", "settings", "sandbox", "trusted", "worker"}


def module_names(root: Path) -> dict[str, Path]:
    """Every module of the package at ``root``, by dotted name (a package by its own name)."""
    names = {}
    for path in sorted(root.rglob("*.py")):
        parts = path.relative_to(root.parent).with_suffix("").parts
        names[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return names


def _absolute(node: ast.ImportFrom, importer: str, is_package: bool) -> str:
    """The module an ``from ... import`` names, relative levels resolved against the importing module."""
    if node.level == 0:
        return node.module or ""
    base = importer.split(".")[: len(importer.split(".")) - node.level + (1 if is_package else 0)]
    return ".".join(base + ([node.module] if node.module else []))


def import_graph(root: Path) -> dict[str, set[str]]:
    """Which of the package's modules each module imports, wherever the import statement stands."""
    modules = module_names(root)
    graph: dict[str, set[str]] = {name: set() for name in modules}
    for name, path in modules.items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                source = _absolute(node, name, path.name == "__init__.py")
                targets = [f"{source}.{alias.name}" for alias in node.names] + [source]
            else:
                continue
            for target in targets:  # `from grader import workers` names a module; `from grader.x import f` does not
                while target and target not in modules:
                    target = target.rpartition(".")[0]
                if target and target != name:
                    graph[name].add(target)
    return graph


def import_circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan's algorithm), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    circles: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                circles.append(sorted(group))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return circles


def test_grader_modules_import_each_other_in_one_direction_only() -> None:
    circles = import_circles(import_graph(GRADER))
    assert circles == [], f"import circles in grader/ (deferred imports count): {circles}"


def test_grader_files_are_short_enough_to_read_in_one_sitting() -> None:
    too_long = {
        path.relative_to(GRADER.parent).as_posix(): count
        for path in sorted(GRADER.rglob("*.py"))
        if (count := len(path.read_text(encoding="utf-8").splitlines())) > MAX_LINES
    }
    assert not too_long, f"grader files over {MAX_LINES} lines: {too_long}; split them by idea"


def test_grader_code_lives_in_the_subpackage_of_its_role() -> None:
    """Only the entry points and the shared paths sit at the top; everything else is in a role's subpackage."""
    top = sorted(path.name for path in GRADER.glob("*.py"))
    assert top == ["__init__.py", "__main__.py", "paths.py"], top
    packages = {path.parent.name for path in GRADER.glob("*/__init__.py")}
    assert packages == ROLES, packages


def test_circles_through_deferred_and_relative_imports_are_found(tmp_path: Path) -> None:
    package = tmp_path / "pkg"
    (package / "sub").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "a.py").write_text("def f():\n    from pkg.sub import b  # deferred\n")
    (package / "sub" / "__init__.py").write_text("")
    (package / "sub" / "b.py").write_text("from .c import g\n")
    (package / "sub" / "c.py").write_text("from .. import a\n")
    (package / "d.py").write_text("import pkg.a\n")
    assert import_circles(import_graph(package)) == [["pkg.a", "pkg.sub.b", "pkg.sub.c"]]


def test_a_grader_process_validates_notebooks_without_building_the_iri_parsers() -> None:
    """jsonschema would import rfc3987_syntax, which builds 38 parsers (1.3 s of every grader command's start);
    importing the grader first keeps it out, and notebooks still validate, invalid ones still fail."""
    import subprocess
    import sys

    script = (
        "import sys, grader, nbformat\n"
        "nbformat.validate(nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell('1 + 1')]))\n"
        "broken = nbformat.v4.new_notebook(); broken.cells.append({'cell_type': 'code'})\n"
        "try:\n    nbformat.validate(broken)\nexcept nbformat.ValidationError:\n    print('invalid refused')\n"
        "print('rfc3987_syntax' in sys.modules and sys.modules['rfc3987_syntax'] is not None)\n"
    )
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120, cwd=GRADER.parent)
    assert run.returncode == 0, run.stderr
    assert run.stdout.split() == ["invalid", "refused", "False"], run.stdout
