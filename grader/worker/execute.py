"""Execution for autograding: graded tests run in the trusted kernel, and a dead or hung kernel costs only its cell.

The student's notebook runs in its own kernel, with the in-kernel guard (grader/sandbox/kernel_guard.py); every graded
test cell runs in a second, trusted kernel (``TrustedKernel``) that reads the student's names over the data-only
channel (grader/trusted/channel/).  nbgrader's Execute fails a whole submission when the kernel dies (``os._exit``, a
crash, a memory kill) and lets a hung kernel swallow the following cells.  Here the affected cell gets an error
output that tells the student what happened, a fresh kernel replays the earlier cells, and grading goes on.
"""

from __future__ import annotations

import copy

from nbclient.client import NotebookClient
from nbclient.exceptions import CellTimeoutError, DeadKernelError
from nbclient.util import run_sync
from nbformat import NotebookNode
from traitlets import Bool, Integer

from grader.sandbox.guard import GUARD_MODULE, defined_names, guard_install, guard_modules
from grader.sandbox.kernel_client import CappedKernelClient
from grader.sandbox.student_kernels import StudentKernels
from grader.trusted.kernel import error_output
from grader.trusted.plan import is_test, nbgrader_meta
from grader.trusted.tests import TrustedTests

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
COPY_NOTE = (
    "Note from the grader: this cell is a copy of the test cell {grade_id!r}. Copies are not run and cost "
    "nothing; the original test cell was graded.\n"
)


class GuardedExecute(TrustedTests, StudentKernels):
    """nbgrader's Execute plus the trusted kernel, the in-kernel guard and recovery from dead or hung kernels."""

    trusted_kernel = Bool(
        True,
        help=(
            "Run every graded test cell in a second, trusted kernel where no student code runs, which reads the "
            "student's names over the data-only channel. Off: the tests run in the student's kernel, as in plain "
            "nbgrader (only to show what the trusted kernel prevents)."
        ),
    ).tag(config=True)
    guard = Bool(
        True,
        help=(
            "The in-kernel guard in the student's kernel: before each test it ends the processes student code left "
            "running, and before a graded cell that runs there it restores library functions replaced since the "
            "read-only cells ran."
        ),
    ).tag(config=True)
    warm = Bool(False, help="Start the next notebook's trusted kernel while this one runs.").tag(config=True)
    max_kernel_restarts = Integer(4, help="Restarts per notebook before the rest is marked not run.").tag(config=True)

    async def async_start_new_kernel_client(self):
        assert self.km is not None
        self.km.client_factory = CappedKernelClient  # the student's kernel's messages are bounded before decoding
        return await super().async_start_new_kernel_client()

    start_new_kernel_client = run_sync(async_start_new_kernel_client)

    def _read_gradebook(
        self, resources: dict | None, name: str | None = None
    ) -> tuple[set[str], dict[str, str]] | None:
        """From one opening of the gradebook (nbgrader's ORM costs tenths of a second per opening): the grade_ids
        of read-only cells (their source was restored from it) and every source cell's source; of this notebook
        or of the notebook ``name`` of the same assignment."""
        from nbgrader.api import Gradebook, MissingEntry

        info = (resources or {}).get("nbgrader", {})
        if not info.get("db_url"):
            return None
        with Gradebook(info["db_url"]) as gradebook:
            try:
                notebook = gradebook.find_notebook(name or info["notebook"], info["assignment"])
            except MissingEntry:
                return None
            solution_ids = {cell.name for cell in notebook.solution_cells}
            grade_ids = {g.name for g in notebook.grade_cells}
            read_only = {
                cell.name
                for cell in notebook.source_cells
                if (cell.locked or cell.name in grade_ids) and cell.name not in solution_ids
            }
            return read_only, {cell.name: cell.source for cell in notebook.source_cells}

    def _is_read_only(self, cell: NotebookNode) -> bool:
        return nbgrader_meta(cell).get("grade_id") in self._read_only and cell.cell_type == "code"

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

    def _guard_modules(self) -> list[str]:
        return guard_modules([cell.source for cell in self.nb.cells if self._is_read_only(cell)])

    def _install_guard(self) -> None:
        self._silent(guard_install(self._guard_modules()))

    def _guard_call(self, call: str) -> str:
        return self._silent("pass", f"__import__('sys').modules[{GUARD_MODULE!r}].{call}")

    def _run_cell(self, cell: NotebookNode, index: int) -> None:
        """Execute one cell with the guard around it; raises DeadKernelError/CellTimeoutError for recovery."""
        graded = nbgrader_meta(cell).get("grade") and cell.cell_type == "code"
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
            cell.outputs.append(
                error_output(
                    "GraderGuardError",
                    f"the grader could not check that the functions the tests use are untouched ({guard_error})",
                )
            )
        elif restored != "[]":
            cell.outputs.insert(
                0,
                NotebookNode(
                    output_type="stream",
                    name="stdout",
                    text=(
                        f"Note from the grader: earlier code had replaced {restored}; the originals were put back "
                        "before this test ran.\n"
                    ),
                ),
            )
        if any(o.get("ename") == "CellTimeoutError" for o in cell.outputs if o.output_type == "error"):
            self._timed_out.add(index)
            raise CellTimeoutError("cell timed out")  # the kernel may still be busy: restart it
        if self.guard and self._is_read_only(cell):
            self._guard_call("snapshot_modules()")
            self._guard_call(f"protect({defined_names(cell.source)!r})")

    def _kind(self, cell: NotebookNode) -> str:
        """'copy' (a pasted copy of a test), 'test' (runs in the trusted kernel) or 'student'."""
        if cell.get("metadata", {}).get("grader", {}).get("copy_of"):
            return "copy"
        if self._plan is not None and is_test(cell) and nbgrader_meta(cell).get("grade_id") in self._plan.tests:
            return "test"
        return "student"

    def _replay(self, upto: int) -> None:
        """Re-run the student's cells before ``upto`` in a fresh kernel, keeping their recorded outputs."""
        for index in range(upto):
            cell = self.nb.cells[index]
            if cell.cell_type != "code" or index in self._skipped or self._kind(cell) != "student":
                continue
            try:
                self._run_cell(copy.deepcopy(cell), index)
            except (DeadKernelError, CellTimeoutError):
                self._skipped.add(index)
                raise

    def preprocess(self, nb: NotebookNode, resources: dict | None = None, km=None):
        NotebookClient.__init__(self, nb, km)
        self.shutdown_kernel = "immediate"  # a student's kernel is never used again: no shutdown handshake
        self.reset_execution_trackers()
        self._check_assign_resources(resources)
        known = self._read_gradebook(resources) if self.guard or self.trusted_kernel else None
        self._read_only = known[0] if known else set()
        self._plan = self._load_plan(resources, known[1]) if known and self.trusted_kernel else None
        self._upcoming = None
        self._prepared = False
        self._trusted_kernel = self._new_trusted_kernel() if self._plan is not None else None
        self._student_broken = None
        self._requests = 0
        self._test_failure = None
        self._skipped: set[int] = set()
        self._timed_out: set[int] = set()
        try:
            self._execute_all()
        finally:
            if self._trusted_kernel is not None:
                self._trusted_kernel.close()
        self.set_widgets_metadata()
        return self.nb, self.resources

    def _execute_all(self) -> None:
        restarts = 0
        index = 0
        while index < len(self.nb.cells):
            if restarts > self.max_kernel_restarts:
                for cell in self.nb.cells[index:]:
                    if cell.cell_type == "code" and self._kind(cell) != "copy":
                        cell.outputs = [error_output("KernelDied", GIVEN_UP)]
                break
            with self._student_kernel():
                self._student_broken = None
                try:
                    if self.guard and not self._prepared:
                        self._install_guard()
                    if self._plan is not None and not self._prepared:
                        self._install_channel()
                    if restarts:
                        self._replay(index)
                except (DeadKernelError, CellTimeoutError):
                    restarts += 1
                    continue
                while index < len(self.nb.cells):
                    cell = self.nb.cells[index]
                    kind = self._kind(cell) if cell.cell_type == "code" else "text"
                    if kind == "copy":
                        grade_id = cell.metadata["grader"]["copy_of"]
                        cell.outputs = [
                            NotebookNode(output_type="stream", name="stdout", text=COPY_NOTE.format(grade_id=grade_id))
                        ]
                        index += 1
                        continue
                    if kind == "test":
                        self._run_test(cell, index)
                        index += 1
                        if self._student_broken:  # a call into the student's code killed or hung its kernel
                            restarts += 1
                            break
                        continue
                    try:
                        if kind == "student":
                            self._run_cell(cell, index)
                    except (DeadKernelError, CellTimeoutError) as error:
                        self._skipped.add(index)
                        if isinstance(error, DeadKernelError):
                            cell.outputs.append(error_output("KernelDied", KERNEL_DIED))
                        elif index not in self._timed_out:
                            cell.outputs.append(error_output("CellTimeoutError", KERNEL_HUNG))
                        index += 1
                        restarts += 1
                        break
                    index += 1
