"""End to end: a class of fixture submissions, each with one attack, autograded in one run of the CLI.

Every submission gets the score its honest work deserves and nothing outside its folder is harmed.
"""

from __future__ import annotations

import copy
import json
import socket
import subprocess
import tempfile
import threading
import time
import uuid
from pathlib import Path

import pytest
from grader_fixtures.submissions import (
    CORRECT,
    POINTS,
    autograded_notebook,
    build,
    cell_outputs_text,
    grade_id,
    grader,
    new_term,
    scores,
    submit,
)

from grader.paths import REPO
from grader.sandbox.prepare import live_processes, sandbox_uids

pytestmark = pytest.mark.slow

WRONG_SQUARE = "def square(x):\n    return x + 1"
REVERSED_UNIT = "def unit(v):\n    v = np.asarray(v, dtype=float)\n    return v[::-1] / np.linalg.norm(v)"
MONKEYPATCH = "import numpy\nnumpy.testing.assert_allclose = lambda *a, **k: None\nnp.allclose = lambda *a, **k: True\n"
FORK_BOMB = """import os, time
children = 0
for _ in range(500):
    try:
        pid = os.fork()
    except OSError:
        break
    if pid == 0:
        time.sleep(600)
        os._exit(0)
    children += 1
print("forked", children)
"""
DISK_FILLER = """import os
chunk = b"0" * (16 * 1024 * 1024)
try:
    with open("big.bin", "wb") as handle:
        for _ in range(64):
            handle.write(chunk)
finally:
    print("wrote", os.path.getsize("big.bin"))
"""
# Cheats that beat the in-kernel guard; the verdicts now come from a kernel where no student code runs.
RESULT_HOOK = """ip = get_ipython()
ip.events.register("pre_run_cell", lambda info: ip.displayhook(1))
ip.events.register("post_run_cell", lambda result: ip.displayhook(1))
"""
LAUNCHER_SHADOW = """import os
with open("ipykernel_launcher.py", "w") as handle:
    handle.write(
        "import sys, runpy, numpy, numpy.testing\\n"
        "numpy.allclose = lambda *a, **k: True\\n"
        "numpy.testing.assert_allclose = lambda *a, **k: None\\n"
        "sys.path.pop(0)\\n"
        "runpy.run_module('ipykernel_launcher', run_name='__main__')\\n"
    )
os._exit(0)
"""
FAKE_NUMPY = """import types, numpy
fake = types.ModuleType("numpy")
fake.__dict__.update(numpy.__dict__)
fake.allclose = lambda *a, **k: True
fake.testing = types.SimpleNamespace(assert_allclose=lambda *a, **k: None)
np = fake
"""
ALWAYS_EQUAL = """class Total:
    def __eq__(self, other):
        return True
    def __repr__(self):
        return "45"
total = Total()
"""
GUARD_REPLACED = """import sys
sys.modules["__grader_guard__"].restore = lambda: []
np.allclose = lambda *a, **k: True
"""
HISTORY_LEAK = """print("\\n".join(In))
print([entry for _, _, entry in get_ipython().history_manager.get_range(raw=True)])
"""
HUGE_PRINT = 'print("x" * 50_000_000)'
STUDENTS = [
    "absent",
    "disk_filler",
    "fork_bomb",
    "deletes_helper",
    "deletes_test",
    "edits_test",
    "honest",
    "infinite_loop",
    "memory_bomb",
    "monkeypatch",
    "os_exit_in_test",
    "os_exit_midway",
    "redefines_helper",
    "stubborn_loop",
    "sys_exit",
    "broken",
    "zsnoop",
    "result_hook",
    "launcher_shadow",
    "fake_numpy",
    "shadows_bool",
    "always_equal",
    "guard_replaced",
    "history_leak",
    "huge_print",
    "copies_test",
]


class Listener:
    """A TCP server on the grading machine's loopback that no sandboxed kernel should reach."""

    def __init__(self) -> None:
        self.server = socket.create_server(("127.0.0.1", 0))
        self.server.settimeout(0.5)
        self.port = self.server.getsockname()[1]
        self.connections = 0
        self.running = True
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        while self.running:
            try:
                connection, _ = self.server.accept()
            except OSError:
                continue
            self.connections += 1
            connection.close()

    def stop(self) -> None:
        self.running = False
        self.thread.join()
        self.server.close()


def snoop_code(term, listener: Listener, marker: str) -> str:
    """Student code that tries to read secrets, write outside its folder, phone home and leave a process."""
    reads = {
        "solutions": str(term.solutions / "fixture-basics" / "exercises.ipynb"),
        "gradebook": str(term.gradebook),
        "other_submission": str(term.submitted / "honest" / "fixture-basics" / "exercises.ipynb"),
        "other_autograded": str(term.autograded / "honest" / "fixture-basics" / "exercises.ipynb"),
        "repository": str(REPO / "pyproject.toml"),
        "root_home": "/root",
    }
    writes = {
        "term_root": str(term.root / f"{marker}.txt"),
        "other_student": str(term.submitted / "honest" / f"{marker}.txt"),
        "tmp": f"/tmp/{marker}.txt",
        "repository": str(REPO / f"{marker}.txt"),
    }
    return f"""
import json, os, socket, subprocess
loot = {{"uid": os.getuid()}}
for name, path in {reads!r}.items():
    try:
        if os.path.isdir(path):
            loot[name] = "LISTED " + ",".join(os.listdir(path))
        else:
            with open(path, "rb") as handle:
                loot[name] = "READ %d bytes" % len(handle.read())
    except OSError as error:
        loot[name] = "denied " + type(error).__name__
for name, path in {writes!r}.items():
    try:
        with open(path, "w") as handle:
            handle.write("pwned")
        loot["write_" + name] = "WROTE"
    except OSError as error:
        loot["write_" + name] = "denied " + type(error).__name__
try:
    socket.create_connection(("127.0.0.1", {listener.port}), timeout=3).close()
    loot["network"] = "CONNECTED"
except OSError as error:
    loot["network"] = "denied " + type(error).__name__
subprocess.Popen(["sleep", "600"], start_new_session=True)
print("LOOT", json.dumps(loot))
"""


def with_copied_test(nb, name: str, after: str):
    """A student pasted a copy of a test cell (nbgrader metadata and all) below the cell ``after``."""
    original = next(c for c in nb.cells if grade_id(c) == name)
    pasted = copy.deepcopy(original)
    pasted.id = "pasted-copy"
    place = next(i for i, c in enumerate(nb.cells) if grade_id(c) == after)
    nb.cells.insert(place + 1, pasted)
    return nb


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    root = tmp_path_factory.mktemp("attacks") / "term"
    term = new_term(root, [s for s in STUDENTS if s != "zz-unknown"])
    listener = Listener()
    marker = f"grader-pwned-{uuid.uuid4().hex[:8]}"
    answers = dict(CORRECT)
    submit(term, "honest", build(term))
    submit(term, "edits_test", build(term, {**answers, "ex1-answer": WRONG_SQUARE}, edit={"ex1-tests": "pass"}))
    submit(term, "deletes_test", build(term, {**answers, "ex1-answer": WRONG_SQUARE}, delete=("ex1-tests",)))
    submit(
        term,
        "deletes_helper",
        build(
            term,
            {**answers, "ex2-answer": REVERSED_UNIT},
            delete=("helpers",),
            after={"ex2-answer": "def same_values(actual, expected):\n    return True"},
        ),
    )
    submit(
        term,
        "redefines_helper",
        build(
            term, {**answers, "ex2-answer": REVERSED_UNIT}, after={"ex2-answer": "same_values = lambda *a, **k: True"}
        ),
    )
    submit(
        term,
        "monkeypatch",
        build(
            term,
            {
                **answers,
                "ex1-answer": "def square(x):\n    return 9 if np.isscalar(x) else x",
                "ex2-answer": "def unit(v):\n    return np.asarray(v, dtype=float)",
            },
            after={"ex1-answer": MONKEYPATCH},
        ),
    )
    endless = "def square(x):\n    while True:\n        pass"
    submit(term, "infinite_loop", build(term, {**answers, "ex1-answer": endless}))
    submit(
        term,
        "stubborn_loop",
        build(
            term,
            {
                **answers,
                "ex1-answer": (
                    "def square(x):\n    import signal\n    signal.signal(signal.SIGINT, signal.SIG_IGN)\n"
                    "    while True:\n        pass"
                ),
            },
        ),
    )
    submit(
        term,
        "memory_bomb",
        build(
            term, {**answers, "ex1-answer": ("def square(x):\n    hoard = bytearray(64 * 1024**3)\n    return x * x")}
        ),
    )
    submit(term, "sys_exit", build(term, after={"ex1-answer": "import sys\nsys.exit('bye')"}))
    dies = "def unit(v):\n    import os\n    os._exit(0)"
    submit(term, "os_exit_in_test", build(term, {**answers, "ex2-answer": dies}))
    submit(term, "os_exit_midway", build(term, after={"ex1-answer": "import os\nos._exit(1)"}))
    submit(term, "zsnoop", build(term, after={"ex3-answer": snoop_code(term, listener, marker)}))
    submit(term, "fork_bomb", build(term, after={"ex3-answer": FORK_BOMB}))
    submit(term, "disk_filler", build(term, after={"ex3-answer": DISK_FILLER}))
    submit(term, "broken", '{"cells": [')
    submit(term, "mallory", build(term))  # not on the roster
    submit(term, "honest", build(term), assignment="no-such-assignment")
    (term.submitted / "absent" / "fixture-basics").mkdir(parents=True)
    submit(term, "result_hook", build(term, {}, after={"setup": RESULT_HOOK}))
    submit(
        term,
        "launcher_shadow",
        build(term, {**answers, "ex2-answer": REVERSED_UNIT}, after={"ex1-answer": LAUNCHER_SHADOW}),
    )
    submit(term, "fake_numpy", build(term, {**answers, "ex2-answer": REVERSED_UNIT}, after={"ex1-answer": FAKE_NUMPY}))
    submit(
        term,
        "shadows_bool",
        build(term, {**answers, "ex2-answer": REVERSED_UNIT}, after={"ex1-answer": "bool = lambda value: True"}),
    )
    submit(term, "always_equal", build(term, {**answers, "ex3-answer": ALWAYS_EQUAL}))
    submit(
        term,
        "guard_replaced",
        build(term, {**answers, "ex2-answer": REVERSED_UNIT}, after={"ex1-answer": GUARD_REPLACED}),
    )
    submit(term, "history_leak", build(term, after={"ex3-tests": HISTORY_LEAK}))
    submit(term, "huge_print", build(term, after={"ex1-answer": HUGE_PRINT}))
    submit(term, "copies_test", with_copied_test(build(term), "ex1-tests", after="ex1-tests"))
    result = grader(term, "autograde", "--timeout", "5", "--quiet")
    listener.stop()
    yield term, result, listener, marker


def test_every_submission_is_graded_or_reported_and_the_run_finishes(graded):
    term, result, _, _ = graded
    assert result.returncode == 1, result.stderr  # some submissions are bad input
    lines = {line.split()[0] + " " + line.split()[1]: line for line in result.stdout.splitlines()[1:-1]}
    assert "unknown student 'mallory'" in lines["mallory fixture-basics"]
    assert "not a readable notebook" in lines["broken fixture-basics"]
    assert "unknown assignment 'no-such-assignment'" in lines["honest no-such-assignment"]
    assert "sandbox: kernels run as user 'grader-sandbox'" in result.stderr


def test_honest_work_gets_full_marks_even_with_tensorflow_log_lines_on_stderr(graded):
    term = graded[0]
    assert scores(term)["honest"] == POINTS


def test_a_missing_notebook_scores_zero(graded):
    assert scores(graded[0])["absent"] == {name: 0 for name in POINTS}


def test_editing_a_test_cell_does_not_help(graded):
    term = graded[0]
    assert scores(term)["edits_test"] == {**POINTS, "ex1-tests": 0}
    assert "square(3) should be 9" in "".join(c.source for c in autograded_notebook(term, "edits_test").cells)


def test_deleting_a_test_cell_does_not_help_it_is_restored_and_fails(graded):
    term = graded[0]
    assert scores(term)["deletes_test"] == {**POINTS, "ex1-tests": 0}
    assert "The grader restored this cell" in "".join(c.source for c in autograded_notebook(term, "deletes_test").cells)


def test_deleting_and_replacing_a_helper_does_not_help(graded):
    assert scores(graded[0])["deletes_helper"] == {**POINTS, "ex2-tests": 0}


def test_redefining_a_helper_does_not_help(graded):
    assert scores(graded[0])["redefines_helper"] == {**POINTS, "ex2-tests": 0}


def test_monkeypatching_numpy_does_not_help_and_the_feedback_shows_the_real_failure(graded):
    term = graded[0]
    assert scores(term)["monkeypatch"] == {**POINTS, "ex1-tests": 0, "ex2-tests": 0}
    text = cell_outputs_text(autograded_notebook(term, "monkeypatch"), "ex1-tests")
    assert "square must work element by element on arrays" in text and "ACTUAL: array([0., 1., 2., 3.])" in text


def test_an_infinite_loop_costs_only_its_test(graded):
    term = graded[0]
    assert scores(term)["infinite_loop"] == {**POINTS, "ex1-tests": 0}
    assert "CellTimeoutError" in cell_outputs_text(autograded_notebook(term, "infinite_loop"), "ex1-tests")


def test_a_loop_that_ignores_interrupts_costs_only_its_test(graded):
    assert scores(graded[0])["stubborn_loop"] == {**POINTS, "ex1-tests": 0}


def test_a_memory_bomb_gets_a_memory_error_and_costs_only_its_test(graded):
    term = graded[0]
    assert scores(term)["memory_bomb"] == {**POINTS, "ex1-tests": 0}
    assert "MemoryError" in cell_outputs_text(autograded_notebook(term, "memory_bomb"), "ex1-tests")


def test_a_fork_bomb_is_capped_and_costs_nothing_when_the_answers_are_right(graded):
    term = graded[0]
    assert scores(term)["fork_bomb"] == POINTS
    printed = next(c for c in autograded_notebook(term, "fork_bomb").cells if "os.fork()" in c.source).outputs
    forked = int(next(o.text for o in printed if o.get("name") == "stdout").split()[1])
    assert 0 < forked < 64  # RLIMIT_NPROC


def test_filling_the_disk_stops_at_the_file_size_limit(graded):
    term = graded[0]
    assert scores(term)["disk_filler"] == POINTS
    printed = next(c for c in autograded_notebook(term, "disk_filler").cells if "big.bin" in c.source).outputs
    written = int(next(o.text for o in printed if o.get("name") == "stdout").split()[1])
    assert 0 < written <= 64 * 1024 * 1024  # RLIMIT_FSIZE, and the working folder's 64 MB tmpfs
    assert not (term.autograded / "disk_filler" / "fixture-basics" / "big.bin").exists()  # gone with the kernel


def test_sys_exit_costs_nothing_when_the_answers_are_right(graded):
    assert scores(graded[0])["sys_exit"] == POINTS


def test_a_kernel_killed_inside_a_test_costs_only_that_test_and_says_so(graded):
    term = graded[0]
    assert scores(term)["os_exit_in_test"] == {**POINTS, "ex2-tests": 0}
    text = cell_outputs_text(autograded_notebook(term, "os_exit_in_test"), "ex2-tests")
    assert "KernelDied" in text and "kernel stopped" in text


def test_a_kernel_killed_between_answers_costs_nothing_because_earlier_cells_are_replayed(graded):
    assert scores(graded[0])["os_exit_midway"] == POINTS


def test_student_code_reads_no_secrets_writes_nothing_outside_and_has_no_network(graded):
    term, _, listener, marker = graded
    assert scores(term)["zsnoop"] == POINTS
    printed = next(c for c in autograded_notebook(term, "zsnoop").cells if "loot = " in c.source).outputs
    loot = json.loads(next(o.text for o in printed if o.get("name") == "stdout").split("LOOT ", 1)[1])
    assert loot["uid"] in sandbox_uids()  # grader-sandbox, or grader-sandbox-N of a concurrent worker
    for secret in ("solutions", "gradebook", "other_submission", "other_autograded", "repository"):
        assert loot[secret].startswith("denied"), (secret, loot[secret])
    # /root is either closed or shows only the Python installation the kernel runs from
    assert loot["root_home"].startswith("denied") or set(loot["root_home"][7:].split(",")) <= {"", ".pyenv"}
    for place in ("term_root", "other_student", "repository"):
        assert loot[f"write_{place}"].startswith("denied"), (place, loot[f"write_{place}"])
    assert loot["network"].startswith("denied") and listener.connections == 0
    leftovers = [
        term.root / f"{marker}.txt",
        term.submitted / "honest" / f"{marker}.txt",
        Path(f"/tmp/{marker}.txt"),
        REPO / f"{marker}.txt",
    ]
    assert [path for path in leftovers if path.exists()] == []


def test_no_process_of_the_sandbox_user_survives_grading(graded):
    survivors = [
        f"{p['Name']} (pid {p['Pid']}, {p['State']}, parent {p['PPid']})" for p in live_processes(sandbox_uids())
    ]
    assert survivors == []


def test_a_blank_notebook_with_an_event_hook_that_prints_a_result_scores_zero(graded):
    """nbgrader takes a number in an execute_result as partial credit; the hook cannot reach the tests now."""
    assert scores(graded[0])["result_hook"] == {name: 0 for name in POINTS}


def test_a_module_shadowing_the_kernel_launcher_plus_a_restart_does_not_help(graded):
    assert scores(graded[0])["launcher_shadow"] == {**POINTS, "ex2-tests": 0}


def test_a_fake_numpy_module_with_numpys_name_does_not_help(graded):
    assert scores(graded[0])["fake_numpy"] == {**POINTS, "ex2-tests": 0}


def test_a_global_that_shadows_a_builtin_does_not_help(graded):
    assert scores(graded[0])["shadows_bool"] == {**POINTS, "ex2-tests": 0}


def test_an_answer_object_that_equals_everything_does_not_pass(graded):
    assert scores(graded[0])["always_equal"] == {**POINTS, "ex3-tests": 0}


def test_replacing_the_guards_restore_function_does_not_help(graded):
    assert scores(graded[0])["guard_replaced"] == {**POINTS, "ex2-tests": 0}


def test_hidden_tests_never_reach_the_students_kernel_or_its_history(graded):
    term = graded[0]
    assert scores(term)["history_leak"] == POINTS
    notebook = autograded_notebook(term, "history_leak")
    printed = "".join(o.get("text", "") for c in notebook.cells if "history_manager" in c.source for o in c.outputs)
    assert "def unit" in printed  # the cell did print the kernel's history ...
    assert "HIDDEN-CHECK" not in printed and "square(3) should be 9" not in printed  # ... but no test code


def test_a_huge_print_is_cut_to_the_output_limit_with_a_note(graded):
    term = graded[0]
    assert scores(term)["huge_print"] == POINTS
    path = term.autograded / "huge_print" / "fixture-basics" / "exercises.ipynb"
    assert path.stat().st_size < 2_000_000
    assert "the grader cut this output here" in path.read_text()


def test_a_pasted_copy_of_a_test_cell_costs_nothing_and_is_noted(graded):
    term = graded[0]
    assert scores(term)["copies_test"] == POINTS
    notebook = autograded_notebook(term, "copies_test")
    copies = [c for c in notebook.cells if c.get("metadata", {}).get("grader", {}).get("copy_of") == "ex1-tests"]
    assert len(copies) == 1
    assert "copy of the test cell 'ex1-tests'" in "".join(o.get("text", "") for o in copies[0].outputs)


def test_feedback_shows_failures_and_messages_but_never_hidden_test_code(graded):
    term = graded[0]
    result = grader(term, "feedback", "--quiet")
    assert result.returncode == 0, result.stderr
    honest = (term.feedback / "honest" / "fixture-basics" / "exercises.html").read_text()
    monkeypatch = (term.feedback / "monkeypatch" / "fixture-basics" / "exercises.html").read_text()
    died = (term.feedback / "os_exit_in_test" / "fixture-basics" / "exercises.html").read_text()
    history = (term.feedback / "history_leak" / "fixture-basics" / "exercises.html").read_text()
    huge = term.feedback / "huge_print" / "fixture-basics" / "exercises.html"
    assert huge.stat().st_size < 3_000_000 and "the grader cut this output here" in huge.read_text()
    pasted = (term.feedback / "copies_test" / "fixture-basics" / "exercises.html").read_text()
    assert "copy of the test cell" in pasted
    for page in (honest, monkeypatch, died, history):
        assert "HIDDEN-CHECK" not in page and "BEGIN HIDDEN TESTS" not in page
        assert "hidden tests: their code is not shown" in page
    assert "Your results" in monkeypatch
    assert "square must work element by element on arrays" in monkeypatch  # the hidden assert's message
    assert "KernelDied" in died and "kernel stopped" in died


def test_report_writes_lms_csv_and_plots(graded):
    term = graded[0]
    result = grader(term, "report")
    assert result.returncode == 0, result.stderr
    rows = (term.reports / "grades.csv").read_text().splitlines()
    assert rows[0].startswith("id,first_name,last_name,email,lms_user_id,fixture-basics,fixture-basics (max)")
    honest = next(r for r in rows if r.startswith("honest,"))
    assert honest.split(",")[5:7] == ["4", "4"]
    broken = next(r for r in rows if r.startswith("broken,"))
    assert broken.split(",")[5] == ""  # not graded: left open for the LMS
    for name in ("scores.png", "pass_rates.png"):
        assert (term.reports / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_without_the_trusted_kernel_and_the_guard_the_same_cheats_would_get_full_marks(tmp_path):
    """The attacks above are real: nbgrader alone gives these submissions every point."""
    term = new_term(tmp_path / "term", ["monkeypatch", "redefines_helper"])
    submit(
        term,
        "monkeypatch",
        build(
            term,
            {
                **CORRECT,
                "ex1-answer": "def square(x):\n    return 9 if np.isscalar(x) else x",
                "ex2-answer": "def unit(v):\n    return np.asarray(v, dtype=float)",
            },
            after={"ex1-answer": MONKEYPATCH},
        ),
    )
    submit(
        term,
        "redefines_helper",
        build(
            term, {**CORRECT, "ex2-answer": REVERSED_UNIT}, after={"ex2-answer": "same_values = lambda *a, **k: True"}
        ),
    )
    result = grader(term, "autograde", "--no-guard", "--no-trusted-kernel", "--quiet")
    assert result.returncode == 0, result.stderr
    assert scores(term) == {"monkeypatch": POINTS, "redefines_helper": POINTS}


def test_a_workers_closing_sweep_ends_every_process_still_running_as_its_sandbox_user():
    """The last word after a worker's kernels are closed (grader/worker/worker.py): whatever still runs as its user,
    a direct child or an orphan handed to init, is killed, and the sweep waits until none is left."""
    from grader.sandbox.prepare import claim_slot, end_processes_of, processes_of, slot_user

    slot, handle = claim_slot()  # as a worker does: no one else runs as this slot's user while we hold it
    uid, gid = slot_user(slot)
    as_sandbox = {"user": uid, "group": gid, "extra_groups": [], "cwd": "/", "start_new_session": True}
    direct = subprocess.Popen(["sleep", "600"], **as_sandbox)
    subprocess.run(["sh", "-c", "sleep 600 >/dev/null 2>&1 &"], check=True, **as_sandbox)  # orphaned at once
    deadline = time.monotonic() + 10
    while len(processes_of(uid)) < 2 and time.monotonic() < deadline:
        time.sleep(0.01)
    assert len(processes_of(uid)) == 2
    assert end_processes_of(uid, gid) == 2
    assert processes_of(uid) == []
    assert direct.wait(timeout=10) == -9
    assert end_processes_of(uid, gid) == 0  # nothing left: nothing to do
    handle.close()


def test_a_sandbox_probe_survives_the_closing_sweep_of_another_runs_worker(tmp_path):
    """The start-up probes (isolation, imports, fonts) run as a slot's user like a worker's kernels do. A worker
    of another grading run that holds slot N ends every process of slot N's user after each notebook; a probe
    that ran as that user without holding the slot was killed with it, and autograde stopped with "the grading
    sandbox does not start on this machine" and no reason."""
    from grader.sandbox.prepare import Limits, claim_slot, end_processes_of, prepare, self_test, slot_user

    term = new_term(tmp_path / "term", ["someone"])
    prepare(term, Limits())
    slot, handle = claim_slot()  # another run's worker
    uid, gid = slot_user(slot)
    config = json.loads((term.state / "sandbox.json").read_text())
    (term.state / "sandbox.json").write_text(json.dumps({**config, "uid": uid, "gid": gid}))
    done = threading.Event()

    def sweep() -> None:
        while not done.is_set():
            end_processes_of(uid, gid)

    sweeper = threading.Thread(target=sweep)
    sweeper.start()
    try:
        seen = [self_test(term.state / "sandbox.json", Path(tempfile.mkdtemp(prefix="grader-probe-")))]
        seen += [self_test(term.state / "sandbox.json", Path(tempfile.mkdtemp(prefix="grader-probe-")))]
    finally:
        done.set()
        sweeper.join()
        handle.close()
    assert all(line.endswith(" ['lo']") and not line.startswith(f"{uid} ") for line in seen), seen


def test_the_run_sweeps_a_dead_workers_slot_but_never_a_slot_someone_holds():
    """A worker killed before its closing sweep (the run's 10 s limit on closing, a crash) leaves kernels that
    end only when their supervisors notice; the run ends them itself once the worker is gone (grader/worker/
    pools.py), unless another run has claimed the slot since: then they are that run's."""
    from grader.sandbox.prepare import claim_slot, processes_of, slot_user, sweep_slot

    slot, handle = claim_slot()  # the worker
    uid, gid = slot_user(slot)
    as_sandbox = {"user": uid, "group": gid, "extra_groups": [], "cwd": "/", "start_new_session": True}
    left = subprocess.Popen(["sleep", "600"], **as_sandbox)
    try:
        assert sweep_slot(slot) == 0 and left.poll() is None  # still held: not ours to sweep
        handle.close()  # the worker died
        assert sweep_slot(slot) == 1
        assert left.wait(timeout=10) == -9 and processes_of(uid) == []
    finally:
        left.kill()
        handle.close()
