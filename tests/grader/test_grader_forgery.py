"""Grades a student cannot forge: attacks on the trusted-kernel grader, each graded end to end in the sandbox.

One class of a minitf notebook with six one-point exercises is graded in one run (one worker, so the students
are graded one after another). Every cheat targets one exercise and must score 0 there while its other answers,
and the honest control submission, get their marks. Covered: tf.function properties that only the student's
kernel knew (a patched tracing count, a decorator above @tf.function, a name rebound through globals(), a
definition that never runs, a returned object that claims to be a tf.function), a reply too large to decode,
a call that spends the test's time, a loop of requests, System V shared memory left for the next student,
files left in the grading folder and a world-readable file of the host outside the allow-list. The grader's
memory is sampled during the run and must stay bounded.
"""

from __future__ import annotations

import contextlib
import ctypes
import json
import os
import re
import threading
import time
from pathlib import Path

import nbformat
import pytest
from grader_fixtures.submissions import grader, nbgrader_meta, one_notebook_class
from nbformat.v4 import new_code_cell

from grader.sandbox.kernel_client import MAX_MESSAGE_BYTES
from grader.trusted.tests import decode_reply

ASSIGNMENT = "forgery"
SHARED_MEMORY_KEY = 0x4752  # the System V key the leaking student writes its answer under
SETUP = "import numpy as np\nimport minitf as tf"
SIGNED = "@tf.function(input_signature=[tf.TensorSpec([None], tf.float32)])\ndef double(x):\n    return 2 * x"
ANSWERS = {
    "double-answer": SIGNED,
    "maker-answer": "def make_double():\n"
    + "\n".join("    " + line for line in SIGNED.replace("def double", "def inner").splitlines())
    + "\n    return inner",
    "answer-answer": "answer = tf.constant(42)",
    "add-answer": "def add(a, b):\n    return a + b",
    "settle-answer": "def settle(x):\n    return x / 2",
    "last-answer": 'last = "done"',
}
TESTS = {
    "double-tests": (
        'assert hasattr(double, "get_concrete_function"), "double should be a tf.function"\n'
        "for n in (2, 3, 5):\n"
        "    result = double(tf.constant(np.arange(n, dtype=np.float32)))\n"
        '    assert np.allclose(result.numpy(), 2 * np.arange(n)), f"double is wrong for length {n}"\n'
        'assert double.experimental_get_tracing_count() == 1, "give double an input_signature: one trace"'
    ),
    "maker-tests": (
        "made = make_double()\n"
        'assert hasattr(made, "get_concrete_function"), "make_double should return a tf.function"\n'
        "for n in (2, 4):\n"
        '    assert np.allclose(made(tf.constant(np.ones(n, np.float32))).numpy(), 2.0), "made should double"\n'
        'assert made.experimental_get_tracing_count() == 1, "the function make_double returns should trace once"'
    ),
    "answer-tests": 'assert int(answer.numpy()) == 42, "answer should be 42"',
    "add-tests": 'for k in range(6):\n    assert add(k, 1) == k + 1, f"add({k}, 1) should be {k + 1}"',
    "settle-tests": "x = 1.0\nwhile x > 1e-3:\n    x = settle(x)\nassert x <= 1e-3",
    "last-tests": 'assert last == "done"',
}
CLAIMS = """class Claims:
    def __init__(self, function):
        self.function = function
    def __call__(self, x):
        return self.function(x)
    def get_concrete_function(self, *args):
        return None
    def experimental_get_tracing_count(self):
        return 1
"""
UNSIGNED = "@tf.function\ndef double(x):\n    return 2 * x"
SHARED_MEMORY = f"""import ctypes
libc = ctypes.CDLL(None, use_errno=True)
libc.shmat.restype = ctypes.c_void_p
libc.shmat.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_int]
segment = libc.shmget({SHARED_MEMORY_KEY}, 64, {{flags}})
"""
WRITES_SHARED_MEMORY = SHARED_MEMORY.format(flags=0o1666) + (
    "ctypes.memmove(libc.shmat(segment, None, 0), b'42\\0', 3)\nanswer = tf.constant(42)"
)
READS_SHARED_MEMORY = SHARED_MEMORY.format(flags=0) + (
    "answer = tf.constant(int(ctypes.string_at(libc.shmat(segment, None, 0)))) if segment >= 0 else None"
)
LEAVES_FILES = """for number in range(12):
    try:
        with open(f"leftover-{number}.bin", "wb") as handle:
            for _ in range(60):
                handle.write(bytes(1024 * 1024))
    except OSError:
        break
last = "done"
"""
CHEATS = {
    # the engine's count is replaced on the object (by a helper, so the source still shows a tf.function); the
    # trusted kernel counts the traces it was sent
    "count_patched": {
        "double-answer": "def patch(f):\n    f.experimental_get_tracing_count = lambda: 1\n"
        "    return f\n" + UNSIGNED + "\npatch(double)"
    },
    "outer_decorator": {"double-answer": CLAIMS + "@Claims\n" + UNSIGNED},
    "rebinds": {"double-answer": SIGNED + "\n" + CLAIMS + "globals()['double'] = Claims(tf.function(lambda x: 2 * x))"},
    "dead_code": {
        "double-answer": CLAIMS
        + "double = Claims(tf.function(lambda x: 2 * x))\nif False:\n"
        + "\n".join("    " + line for line in SIGNED.splitlines())
    },
    "returned_liar": {"maker-answer": CLAIMS + "def make_double():\n    return Claims(tf.function(lambda x: 2 * x))"},
    # the channel's reply for `answer` is 400 MB: the grader's socket drops it unread
    "huge_reply": {
        "answer-answer": "answer = tf.constant(42)\nimport sys\n"
        "_channel = sys.modules['__grader_channel__.student']\n_real_serve = _channel.serve\n"
        "_channel.serve = lambda request: 'A' * 400_000_000 "
        "if '\"answer\"' in request else _real_serve(request)"
    },
    "slow_calls": {"add-answer": "def add(a, b):\n    import time\n    time.sleep(5)\n    return a + b"},
    "request_flood": {"settle-answer": "def settle(x):\n    return x"},
    "ipc_a_writer": {"answer-answer": WRITES_SHARED_MEMORY},
    "ipc_b_reader": {"answer-answer": READS_SHARED_MEMORY},
    "leaves_files": {"last-answer": LEAVES_FILES},
    "reads_host_file": {"answer-answer": "answer = tf.constant(int(open({secret!r}).read()))"},
}
CHEATED = {
    "count_patched": "double-tests",
    "outer_decorator": "double-tests",
    "rebinds": "double-tests",
    "dead_code": "double-tests",
    "returned_liar": "maker-tests",
    "huge_reply": "answer-tests",
    "slow_calls": "add-tests",
    "request_flood": "settle-tests",
    "ipc_b_reader": "answer-tests",
    "reads_host_file": "answer-tests",
}


def exercise_cells() -> list:
    cells = [new_code_cell(SETUP, metadata=nbgrader_meta("setup", locked=True))]
    for answer, source in ANSWERS.items():
        test = answer.replace("-answer", "-tests")
        cells.append(
            new_code_cell(
                f"### BEGIN SOLUTION\n{source}\n### END SOLUTION", metadata=nbgrader_meta(answer, solution=True)
            )
        )
        cells.append(new_code_cell(TESTS[test], metadata=nbgrader_meta(test, grade=True, locked=True, points=1)))
    return cells


def _descendants(root: int) -> list[int]:
    children: dict[int, list[int]] = {}
    for entry in filter(str.isdigit, os.listdir("/proc")):
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        children.setdefault(int(stat.rsplit(")", 1)[1].split()[1]), []).append(int(entry))
    found, queue = [], [root]
    while queue:
        pid = queue.pop()
        found.append(pid)
        queue += children.get(pid, [])
    return found


def _grader_rss_mb(root: int) -> dict[int, float]:
    """Resident size of each process of the grader (root's; the kernels run as the sandbox user)."""
    sizes = {}
    for pid in _descendants(root):
        try:
            status = dict(line.split(":", 1) for line in Path(f"/proc/{pid}/status").read_text().splitlines())
        except (OSError, ValueError):
            continue
        if int(status["Uid"].split()[0]) == 0 and "VmRSS" in status:
            sizes[pid] = int(status["VmRSS"].split()[0]) / 1024
    return sizes


def _shared_memory_keys() -> set[int]:
    lines = Path("/proc/sysvipc/shm").read_text().splitlines()[1:]
    return {int(line.split()[0]) for line in lines if line.strip()}


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    root = tmp_path_factory.mktemp("forgery")
    secret = Path("/var/lib") / f"course-instructor-notes-{os.getpid()}.txt"  # world-readable, outside the view
    secret.write_text("42")
    secret.chmod(0o644)
    submissions = {"honest": ANSWERS}
    for student, answers in CHEATS.items():
        submissions[student] = {
            **ANSWERS,
            **{k: v.replace("{secret!r}", repr(str(secret))) for k, v in answers.items()},
        }
    term = one_notebook_class(root, ASSIGNMENT, exercise_cells(), submissions)
    peak: dict[int, float] = {}
    named: dict[int, str] = {}
    done = threading.Event()

    def sample() -> None:
        while not done.is_set():
            for pid, size in _grader_rss_mb(os.getpid()).items():
                if pid != os.getpid():
                    if size > peak.get(pid, 0.0):
                        with contextlib.suppress(OSError):  # what it was when it was largest (for the message)
                            named[pid] = (
                                Path(f"/proc/{pid}/cmdline")
                                .read_bytes()
                                .replace(b"\0", b" ")[:160]
                                .decode(errors="replace")
                            )
                    peak[pid] = max(size, peak.get(pid, 0.0))
            time.sleep(0.1)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    started = time.monotonic()
    try:
        result = grader(term, "autograde", "--timeout", "20", "--workers", "1", "--quiet", timeout=1500)
    finally:
        done.set()
        sampler.join()
        secret.unlink()
    assert result.returncode == 0, result.stdout + result.stderr
    table = {line.split()[0]: line.split()[3] for line in result.stdout.splitlines()[1:-1]}
    print(
        f"graded {len(table)} submissions in {time.monotonic() - started:.0f} s; grader processes' peak resident "
        f"size: {max(peak.values()):.0f} MB (largest of {len(peak)} processes)"
    )
    return term, table, {f"{pid} {named.get(pid, '?')}": size for pid, size in peak.items()}


def outputs(term, student: str, grade_id: str) -> str:
    nb = nbformat.read(term.autograded / student / ASSIGNMENT / f"{ASSIGNMENT}.ipynb", as_version=4)
    cell = next(c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") == grade_id)
    return json.dumps([dict(o) for o in cell.outputs])


def test_decode_reply_takes_only_a_quoted_base64_string():
    assert decode_reply("'eyJhIjogMX0='") == '{"a": 1}'
    too_long = "'" + "A" * MAX_MESSAGE_BYTES + "'"
    for forged in ('"eyJhIjogMX0="', "'eyJh IjogMX0='", "'{\"a\": 1}'", "('x' * 10)", too_long):
        assert decode_reply(forged) is None


@pytest.mark.slow
def test_honest_work_gets_full_marks_and_every_cheat_loses_exactly_its_exercise(graded):
    term, table, _ = graded
    expected = {"honest": "6/6", "ipc_a_writer": "6/6", "leaves_files": "6/6"}
    expected |= {student: "5/6" for student in CHEATED}
    assert table == expected


@pytest.mark.slow
def test_a_cheat_fails_the_exercise_it_targets(graded):
    from nbgrader.api import Gradebook

    term, _, _ = graded
    with Gradebook(term.db_url) as gradebook:
        for student, grade_id in CHEATED.items():
            notebook = gradebook.find_submission_notebook(ASSIGNMENT, ASSIGNMENT, student)
            assert {g.name: g.score for g in notebook.grades}[grade_id] == 0, student


@pytest.mark.slow
def test_the_grader_stays_small_while_a_kernel_sends_a_400_mb_reply(graded):
    term, _, peak = graded
    largest = sorted(peak.items(), key=lambda item: -item[1])[:3]
    assert max(peak.values()) < 600, f"the largest grader processes' peak resident sizes (MB): {largest}"
    assert "time limit" in outputs(term, "huge_reply", "answer-tests")


@pytest.mark.slow
def test_the_students_time_in_calls_counts_against_the_tests_one_budget(graded):
    term, _, _ = graded
    assert "did not finish within its time limit (20 s" in outputs(term, "slow_calls", "add-tests")


@pytest.mark.slow
def test_a_test_that_keeps_asking_is_stopped_by_the_request_cap_or_the_budget(graded):
    term, _, _ = graded
    text = outputs(term, "request_flood", "settle-tests")
    assert re.search(r"more than 1000 times|did not finish within its time limit", text), text
    print("request_flood stopped by", "the request cap" if "more than 1000 times" in text else "the time budget")


@pytest.mark.slow
def test_a_patched_tracing_count_is_not_what_the_test_sees(graded):
    term, _, _ = graded
    assert "one trace" in outputs(term, "count_patched", "double-tests")  # it got past hasattr: counted traces


@pytest.mark.slow
def test_shared_memory_of_one_student_is_gone_for_the_next_and_for_the_host(graded):
    assert SHARED_MEMORY_KEY not in _shared_memory_keys()
    libc = ctypes.CDLL(None, use_errno=True)
    assert libc.shmget(SHARED_MEMORY_KEY, 0, 0) == -1


@pytest.mark.slow
def test_files_a_kernel_writes_stay_in_its_scratch_folder_and_are_gone_after_grading(graded):
    term, _, _ = graded
    folder = term.autograded / "leaves_files" / ASSIGNMENT
    left = sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())
    assert not list(folder.glob("leftover-*")) and left < 2 * 1024 * 1024, sorted(folder.iterdir())
