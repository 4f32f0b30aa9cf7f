"""The README's first command, `./run lab`, really starts JupyterLab on the course."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import time
import urllib.request
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # starts JupyterLab

REPO = Path(__file__).resolve().parents[2]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_run_lab_serves_jupyterlab_on_the_course_folder() -> None:
    port = _free_port()
    token = "course-check"
    process = subprocess.Popen(
        [str(REPO / "run"), "lab", "--no-browser", f"--port={port}", f"--IdentityProvider.token={token}"],
        cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True,
    )
    try:
        contents = None
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and process.poll() is None:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/contents?token={token}", timeout=5) as r:
                    contents = json.load(r)
                break
            except OSError:
                time.sleep(1)
        assert contents is not None, "JupyterLab did not answer within 120 s:\n" + _output(process)
        names = {item["name"] for item in contents["content"]}
        assert "part1-tensors" in names, f"JupyterLab should open on course/, but its root lists {sorted(names)}"
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        process.wait(timeout=30)


def _output(process: subprocess.Popen) -> str:
    if process.poll() is None:
        os.killpg(process.pid, signal.SIGTERM)
    return process.communicate(timeout=30)[0].decode(errors="replace")[-3000:]
