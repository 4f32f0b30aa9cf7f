"""Where workers run: local processes (``LocalPool``) or Dask workers on other machines (``DaskPool``); the run
hands each a submission (its files travel with it) and gets back a ``Result`` to write into the gradebook."""

from __future__ import annotations

import contextlib
import ctypes
import os
import shutil
import signal
import sys
import tempfile
import threading
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess
from pathlib import Path

from grader.paths import GraderError, Term
from grader.sandbox.prepare import Sandbox, sweep_slot
from grader.worker.worker import Kit, Result, Task, Worker

#: a submission whose worker died is graded again this many times before it is reported as failed
RETRIES = 1
PR_SET_PDEATHSIG = 1


# ---- local processes ---------------------------------------------------------------------------------------


def _die_with_parent(parent: int) -> None:
    """A worker must not outlive the run (its kernels go with it: they die with their parent)."""
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None).prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if os.getppid() != parent:
        os._exit(1)


def _local_worker(connection, root: str, sandbox: Sandbox, kit: Kit, parent: int, environment: dict) -> None:
    """A worker process: grade tasks from the pipe until it closes."""
    _die_with_parent(parent)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the run's to handle; it ends the workers
    os.environ.update(environment)
    import warnings

    warnings.filterwarnings("ignore", module="sqlalchemy")
    warnings.filterwarnings("ignore", message=".*not in session.*")
    worker = Worker(Path(root), sandbox, kit)
    queued: list[Task | None] = []  # the run may hand over the next task while one is graded

    def upcoming() -> Task | None:
        with contextlib.suppress(EOFError, OSError):
            if not queued and connection.poll():
                queued.append(connection.recv())
        return queued[0] if queued else None

    try:
        while True:
            try:
                task = queued.pop(0) if queued else connection.recv()
            except EOFError:
                break
            if task is None:
                break
            connection.send(worker.grade(task, upcoming))
    finally:
        worker.close()


@dataclass
class _Slot:
    process: BaseProcess
    connection: Connection
    root: Path
    task: Task | None = None
    queued: Task | None = None  # handed over ahead: the worker starts its first kernel early


def worker_failed(task: Task, message: str) -> Result:
    return Result(task.index, task.student, task.assignment, False, message, attempt=task.attempt)


class LocalPool:
    """``count`` worker processes on this machine; a worker that dies is replaced and its task retried."""

    def __init__(self, term: Term, sandbox: Sandbox, kit: Kit, count: int) -> None:
        import multiprocessing

        self.context = multiprocessing.get_context("spawn")  # a clean interpreter: no inherited threads or locks
        self.term, self.sandbox, self.kit, self.count = term, sandbox, kit, max(1, count)
        self.base = term.state / "workers"
        self.environment = {key: os.environ[key] for key in ("JUPYTER_PATH", "PATH") if key in os.environ}
        self.retried: set[int] = set()

    def _start(self) -> _Slot:
        ours, theirs = self.context.Pipe()
        self.base.mkdir(parents=True, exist_ok=True)
        root = Path(tempfile.mkdtemp(prefix="w-", dir=self.base))
        process = self.context.Process(
            target=_local_worker,
            args=(theirs, str(root), self.sandbox, self.kit, os.getpid(), self.environment),
            daemon=True,
        )
        process.start()
        theirs.close()
        (root / "pid").write_text(str(process.pid))
        return _Slot(process, ours, root)

    def _discard(self, slot: _Slot) -> int | None:
        """Forget a worker that died; its scratch folder goes with it.  Returns its exit code."""
        slot.process.join()
        slot.connection.close()
        self._sweep(slot)
        return slot.process.exitcode

    @staticmethod
    def _sweep(slot: _Slot) -> None:
        """After the worker process has ended: nothing it started may outlive the run (a worker killed before its
        own closing sweep leaves kernels that end only when their supervisors notice), then its folder goes."""
        with contextlib.suppress(OSError, ValueError):
            sweep_slot(int((slot.root / "slot").read_text()))
        shutil.rmtree(slot.root, ignore_errors=True)

    def _stop(self, slot: _Slot) -> None:
        with contextlib.suppress(OSError, ValueError):
            slot.connection.send(None)
        slot.process.join(timeout=10)
        if slot.process.is_alive():
            slot.process.kill()
            slot.process.join()
        slot.connection.close()
        self._sweep(slot)

    def results(self, tasks: list[Task], load: Callable[[Task], Task]) -> Iterator[Result]:
        """Results in the order they finish; ``load`` reads a task's files just before it is sent."""
        from multiprocessing.connection import wait

        pending = deque(tasks)
        slots = [self._start() for _ in range(min(self.count, len(pending)))]
        try:
            while pending or any(slot.task for slot in slots):
                for number, slot in enumerate(slots):
                    if slot.task is None and pending:
                        task = pending.popleft()
                        try:
                            slot.connection.send(load(task))
                        except (OSError, ValueError):  # this idle worker had died: a fresh one takes the task
                            pending.appendleft(task)
                            self._discard(slot)
                            slots[number] = self._start()
                            continue
                        slot.task = task
                for slot in slots:
                    # one task ahead per worker while more wait than there are workers (so no worker idles at
                    # the end while another holds a task it has not begun)
                    if slot.task is not None and slot.queued is None and len(pending) >= len(slots):
                        task = pending.popleft()
                        try:
                            slot.connection.send(load(task))
                        except (OSError, ValueError):  # it died: its task's result tells, this one waits
                            pending.appendleft(task)
                            continue
                        slot.queued = task
                busy = [slot for slot in slots if slot.task is not None]
                ready = wait([s.connection for s in busy] + [s.process.sentinel for s in busy])
                for number, slot in enumerate(slots):
                    if slot.task is None or not (slot.connection in ready or slot.process.sentinel in ready):
                        continue
                    task, slot.task, slot.queued = slot.task, slot.queued, None
                    try:
                        yield slot.connection.recv()
                        continue
                    except (EOFError, OSError):
                        pass
                    # the worker died while grading: only this submission is lost, and it is graded again; the
                    # one it held ahead was not begun and goes back to the queue as it was
                    if slot.task is not None:
                        pending.appendleft(slot.task)
                    code = self._discard(slot)
                    slots[number] = self._start()
                    if task.attempt <= RETRIES:
                        self.retried.add(task.index)
                        pending.appendleft(replace(task, attempt=task.attempt + 1))
                    else:
                        yield worker_failed(
                            task,
                            f"its grading worker stopped {task.attempt} times "
                            f"(last exit code {code}); nothing of it was recorded",
                        )
        finally:
            for slot in slots:
                if slot.task is not None:  # stopped early (Ctrl-C, an error): do not wait for its submission
                    slot.process.kill()
                self._stop(slot)


# ---- Dask ----------------------------------------------------------------------------------------------------

_REMOTE: dict[str, Worker] = {}
_REMOTE_LOCK = threading.Lock()


def grade_remote(task: Task, kit: Kit) -> Result:
    """Runs on a Dask worker: prepare this machine's sandbox once per kit, grade, send everything back."""
    from grader.sandbox.prepare import prepare

    with _REMOTE_LOCK:  # one submission at a time per process: start workers with --nthreads 1
        worker = _REMOTE.get(kit.digest)
        if worker is None:
            root = Path(tempfile.mkdtemp(prefix="grader-worker-"))
            sandbox = prepare(Term(root / "term"), kit.limits, kit.modules)
            print(sandbox.note, file=sys.stderr)
            worker = Worker(root / "term" / ".grader" / "work", sandbox, kit)
            _REMOTE[kit.digest] = worker
        return worker.grade_portable(task)


class DaskPool:
    """Submissions go to the workers of a Dask scheduler; the results come back here, to the one writer."""

    WINDOW = 256

    def __init__(self, address: str, kit: Kit) -> None:
        try:
            from distributed import Client
        except ImportError:
            raise GraderError("--scheduler needs Dask: pip install 'dask[distributed]'") from None
        try:
            self.client = Client(address, timeout=30)
        except OSError as error:
            raise GraderError(f"cannot reach the Dask scheduler at {address}: {error}") from None
        self.kit = kit
        self.retried: set[int] = set()

    def results(self, tasks: list[Task], load: Callable[[Task], Task]) -> Iterator[Result]:
        """Results in the order they finish; at most WINDOW submissions are in flight (memory stays small)."""
        from distributed import as_completed

        kit = self.client.scatter(self.kit, broadcast=True)
        pending = deque(tasks)
        futures: dict = {}

        def submit() -> None:
            task = load(pending.popleft())
            future = self.client.submit(
                grade_remote,
                task,
                kit,
                pure=False,
                retries=RETRIES,
                key=f"grade-{task.student}-{task.assignment}-{task.index}",
            )
            futures[future] = task
            flow.add(future)

        flow = as_completed()
        while pending and len(futures) < self.WINDOW:
            submit()
        try:
            for future in flow:
                task = futures.pop(future)
                try:
                    yield future.result()
                except Exception as error:  # a worker died more often than allowed, or the task raised
                    yield worker_failed(task, f"the Dask worker failed: {type(error).__name__}: {error}"[:500])
                if pending:
                    submit()
        finally:
            for future in futures:
                future.cancel()
            self.client.close()
