"""The rules that keep a test cell verdict-safe, checked on an instructor's source notebook.

During grading, a test cell runs in a trusted kernel and reads the student's work only through the
names that answer cells bind (see grader/trusted/plan.py).  docs/lessons.md states these rules for authors;
``tests/grader/test_grader_verdict_rules.py`` applies them to every test cell of the course.
"""

from __future__ import annotations

import ast
import builtins
from pathlib import Path

import nbformat

from grader.trusted.channel.trusted import TF_FUNCTION_ONLY
from grader.trusted.plan import RESERVED, bound_names, free_reads, is_answer, is_test, nbgrader_meta


def _lambda_problems(source: str, label: str) -> list[str]:
    """A lambda a test passes to student code is rebuilt in the student's kernel from its source."""
    problems = []
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return [f"{label}: does not parse"]
    for node in ast.walk(tree):
        if not isinstance(node, ast.Lambda):
            continue
        own = {a.arg for a in node.args.args + node.args.kwonlyargs + node.args.posonlyargs}
        own |= {a.arg for a in (node.args.vararg, node.args.kwarg) if a is not None}
        free = {n.id for n in ast.walk(node.body) if isinstance(n, ast.Name)} - own - {"tf", "np"} - set(dir(builtins))
        if free:
            problems.append(f"{label}: a lambda uses {sorted(free)}; it may use only its arguments, tf and np")
    return problems


def _hasattr_problems(source: str, label: str, student: set[str]) -> list[str]:
    problems = []
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return []
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id == "hasattr"
            and len(node.args) == 2
            and isinstance(node.args[1], ast.Constant)
            and node.args[1].value in TF_FUNCTION_ONLY
        ):
            target = node.args[0]
            if not (isinstance(target, ast.Name) and target.id in student):
                problems.append(
                    f"{label}: hasattr(..., {node.args[1].value!r}) must name an exercise's function "
                    "directly (the grader decides it from the submitted source and the function's "
                    "traces)"
                )
    return problems


def check_notebook(path: Path) -> list[str]:
    """Every violation of the verdict-safe rules by a test cell of one source notebook."""
    nb = nbformat.read(path, as_version=4)
    code = [c for c in nb.cells if c.cell_type == "code"]
    student = set().union(set(), *(bound_names(c.source) for c in code if is_answer(c)))
    instructor = set().union(set(), *(bound_names(c.source) for c in code if not is_answer(c) and not is_test(c)))
    problems = []
    for cell in code:
        if not is_test(cell):
            continue
        where = f"{path.parent.name}/{path.name}: {nbgrader_meta(cell).get('grade_id')}"
        reads = free_reads(cell.source) & student
        for name in sorted(reads & RESERVED):
            problems.append(f"{where}: reads {name!r}, which an answer cell rebinds (a builtin, tf or np)")
        for name in sorted(reads & instructor):
            problems.append(
                f"{where}: reads {name!r}, which both an answer cell and another cell bind; "
                "the names a test takes from the student must be the answers' own"
            )
        problems += _lambda_problems(cell.source, where)
        problems += _hasattr_problems(cell.source, where, student)
    return problems
