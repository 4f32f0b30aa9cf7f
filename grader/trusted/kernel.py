"""The trusted kernel: it runs the instructor's code and computes every verdict; no student code runs in it."""

from __future__ import annotations

import json
import os
import shutil
import tempfile
import time
from pathlib import Path
from queue import Empty
from typing import Any, Protocol

from nbclient.exceptions import CellExecutionComplete
from nbformat import NotebookNode

from grader.sandbox.pool import kill_launcher, read_replies, socket_folder
from grader.trusted.channel import install_code
from grader.trusted.plan import TrustedPlan

#: code that loads the trusted side of the channel into the trusted kernel
TRUSTED_CHANNEL = install_code("trusted")
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


def error_output(ename: str, evalue: str) -> NotebookNode:
    return NotebookNode(output_type="error", ename=ename, evalue=evalue, traceback=[f"{ename}: {evalue}"])


class Owner(Protocol):
    """What the trusted kernel uses of the execution that owns it (``GuardedExecute``)."""

    kernel_name: str
    config: Any
    startup_timeout: int
    timeout: int | None
    log: Any
    clear_before_next_output: bool

    def _ask_student(self, request: str, deadline: float) -> str: ...

    def process_message(self, msg: dict, cell: NotebookNode, cell_index: int) -> Any: ...


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

    def __init__(self, owner: Owner, plan: TrustedPlan, notebook: tuple[str, str] | None = None) -> None:
        from jupyter_client import KernelManager

        from grader.worker import preprocessors

        self.owner = owner
        self.plan = plan
        self.done = 0  # plan cells run so far
        self.notebook = notebook
        sandbox = preprocessors.ACTIVE_SANDBOX
        self.folder = Path(tempfile.mkdtemp(prefix="grader-trusted-"))
        self.ipc = socket_folder(sandbox, "trusted")
        extra = {"ip": str(self.ipc / "t")} if self.ipc is not None else {}
        if sandbox is not None and sandbox.uid is not None and sandbox.gid is not None:
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

    def take(self, owner: Owner, plan: TrustedPlan) -> bool:
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

    def run_prelude(self, grade_id: str | None) -> bool:
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
                    cell.outputs.append(error_output("CellTimeoutError", OVER_BUDGET.format(timeout=owner.timeout)))
                    return False
                if not self.km.is_alive():
                    cell.outputs.append(error_output("KernelDied", TRUSTED_BROKEN))
                    return False
                continue
            if message["parent_header"].get("msg_id") != msg_id:
                continue
            try:
                owner.process_message(message, cell, index)
            except CellExecutionComplete:
                return True


#: the next notebook's trusted kernel, started while this one runs (``GuardedExecute.warm``; one per worker)
TRUSTED_SPARES: list[TrustedKernel] = []


def close_trusted_spares() -> None:
    """Stop the spare trusted kernels (the worker is done)."""
    while TRUSTED_SPARES:
        TRUSTED_SPARES.pop().close()
