"""Execution for autograding: a guard before each graded cell, and a dead or hung kernel costs only its cell.

nbgrader's Execute fails a whole submission when the kernel dies (``os._exit``, a crash, a memory kill)
and lets a hung kernel swallow the following cells.  Here the affected cell gets an error output that
tells the student what happened, a fresh kernel replays the earlier cells, and grading goes on.
"""

from __future__ import annotations

import ast
import copy
from pathlib import Path

from nbclient.client import NotebookClient
from nbclient.exceptions import CellTimeoutError, DeadKernelError
from nbformat import NotebookNode
from nbgrader.preprocessors import Execute
from traitlets import Bool, Integer

GUARD_SOURCE = (Path(__file__).with_name("kernel_guard.py")).read_text(encoding="utf-8")
GUARD_MODULE = "__grader_guard__"
ALWAYS_PREIMPORTED = ("math", "numpy", "numpy.testing", "numpy.linalg")

KERNEL_DIED = (
    "The Python kernel stopped while this cell ran (for example os._exit(), sys.exit() in a subprocess, "
    "a crash, or the memory or CPU limit). This cell scores 0 points. The grader started a new kernel, "
    "re-ran the earlier cells and went on with the next cell."
)
KERNEL_HUNG = (
    "This cell did not finish within the time limit and the kernel could not be interrupted. "
    "This cell scores 0 points. The grader started a new kernel, re-ran the earlier cells and went on."
)
GIVEN_UP = "Not run: the kernel died too often in the cells above, so the grader stopped executing this notebook."


def _error_output(ename: str, evalue: str) -> NotebookNode:
    return NotebookNode(output_type="error", ename=ename, evalue=evalue, traceback=[f"{ename}: {evalue}"])


def _nbgrader_meta(cell: NotebookNode) -> dict:
    return cell.get("metadata", {}).get("nbgrader", {}) or {}


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


class GuardedExecute(Execute):
    """nbgrader's Execute plus the monkeypatch guard and recovery from dead or hung kernels."""

    guard = Bool(True, help="Restore functions that tests rely on before every graded cell.").tag(config=True)
    max_kernel_restarts = Integer(4, help="Restarts per notebook before the rest is marked not run.").tag(
        config=True
    )

    def _trusted_ids(self, resources: dict) -> set[str]:
        """grade_ids of read-only cells from the gradebook (their source was restored from it)."""
        from nbgrader.api import Gradebook

        info = (resources or {}).get("nbgrader", {})
        if not info.get("db_url"):
            return set()
        with Gradebook(info["db_url"]) as gradebook:
            notebook = gradebook.find_notebook(info["notebook"], info["assignment"])
            solution_ids = {cell.name for cell in notebook.solution_cells}
            return {
                cell.name for cell in notebook.source_cells
                if (cell.locked or cell.name in {g.name for g in notebook.grade_cells})
                and cell.name not in solution_ids
            }

    def _is_trusted(self, cell: NotebookNode) -> bool:
        return _nbgrader_meta(cell).get("grade_id") in self._trusted and cell.cell_type == "code"

    def _silent(self, code: str, expression: str | None = None):
        """Run code in the kernel without touching any cell; return the evaluated expression's text."""
        expressions = {"value": expression} if expression else {}
        msg_id = self.kc.execute(code, silent=True, store_history=False, user_expressions=expressions)
        reply = self.wait_for_reply(msg_id)
        content = (reply or {}).get("content", {})
        if content.get("status") != "ok":
            raise RuntimeError(f"{content.get('ename')}: {content.get('evalue')}")
        if expression:
            value = content["user_expressions"]["value"]
            if value.get("status") != "ok":
                raise RuntimeError(f"{value.get('ename')}: {value.get('evalue')}")
            return value["data"]["text/plain"]
        return None

    def _install_guard(self) -> None:
        modules = list(ALWAYS_PREIMPORTED)
        for cell in self.nb.cells:
            if self._is_trusted(cell):
                modules += [m for m in imported_modules(cell.source) if m not in modules]
        code = (
            "import sys as _s, types as _t, importlib as _il\n"
            f"_g = _t.ModuleType({GUARD_MODULE!r})\n"
            f"exec(compile({GUARD_SOURCE!r}, '<grader-guard>', 'exec'), _g.__dict__)\n"
            f"_s.modules[{GUARD_MODULE!r}] = _g\n"
            f"for _n in {modules!r}:\n"
            "    try:\n        _il.import_module(_n)\n    except Exception:\n        pass\n"
            "_g.snapshot_modules()\n"
            "del _s, _t, _il, _g, _n\n"
        )
        self._silent(code)

    def _guard_call(self, call: str) -> str:
        return self._silent("pass", f"__import__('sys').modules[{GUARD_MODULE!r}].{call}")

    def _run_cell(self, cell: NotebookNode, index: int) -> None:
        """Execute one cell with the guard around it; raises DeadKernelError/CellTimeoutError for recovery."""
        graded = _nbgrader_meta(cell).get("grade") and cell.cell_type == "code"
        restored = "[]"
        guard_error = None
        if self.guard and graded:
            try:
                restored = self._guard_call("restore()")
            except (DeadKernelError, CellTimeoutError):
                raise
            except Exception as error:  # the guard itself was tampered with
                guard_error = str(error)
        self.execute_cell(cell, index, store_history=True)
        if guard_error is not None:
            cell.outputs.append(_error_output(
                "GraderGuardError",
                f"the grader could not check that the functions the tests use are untouched ({guard_error})",
            ))
        elif restored != "[]":
            cell.outputs.insert(0, NotebookNode(output_type="stream", name="stdout", text=(
                f"Note from the grader: earlier code had replaced {restored}; the originals were put back "
                "before this test ran.\n")))
        if any(o.get("ename") == "CellTimeoutError" for o in cell.outputs if o.output_type == "error"):
            self._timed_out.add(index)
            raise CellTimeoutError("cell timed out")  # the kernel may still be busy: restart it
        if self.guard and self._is_trusted(cell):
            self._guard_call("snapshot_modules()")
            self._guard_call(f"protect({defined_names(cell.source)!r})")

    def _replay(self, upto: int) -> None:
        """Re-run the cells before ``upto`` in a fresh kernel, keeping their recorded outputs."""
        for index in range(upto):
            cell = self.nb.cells[index]
            if cell.cell_type != "code" or index in self._skipped:
                continue
            try:
                self._run_cell(copy.deepcopy(cell), index)
            except (DeadKernelError, CellTimeoutError):
                self._skipped.add(index)
                raise

    def preprocess(self, nb: NotebookNode, resources: dict | None = None, km=None):
        NotebookClient.__init__(self, nb, km)
        self.reset_execution_trackers()
        self._check_assign_resources(resources)
        self._trusted = self._trusted_ids(resources) if self.guard else set()
        self._skipped: set[int] = set()
        self._timed_out: set[int] = set()
        restarts = 0
        index = 0
        while index < len(self.nb.cells):
            if restarts > self.max_kernel_restarts:
                for cell in self.nb.cells[index:]:
                    if cell.cell_type == "code":
                        cell.outputs = [_error_output("KernelDied", GIVEN_UP)]
                break
            with self.setup_kernel():
                try:
                    if self.guard:
                        self._install_guard()
                    if restarts:
                        self._replay(index)
                except (DeadKernelError, CellTimeoutError):
                    restarts += 1
                    continue
                while index < len(self.nb.cells):
                    cell = self.nb.cells[index]
                    try:
                        if cell.cell_type == "code":
                            self._run_cell(cell, index)
                    except (DeadKernelError, CellTimeoutError) as error:
                        self._skipped.add(index)
                        if isinstance(error, DeadKernelError):
                            cell.outputs.append(_error_output("KernelDied", KERNEL_DIED))
                        elif index not in self._timed_out:
                            cell.outputs.append(_error_output("CellTimeoutError", KERNEL_HUNG))
                        index += 1
                        restarts += 1
                        break
                    index += 1
        self.set_widgets_metadata()
        return self.nb, self.resources
