"""End to end, under the real sandbox: every kernel alone. A class of submissions graded in one run by one worker
(warm kernels on: the next submission's kernels start while the current one runs), where each attacker tries to
reach another kernel, and the honest students graded beside them get full marks.

- a student whose process group is signalled (``kill(0, SIGSTOP)``) after the last test: each kernel has a
  session of its own, so the signal stops only that student's kernel, never the trusted kernel or the next
  student's kernels;
- a student who leaves the answer in the kernel keyring for the next: the keyring's system calls are denied;
- a student whose kernel sends replayed, badly signed, truncated or undecodable messages on its own sockets: they
  are dropped, and the submission is graded;
- a student who fills the sandbox user's process limit while the next student's kernels start: the processes end
  with that student's kernel, and the next student is graded in full;
- with two workers, a student whose processes keep every core busy: the neighbours are graded in full.
"""

from __future__ import annotations

import pytest
from grader_fixtures.submissions import (
    CORRECT,
    POINTS,
    autograded_notebook,
    build,
    grader,
    new_term,
    sandbox_processes,
    scores,
    submit,
    table,
)

pytestmark = pytest.mark.slow

#: after its last test: a child left in the kernel's process group stops that whole group, once the kernel
#: itself has left it (which a session leader cannot do)
STOPPER = """import os, signal, subprocess, sys, time
subprocess.Popen([sys.executable, "-c", "import os, signal, time; time.sleep(0.5); os.kill(0, signal.SIGSTOP)"])
try:
    os.setpgid(0, 0)
except OSError as error:
    print("stays in its group:", error)
time.sleep(2)
"""
KEYRING = """import ctypes, os
_libc = ctypes.CDLL(None, use_errno=True)
_ADD_KEY, _KEYCTL = {"x86_64": (248, 250), "aarch64": (217, 219)}[os.uname().machine]
_USER_KEYRING, _SEARCH, _READ = -4, 10, 11
"""
#: leaves the right answer in the user's keyring
KEY_WRITER = KEYRING + '_libc.syscall(_ADD_KEY, b"user", b"answer-of-square", b"x * x", 5, _USER_KEYRING)\n'
#: answers exercise 1 from the keyring only: right only if the writer's key is readable
KEY_READER = (
    KEYRING
    + """_key = _libc.syscall(_KEYCTL, _SEARCH, _USER_KEYRING, b"user", b"answer-of-square", 0)
_buffer = ctypes.create_string_buffer(64)
_size = _libc.syscall(_KEYCTL, _READ, _key, _buffer, 64) if _key > 0 else -1
FROM_KEYRING = _buffer.raw[:_size].decode() if _size > 0 else None
print("from the keyring:", FROM_KEYRING)


def square(x):
    return eval(FROM_KEYRING, {"x": x}) if FROM_KEYRING else x + 1
"""
)
#: messages on the kernel's own output socket that the grader's client cannot accept
MALFORMED = """import time
kernel = get_ipython().kernel
session, socket = kernel.session, kernel.iopub_socket
message = session.msg("stream", {"name": "stdout", "text": "sent twice\\n"}, parent=kernel.get_parent("shell"))
frames = session.serialize(message)  # delimiter, signature, header, parent header, metadata, content
socket.send_multipart(frames)
socket.send_multipart(frames)  # replayed: the same signature a second time
socket.send_multipart([frames[0], b"0" * len(frames[1]), *frames[2:]])  # badly signed
socket.send_multipart(frames[:3])  # truncated
garbage = [b"{not json", *frames[3:]]
socket.send_multipart([frames[0], session.sign(garbage), *garbage])  # signed, but no message
time.sleep(0.5)
print("frames sent")
"""
#: in its first answer: as many processes as the sandbox user may have, kept while the notebook runs on
FILLER = """import os, time
children = 0
while True:
    try:
        pid = os.fork()
    except OSError:
        break
    if pid == 0:
        time.sleep(30)
        os._exit(0)
    children += 1
print("processes started:", children)
time.sleep(3)
"""
#: processes that keep every core busy for as long as the notebook runs
HOG = """import os, subprocess, sys
HOGS = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(2 * os.cpu_count())]
"""
STUDENTS = ["a-stopper", "b-next", "c-key-writer", "d-key-reader", "e-malformed", "f-filler", "g-after-filler"]
NEIGHBOURS = ["h-hog", "i-honest", "j-honest", "k-honest"]


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    term = new_term(tmp_path_factory.mktemp("isolation") / "term", STUDENTS)
    submit(term, "a-stopper", build(term, after={"ex3-tests": STOPPER}))
    submit(term, "b-next", build(term))
    submit(term, "c-key-writer", build(term, after={"ex1-answer": KEY_WRITER}))
    submit(term, "d-key-reader", build(term, {**CORRECT, "ex1-answer": KEY_READER}))
    submit(term, "e-malformed", build(term, after={"ex1-answer": MALFORMED}))
    submit(term, "f-filler", build(term, after={"ex1-answer": FILLER}))
    submit(term, "g-after-filler", build(term))
    result = grader(term, "autograde", "--timeout", "5", "--quiet", "--workers", "1")
    yield term, result


def test_every_submission_is_graded(graded):
    term, result = graded
    assert result.returncode == 0, result.stdout + result.stderr
    assert {student: status for student, (status, _) in table(result.stdout).items()} == dict.fromkeys(
        STUDENTS, "graded"
    ), result.stdout


def test_a_student_who_stops_its_process_group_stops_only_its_own_kernel(graded):
    term, result = graded
    assert scores(term)["b-next"] == POINTS  # the next student, graded in full by kernels started meanwhile
    assert scores(term)["a-stopper"] == POINTS  # its tests ran before it stopped its own kernel
    assert sandbox_processes() == [], result.stderr[-3000:]


def test_no_answer_passes_through_the_kernel_keyring(graded):
    term, _ = graded
    assert scores(term)["c-key-writer"] == POINTS
    assert scores(term)["d-key-reader"] == {**POINTS, "ex1-tests": 0}
    reader = autograded_notebook(term, "d-key-reader")
    assert any(
        "from the keyring: None" in output.get("text", "")
        for cell in reader.cells
        for output in cell.get("outputs", [])
    )


def test_malformed_messages_from_a_kernel_are_dropped_and_the_submission_is_graded(graded):
    term, _ = graded
    assert scores(term)["e-malformed"] == POINTS
    notebook = autograded_notebook(term, "e-malformed")
    sender = next(cell for cell in notebook.cells if "frames sent" in cell.source)
    assert any("frames sent" in output.get("text", "") for output in sender.outputs), sender.outputs


def test_a_student_who_fills_the_process_limit_costs_the_next_student_nothing(graded):
    term, _ = graded
    assert scores(term)["g-after-filler"] == POINTS
    assert scores(term)["f-filler"] == POINTS


@pytest.fixture(scope="module")
def neighbours(tmp_path_factory):
    term = new_term(tmp_path_factory.mktemp("neighbours") / "term", NEIGHBOURS)
    submit(term, "h-hog", build(term, after={"ex1-answer": HOG}))
    for student in NEIGHBOURS[1:]:
        submit(term, student, build(term))
    result = grader(term, "autograde", "--quiet", "--workers", "2")
    yield term, result


def test_a_student_who_keeps_every_core_busy_costs_the_neighbours_nothing(neighbours):
    term, result = neighbours
    assert result.returncode == 0, result.stdout + result.stderr
    assert scores(term) == dict.fromkeys(NEIGHBOURS, POINTS)
    assert sandbox_processes() == [], result.stderr[-3000:]  # the busy processes ended with their kernel
