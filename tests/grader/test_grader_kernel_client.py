"""The student's kernel's client does not sleep through a message that has arrived.

The grader saw a widget cell that finished in 0.1 s reported after the 30 s cell limit: the asyncio wait on the
shell socket missed the edge its file descriptor signals.  These tests take the edge away on purpose (another
reader of the socket's events, as a send on the same socket does) and check that the plain channel waits until its
timeout while the grader's channel reads the message within a slice.
"""

from __future__ import annotations

import asyncio
import time
from queue import Empty

import pytest
import zmq
import zmq.asyncio
from jupyter_client.channels import AsyncZMQSocketChannel
from jupyter_client.session import Session

from grader.sandbox.kernel_client import WAIT_SLICE, CappedKernelClient, RecheckingChannel


async def _reply_with_lost_edge(channel_class: type[AsyncZMQSocketChannel], timeout: float) -> tuple[str, float]:
    """Wait on a channel; 0.1 s later the peer sends a reply and someone else reads the socket's events."""
    context = zmq.asyncio.Context()
    ours, theirs = context.socket(zmq.PAIR), context.socket(zmq.PAIR)
    address = f"inproc://lost-edge-{id(channel_class)}-{time.monotonic_ns()}"
    ours.bind(address)
    theirs.connect(address)
    session = Session()
    channel = channel_class(ours, session)

    async def peer() -> None:
        await asyncio.sleep(0.1)
        session.send(zmq.Socket.shadow(theirs.underlying), "execute_reply", {"status": "ok"})
        zmq.Socket.shadow(ours.underlying).get(zmq.EVENTS)  # the edge is used up here, not by the wait

    started = time.monotonic()
    sending = asyncio.ensure_future(peer())
    try:
        message = await channel.get_msg(timeout=timeout)
        kind = message["msg_type"]
    except Empty:
        kind = "nothing"
    await sending
    elapsed = time.monotonic() - started
    ours.close(linger=0)
    theirs.close(linger=0)
    context.term()
    return kind, elapsed


def test_a_plain_asyncio_channel_sleeps_through_a_message_whose_edge_was_used_up():
    """The failure the grader met, shown: the reply is there after 0.1 s, the wait ends at its timeout."""
    kind, elapsed = asyncio.run(_reply_with_lost_edge(AsyncZMQSocketChannel, timeout=1.0))
    assert elapsed >= 0.9, f"the plain channel returned after {elapsed:.2f} s: the edge was not lost, test is void"
    assert kind in ("execute_reply", "nothing")


def test_the_graders_channel_reads_the_message_within_a_slice_not_at_its_timeout():
    kind, elapsed = asyncio.run(_reply_with_lost_edge(RecheckingChannel, timeout=10.0))
    assert kind == "execute_reply"
    assert elapsed < 5.0, f"the grader's channel took {elapsed:.2f} s for a reply sent after 0.1 s"


def test_the_graders_channel_still_times_out_when_nothing_comes():
    async def wait_for_nothing() -> float:
        context = zmq.asyncio.Context()
        socket = context.socket(zmq.PAIR)
        socket.bind(f"inproc://silent-{time.monotonic_ns()}")
        started = time.monotonic()
        with pytest.raises(Empty):
            await RecheckingChannel(socket, Session()).get_msg(timeout=3 * WAIT_SLICE)
        socket.close(linger=0)
        context.term()
        return time.monotonic() - started

    assert asyncio.run(wait_for_nothing()) >= 3 * WAIT_SLICE * 0.9


def test_every_channel_of_the_student_kernels_client_rechecks():
    for name in ("shell", "iopub", "stdin", "control"):
        assert getattr(CappedKernelClient, f"{name}_channel_class").default_value is RecheckingChannel, name
