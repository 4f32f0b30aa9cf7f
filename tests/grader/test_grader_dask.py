"""Grading on Dask: a real scheduler and two worker processes on this machine give the grades of one local worker."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
from pathlib import Path

import pytest
from grader_fixtures.submissions import grader
from test_grader_parallel import fixture_class, gradebook_rows, table

from grader.paths import REPO, Term

pytestmark = pytest.mark.slow
DASK = Path(os.environ.get("VIRTUAL_ENV", REPO / ".venv")) / "bin" / "dask"


def _dask() -> str:
    found = DASK if DASK.is_file() else shutil.which("dask")
    assert found, "dask is not installed: ./run setup installs it (the cluster extra)"
    return str(found)


@pytest.fixture
def cluster(tmp_path):
    """`dask scheduler` on the loopback and two `dask worker` processes, one thread each."""
    address_file = tmp_path / "scheduler.json"
    environment = {**os.environ, "PYTHONPATH": str(REPO)}
    logs = tmp_path / "dask.log"
    processes = [
        subprocess.Popen(
            [
                _dask(),
                "scheduler",
                "--host",
                "127.0.0.1",
                "--port",
                "0",
                "--no-dashboard",
                "--scheduler-file",
                str(address_file),
            ],
            cwd=REPO,
            env=environment,
            stdout=logs.open("a"),
            stderr=subprocess.STDOUT,
        )
    ]
    deadline = time.monotonic() + 120
    while not address_file.is_file() and time.monotonic() < deadline:
        time.sleep(0.2)
    address = json.loads(address_file.read_text())["address"]
    for _ in range(2):
        processes.append(
            subprocess.Popen(
                [
                    _dask(),
                    "worker",
                    address,
                    "--nthreads",
                    "1",
                    "--no-dashboard",
                    "--local-directory",
                    str(tmp_path / "dask-workers"),
                ],
                cwd=REPO,
                env=environment,
                stdout=logs.open("a"),
                stderr=subprocess.STDOUT,
            )
        )
    from distributed import Client

    with Client(address, timeout=60) as client:
        client.wait_for_workers(2, timeout=120)
    try:
        yield address
    finally:
        for process in reversed(processes):
            process.terminate()
        for process in processes:
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def test_two_dask_workers_give_exactly_the_grades_of_one_local_worker(tmp_path, cluster):
    local = fixture_class(tmp_path / "local")
    remote = Term(tmp_path / "remote", local.solutions)
    shutil.copytree(local.root, remote.root)

    sequential = grader(local, "autograde", "--quiet", "--workers", "1")
    distributed = grader(remote, "autograde", "--quiet", "--scheduler", cluster)

    assert "grading on the Dask workers of" in distributed.stderr
    assert sequential.returncode == distributed.returncode == 1, sequential.stderr + distributed.stderr
    assert table(distributed.stdout) == table(sequential.stdout)
    assert gradebook_rows(remote) == gradebook_rows(local)
    for student in ("p1", "p2", "p3", "p4", "p5", "p8"):
        folder = Path("autograded") / student / "fixture-basics"
        assert sorted(p.name for p in (remote.root / folder).iterdir()) == sorted(
            p.name for p in (local.root / folder).iterdir()
        )
    markers = [json.loads(p.read_text()) for p in (remote.state / "done" / "fixture-basics").glob("*.json")]
    graded_by = {m["worker"] for m in markers if m["worker"]}
    assert len(graded_by) == 2, f"both Dask workers should have graded: {graded_by}"
    assert not (remote.state / "workers").exists(), "nothing was graded locally"
