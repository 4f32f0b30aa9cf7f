"""A worker's warm kernels: a kernel template to fork from, and the next notebook's trusted kernel, started early.

Without the pool every kernel is a fresh interpreter that imports ipykernel, NumPy and minitf (about a second
of CPU here), twice per notebook.  With it, each worker starts one kernel template (grader/kernel_template.py)
that has done those imports; the launcher of every kernel asks it for a fork, which enters the same sandbox as
before.  And while a notebook runs, the trusted kernel of the next notebook is already started (it needs
nothing of the next student: its working folder is an empty folder of its own), so it is ready when the
first test of the next notebook comes.  ``autograde --no-pool`` turns both off.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import replace
from pathlib import Path

from grader.paths import GraderError
from grader.sandbox import Sandbox, remove_stale_folders, write_kernelspec

TEMPLATE = Path(__file__).with_name("kernel_template.py")
READY = "template ready"  # what kernel_template.py prints once it serves
START_SECONDS = 180


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
        name = f"{sandbox.kernel_name}-warm"
        settings = write_kernelspec(self.folder, config, name)
        self.sandbox = replace(sandbox, kernel_name=name, config=settings)
        self.process = subprocess.Popen(
            [sys.executable, str(TEMPLATE), str(settings), str(self.socket)], stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE, text=True, cwd=self.folder)
        assert self.process.stdout is not None
        line = self.process.stdout.readline().strip()  # blocks until the imports are done (or it failed)
        self.process.stdout.close()
        if line != READY:
            self.close()
            raise GraderError(f"the kernel template did not start (exit code {self.process.poll()})")

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
