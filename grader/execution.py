"""Execution for autograding: graded tests run in the trusted kernel, and a dead or hung kernel costs only its cell.

The student's notebook runs in its own kernel, with the in-kernel guard (grader/kernel_guard.py); every graded
test cell runs in a second, trusted kernel (``TrustedKernel``) that reads the student's names over the data-only
channel (grader/channel/).  nbgrader's Execute fails a whole submission when the kernel dies (``os._exit``, a
crash, a memory kill) and lets a hung kernel swallow the following cells.  Here the affected cell gets an error
output that tells the student what happened, a fresh kernel replays the earlier cells, and grading goes on.
"""

from __future__ import annotations

import ast
import base64
import binascii
import contextlib
import copy
import json
import os
import shutil
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from queue import Empty

from nbclient.client import NotebookClient
from nbclient.exceptions import CellExecutionComplete, CellTimeoutError, DeadKernelError
from nbclient.util import ensure_async, run_sync
from nbformat import NotebookNode
from nbgrader.preprocessors import Execute
from traitlets import Bool, Integer

from grader.channel import STUDENT_SIDE, TRUSTED_SIDE, install_code
from grader.channel.codec import MAX_REPLY_BYTES
from grader.kernel_client import CappedKernelClient
from grader.pool import folder_digest, following, kill_launcher, read_replies, socket_folder
from grader.trusted_plan import TrustedPlan, is_test, source_notebook, tf_function_names

GUARD_SOURCE = (Path(__file__).with_name("kernel_guard.py")).read_text(encoding="utf-8")
GUARD_MODULE = "__grader_guard__"
#: code that loads each side of the channel into its kernel (the student's side answers values larger than
#: MAX_REPLY_BYTES with an error, and the grader's sockets refuse larger messages unread)
STUDENT_CHANNEL = install_code("student")
TRUSTED_CHANNEL = install_code("trusted")
#: requests one test cell may send to the student's kernel (the course's tests send a few dozen)
MAX_REQUESTS_PER_TEST = 1000
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
COPY_NOTE = (
    "Note from the grader: this cell is a copy of the test cell {grade_id!r}. Copies are not run and cost "
    "nothing; the original test cell was graded.\n"
)
PRELUDE_BROKEN = (
    "the instructor's cells before this test did not finish in the grader's trusted kernel (time limit or crash); "
    "this is not your fault: tell your instructor, who can regrade this notebook"
)
TRUSTED_BROKEN = "the grader's trusted kernel stopped while this test ran; this test scores 0 points"
OVER_BUDGET = (
    "This test did not finish within its time limit ({timeout} s, counting the time your code took when the test "
    "called it). This test scores 0 points; the rest of the notebook was graded."
)
TOO_MANY_REQUESTS = (
    "This test asked your code for values more than {limit} times (for example a value that hands out a new object "
    "on every access). This test scores 0 points; the rest of the notebook was graded."
)


def decode_reply(text: str) -> str | None:
    """The JSON text of a reply from the student's kernel: a quoted base64 string, checked and decoded in one pass."""
    if len(text) < 2 or text[0] != "'" or text[-1] != "'" or len(text) > MAX_REPLY_BYTES * 4 // 3 + 8:
        return None
    try:
        return base64.b64decode(text[1:-1], validate=True).decode("utf-8")
    except (binascii.Error, ValueError):
        return None


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


class TrustedKernel:
    """The kernel that runs the instructor's code and computes every verdict; no student code runs in it.

    It is started like the student's kernel (same sandbox, same limits), but with its own socket folder
    and working folder, which the student's kernel cannot see.  Its requests for the student's values
    arrive on the stdin channel (``input()``) and are answered by the grader, which asks the student's
    kernel.

    A spare (``notebook`` given: the notebook it is for) is sent the channel and the instructor's cells before
    the notebook's first test right after its start, and runs them while the previous notebook is graded;
    ``take`` reads their replies when the notebook needs the kernel.
    """

    def __init__(self, owner: GuardedExecute, plan: TrustedPlan, notebook: tuple[str, str] | None = None) -> None:
        from jupyter_client import KernelManager

        from grader import preprocessors

        self.owner = owner
        self.plan = plan
        self.done = 0  # plan cells run so far
        self.notebook = notebook
        sandbox = preprocessors.ACTIVE_SANDBOX
        self.folder = Path(tempfile.mkdtemp(prefix="grader-trusted-"))
        self.ipc = socket_folder(sandbox, "trusted")
        extra = {"ip": str(self.ipc / "t")} if self.ipc is not None else {}
        if sandbox is not None:
            os.chown(self.folder, sandbox.uid, sandbox.gid)
            os.chmod(self.folder, 0o700)
        self.km = KernelManager(kernel_name=owner.kernel_name, config=owner.config, **extra)
        # started now, waited for at the first test: it boots while the student's notebook runs
        self.km.start_kernel(cwd=str(self.folder), extra_arguments=["--HistoryManager.hist_file=:memory:"])
        self.kc = self.km.blocking_client()
        self.kc.start_channels()
        self.ready = False
        self.sent: list[str] = []  # requests sent ahead: the channel's install, then the prelude's cells
        self.untaken = False  # a spare picked for a notebook that has not read its replies yet (``take``)
        if notebook is not None and plan.tests:
            self._send_prelude()

    def _send_prelude(self) -> None:
        """Queue the channel and the instructor's cells before the first test; the kernel runs them once it is
        up, in this order, as ``wait_until_ready`` and ``run_prelude`` would (without stdin: they ask nothing)."""
        first = next(index for index, cell in enumerate(self.plan.cells) if cell.test)
        self.sent.append(self.kc.execute(TRUSTED_CHANNEL, silent=True, store_history=False, allow_stdin=False))
        for cell in self.plan.cells[:first]:
            if not cell.reads_answers:
                self.sent.append(
                    self.kc.execute(cell.source, store_history=False, allow_stdin=False, stop_on_error=False)
                )
        self.done = first

    def take(self, owner: GuardedExecute, plan: TrustedPlan) -> bool:
        """A spare (started while the previous notebook ran) takes up this notebook's tests; False if it died,
        or a cell sent ahead hung or broke it (the caller then closes it and starts a kernel the usual way)."""
        self.owner, self.plan = owner, plan
        if not self.sent:
            self.done = 0
            return self.km.is_alive()
        if not self.collect(channel_first=True):
            return False
        self.ready = True
        return True

    def send_ahead(self) -> None:
        """Queue the instructor's cells up to the next test, right after a test: the kernel runs them while the
        student's kernel runs the student's cells in between (which take at least as long: they include the same
        instructor cells), and the next test only reads their replies (``collect``)."""
        cells = self.plan.cells
        start = self.done + 1 if self.done < len(cells) and cells[self.done].test else self.done  # past this test
        upto = next((index for index in range(start, len(cells)) if cells[index].test), None)
        if upto is None:
            return  # no test follows: the cells after the last one are never needed
        for cell in cells[start:upto]:
            if not cell.reads_answers:
                self.sent.append(
                    self.kc.execute(cell.source, store_history=False, allow_stdin=False, stop_on_error=False)
                )
        self.done = upto

    def collect(self, channel_first: bool = False) -> bool:
        """Read the replies of the cells sent ahead (the channel's install first, for a spare); False if the kernel
        died, or a cell hung or broke it (the caller then closes it and starts a kernel the usual way)."""
        owner = self.owner
        timeout = max(owner.startup_timeout, owner.timeout or 600)
        replies = read_replies(lambda wait: self.kc.get_shell_msg(timeout=wait), self.sent, timeout, self.km.is_alive)
        if replies is None or (channel_first and replies[0]["content"].get("status") != "ok"):
            return False
        for reply in replies[1 if channel_first else 0 :]:
            content = reply["content"]
            if content.get("status") == "error":
                owner.log.warning(
                    "instructor cell failed in the trusted kernel: %s: %s", content.get("ename"), content.get("evalue")
                )
            elif content.get("status") != "ok":
                return False
        if not self._drop_waiting_output() and channel_first:
            self.kc.wait_for_ready(timeout=owner.startup_timeout)
        self.sent = []
        return True

    def _drop_waiting_output(self) -> bool:
        """Read away the output the prepared cells left (``execute`` skips other requests' messages, but they would
        queue up); True if there was some, which shows the output channel is connected.  Nothing is waited for:
        jupyter_client's ``wait_for_ready`` would also wait 0.2 s for the output channel to fall quiet, 0.2 s per
        notebook on the grading's path."""
        seen = 0
        while self.kc.iopub_channel.msg_ready():
            self.kc.get_iopub_msg(timeout=0)
            seen += 1
        return seen > 0

    def wait_until_ready(self) -> None:
        if not self.ready:
            self.kc.wait_for_ready(timeout=self.owner.startup_timeout)
            self.silent(TRUSTED_CHANNEL)
            self.ready = True

    def close(self) -> None:
        """End the kernel: it is never used again, so it is killed without a shutdown handshake (its launcher
        goes, then the kernel and, as PID 1 of its namespace, everything it started)."""
        try:
            self.kc.stop_channels()
            kill_launcher(self.km)
            self.km.shutdown_kernel(now=True)
        finally:
            shutil.rmtree(self.folder, ignore_errors=True)
            if self.ipc is not None:
                shutil.rmtree(self.ipc, ignore_errors=True)

    def silent(self, code: str) -> None:
        msg_id = self.kc.execute(code, silent=True, store_history=False, allow_stdin=False)
        while True:
            reply = self.kc.get_shell_msg(timeout=self.owner.startup_timeout)
            if reply["parent_header"].get("msg_id") == msg_id:
                break
        content = reply["content"]
        if content.get("status") != "ok":
            raise RuntimeError(f"trusted kernel: {content.get('ename')}: {content.get('evalue')}")

    def run_callback(self, callback: dict, deadline: float) -> str:
        """Hand a call of a lent object to the test, which waits in input() for its request's answer; return the
        call's result as JSON text (the trusted kernel answers with another input request)."""
        self.kc.input(json.dumps({"callback": callback}))
        while time.monotonic() < deadline:
            try:
                request = self.kc.get_stdin_msg(timeout=0.001)
            except Empty:
                if not self.km.is_alive():
                    break
                continue
            if request["msg_type"] == "input_request":
                try:
                    return json.dumps(json.loads(request["content"].get("prompt", ""))["callback_result"])
                except (ValueError, KeyError):
                    break
        return json.dumps({"failed": "the trusted kernel did not answer in time"})

    def run_prelude(self, grade_id: str) -> bool:
        """Run the instructor's cells that come before this test in the source (never other tests).

        False if one of them hung or killed this kernel.
        """
        while self.done < len(self.plan.cells):
            cell = self.plan.cells[self.done]
            if cell.grade_id == grade_id:
                return True
            self.done += 1
            if cell.test or cell.reads_answers:
                continue
            scratch = NotebookNode(cell_type="code", source=cell.source, outputs=[], metadata={})
            if not self.execute(scratch, -1, store_history=False):
                return False
            errors = [o for o in scratch.outputs if o.output_type == "error"]
            if errors:
                self.owner.log.warning(
                    "instructor cell failed in the trusted kernel: %s: %s", errors[0].ename, errors[0].evalue
                )
        return True

    def execute(
        self, cell: NotebookNode, index: int, store_history: bool = True, deadline: float | None = None
    ) -> bool:
        """Run a cell here, answering its requests for student values; False if this kernel broke.

        ``deadline`` is the cell's one time budget: the test's own time and the student's side of every request.
        """
        owner = self.owner
        msg_id = self.kc.execute(cell.source, store_history=store_history, allow_stdin=True, stop_on_error=False)
        cell.outputs = []
        cell.setdefault("metadata", NotebookNode()).setdefault("execution", NotebookNode())
        owner.clear_before_next_output = False
        if deadline is None:
            deadline = time.monotonic() + (owner.timeout or 600)
        while True:
            try:
                request = self.kc.get_stdin_msg(timeout=0)
            except Empty:
                pass
            else:
                if request["parent_header"].get("msg_id") == msg_id and request["msg_type"] == "input_request":
                    self.kc.input(owner._ask_student(request["content"].get("prompt", ""), deadline))
                continue
            try:
                message = self.kc.get_iopub_msg(timeout=0.005)
            except Empty:
                if time.monotonic() > deadline:
                    cell.outputs.append(_error_output("CellTimeoutError", OVER_BUDGET.format(timeout=owner.timeout)))
                    return False
                if not self.km.is_alive():
                    cell.outputs.append(_error_output("KernelDied", TRUSTED_BROKEN))
                    return False
                continue
            if message["parent_header"].get("msg_id") != msg_id:
                continue
            try:
                owner.process_message(message, cell, index)
            except CellExecutionComplete:
                return True


def guard_modules(sources: list[str]) -> list[str]:
    """What the guard imports (and snapshots) before the student's first cell: the read-only cells' imports."""
    modules = list(ALWAYS_PREIMPORTED)
    for source in sources:
        modules += [m for m in imported_modules(source) if m not in modules]
    return modules


def _guard_install(modules: list[str]) -> str:
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


class StudentSpare:
    """The student's kernel for the next notebook of the same submission, started while this one runs.

    Its working folder is a copy of the same grading folder (without notebooks, see grader/launch.py), which
    does not change between a submission's notebooks; right after its start it was sent the guard (with the
    next notebook's read-only imports) and the channel, the grader's code only.  No other student's
    submission can take it: ``folder`` is the submission's own grading folder.
    """

    def __init__(
        self, km, kc, sockets: Path | None, folder: str, notebook: str, modules: list[str], sent: list[str], digest: str
    ) -> None:
        self.km, self.kc, self.sockets, self.sent = km, kc, sockets, sent
        self.folder, self.notebook, self.modules, self.digest = folder, notebook, modules, digest
        self.answered: bool | None = None  # the replies, once read

    def ready(self, timeout: float) -> bool:
        """True once the guard and the channel are in; False if the kernel died or they failed.  Once it has
        answered, its launcher has copied the working folder: the folder may change from then on."""
        if self.answered is None:
            replies = read_replies(
                lambda wait: run_sync(self.kc.get_shell_msg)(timeout=wait),
                self.sent,
                timeout,
                lambda: run_sync(self.km.is_alive)(),
            )
            self.answered = replies is not None and all(reply["content"].get("status") == "ok" for reply in replies)
        return self.answered

    def close(self) -> None:
        with contextlib.suppress(Exception):  # it may have died already
            self.kc.stop_channels()
            kill_launcher(self.km)
            run_sync(self.km.shutdown_kernel)(now=True)
        if self.sockets is not None:
            shutil.rmtree(self.sockets, ignore_errors=True)


@dataclass
class NextSubmission:
    """The submission this worker grades after the current one (the run hands a worker its next task ahead):
    its first notebook's student kernel is started while the current submission's last notebook runs."""

    assignment: str
    notebook: str  # the first notebook nbgrader will grade (they go in sorted order)
    submitted: Path  # its files, written by the worker where its grading will read them
    folder: Path  # its grading folder, where nbgrader's autograde will lay it out


#: the next notebook's kernels, started while this one runs (``GuardedExecute.warm``; one of each per worker)
_SPARE: list[TrustedKernel] = []
_STUDENT_SPARE: list[StudentSpare] = []
#: set by the worker (grader/workers.py) while it grades a submission: asks for the next one, None while unknown
NEXT_SUBMISSION: Callable[[], NextSubmission | None] | None = None
#: notebooks whose student's kernel was a spare, since the worker last set it to 0 (reported per submission)
EARLY_KERNELS = 0


def stage_grading_folder(submitted: Path, source: Path, target: Path, ignore: list[str]) -> None:
    """Lay out a grading folder as nbgrader's autograde does, notebooks aside: the submission's other files,
    then the instructor's files of the assignment over them (``find_all_files`` with nbgrader's ignore list)."""
    from nbgrader.utils import find_all_files

    shutil.rmtree(target, ignore_errors=True)
    target.mkdir(parents=True)
    for root in (submitted, source):
        for name in find_all_files(str(root), [*ignore, "*.ipynb"]):
            copy = target / os.path.relpath(name, root)
            copy.parent.mkdir(parents=True, exist_ok=True)
            copy.unlink(missing_ok=True)
            shutil.copy(name, copy)


def settle_student_spares(timeout: float = 120) -> None:
    """Wait until every spare student kernel has copied its working folder (it answered), before the worker
    replaces the folder's files with the next submission's grading; a spare that fails is ended."""
    for spare in list(_STUDENT_SPARE):
        if not spare.ready(timeout):
            _STUDENT_SPARE.remove(spare)
            spare.close()


def close_spare() -> None:
    """Stop the spare kernels (the worker is done)."""
    while _SPARE:
        _SPARE.pop().close()
    while _STUDENT_SPARE:
        _STUDENT_SPARE.pop().close()


class GuardedExecute(Execute):
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

    def _read_gradebook(self, resources: dict, name: str | None = None) -> tuple[set[str], dict[str, str]] | None:
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
        return _nbgrader_meta(cell).get("grade_id") in self._read_only and cell.cell_type == "code"

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
        self._silent(_guard_install(self._guard_modules()))

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
            cell.outputs.append(
                _error_output(
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

    # ---- verdicts from the trusted kernel ----------------------------------------------------------------

    def _load_plan(self, resources: dict, sources: dict[str, str]) -> TrustedPlan | None:
        path = source_notebook(self.config, resources)
        return None if path is None else TrustedPlan.load(path, sources)

    def _kind(self, cell: NotebookNode) -> str:
        """'copy' (a pasted copy of a test), 'test' (runs in the trusted kernel) or 'student'."""
        if cell.get("metadata", {}).get("grader", {}).get("copy_of"):
            return "copy"
        if self._plan is not None and is_test(cell) and _nbgrader_meta(cell).get("grade_id") in self._plan.tests:
            return "test"
        return "student"

    def _failed(self) -> str:
        kind, message = self._student_broken
        return json.dumps({"failed": message, "kind": kind})

    def _ask_student(self, request: str, deadline: float) -> str:
        """Relay one request of the trusted kernel to the student's kernel; the reply is JSON text.

        The request shares the test cell's time budget, and a test cell may send at most
        MAX_REQUESTS_PER_TEST of them; over either, the test fails with a message saying so.
        """
        if self._student_broken:
            return self._failed()
        self._requests += 1
        if self._requests > MAX_REQUESTS_PER_TEST:
            self._test_failure = TOO_MANY_REQUESTS.format(limit=MAX_REQUESTS_PER_TEST)
            return json.dumps({"failed": self._test_failure, "kind": "RuntimeError"})
        try:
            reply = self._student_reply(request, deadline)
        except DeadKernelError:
            self._student_broken = (
                "KernelDied",
                "The Python kernel stopped while the test called your code "
                "(for example os._exit(), a crash, or the memory or CPU limit). This test "
                "scores 0 points; the grader started a new kernel for the rest.",
            )
            return self._failed()
        if reply is None:
            self._test_failure = OVER_BUDGET.format(timeout=self.timeout)
            self._student_broken = ("CellTimeoutError", self._test_failure)
            return self._failed()
        value = reply.get("content", {}).get("user_expressions", {}).get("r", {})
        text = value.get("data", {}).get("text/plain", "") if value.get("status") == "ok" else ""
        answer = decode_reply(text) if isinstance(text, str) else None
        if answer is None:
            return json.dumps(
                {"raised": "RuntimeError", "message": "the kernel running your code sent no usable answer"}
            )
        return answer

    async def _async_student_reply(self, request: str, deadline: float) -> dict | None:
        """The student's kernel's reply to one request, or None when the test's time budget ran out first."""
        assert self.kc is not None
        channel = f"__import__('sys').modules[{STUDENT_SIDE!r}]"
        msg_id = self.kc.execute(
            f"{channel}.answer({request!r})",
            silent=True,
            store_history=False,
            allow_stdin=True,
            user_expressions={"r": f"{channel}.last_reply"},
        )
        wait = 0.001  # short at first: a timed call of a lent object should not wait for the grader's polling
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return None
            while await ensure_async(self.kc.iopub_channel.msg_ready()):
                # this request's status and output messages: read them, or a thousand requests fill the output
                # socket's queue and the next cell's messages are dropped (what a call prints is not shown)
                await ensure_async(self.kc.iopub_channel.get_msg(timeout=0))
            if await ensure_async(self.kc.stdin_channel.msg_ready()):
                callback = await ensure_async(self.kc.get_stdin_msg(timeout=0))
                if callback["parent_header"].get("msg_id") == msg_id and callback["msg_type"] == "input_request":
                    self.kc.input(self._relay_callback(callback["content"].get("prompt", ""), deadline))
                    wait = 0.001
                continue
            try:
                message = await ensure_async(self.kc.shell_channel.get_msg(timeout=min(remaining, wait)))
            except Empty:
                wait = min(wait * 2, 0.05)
                await self._async_check_alive()
                continue
            if message["parent_header"].get("msg_id") == msg_id:
                return message

    def _relay_callback(self, prompt: str, deadline: float) -> str:
        """The student's code calls an object the test lent it: the trusted kernel runs the call (its time passes
        there, while the student's code waits), and the result goes back to the student's code."""
        try:
            callback = json.loads(prompt)["callback"]
        except (ValueError, TypeError, KeyError, RecursionError):
            return json.dumps({"failed": "not a call of a lent object"})
        if self._trusted_kernel is None or type(callback) is not dict:
            return json.dumps({"failed": "not a call of a lent object"})
        return self._trusted_kernel.run_callback(callback, deadline)

    _student_reply = run_sync(_async_student_reply)

    def _run_test(self, cell: NotebookNode, index: int) -> None:
        """Compute a test cell's verdict in the trusted kernel, with the student's values as data."""
        grade_id = _nbgrader_meta(cell).get("grade_id")
        if self._trusted_kernel is None:
            self._trusted_kernel = self._new_trusted_kernel()
        trusted = self._trusted_kernel
        if trusted.untaken:  # the spare: its prepared cells' replies are read now, at the notebook's first test
            trusted.untaken = False
            if not trusted.take(self, self._plan):
                trusted.close()
                trusted = self._trusted_kernel = TrustedKernel(self, self._plan)
        if trusted.sent and not trusted.collect():  # the cells sent ahead after the last test
            trusted.close()
            trusted = self._trusted_kernel = TrustedKernel(self, self._plan)
        trusted.wait_until_ready()
        if self.guard and not self._student_broken:
            try:
                self._guard_call("stop_strays()")
            except DeadKernelError:
                self._student_broken = ("KernelDied", "The Python kernel running your code stopped before this test.")
            except Exception:  # the student's code broke the guard: its kernel can still answer requests
                pass
        if not trusted.run_prelude(grade_id):
            cell.outputs = [_error_output("GraderError", PRELUDE_BROKEN)]
            trusted.close()
            self._trusted_kernel = None
            return
        deadline = time.monotonic() + (self.timeout or 600)  # one budget: the test and the student's side of it
        self._requests = 0
        self._test_failure: str | None = None
        wanted = self._plan.wanted(cell.source)
        values = self._ask_student(json.dumps({"op": "names", "names": wanted}), deadline)
        answer_sources = [
            c.source
            for i, c in enumerate(self.nb.cells[:index])
            if c.cell_type == "code" and self._kind(c) == "student" and i not in self._skipped
        ]
        flags = {name: flag for name, flag in tf_function_names(answer_sources).items() if name in wanted}
        try:
            trusted.silent(
                f"__import__('sys').modules[{TRUSTED_SIDE!r}].bind(get_ipython().user_ns, "
                f"__import__('json').loads({values!r}).get('values', {{}}), {flags!r}, {wanted!r})"
            )
        except RuntimeError as error:  # undecodable: the test sees the names as missing
            self.log.warning("student values for %s not usable: %s", grade_id, error)
        broken = not trusted.execute(cell, index, deadline=deadline)
        if self._test_failure and not any(o.output_type == "error" for o in cell.outputs):
            cell.outputs.append(_error_output("GraderLimit", self._test_failure))  # even if the test caught it
        if broken:
            trusted.close()
            self._trusted_kernel = None  # the next test starts a fresh trusted kernel
        else:
            trusted.send_ahead()

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

    def _new_trusted_kernel(self) -> TrustedKernel:
        """A trusted kernel for this notebook: the spare if it was prepared for it, else a new one; then the spare
        for the notebook that follows in the assignment (this submission's next, or the next one's first)."""
        assert self._plan is not None
        source = source_notebook(self.config, self.resources)
        here = (str(source.parent), source.stem) if source is not None else None
        kernel = None
        while _SPARE:
            spare = _SPARE.pop()
            if kernel is None and spare.notebook == here:
                kernel = spare  # taken at the first test: its prepared cells run on while the student's first do
                kernel.untaken = True
            else:
                spare.close()
        kernel = kernel or TrustedKernel(self, self._plan)
        if self.warm and source is not None:
            upcoming = following([path.stem for path in source.parent.glob("*.ipynb")], source.stem, wrap=True)
            known = self._read_gradebook(self.resources, upcoming) if upcoming else None
            if upcoming and known:
                plan = TrustedPlan.load(source.with_name(f"{upcoming}.ipynb"), known[1])
                _SPARE.append(TrustedKernel(self, plan, (str(source.parent), upcoming)))
                self._upcoming = (upcoming, known)
        return kernel

    # ---- the student's kernel: started ahead when the pool is on ---------------------------------------------

    def _student_manager(self, sockets: Path | None):
        self.kernel_name = self.kernel_name or self.nb.metadata.get("kernelspec", {}).get("name", "")
        km = self.kernel_manager_class(
            kernel_name=self.kernel_name,
            config=self.config,
            **({"ip": str(sockets / "k")} if sockets is not None else {}),
        )
        km.client_factory = CappedKernelClient  # the student's kernel's messages are bounded before decoding
        return km

    @contextlib.contextmanager
    def _student_kernel(self):
        """The student's kernel for this notebook (or after a restart): the spare started for it while the
        previous notebook ran if its guard matches, else a new one, each with a socket folder of its own; then
        the spare for this submission's next notebook.  It is killed at the end (never used again)."""
        from grader import preprocessors

        global EARLY_KERNELS
        modules = self._guard_modules() if self.guard else None
        spare = self._take_student_spare(modules)
        if spare is None:
            sockets = socket_folder(preprocessors.ACTIVE_SANDBOX, "student")
            self.km = self._student_manager(sockets)
            try:
                self.start_new_kernel()
                self.start_new_kernel_client()
            except BaseException:
                if sockets is not None:
                    shutil.rmtree(sockets, ignore_errors=True)
                raise
        else:
            EARLY_KERNELS += 1
            sockets, self.km, self.kc = spare.sockets, spare.km, spare.kc
            self.kc.allow_stdin = False
        self._prepared = spare is not None
        if self.warm and self.guard and self.trusted_kernel and not _STUDENT_SPARE:  # its guard and channel
            self._start_student_spare()
        try:
            yield
        finally:
            kill_launcher(self.km)
            self._cleanup_kernel()
            if sockets is not None:
                shutil.rmtree(sockets, ignore_errors=True)

    def _take_student_spare(self, modules: list[str] | None) -> StudentSpare | None:
        """The spare of this submission whose guard imported exactly what this notebook's guard imports."""
        folder = str(self.resources.get("metadata", {}).get("path", ""))
        here = self.resources.get("nbgrader", {}).get("notebook")
        for spare in list(_STUDENT_SPARE):
            if spare.folder != folder or spare.modules == modules or spare.notebook == here:
                _STUDENT_SPARE.remove(spare)  # another submission's (its grading stopped early) is never used
                if (
                    spare.folder == folder
                    and spare.modules == modules
                    and spare.ready(max(self.startup_timeout, self.timeout or 600))
                    and spare.digest == folder_digest(folder)
                ):
                    return spare
                spare.close()
        return None

    def _start_student_spare(self) -> None:
        """Start the student's kernel for this submission's next notebook (after its last: for the next
        submission's first, when the worker knows it) and send it that notebook's guard."""
        from nbgrader.coursedir import CourseDirectory

        from grader import preprocessors

        info = self.resources.get("nbgrader", {})
        course = CourseDirectory(config=self.config)
        submitted = Path(
            course.format_path(course.submitted_directory, info.get("student", ""), info.get("assignment", ""))
        )
        upcoming = following([path.stem for path in submitted.glob("*.ipynb")], info.get("notebook", ""))
        source = source_notebook(self.config, self.resources)
        folder = str(self.resources.get("metadata", {}).get("path", ""))
        if source is None:
            return
        if upcoming is None:
            after = NEXT_SUBMISSION() if NEXT_SUBMISSION is not None else None
            if after is None or after.assignment != info.get("assignment"):
                return
            try:
                stage_grading_folder(after.submitted, source.parent, after.folder, list(course.ignore))
            except OSError as error:
                self.log.warning("could not lay out the next submission's folder early: %s", error)
                return
            upcoming, folder = after.notebook, str(after.folder)
        known = (
            self._upcoming[1]
            if self._upcoming and self._upcoming[0] == upcoming
            else self._read_gradebook(self.resources, upcoming)
        )
        if known is None:
            return
        import nbformat

        cells = nbformat.read(source.with_name(f"{upcoming}.ipynb"), as_version=4).cells
        modules = guard_modules(
            [
                known[1][meta["grade_id"]]
                for cell in cells
                if cell.cell_type == "code" and (meta := _nbgrader_meta(cell)).get("grade_id") in known[0]
            ]
        )
        digest = folder_digest(folder)
        if digest is None:
            return
        sockets = socket_folder(preprocessors.ACTIVE_SANDBOX, "student")
        km = self._student_manager(sockets)
        try:
            kc, sent = self._send_ahead(km, folder, modules)
        except Exception as error:  # no spare: the next notebook starts its kernel the usual way
            self.log.warning("could not start the next notebook's kernel early: %s", error)
            with contextlib.suppress(Exception):
                run_sync(km.shutdown_kernel)(now=True)
            if sockets is not None:
                shutil.rmtree(sockets, ignore_errors=True)
            return
        _STUDENT_SPARE.append(StudentSpare(km, kc, sockets, folder, upcoming, modules, sent, digest))

    async def _async_send_ahead(self, km, folder: str, modules: list[str]):
        """Start a student's kernel in ``folder`` and queue its guard and channel (it runs them once it is up)."""
        await ensure_async(km.start_kernel(extra_arguments=list(self.extra_arguments), cwd=folder))
        kc = km.client()
        await ensure_async(kc.start_channels())
        sent = [
            kc.execute(_guard_install(modules), silent=True, store_history=False, allow_stdin=False),
            kc.execute(STUDENT_CHANNEL, silent=True, store_history=False, allow_stdin=False),
        ]
        return kc, sent

    _send_ahead = run_sync(_async_send_ahead)

    def _install_channel(self) -> None:
        self._silent(STUDENT_CHANNEL)

    def preprocess(self, nb: NotebookNode, resources: dict | None = None, km=None):
        NotebookClient.__init__(self, nb, km)
        self.shutdown_kernel = "immediate"  # a student's kernel is never used again: no shutdown handshake
        self.reset_execution_trackers()
        self._check_assign_resources(resources)
        known = self._read_gradebook(resources) if self.guard or self.trusted_kernel else None
        self._read_only = known[0] if known else set()
        self._plan = self._load_plan(resources, known[1]) if known and self.trusted_kernel else None
        self._upcoming: tuple[str, tuple[set[str], dict[str, str]]] | None = None
        self._prepared = False
        self._trusted_kernel = self._new_trusted_kernel() if self._plan is not None else None
        self._student_broken: tuple[str, str] | None = None
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
                        cell.outputs = [_error_output("KernelDied", GIVEN_UP)]
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
                            cell.outputs.append(_error_output("KernelDied", KERNEL_DIED))
                        elif index not in self._timed_out:
                            cell.outputs.append(_error_output("CellTimeoutError", KERNEL_HUNG))
                        index += 1
                        restarts += 1
                        break
                    index += 1
