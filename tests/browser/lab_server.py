"""Start JupyterLab the way Binder serves the course, in a throwaway home folder.

The browser test must never write into the repository (saving or validating a notebook rewrites it), so the
course is copied into a temporary home, the repository's `postBuild` sets nbgrader up there exactly as on
Binder, and JupyterLab serves that copy on a free localhost port with a token.
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
COPIED_FOLDERS = ("course", "solutions", "grader")

# JupyterLab asks whether to fetch news from the internet; the machine has no network and the toast covers buttons.
QUIET_NOTIFICATIONS = {"fetchNews": "false", "checkForUpdates": False}


@dataclass
class RunningLab:
    """A JupyterLab server started for one test session."""

    url: str
    token: str
    home: Path
    log_path: Path
    process: subprocess.Popen

    def lab_url(self, path: str = "lab") -> str:
        """URL of a page of this server, logged in by the token."""
        separator = "&" if "?" in path else "?"
        return f"{self.url}/{path}{separator}token={self.token}"

    def stop(self) -> None:
        """Stop the server (and with it the kernels it started)."""
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=30)


def free_localhost_port() -> int:
    """A TCP port nobody listens on right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def prepare_home(home: Path) -> None:
    """Copy the course into `home` and run the repository's postBuild there, as Binder does."""
    for folder in COPIED_FOLDERS:
        shutil.copytree(REPO / folder, home / folder, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    shutil.copy2(REPO / "postBuild", home / "postBuild")
    subprocess.run(["bash", str(home / "postBuild")], cwd=home, env=lab_environment(home), check=True, timeout=600)
    settings = home / ".jupyter/lab/user-settings/@jupyterlab/apputils-extension"
    settings.mkdir(parents=True, exist_ok=True)
    (settings / "notification.jupyterlab-settings").write_text(json.dumps(QUIET_NOTIFICATIONS))


def lab_environment(home: Path) -> dict[str, str]:
    """Environment of the server: this virtualenv's tools first, and a home of its own (settings, workspaces)."""
    environment = {key: value for key, value in os.environ.items() if not key.startswith("JUPYTER")}
    environment["HOME"] = str(home)
    environment["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{environment.get('PATH', '')}"
    environment.pop("IPYTHONDIR", None)
    return environment


def start_lab(home: Path, startup_timeout: float = 240) -> RunningLab:
    """Start `jupyter lab` serving `home` and wait until it answers."""
    port = free_localhost_port()
    token = secrets.token_hex(16)
    log_path = home.parent / "jupyterlab.log"
    command = [
        sys.executable, "-m", "jupyterlab",
        "--no-browser",
        "--ServerApp.ip=127.0.0.1",
        f"--ServerApp.port={port}",
        "--ServerApp.port_retries=0",
        f"--IdentityProvider.token={token}",
        f"--ServerApp.root_dir={home}",
    ]  # fmt: skip
    if os.geteuid() == 0:  # CI runs as root; Binder and students do not
        command.append("--allow-root")
    with log_path.open("w") as log:
        process = subprocess.Popen(
            command, cwd=home, env=lab_environment(home), stdout=log, stderr=subprocess.STDOUT, start_new_session=True
        )
    lab = RunningLab(f"http://127.0.0.1:{port}", token, home, log_path, process)
    deadline = time.monotonic() + startup_timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"JupyterLab exited with code {process.returncode}; log: {log_path}")
        try:
            with urllib.request.urlopen(lab.lab_url("api/status"), timeout=5) as response:
                if response.status == 200:
                    return lab
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            pass
        time.sleep(0.5)
    lab.stop()
    raise RuntimeError(f"JupyterLab did not answer within {startup_timeout:.0f} s; log: {log_path}")
