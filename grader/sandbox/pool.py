"""A worker's warm kernels: a kernel template to fork from, and the next notebook's kernels, started early.

Without the pool every kernel is a fresh interpreter that imports ipykernel, NumPy and minitf (about a second
of CPU here), twice per notebook.  With it, each worker starts one kernel template (grader/sandbox/kernel_template.py)
that has done those imports; the launcher of every kernel asks it for a fork, which enters the same sandbox as
before.  And while a notebook runs, both kernels of the next notebook are already started and prepared
(grader/worker/execute.py): the trusted kernel (it needs nothing of the next student: its working folder is an empty
folder of its own) has run the instructor's cells before the first test, and the student's kernel of the same
submission's next notebook (its working folder is a copy of the same grading folder) has its guard and channel;
after a submission's last notebook, the next submission's first, when the worker was handed that submission ahead
(its grading folder laid out early, and checked unchanged when the kernel is taken).
What such a kernel is sent right after its start is only the grader's and the instructor's code; its replies
are read when the kernel is taken, and a kernel whose preparation does not match the notebook, failed or timed
out is ended and replaced by one started the usual way.  ``autograde --no-pool`` turns all of it off.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from queue import Empty

from grader.paths import GraderError
from grader.sandbox.prepare import Sandbox, remove_stale_folders, self_test, write_kernelspec

TEMPLATE = Path(__file__).with_name("kernel_template.py")
READY = "template ready"  # what kernel_template.py prints once it serves
START_SECONDS = 180
#: run in a fresh sandboxed process: matplotlib's font list as a kernel in the sandbox builds it (from the files
#: it sees), which the template then loads instead of building its own from the host's fonts
FONT_PROBE = """import glob, os, matplotlib.font_manager as fm
path = glob.glob(os.path.join(fm.mpl.get_cachedir(), "fontlist-v*.json"))[0]
print(os.path.basename(path)); print(open(path).read())"""


def proc_mb(pid: int | str, key: str = "VmRSS:", table: str = "status") -> float:
    """A process's memory figure in MB from /proc (its resident size, or e.g. ``"Pss:"`` of ``smaps_rollup``);
    0 when it is gone."""
    try:
        for line in Path(f"/proc/{pid}/{table}").read_text().splitlines():
            if line.startswith(key):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


class KernelTemplate:
    """The worker's fork server, started once; kernels of this worker's kernelspec are forked from it."""

    def __init__(self, sandbox: Sandbox) -> None:
        if sandbox.config is None:
            raise GraderError("the kernel template needs the sandbox's settings (sandbox.json)")
        config = json.loads(sandbox.config.read_text())
        # a short private path: unix socket names are limited to 107 bytes; /run is outside every kernel's view
        parent = "/run" if os.path.isdir("/run") and os.access("/run", os.W_OK) else None
        if parent:
            remove_stale_folders(Path(parent), "template")  # of workers that were killed
        self.folder = Path(tempfile.mkdtemp(prefix=f"grader-template-{os.getpid()}-", dir=parent))
        self.socket = self.folder / "s"
        config["template"] = str(self.socket)
        config["preload_matplotlib"] = self._sandbox_fonts(sandbox.config) if config["isolate"] else True
        name = f"{sandbox.kernel_name}-warm"
        settings = write_kernelspec(self.folder, config, name)
        self.sandbox = replace(sandbox, kernel_name=name, config=settings)
        self.process = subprocess.Popen(
            [sys.executable, str(TEMPLATE), str(settings), str(self.socket)],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            text=True,
            cwd=self.folder,
        )
        assert self.process.stdout is not None
        line = self.process.stdout.readline().strip()  # blocks until the imports are done (or it failed)
        self.process.stdout.close()
        if line != READY:
            self.close()
            raise GraderError(f"the kernel template did not start (exit code {self.process.poll()})")

    def _sandbox_fonts(self, config: Path) -> bool:
        """Put the font list of a sandboxed kernel where the template's matplotlib reads its cache; False if the
        probe fails (the template then leaves matplotlib to each kernel)."""
        probe = Path(tempfile.mkdtemp(prefix="grader-fonts-"))
        try:
            name, text = self_test(config, probe, FONT_PROBE, own_slot=True).split("\n", 1)
        except (GraderError, ValueError, OSError):
            return False
        finally:
            shutil.rmtree(probe, ignore_errors=True)
        if not name.startswith("fontlist-v") or not name.endswith(".json"):
            return False
        (self.folder / ".matplotlib").mkdir(mode=0o700)
        (self.folder / ".matplotlib" / name).write_text(text)
        return True

    @property
    def resident_mb(self) -> float:
        return proc_mb(self.process.pid)

    @property
    def kernel_peak_mb(self) -> float:
        """The largest resident size of any kernel forked so far (their supervisors note it when they end)."""
        try:
            return max((int(line) for line in (self.folder / "kernel-peaks").read_text().split()), default=0) / 1024
        except (OSError, ValueError):
            return 0.0

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.process.kill()
        self.process.wait()
        shutil.rmtree(self.folder, ignore_errors=True)


def start_template(sandbox: Sandbox) -> tuple[Sandbox, KernelTemplate | None]:
    """The worker's sandbox with kernels forked from a template; the plain sandbox if the template fails."""
    try:
        template = KernelTemplate(sandbox)
    except (GraderError, OSError) as error:
        print(f"warning: kernels start without the template ({error})", file=sys.stderr)
        return sandbox, None
    return template.sandbox, template


def socket_folder(sandbox: Sandbox | None, kind: str) -> Path | None:
    """A new socket folder for one kernel, only for its sandbox user: a kernel can write into its socket folder,
    so each has its own, and nothing one leaves there reaches another (None: no sandbox, TCP on the loopback)."""
    if sandbox is None or sandbox.ipc_dir is None or sandbox.uid is None or sandbox.gid is None:
        return None
    folder = Path(tempfile.mkdtemp(prefix=f"{sandbox.ipc_dir.name}-{kind}-", dir=sandbox.ipc_dir.parent))
    os.chown(folder, sandbox.uid, sandbox.gid)
    os.chmod(folder, 0o700)
    return folder


def folder_digest(folder: str | Path) -> str | None:
    """A digest of what a kernel's copy of its working folder holds: the walk of grader/sandbox/launch.py's
    ``_copy_tree`` (folders and regular files, not links or notebooks), names and contents; None if it is gone.

    A kernel started early copied its folder at its start; it is taken only if the folder still holds exactly
    that, so it sees what a kernel started now would see."""
    hashed = hashlib.sha256()

    def walk(path: str, relative: str) -> None:
        for name in sorted(os.listdir(path)):
            origin, shown = os.path.join(path, name), f"{relative}/{name}"
            if os.path.islink(origin) or name.endswith(".ipynb"):
                continue
            if os.path.isdir(origin):
                hashed.update(f"d {shown}\0".encode())
                walk(origin, shown)
            elif os.path.isfile(origin):
                hashed.update(f"f {shown} {os.path.getsize(origin)}\0".encode())
                with open(origin, "rb") as reader:
                    while chunk := reader.read(1 << 20):
                        hashed.update(chunk)

    try:
        walk(str(folder), "")
    except OSError:
        return None
    return hashed.hexdigest()


def following(names: list[str], current: str, wrap: bool = False) -> str | None:
    """The notebook graded after ``current`` (nbgrader grades a submission's notebooks in sorted order); with
    ``wrap``, the first one after the last (the next submission's first notebook)."""
    ordered = sorted(names)
    if current not in ordered:
        return None
    at = ordered.index(current) + 1
    return ordered[at % len(ordered)] if wrap or at < len(ordered) else None


def read_replies(
    get_reply: Callable[[float], dict], msg_ids: list[str], timeout: float, alive: Callable[[], bool]
) -> list[dict] | None:
    """The shell replies to requests sent earlier, in their order, each waited for at most ``timeout`` seconds
    (most arrived long ago); None when one does not come because the kernel hung or died."""
    replies: dict[str, dict] = {}
    for msg_id in msg_ids:
        deadline = time.monotonic() + timeout
        while msg_id not in replies:
            remaining = deadline - time.monotonic()
            if remaining <= 0 or not alive():
                return None
            try:
                reply = get_reply(min(remaining, 0.5))
            except Empty:
                continue
            replies[reply.get("parent_header", {}).get("msg_id", "")] = reply
    return [replies[msg_id] for msg_id in msg_ids]


def kill_launcher(km) -> None:
    """End a kernel at once and wait for it (milliseconds), so that jupyter_client's shutdown finds it gone instead
    of a shutdown handshake and polling every 0.1 s.  SIGTERM to its launcher (launch.py) kills the kernel
    and reaps it: the launcher's own child, or through the template's supervisor; as PID 1 of its namespace the
    kernel takes everything it started with it.  SIGKILL if the launcher does not go within 5 s."""
    process = getattr(getattr(km, "provisioner", None), "process", None)
    if process is None or process.poll() is not None:
        return
    process.terminate()
    try:
        process.wait(timeout=5)
    except subprocess.TimeoutExpired:
        process.kill()
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(timeout=5)
