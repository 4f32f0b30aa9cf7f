"""The in-kernel guard as the grader installs it: the guard's source (kernel_guard.py, run in the student's
kernel) and the modules it imports and snapshots before the student's first cell (the read-only cells' imports)."""

from __future__ import annotations

import ast
from pathlib import Path

GUARD_SOURCE = (Path(__file__).with_name("kernel_guard.py")).read_text(encoding="utf-8")
GUARD_MODULE = "__grader_guard__"
ALWAYS_PREIMPORTED = ("math", "numpy", "numpy.testing", "numpy.linalg")


def defined_names(source: str) -> list[str]:
    """Top-level names a cell binds (assignments, def, class, import)."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return []
    names: list[str] = []
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.append(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names += [(alias.asname or alias.name).split(".")[0] for alias in node.names if alias.name != "*"]
        elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                names += [n.id for n in ast.walk(target) if isinstance(n, ast.Name)]
    return names


def imported_modules(source: str) -> list[str]:
    """Modules a cell imports (so the guard can load and snapshot them before student code runs)."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return []
    modules: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            modules += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            modules.append(node.module)
    return modules


def guard_modules(sources: list[str]) -> list[str]:
    """What the guard imports (and snapshots) before the student's first cell: the read-only cells' imports."""
    modules = list(ALWAYS_PREIMPORTED)
    for source in sources:
        modules += [m for m in imported_modules(source) if m not in modules]
    return modules


def guard_install(modules: list[str]) -> str:
    return (
        "import sys as _s, types as _t, importlib as _il\n"
        f"_g = _t.ModuleType({GUARD_MODULE!r})\n"
        f"exec(compile({GUARD_SOURCE!r}, '<grader-guard>', 'exec'), _g.__dict__)\n"
        f"_s.modules[{GUARD_MODULE!r}] = _g\n"
        f"for _n in {modules!r}:\n"
        "    try:\n        _il.import_module(_n)\n    except Exception:\n        pass\n"
        "_g.snapshot_modules()\n"
        "del _s, _t, _il, _g, _n\n"
    )
