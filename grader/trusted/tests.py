"""Graded tests in the trusted kernel: each test cell runs there, and its requests for the student's values are
relayed to the student's kernel over the data-only channel, within the test's one time budget."""

from __future__ import annotations

import base64
import binascii
import json
import time
from queue import Empty

from nbclient.exceptions import DeadKernelError
from nbclient.util import ensure_async, run_sync
from nbformat import NotebookNode
from nbgrader.preprocessors import Execute

from grader.sandbox.pool import following
from grader.trusted.channel import STUDENT_SIDE, TRUSTED_SIDE
from grader.trusted.channel.codec import MAX_REPLY_BYTES
from grader.trusted.kernel import (
    OVER_BUDGET,
    PRELUDE_BROKEN,
    TOO_MANY_REQUESTS,
    TRUSTED_SPARES,
    TrustedKernel,
    error_output,
)
from grader.trusted.plan import TrustedPlan, nbgrader_meta, source_notebook, tf_function_names

#: requests one test cell may send to the student's kernel (the course's tests send a few dozen)
MAX_REQUESTS_PER_TEST = 1000
#: how often a failed test that timed the student's code runs in all before its verdict stands (`_run_test`)
TIMED_TEST_ATTEMPTS = 2
RETRIED = (
    "This test times your code. Its attempt {failed} failed, and a busy machine or a kernel that had just "
    "restarted can slow a timed call, so the grader ran it again: the points are from attempt {attempt}.\n"
)


def decode_reply(text: str) -> str | None:
    """The JSON text of a reply from the student's kernel: a quoted base64 string, checked and decoded in one pass."""
    if len(text) < 2 or text[0] != "'" or text[-1] != "'" or len(text) > MAX_REPLY_BYTES * 4 // 3 + 8:
        return None
    try:
        return base64.b64decode(text[1:-1], validate=True).decode("utf-8")
    except (binascii.Error, ValueError):
        return None


class TrustedTests(Execute):
    """The trusted kernel's side of ``GuardedExecute``: test cells, the requests they send, the spare kernel."""

    # set for each notebook by ``GuardedExecute.preprocess``
    _plan: TrustedPlan | None
    _trusted_kernel: TrustedKernel | None
    _upcoming: tuple[str, tuple[set[str], dict[str, str]]] | None  # the next notebook, as the gradebook knows it
    _student_broken: tuple[str, str] | None  # why the student's kernel cannot answer (an error's kind, message)
    _requests: int  # sent to the student's kernel by the current test
    _callbacks: int  # calls of lent objects (the timing exercises' known costs) the student's code made in it
    _test_failure: str | None  # why the current test fails whatever it catches

    def _load_plan(self, resources: dict | None, sources: dict[str, str]) -> TrustedPlan | None:
        path = source_notebook(self.config, resources)
        return None if path is None else TrustedPlan.load(path, sources)

    def _failed(self) -> str:
        kind, message = self._student_broken or ("KernelDied", "the kernel running your code stopped")
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
        self._callbacks += 1
        return self._trusted_kernel.run_callback(callback, deadline)

    _student_reply = run_sync(_async_student_reply)

    def _run_test(self, cell: NotebookNode, index: int) -> None:
        """Compute a test cell's verdict in the trusted kernel, with the student's values as data."""
        grade_id = nbgrader_meta(cell).get("grade_id")
        plan = self._plan
        assert plan is not None  # a test cell is one of the plan's tests (``_kind``)
        if self._trusted_kernel is None:
            self._trusted_kernel = self._new_trusted_kernel()
        trusted = self._trusted_kernel
        if trusted.untaken:  # the spare: its prepared cells' replies are read now, at the notebook's first test
            trusted.untaken = False
            if not trusted.take(self, plan):
                trusted.close()
                trusted = self._trusted_kernel = TrustedKernel(self, plan)
        if trusted.sent and not trusted.collect():  # the cells sent ahead after the last test
            trusted.close()
            trusted = self._trusted_kernel = TrustedKernel(self, plan)
        trusted.wait_until_ready()
        if self.guard and not self._student_broken:
            try:
                self._guard_call("stop_strays()")
            except DeadKernelError:
                self._student_broken = ("KernelDied", "The Python kernel running your code stopped before this test.")
            except Exception:  # the student's code broke the guard: its kernel can still answer requests
                pass
        if not trusted.run_prelude(grade_id):
            cell.outputs = [error_output("GraderError", PRELUDE_BROKEN)]
            trusted.close()
            self._trusted_kernel = None
            return
        for attempt in range(1, TIMED_TEST_ATTEMPTS + 1):
            broken = not self._run_test_once(cell, index, plan, trusted)
            if broken:
                trusted.close()
                self._trusted_kernel = None  # the next test starts a fresh trusted kernel
                return
            if not self._timed_and_failed(cell) or attempt == TIMED_TEST_ATTEMPTS:
                break
        if attempt > 1 and not self._timed_and_failed(cell):
            cell.outputs.insert(0, NotebookNode(output_type="stream", name="stdout", text=RETRIED.format(
                failed=attempt - 1, attempt=attempt)))  # fmt: skip
        trusted.send_ahead()

    def _timed_and_failed(self, cell: NotebookNode) -> bool:
        """Whether a test failed after timing the student's code (it called a lent object) and nothing else went
        wrong: the one verdict a slow moment can change, and only from right to wrong, because a known cost
        sleeps and never ends early.  Run again, a right answer gets its points.  A wrong one that measures too
        much fails again (load only adds time); one that measures too little could pass only if load added just
        the missing time, a chance a second attempt repeats once, no more."""
        failed = any(output.output_type == "error" for output in cell.outputs)
        return failed and self._callbacks > 0 and not self._test_failure and not self._student_broken

    def _run_test_once(self, cell: NotebookNode, index: int, plan: TrustedPlan, trusted: TrustedKernel) -> bool:
        """One run of a test cell with the student's values bound afresh; False if the trusted kernel broke."""
        deadline = time.monotonic() + (self.timeout or 600)  # one budget: the test and the student's side of it
        self._requests = 0
        self._callbacks = 0
        self._test_failure = None
        wanted = plan.wanted(cell.source)
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
            self.log.warning("student values for %s not usable: %s", nbgrader_meta(cell).get("grade_id"), error)
        broken = not trusted.execute(cell, index, deadline=deadline)
        if self._test_failure and not any(o.output_type == "error" for o in cell.outputs):
            cell.outputs.append(error_output("GraderLimit", self._test_failure))  # even if the test caught it
        return not broken

    def _new_trusted_kernel(self) -> TrustedKernel:
        """A trusted kernel for this notebook: the spare if it was prepared for it, else a new one; then the spare
        for the notebook that follows in the assignment (this submission's next, or the next one's first)."""
        assert self._plan is not None
        source = source_notebook(self.config, self.resources)
        here = (str(source.parent), source.stem) if source is not None else None
        kernel = None
        while TRUSTED_SPARES:
            spare = TRUSTED_SPARES.pop()
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
                TRUSTED_SPARES.append(TrustedKernel(self, plan, (str(source.parent), upcoming)))
                self._upcoming = (upcoming, known)
        return kernel
