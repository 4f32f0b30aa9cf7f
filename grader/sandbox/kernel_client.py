"""The grader's client of a student's kernel: messages bounded before they are read, and waits that cannot sleep
through a message that has arrived.

A ZeroMQ socket tells an event loop about new messages through a file descriptor that signals *edges*: it becomes
readable when the socket's state changes, and anything that reads the socket's events (a send on the same socket,
a readiness check) uses the edge up.  An asyncio wait that was armed just before that happens sleeps on until its
timeout although the message is there.  The grader met this as a cell of a student's notebook that finished in
0.1 s and was reported after the 30 s cell limit (about one part-1 submission in ten, always on a cell whose widgets
send many messages), which would have cost the student the cell.  So every wait of the student's kernel's client
is cut into short slices, and each slice looks at the socket afresh (pyzmq reads the socket's events when a wait
starts): a missed edge costs at most one slice.
"""

from __future__ import annotations

import time
from queue import Empty
from typing import Any

import zmq
from jupyter_client.asynchronous import AsyncKernelClient
from jupyter_client.channels import AsyncZMQSocketChannel
from nbclient import NotebookClient
from traitlets import Type

#: what the grader's shell, stdin and control sockets to the student's kernel accept: a reply in base64, framed
MAX_MESSAGE_BYTES = 12 * 1024 * 1024
#: what its output socket accepts: one output message (CapOutputs then cuts what is kept to 100,000 characters)
MAX_OUTPUT_MESSAGE_BYTES = 64 * 1024 * 1024
#: the longest a wait sleeps before it looks at its socket again (seconds)
WAIT_SLICE = 0.25


class RecheckingChannel(AsyncZMQSocketChannel):
    """A channel whose ``get_msg`` waits in slices of WAIT_SLICE, each of which checks the socket anew."""

    async def get_msg(self, timeout: float | None = None) -> dict[str, Any]:  # type: ignore[override]
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            wait = WAIT_SLICE if deadline is None else min(WAIT_SLICE, max(0.0, deadline - time.monotonic()))
            try:
                return await super().get_msg(timeout=wait)
            except Empty:
                if deadline is not None and time.monotonic() >= deadline:
                    raise


class RecheckingKernelClient(AsyncKernelClient):
    """An asyncio kernel client whose every channel waits in slices (RecheckingChannel)."""

    shell_channel_class = Type(RecheckingChannel)
    iopub_channel_class = Type(RecheckingChannel)
    stdin_channel_class = Type(RecheckingChannel)
    control_channel_class = Type(RecheckingChannel)


def with_rechecking_waits(client: NotebookClient) -> NotebookClient:
    """``client`` (nbclient's, before its kernel starts) with kernel clients whose waits re-check their sockets:
    for the notebooks the tests and benchmarks run outside the grader."""
    client.km = client.create_kernel_manager()
    client.km.client_factory = RecheckingKernelClient
    return client


class CappedKernelClient(RecheckingKernelClient):
    """The student's kernel's client: its sockets refuse oversized messages before anything is read into memory.

    ZeroMQ checks ``MAXMSGSIZE`` against a frame's announced length and drops the connection instead of
    receiving it, so a student's kernel cannot make the grader decode (or even buffer) a huge reply.
    """

    def _create_connected_socket(self, channel: str, identity: bytes | None = None) -> zmq.Socket:
        limit = MAX_OUTPUT_MESSAGE_BYTES if channel == "iopub" else MAX_MESSAGE_BYTES
        self.context.setsockopt(zmq.MAXMSGSIZE, limit)  # this client's own context: applies to the next socket
        return super()._create_connected_socket(channel, identity)
