"""Warm kernels (grader/pool.py, grader/kernel_template.py): the same grades as fresh kernels, and nothing one
student leaves in a kernel forked from the worker's template reaches the next student."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import socket
import sys
import threading
from pathlib import Path

import pytest
from grader_fixtures.submissions import (
    CORRECT,
    build,
    gradebook_rows,
    grader,
    new_term,
    sandbox_processes,
    submit,
    table,
)

from grader.paths import REPO, Term

sys.path.insert(0, str(REPO / "grader"))  # the template is a standalone script beside launch.py
import kernel_template  # noqa: E402  (needs the path above)

#: an honest answer that also leaves something behind in every place a later kernel could look
PLANTER = CORRECT["ex1-answer"] + """
import builtins, os, subprocess, sys, types
import numpy as np
import minitf as tf
builtins.LEFT_BY_A = np.LEFT_BY_A = tf.LEFT_BY_A = 1
sys.modules["left_by_a"] = types.ModuleType("left_by_a")
os.environ["LEFT_BY_A"] = "1"
os.putenv("LEFT_BY_A", "1")
for folder in ("/tmp", "/dev/shm", os.path.expanduser("~"), "."):
    with open(os.path.join(folder, "left-by-a"), "w") as note:
        note.write("1")
subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)", "left-by-a"], start_new_session=True)
"""
#: an answer that is right only if none of it is there (so the victim scores 4/4 only when nothing leaked)
VICTIM = """import builtins, glob, os, sys
import numpy as np
import minitf as tf


def _cmdlines():
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            yield open(f"/proc/{pid}/cmdline", "rb").read()
        except OSError:
            pass


LEFT = [name for name, found in {
    "memory": any(hasattr(module, "LEFT_BY_A") for module in (builtins, np, tf)) or "left_by_a" in sys.modules,
    "environment": "LEFT_BY_A" in os.environ,
    "files": any(glob.glob(os.path.join(folder, "left-by-a"))
                 for folder in ("/tmp", "/dev/shm", os.path.expanduser("~"), ".")),
    "processes": any(b"left-by-a" in line for line in _cmdlines()),
}.items() if found]
print("left behind by the previous student:", LEFT)


def square(x):
    return x * x if not LEFT else x + 1
"""


def _flood(link: socket.socket, size: int) -> None:
    with contextlib.suppress(OSError):  # the reader hangs up once it has seen too much
        link.sendall(b"x" * size)


def test_a_request_is_one_bounded_json_line():
    ours, theirs = socket.socketpair()
    with ours, theirs:
        ours.sendall(json.dumps({"cwd": "/x", "extra": []}).encode() + b"\n")
        assert kernel_template._read_request(theirs) == {"cwd": "/x", "extra": []}
        flood = threading.Thread(target=_flood, args=(ours, kernel_template.MAX_REQUEST_BYTES + 70000))
        flood.start()
        with pytest.raises(OSError, match="incomplete request"):
            kernel_template._read_request(theirs)
        theirs.close()
        flood.join()


def test_a_forked_kernel_keeps_no_descriptor_of_the_template():
    ours, theirs = socket.socketpair()
    reader, writer = os.pipe()
    child = os.fork()
    if child == 0:  # pragma: no cover (the child reports through the pipe)
        kernel_template._close_inherited_descriptors()
        try:
            os.fstat(ours.fileno())
            os._exit(1)
        except OSError:
            os._exit(0)
    os.close(writer)
    _, status = os.waitpid(child, 0)
    os.close(reader)
    ours.close()
    theirs.close()
    assert os.waitstatus_to_exitcode(status) == 0


def pool_class(root: Path) -> Term:
    """Right, partly wrong, blank, a kernel killed between answers, then a planter and its victim, in that order."""
    students = ["p1", "p2", "p3", "p4", "pa-planter", "pb-victim"]
    term = new_term(root, students)
    submit(term, "p1", build(term))
    submit(term, "p2", build(term, {**CORRECT, "ex1-answer": "def square(x):\n    return x + 1"}))
    submit(term, "p3", build(term, {}))
    submit(term, "p4", build(term, after={"ex2-answer": "import os\nos._exit(3)"}))
    submit(term, "pa-planter", build(term, {**CORRECT, "ex1-answer": PLANTER}))
    submit(term, "pb-victim", build(term, {**CORRECT, "ex1-answer": VICTIM}))
    return term


@pytest.mark.slow
def test_warm_kernels_give_the_grades_of_fresh_ones_and_leave_nothing_to_the_next_student(tmp_path):
    warm = pool_class(tmp_path / "warm")
    fresh = Term(tmp_path / "fresh", warm.solutions)
    shutil.copytree(warm.root, fresh.root)

    pooled = grader(warm, "autograde", "--quiet", "--workers", "1")
    plain = grader(fresh, "autograde", "--quiet", "--workers", "1", "--no-pool")

    assert pooled.returncode == plain.returncode == 0, pooled.stderr + plain.stderr
    assert "without the template" not in pooled.stderr, pooled.stderr
    assert table(pooled.stdout) == table(plain.stdout), pooled.stdout + plain.stdout
    assert gradebook_rows(warm) == gradebook_rows(fresh)
    assert table(pooled.stdout)["pb-victim"] == ("graded", "4/4")
    assert table(pooled.stdout)["pa-planter"] == ("graded", "4/4")
    victim = (warm.autograded / "pb-victim" / "fixture-basics" / "exercises.ipynb").read_text()
    assert "left behind by the previous student: []" in victim
    assert sandbox_processes() == []  # the planted process ended with its kernel
