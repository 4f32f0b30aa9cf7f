"""The trusted plan: which code the trusted kernel runs for a notebook, decided from sources the instructor wrote.

The student's notebook runs in its own (sandboxed) kernel.  Every graded test cell runs in a second,
trusted kernel that only ever executes the instructor's code: the notebook's setup, helper and other
non-answer cells from the instructor's source, and the test cells from the gradebook.  A test cell reads
the student's work through the names that the exercise's answer cells bind ("student names"); just
before the test runs, those names are filled in from the student's kernel through the data-only channel
(grader/trusted/channel/).
"""

from __future__ import annotations

import ast
import builtins
import keyword
from dataclasses import dataclass, field
from pathlib import Path

import nbformat
from nbformat import NotebookNode

#: names the test's own machinery relies on; an answer cell binding them is a broken exercise, not data
RESERVED = frozenset(dir(builtins)) | {"tf", "np"}


def source_notebook(config, resources: dict | None) -> Path | None:
    """The instructor's source of the notebook being graded (nbgrader's resources name it)."""
    info = (resources or {}).get("nbgrader", {})
    course = config.CourseDirectory
    folder = Path(course.source_directory)
    if not folder.is_absolute():
        folder = Path(course.root) / folder
    path = folder / info.get("assignment", "") / f"{info.get('notebook', '')}.ipynb"
    return path if path.is_file() else None


def nbgrader_meta(cell: NotebookNode) -> dict:
    return cell.get("metadata", {}).get("nbgrader", {}) or {}


def is_answer(cell: NotebookNode) -> bool:
    return bool(nbgrader_meta(cell).get("solution"))


def is_test(cell: NotebookNode) -> bool:
    meta = nbgrader_meta(cell)
    return cell.cell_type == "code" and bool(meta.get("grade")) and not meta.get("solution")


def _parse(source: str) -> ast.Module | None:
    try:
        return ast.parse(source)
    except SyntaxError:
        return None


def _constant_truth(test: ast.expr) -> bool | None:
    """True/False for a condition whose value the source fixes (``if False:``, ``while 0:``), else None."""
    if isinstance(test, ast.Constant):
        return bool(test.value)
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        inner = _constant_truth(test.operand)
        return None if inner is None else not inner
    return None


def _top_level_statements(body: list[ast.stmt]):
    """Statements that run at module level: into if/for/while/with/try, not into def or class, and not into
    a branch whose condition is a constant that never takes it (``if False:``)."""
    for node in body:
        yield node
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        truth = _constant_truth(node.test) if isinstance(node, (ast.If, ast.While)) else None
        for name in ("body", "orelse", "finalbody"):
            if (name == "body" and truth is False) or (name == "orelse" and truth is True):
                continue
            yield from _top_level_statements(getattr(node, name, []) or [])
        for handler in getattr(node, "handlers", []) or []:
            yield from _top_level_statements(handler.body)
        for case in getattr(node, "cases", []) or []:
            yield from _top_level_statements(case.body)


def _targets(node: ast.stmt) -> list[str]:
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return [node.name]
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        return [(a.asname or a.name).split(".")[0] for a in node.names if a.name != "*"]
    targets: list[ast.expr] = []
    if isinstance(node, ast.Assign):
        targets = node.targets
    elif isinstance(node, (ast.AnnAssign, ast.AugAssign, ast.For, ast.AsyncFor)):
        targets = [node.target]
    elif isinstance(node, (ast.With, ast.AsyncWith)):
        targets = [item.optional_vars for item in node.items if item.optional_vars is not None]
    names = [n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)]
    names += [n.target.id for n in ast.walk(node) if isinstance(n, ast.NamedExpr)]
    return names


def bound_names(source: str) -> set[str]:
    """Names a cell binds at module level."""
    tree = _parse(source)
    if tree is None:
        return set()
    return {name for node in _top_level_statements(tree.body) for name in _targets(node)}


def used_names(source: str) -> set[str]:
    """Every name a cell reads, plus strings that look like names (``"answer" in globals()``)."""
    tree = _parse(source)
    if tree is None:
        return set()
    names = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
    names |= {
        n.value
        for n in ast.walk(tree)
        if isinstance(n, ast.Constant)
        and isinstance(n.value, str)
        and n.value.isidentifier()
        and not keyword.iskeyword(n.value)
    }
    return names


def _global_reads(node: ast.AST, local: frozenset[str]) -> set[str]:
    """Names read from the module namespace; a function's parameters and assignments are its own."""
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
        arguments = node.args
        own = {a.arg for a in arguments.posonlyargs + arguments.args + arguments.kwonlyargs}
        own |= {a.arg for a in (arguments.vararg, arguments.kwarg) if a is not None}
        body = node.body if isinstance(node.body, list) else [node.body]
        own |= {
            n.id for part in body for n in ast.walk(part) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)
        }
        own |= {
            (a.asname or a.name).split(".")[0]
            for part in body
            for n in ast.walk(part)
            if isinstance(n, (ast.Import, ast.ImportFrom))
            for a in n.names
        }  # `import time` inside a method
        reads = set().union(*(_global_reads(d, local) for d in getattr(node, "decorator_list", [])))
        reads |= set().union(*(_global_reads(d, local) for d in arguments.defaults + arguments.kw_defaults if d))
        return reads | set().union(*(_global_reads(part, local | own) for part in body))
    if isinstance(node, (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
        own = {n.id for g in node.generators for n in ast.walk(g.target) if isinstance(n, ast.Name)}
        return set().union(*(_global_reads(child, local | own) for child in ast.iter_child_nodes(node)))
    if isinstance(node, ast.Name):
        return {node.id} if isinstance(node.ctx, ast.Load) and node.id not in local else set()
    return set().union(set(), *(_global_reads(child, local) for child in ast.iter_child_nodes(node)))


def free_reads(source: str) -> set[str]:
    """Names a cell reads from earlier cells: module-level reads of names it does not bind itself."""
    tree = _parse(source)
    if tree is None:
        return set()
    return _global_reads(tree, frozenset()) - bound_names(source)


def _is_tf_function_expr(node: ast.expr) -> bool:
    """``tf.function`` or ``tf.function(...)``."""
    if isinstance(node, ast.Call):
        node = node.func
    return (
        isinstance(node, ast.Attribute)
        and node.attr == "function"
        and isinstance(node.value, ast.Name)
        and node.value.id == "tf"
    )


def _imports_engine_as_tf(node: ast.stmt) -> bool:
    return isinstance(node, ast.Import) and all(
        a.name in ("minitf", "tensorflow") for a in node.names if (a.asname or a.name) == "tf"
    )


#: calls and names through which code can rebind a name or replace tf.function without a plain assignment
DYNAMIC_BINDING = frozenset(
    {
        "globals",
        "locals",
        "vars",
        "setattr",
        "delattr",
        "exec",
        "eval",
        "compile",
        "__import__",
        "__builtins__",
        "builtins",
        "importlib",
        "get_ipython",
    }
)


#: modules whose attributes are the notebook's names, tf's or the interpreter's: patching one can rebind what a
#: test reads.  Any other module is a library (numpy, time, ...): patching it changes values, never a binding.
BINDING_MODULES = frozenset(
    {"__main__", "builtins", "sys", "importlib", "types", "gc", "inspect", "ctypes", "IPython", "ipykernel"}
    | {"minitf", "tensorflow", "keras"}
)


def _library_aliases(trees: list[ast.Module]) -> set[str]:
    """Names bound only by ``import m`` / ``import m as n`` of a library (not one of BINDING_MODULES), and bound by
    nothing else in any cell: ``setattr(n, ...)`` on one patches that library and rebinds no name a test reads."""
    imported: set[str] = set()
    rebound: set[str] = set()
    for tree in trees:
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    library = alias.name.split(".")[0] not in BINDING_MODULES
                    (imported if library else rebound).add(alias.asname or alias.name.split(".")[0])
            elif isinstance(node, ast.ImportFrom):
                rebound |= {alias.asname or alias.name for alias in node.names}
            elif isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
                rebound.add(node.id)
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                rebound.add(node.name)
            elif isinstance(node, (ast.arg, ast.ExceptHandler, ast.MatchAs, ast.MatchStar)):
                rebound.add(getattr(node, "arg", None) or getattr(node, "name", None) or "")
            elif isinstance(node, (ast.Global, ast.Nonlocal)):
                rebound |= set(node.names)
    return imported - rebound


def _is_library(node: ast.expr, libraries: set[str]) -> bool:
    """``np``, ``np.testing``, ``__import__("numpy")``: an expression that names a library module (or a part of one)."""
    while isinstance(node, ast.Attribute) and not node.attr.startswith("__"):
        node = node.value
    if isinstance(node, ast.Name):
        return node.id in libraries
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == "__import__"
        and len(node.args) == 1
        and not node.keywords
        and isinstance(node.args[0], ast.Constant)
        and isinstance(node.args[0].value, str)
        and node.args[0].value.split(".")[0] not in BINDING_MODULES
    )


def _library_patches(tree: ast.Module, libraries: set[str]) -> set[int]:
    """The ``setattr``/``delattr``/``__import__`` names (by ``id``) that only patch or name a library:
    ``setattr(np, "allclose", f)``, ``__import__("numpy").allclose = f``.  A student who patches NumPy in one
    answer changes values, not which names are tf.functions, and must not lose a later answer's points."""
    harmless: set[int] = set()
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)):
            continue
        patches = node.func.id in ("setattr", "delattr") and bool(node.args) and _is_library(node.args[0], libraries)
        if patches or (node.func.id == "__import__" and _is_library(node, libraries)):
            harmless.add(id(node.func))
    return harmless


def _rebinds_dynamically(tree: ast.Module, libraries: set[str]) -> bool:
    """Code that may rebind names or tf's attributes where the source does not say which: ``globals()[n] = ..``,
    ``setattr(tf, "function", ...)``, ``tf.function = ...``, ``exec``, ``sys.modules``.  Patching a library
    (``setattr(np, ...)``, ``__import__("numpy")``; ``libraries``: `_library_aliases`) is not such code."""
    harmless = _library_patches(tree, libraries)
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id in DYNAMIC_BINDING and id(node) not in harmless:
            return True
        if isinstance(node, ast.Attribute) and node.attr in ("modules", "__dict__"):  # sys.modules, module.__dict__
            return True
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.ctx, (ast.Store, ast.Del))
            and isinstance(node.value, ast.Name)
            and node.value.id == "tf"
        ):
            return True
        if isinstance(node, (ast.Import, ast.ImportFrom)) and any(
            (a.name.split(".")[0] in DYNAMIC_BINDING) for a in node.names
        ):
            return True
    return False


def tf_function_names(sources: list[str]) -> dict[str, bool]:
    """For every name the cells bind: does its last binding make it a tf.function?

    ``@tf.function`` / ``@tf.function(...)`` as the outermost decorator of a ``def``, or
    ``name = tf.function(...)``, in code that runs (not under ``if False:``).  Only a first filter: the
    trusted kernel still needs the function's traces as data (``RemoteFunction``, grader/trusted/channel/trusted.py).
    If the cells bind ``tf`` to anything but the engine (``import minitf as tf``), or may rebind names or tf's
    attributes in ways the source does not spell out (``globals()``, ``setattr``, ``exec``, ``tf.function = ...``),
    nothing they define counts as a tf.function.
    """
    result: dict[str, bool] = {}
    rebinds_tf = False
    trees = [tree for tree in map(_parse, sources) if tree is not None]
    libraries = _library_aliases(trees)
    for tree in trees:
        rebinds_tf |= _rebinds_dynamically(tree, libraries)
        for node in _top_level_statements(tree.body):
            names = _targets(node)
            rebinds_tf |= "tf" in names and not _imports_engine_as_tf(node)
            if isinstance(node, ast.Delete):
                for target in node.targets:
                    if isinstance(target, ast.Name):
                        result[target.id] = False
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                # decorators apply bottom-up: the outermost (first) one decides what the name becomes
                result[node.name] = bool(node.decorator_list) and _is_tf_function_expr(node.decorator_list[0])
            elif isinstance(node, ast.Assign) and isinstance(node.value, ast.Call):
                for name in names:
                    result[name] = _is_tf_function_expr(node.value.func) and not isinstance(node.value.func, ast.Call)
            else:
                for name in names:
                    result[name] = False
    if rebinds_tf:
        return {name: False for name in result}
    return result


@dataclass
class TrustedCell:
    """A cell of the instructor's source that the trusted kernel runs."""

    source: str
    grade_id: str | None
    test: bool
    #: an instructor cell that reads an answer's names fails without them; the trusted kernel skips it
    reads_answers: bool = False


@dataclass
class TrustedPlan:
    """What the trusted kernel runs for one notebook, and which names it takes from the student's kernel."""

    cells: list[TrustedCell]
    student_names: set[str]
    tests: set[str] = field(default_factory=set)

    @classmethod
    def from_source(cls, source: NotebookNode, gradebook_sources: dict[str, str]) -> TrustedPlan:
        cells: list[TrustedCell] = []
        student_names: set[str] = set()
        instructor_names: set[str] = set()
        for cell in source.cells:
            if cell.cell_type != "code":
                continue
            grade_id = nbgrader_meta(cell).get("grade_id")
            if is_answer(cell):
                student_names |= bound_names(cell.source)
                continue
            text = gradebook_sources.get(grade_id, cell.source) if grade_id else cell.source
            cells.append(TrustedCell(text, grade_id, is_test(cell)))
            if not is_test(cell):
                instructor_names |= bound_names(cell.source)
        # a name other cells bind too (fig, ax of a plot) is not the exercise's: the instructor's value counts
        student_names -= RESERVED | instructor_names
        for cell in cells:
            cell.reads_answers = not cell.test and bool(free_reads(cell.source) & student_names)
        return cls(cells, student_names, {c.grade_id for c in cells if c.test and c.grade_id})

    @classmethod
    def load(cls, path: Path, gradebook_sources: dict[str, str]) -> TrustedPlan:
        return cls.from_source(nbformat.read(path, as_version=4), gradebook_sources)

    def wanted(self, test_source: str) -> list[str]:
        """The student names a test cell reads."""
        return sorted(used_names(test_source) & self.student_names)
