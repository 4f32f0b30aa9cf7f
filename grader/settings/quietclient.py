"""A kernel client whose output channel drops library log lines from stderr, for nbgrader's own runs of a notebook.

nbgrader counts any stderr of a test cell as a failure.  ``nbgrader validate`` (and the Validate button, which runs
it) has no step where its notebook's outputs could be cleaned, so a student whose right answer shares a cell with
TensorFlow's C++ log line was told it failed; grading filters those lines (grader/worker/preprocessors.py).
grader/settings/nbgrader_config.py makes this the client of nbgrader's kernels, so validation sees what grading
counts.  The grader's own kernels use their own clients (grader/sandbox/kernel_client.py, grader/trusted/kernel.py).
Like the student's kernel's client, its waits re-check their sockets, so no message is slept through.
"""

from __future__ import annotations

import time
from typing import Any

from traitlets import Type

from grader.sandbox.kernel_client import RecheckingChannel, RecheckingKernelClient
from grader.settings.lognoise import without_log_noise


class QuietOutputChannel(RecheckingChannel):
    """The output channel: stderr stream messages lose their log lines; one with nothing else is skipped."""

    async def get_msg(self, timeout: float | None = None) -> dict[str, Any]:  # type: ignore[override]
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            left = None if deadline is None else max(0.0, deadline - time.monotonic())
            message = await super().get_msg(timeout=left)
            content = message.get("content", {})
            if message.get("msg_type") != "stream" or content.get("name") != "stderr":
                return message
            content["text"] = without_log_noise(content.get("text", ""))
            if content["text"].strip():
                return message


class QuietKernelClient(RecheckingKernelClient):
    """Waits that re-check their sockets (grader/sandbox/kernel_client.py), and the quiet output channel."""

    iopub_channel_class = Type(QuietOutputChannel)
