"""Warm kernels (grader/sandbox/pool.py and kernel_template.py): the same grades as fresh kernels, and nothing one
student leaves in a kernel forked from the worker's template, or started while that student was graded, reaches
the next student."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import socket
import sys
import threading
import time
from pathlib import Path
from queue import Empty

import nbformat
import pytest
from grader_fixtures.submissions import (
    ASSIGNMENT,
    CORRECT,
    FIXTURE_SOLUTIONS,
    NOTEBOOK,
    build,
    gradebook_rows,
    grader,
    sandbox_processes,
    table,
)

from grader.commands.collect import import_roster
from grader.paths import REPO, Term, make_term
from grader.records.gradebook import ensure_assignment
from grader.records.termstate import done_marker
from grader.sandbox.pool import folder_digest, following, read_replies

sys.path.insert(0, str(REPO / "grader" / "sandbox"))  # the template is a standalone script beside launch.py
import kernel_template  # needs the path above

#: the folders a kernel can write to: its temporary folders, home, working folder and socket folder
FOLDERS = """
import json, os
from ipykernel.connect import get_connection_file
FOLDERS = ["/tmp", "/dev/shm", os.path.expanduser("~"), ".",
           os.path.dirname(json.load(open(get_connection_file())).get("ip", "")) or "."]
"""
#: an honest answer that also leaves something behind in every place a later kernel could look
PLANTER = (
    CORRECT["ex1-answer"]
    + FOLDERS
    + """
import builtins, subprocess, sys, types
import numpy as np
import minitf as tf
builtins.LEFT_BY_A = np.LEFT_BY_A = tf.LEFT_BY_A = 1
sys.modules["left_by_a"] = types.ModuleType("left_by_a")
os.environ["LEFT_BY_A"] = "1"
os.putenv("LEFT_BY_A", "1")
for folder in FOLDERS:
    with open(os.path.join(folder, "left-by-a"), "w") as note:
        note.write("1")
subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)", "left-by-a"], start_new_session=True)
"""
)
#: a student who hands in a matplotlibrc: read when matplotlib is imported, so that kernel does not come from the
#: template (which imported matplotlib already)
STYLED = """
import matplotlib.pyplot as plt
print("dpi", plt.rcParams["figure.dpi"])
"""
#: an answer that is right only if none of it is there (so the victim scores full marks only when nothing leaked),
#: nor the hidden tests (nbgrader's copy of the notebook being graded lies in the grading folder)
VICTIM = (
    FOLDERS
    + """import builtins, glob, sys
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
    "files": any(glob.glob(os.path.join(folder, "left-by-a")) for folder in FOLDERS),
    "processes": any(b"left-by-a" in line for line in _cmdlines()),
    "hidden tests": any("HIDDEN-CHECK" in open(path).read() for path in glob.glob("*.ipynb")),
}.items() if found]
print("left behind by the previous student:", LEFT)

import matplotlib.font_manager
import matplotlib.pyplot as plt
figure = plt.figure()
figure.text(0.5, 0.5, "drawn with a font the kernel can open")
figure.canvas.draw()
print("fonts:", sorted(os.path.basename(font.fname) for font in matplotlib.font_manager.fontManager.ttflist))


def square(x):
    return x * x if not LEFT else x + 1
"""
)


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


def test_the_next_notebook_is_the_next_in_nbgraders_sorted_order_and_wraps_only_when_asked():
    names = ["02-b", "01-a", "03-c"]
    assert following(names, "01-a") == "02-b"
    assert following(names, "03-c") is None  # the submission's last: no student's kernel to prepare
    assert following(names, "03-c", wrap=True) == "01-a"  # the next submission's first: a trusted kernel
    assert following(names, "04-unknown", wrap=True) is None


def test_a_kernel_started_early_is_keyed_to_what_its_launcher_copies_of_the_folder(tmp_path):
    folder = tmp_path / "grading"
    (folder / "data").mkdir(parents=True)
    (folder / "data" / "table.csv").write_text("1,2\n")
    (folder / "use_tensorflow.py").write_text("USE = False\n")
    first = folder_digest(folder)
    (folder / "exercises.ipynb").write_text("{}")  # notebooks are not copied into a kernel's folder
    (folder / "elsewhere").symlink_to(tmp_path)  # nor links
    assert folder_digest(folder) == first
    (folder / "use_tensorflow.py").write_text("USE = True\n")  # same size, other content
    assert folder_digest(folder) != first
    (folder / "use_tensorflow.py").write_text("USE = False\n")
    (folder / "data" / "table.csv").rename(folder / "data" / "other.csv")
    assert folder_digest(folder) != first
    (folder / "data" / "other.csv").rename(folder / "data" / "table.csv")
    (folder / "empty").mkdir()  # the launcher copies empty folders too
    assert folder_digest(folder) != first
    (folder / "empty").rmdir()
    assert folder_digest(folder) == first
    assert folder_digest(tmp_path / "gone") is None


def test_replies_sent_ahead_come_back_in_their_order_and_none_when_the_kernel_is_gone():
    queue = [{"parent_header": {"msg_id": name}, "content": {"status": "ok"}} for name in ("info", "b", "a")]

    def get_reply(timeout: float) -> dict:
        if not queue:
            time.sleep(timeout)
            raise Empty
        return queue.pop(0)

    replies = read_replies(get_reply, ["a", "b"], 5, lambda: True)
    assert [reply["parent_header"]["msg_id"] for reply in replies] == ["a", "b"]
    assert read_replies(get_reply, ["c"], 5, lambda: False) is None  # died: no wait
    assert read_replies(get_reply, ["c"], 0.2, lambda: True) is None  # hung: up to its time limit


def pool_class(root: Path) -> Term:
    """Two notebooks each (so the next notebook's student kernel starts early): right, partly wrong, blank, a
    kernel killed between answers, then a planter and its victim, in that order."""
    solutions = root / "solutions"
    shutil.copytree(FIXTURE_SOLUTIONS / ASSIGNMENT, solutions / ASSIGNMENT)
    shutil.copyfile(solutions / ASSIGNMENT / NOTEBOOK, solutions / ASSIGNMENT / "more.ipynb")
    term = make_term(root / "term", solutions)
    ensure_assignment(term, ASSIGNMENT)
    work = {
        "p1": build(term),
        "p2": build(term, {**CORRECT, "ex1-answer": "def square(x):\n    return x + 1"}),
        "p3": build(term, {}),
        "p4": build(term, after={"ex2-answer": "import os\nos._exit(3)"}),
        "pa-planter": build(term, {**CORRECT, "ex1-answer": PLANTER}),
        "pb-victim": build(term, {**CORRECT, "ex1-answer": VICTIM}),
        "pc-styled": build(term, {**CORRECT, "ex1-answer": CORRECT["ex1-answer"] + STYLED}),
    }
    (root / "roster.csv").write_text("id\n" + "".join(f"{student}\n" for student in work))
    import_roster(term, root / "roster.csv")
    for student, nb in work.items():
        folder = term.submitted / student / ASSIGNMENT
        folder.mkdir(parents=True)
        for name in (NOTEBOOK, "more.ipynb"):
            nbformat.write(nb, folder / name)
    (term.submitted / "pc-styled" / ASSIGNMENT / "matplotlibrc").write_text("figure.dpi: 42\n")
    return term


@pytest.mark.slow
def test_warm_kernels_give_the_grades_of_fresh_ones_and_leave_nothing_to_the_next_student(tmp_path):
    warm = pool_class(tmp_path)
    fresh = Term(tmp_path / "fresh", warm.solutions)
    shutil.copytree(warm.root, fresh.root)

    pooled = grader(warm, "autograde", "--quiet", "--workers", "1")
    plain = grader(fresh, "autograde", "--quiet", "--workers", "1", "--no-pool")

    assert pooled.returncode == plain.returncode == 0, pooled.stderr + plain.stderr
    assert "without the template" not in pooled.stderr, pooled.stderr
    assert table(pooled.stdout) == table(plain.stdout), pooled.stdout + plain.stdout
    assert gradebook_rows(warm) == gradebook_rows(fresh)
    assert table(pooled.stdout)["pb-victim"] == ("graded", "8/8")
    assert table(pooled.stdout)["pa-planter"] == ("graded", "8/8")
    early = {
        student: json.loads(done_marker(warm, student, ASSIGNMENT).read_text())["early_kernels"]
        for student in table(pooled.stdout)
    }
    # the worker knows its next submission: each notebook's student kernel, a submission's first included, was
    # started while the notebook before it ran (the class's first submission's first notebook excepted)
    assert early["pb-victim"] == 2 and early["p1"] == 1, early
    assert all(
        json.loads(done_marker(fresh, student, ASSIGNMENT).read_text())["early_kernels"] == 0 for student in early
    )
    for name in (NOTEBOOK, "more.ipynb"):  # both started early, while the planter's last notebook ran
        victim = (warm.autograded / "pb-victim" / ASSIGNMENT / name).read_text()
        assert "left behind by the previous student: []" in victim
        fonts = [line for line in victim.splitlines() if "fonts:" in line]
        assert fonts and fonts == [
            line
            for line in (fresh.autograded / "pb-victim" / ASSIGNMENT / name).read_text().splitlines()
            if "fonts:" in line
        ]  # the sandbox's fonts, not the host's
        assert "dpi 42.0" in (warm.autograded / "pc-styled" / ASSIGNMENT / name).read_text()
    assert sandbox_processes() == []  # the planted process ended with its kernel
