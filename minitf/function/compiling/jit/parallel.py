"""Large regions on every core: the outer loop of a compiled region split over the intra-op threads.

One core does one region's loop at the speed of its vector units: a 20-op multiply/add chain on 10^6
float32 values keeps them busy for about 170 us, and no instruction of it can go. XLA's CPU compiler,
like TensorFlow's own kernels, splits a large loop into parts that run on its intra-op thread pool; so does
minitf, for a region whose work is large enough to pay for waking a thread (PARALLEL_FROM scalar statements,
about 125 us of one core, where waking a worker takes about 30 us):

* the pass (`parallelise`) marks the outermost loop `parallel`, if it does not run along a reduced axis
  (each part then writes its own rows of every output; a whole-array sum stays on one thread);
* the generated loop function takes the bounds `lo, hi` of its part of that loop (python_source.py);
* `parallel_for` cuts the loop into one part per thread, runs the first in the calling thread and the others
  on worker threads (Numba's machine code releases the GIL: `nogil=True`), and waits for all of them.

Each element is computed by the same instructions in any part, so the results are those of one thread, bit
for bit. The threads are plain Python threads, started on first use (`tf.config.threading`'s intra-op
count, 0: one per core); a process that cannot start one (a sandbox's process limit) runs every part
itself, and a child forked from a process with workers starts its own.
"""

from __future__ import annotations

import dataclasses
import os
import queue
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from minitf.core import threads as settings
from minitf.function.compiling.jit.loop_ir import AccLanes, Kernel, Loop, Stmt

PARALLEL_FROM = 2**24  # scalar statements one call executes (16.8 million; the 10^6 chain's 23 million take 171 us)


# ---------------------------------------------------------------------------------------------------
# the pass
# ---------------------------------------------------------------------------------------------------


def work(body: Sequence[Stmt], trips: int = 1) -> int:
    """How many scalar statements one call executes (a loop's body once per iteration, a row in lanes once
    per element)."""
    total = 0
    for s in body:
        if isinstance(s, Loop):
            total += work(s.body, trips * s.extent)
        else:
            total += trips * (s.extent if isinstance(s, AccLanes) else 1)
    return total


def parallelise(kernel: Kernel) -> Kernel:
    """The kernel with its outermost loop marked `parallel`, where splitting it pays and is safe."""
    loops = [s for s in kernel.body if isinstance(s, Loop)]
    if len(loops) != 1:
        return kernel
    outer = loops[0]
    along_reduced = outer.var in {f"i{axis}" for axis in kernel.reduced_axes}
    if along_reduced or outer.extent < 2 * outer.streams or work(kernel.body) < PARALLEL_FROM:
        return kernel
    body = [dataclasses.replace(s, parallel=True) if s is outer else s for s in kernel.body]
    return dataclasses.replace(kernel, body=body)


def parallel_loop(kernel: Kernel) -> Loop | None:
    return next((s for s in kernel.body if isinstance(s, Loop) and s.parallel), None)


# ---------------------------------------------------------------------------------------------------
# running it
# ---------------------------------------------------------------------------------------------------


def bounds(extent: int, parts: int, multiple: int) -> list[tuple[int, int]]:
    """`parts` contiguous ranges covering 0..extent, as equal as can be, each starting at a multiple of
    `multiple` (the loop's streams need each part's length divisible by their number)."""
    cuts = [round(k * extent / parts / multiple) * multiple for k in range(parts)] + [extent]
    return [(lo, hi) for lo, hi in zip(cuts, cuts[1:]) if hi > lo]


@dataclass
class Part:
    """One part of a loop given to a worker: when it started (to learn how long a worker takes to wake) and
    what it raised, if anything."""

    function: Callable[..., Any]
    args: tuple
    finished: threading.Event = field(default_factory=threading.Event)
    started: float = 0.0
    failure: BaseException | None = None


class Workers:
    """Threads that run parts of loops, each waiting on one queue."""

    def __init__(self, count: int) -> None:
        self.tasks: queue.SimpleQueue[Part] = queue.SimpleQueue()
        self.threads: list[threading.Thread] = []
        for k in range(count):
            thread = threading.Thread(target=self._work, name=f"minitf-intra-op-{k + 1}", daemon=True)
            try:
                thread.start()
            except RuntimeError:  # "can't start new thread": run with those there are
                break
            self.threads.append(thread)

    def _work(self) -> None:
        while True:
            part = self.tasks.get()
            part.started = time.perf_counter()
            try:
                part.function(*part.args)
            except BaseException as exc:  # handed to the caller, who raises it
                part.failure = exc
            finally:
                part.finished.set()


_workers: list[Workers] = []  # [the process's workers], once started
_lock = threading.Lock()
_wake = [30e-6]  # seconds from queueing a part to a worker starting it (learnt: a moving average)
_rates: dict[Callable[..., Any], float] = {}  # seconds per outer iteration of each loop function (learnt)


def _forget_workers() -> None:
    """In a forked child: the parent's threads do not exist here (nor does a thread that held the lock)."""
    global _lock
    _workers.clear()
    _lock = threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_workers)


def workers() -> Workers:
    with _lock:
        if not _workers:
            _workers.append(Workers(settings.intra_op_threads() - 1))
        return _workers[0]


def callers_share(extent: int, parts: int, multiple: int, rate: float | None) -> int:
    """How many iterations the calling thread takes: its equal share, plus what it gets done while the
    workers wake up (about 30 us here: a sixth of the 10^6 chain's loop), so that all finish together
    and the caller does not sleep waiting for the last one. At most three quarters of the loop."""
    lead = _wake[0] / rate if rate else 0.0
    share = round((extent + (parts - 1) * lead) / parts / multiple) * multiple
    return min(max(share, multiple), extent * 3 // 4 // multiple * multiple)


def parallel_for(function: Callable[..., Any], args: tuple, extent: int, multiple: int) -> None:
    """`function(*args, lo, hi)` for parts of 0..extent, at once on the intra-op threads."""
    pool = workers()
    parts = len(pool.threads) + 1
    if parts == 1 or extent < 4 * multiple:
        function(*args, 0, extent)
        return
    first = callers_share(extent, parts, multiple, _rates.get(function))
    jobs = [Part(function, (*args, first + lo, first + hi)) for lo, hi in bounds(extent - first, parts - 1, multiple)]
    queued = time.perf_counter()
    for job in jobs:
        pool.tasks.put(job)
    start = time.perf_counter()
    function(*args, 0, first)
    rate = (time.perf_counter() - start) / first
    _rates[function] = (_rates.get(function, rate) + rate) / 2
    for job in jobs:
        job.finished.wait()
    _wake[0] = 0.8 * _wake[0] + 0.2 * sum(job.started - queued for job in jobs) / len(jobs)
    failed = next((job.failure for job in jobs if job.failure is not None), None)
    if failed is not None:
        raise failed
