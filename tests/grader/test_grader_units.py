"""The grader's notebook transformations, checked on single cells."""

from __future__ import annotations

import base64
import json
import os
import re
from pathlib import Path

import numpy as np
import pytest
from nbformat import NotebookNode
from nbformat.v4 import new_code_cell, new_output

from grader.commands.collect import not_regular
from grader.records.feedback import HideHiddenTests
from grader.sandbox.guard import defined_names, imported_modules
from grader.trusted.channel import codec, student, trusted
from grader.trusted.plan import TrustedPlan, tf_function_names
from grader.worker.preprocessors import CapOutputs, DropLogNoise

TF_LINES = (
    "WARNING: All log messages before absl::InitializeLog() is called are written to STDERR\n"
    "I0000 00:00:1795990431.832919       1 port.cc:153] oneDNN custom operations are on.\n"
    "2026-11-29 21:00:00.000000: I tensorflow/core/util/port.cc:153] oneDNN custom operations are on.\n"
)


def run(preprocessor, cell):
    return preprocessor.preprocess_cell(cell, {}, 0)[0]


def test_log_noise_is_dropped_line_by_line_and_real_warnings_stay():
    cell = new_code_cell(
        "import tensorflow",
        outputs=[
            new_output("stream", name="stderr", text=TF_LINES),
            new_output("stream", name="stderr", text=TF_LINES + "UserWarning: this one is real\n"),
            new_output("stream", name="stdout", text="I0000 00:00:1.0 1 port.cc:1] stays on stdout\n"),
        ],
    )
    outputs = run(DropLogNoise(), cell).outputs
    assert [(o.name, o.text) for o in outputs] == [
        ("stderr", "UserWarning: this one is real\n"),
        ("stdout", "I0000 00:00:1.0 1 port.cc:1] stays on stdout\n"),
    ]


def test_hidden_tests_are_blanked_and_their_errors_keep_only_the_message():
    source = (
        "assert f(1) == 1, 'visible'\n### BEGIN HIDDEN TESTS\nassert f(2) == 4, 'f(2) should be 4'\n"
        "### END HIDDEN TESTS\n"
    )
    cell = new_code_cell(
        source,
        metadata={"nbgrader": {"grade": True, "grade_id": "t", "points": 1}},
        outputs=[
            NotebookNode(
                output_type="error",
                ename="AssertionError",
                evalue="f(2) should be 4",
                traceback=["----> 3 assert f(2) == 4, 'f(2) should be 4'", "AssertionError: f(2) should be 4"],
            )
        ],
    )
    hidden = run(HideHiddenTests(), cell)
    assert "f(2) == 4" not in hidden.source and "assert f(1) == 1, 'visible'" in hidden.source
    assert hidden.outputs[0].traceback == ["AssertionError: f(2) should be 4"]


def test_cells_without_hidden_tests_keep_their_full_traceback():
    cell = new_code_cell(
        "assert False, 'x'",
        outputs=[
            NotebookNode(
                output_type="error", ename="AssertionError", evalue="x", traceback=["line 1", "AssertionError: x"]
            )
        ],
    )
    assert run(HideHiddenTests(), cell).outputs[0].traceback == ["line 1", "AssertionError: x"]


def test_names_and_imports_of_a_read_only_cell_are_found():
    source = (
        "import numpy as np\nimport os.path\nfrom math import sqrt as root\ndef helper(): pass\nx, (y, z) = 1, (2, 3)"
    )
    assert defined_names(source) == ["np", "os", "root", "helper", "x", "y", "z"]
    assert imported_modules(source) == ["numpy", "os.path", "math"]
    assert defined_names("def broken(:") == []


# ---- the data-only channel and the trusted plan (no kernels needed) --------------------------------------


def roundtrip(value):
    """Encode as the student's kernel does, send as JSON text, rebuild as the trusted kernel does."""
    data = json.loads(json.dumps(codec.Encoder(student.keep).encode(value)))
    return codec.Decoder(trusted.decode_special).decode(data)


def test_values_cross_as_data_and_are_rebuilt_with_their_types():
    import minitf as tf

    scalar = roundtrip(tf.constant(42))
    assert isinstance(scalar, tf.Tensor) and scalar.dtype == tf.int32 and scalar.shape == () and scalar.numpy() == 42
    variable = roundtrip(tf.Variable([1.5, 2.5], name="W1"))
    assert isinstance(variable, tf.Variable) and variable.name == "W1:0" and variable.numpy().tolist() == [1.5, 2.5]
    assert type(roundtrip(np.int64(3))) is np.int64 and type(roundtrip(3)) is int
    nested = roundtrip((1, [2.0, float("inf")], {"shape": (2, 3), "dtype": "float32"}, {4}, None, True))
    assert nested == (1, [2.0, float("inf")], {"shape": (2, 3), "dtype": "float32"}, {4}, None, True)
    assert roundtrip(tf.float32) == tf.float32
    assert roundtrip(np.arange(6).reshape(2, 3)).tolist() == [[0, 1, 2], [3, 4, 5]]


def test_objects_that_are_not_data_become_proxies_that_answer_no_questions_themselves():
    class Liar(int):
        def __eq__(self, other):
            return True

    proxy = roundtrip(Liar(45))
    assert isinstance(proxy, trusted.Remote) and not isinstance(proxy, int)
    assert proxy != 45 and type(proxy).__name__ == "Liar"
    namespace = {"gone": "a value from an earlier test"}
    encoded = json.loads(json.dumps(codec.Encoder(student.keep).encode(lambda x: x)))
    trusted.bind(namespace, {"fast": encoded}, {"fast": False}, ["fast", "gone"])
    assert callable(namespace["fast"]) and "gone" not in namespace
    assert not hasattr(namespace["fast"], "get_concrete_function")  # the source said: not a tf.function


def test_every_request_the_trusted_side_sends_is_a_row_of_the_student_sides_table():
    sent = set(re.findall(r'"op": "(\w+)"', Path(trusted.__file__).read_text(encoding="utf-8")))
    assert sent and sent <= set(student.REQUESTS), f"requests without an answer: {sent - set(student.REQUESTS)}"
    reply = json.loads(base64.b64decode(student.serve(json.dumps({"op": "exec", "id": 0}))))
    assert reply == {"raised": "ChannelError", "message": "unknown request 'exec'"}


@pytest.mark.parametrize(
    "data",
    [
        {"$": "ndarray", "dtype": "|O", "shape": [1], "b64": ""},
        {"$": "ndarray", "dtype": "<f8", "shape": [2], "b64": "AAAAAAAA8D8="},
        {"$": "float", "v": "__import__('os')"},
        {"$": "tensor", "engine": "os", "tfdtype": "float32", "dtype": "<f4", "shape": [], "b64": ""},
        ["not", "tagged"],
        {"$": "lent", "id": 0, "callable": True},
        {"$": "lambda", "src": "lambda: __import__('os')"},
    ],
)
def test_the_trusted_side_refuses_anything_but_plain_data(data):
    with pytest.raises((codec.ChannelError, KeyError, ValueError)):
        codec.Decoder(trusted.decode_special).decode(data)


KNOWN_COST = """class Countdown:
    def __init__(self, start):
        self.start = start
        self.seen = [start]

    def __call__(self, x):
        import time
        time.sleep(0)
        return self.Result(x * self.start)

    class Result:
        def __init__(self, value):
            self.value = value

        def numpy(self):
            return self.value
"""


def instructor_cell(source: str, name: str) -> dict:
    """Run source as the trusted kernel runs an instructor cell: module __main__, its text in linecache."""
    import linecache

    filename = f"<instructor cell {name}>"
    linecache.cache[filename] = (len(source), None, source.splitlines(keepends=True), filename)
    namespace = {"__name__": "__main__"}
    exec(compile(source, filename, "exec"), namespace)
    return namespace


def test_an_instructor_class_instance_is_lent_and_its_attributes_never_cross():
    original = instructor_cell(KNOWN_COST, "known-cost")["Countdown"](3)
    data = json.loads(json.dumps(trusted.encode((original, 2))))
    assert "start" not in json.dumps(data) and "seen" not in json.dumps(data)  # the planted values stay here
    lent = data["v"][0]
    assert lent["$"] == "lent" and lent["callable"] and trusted.encode(original) == lent  # lent once
    call = {"id": lent["id"], "method": None, "args": trusted.encode((5,)), "kwargs": trusted.encode({})}
    result = trusted.serve_callback(json.loads(json.dumps(call)))["value"]
    assert result["$"] == "lent"  # the Result is an instructor object too: lent, not copied
    numpy = {"id": result["id"], "method": "numpy", "args": trusted.encode(()), "kwargs": trusted.encode({})}
    assert trusted.serve_callback(numpy) == {"value": 15}


@pytest.mark.parametrize("method", ["start", "seen", "__dict__", "_secret", "Result"])
def test_a_lent_object_answers_only_calls_of_its_public_methods(method):
    original = instructor_cell(KNOWN_COST, "known-cost")["Countdown"](3)
    lent = trusted.encode(original)
    call = {"id": lent["id"], "method": method, "args": trusted.encode(()), "kwargs": trusted.encode({})}
    assert trusted.serve_callback(call)["raised"] == "AttributeError"


def test_the_students_stand_in_for_a_lent_object_has_no_readable_attributes():
    stand_in = codec.Decoder(student.decode_special).decode({"$": "lent", "id": 0, "callable": True})
    assert not hasattr(stand_in, "__dict__")
    with pytest.raises(AttributeError):
        stand_in._lent_id = 5
    assert "start" not in dir(stand_in)


def test_whether_a_name_is_a_tf_function_is_read_from_the_source():
    sources = [
        "import minitf as tf",
        "@tf.function\ndef fast(x):\n    return x",
        "@tf.function(input_signature=[])\ndef signed(x):\n    return x",
        "def plain(x):\n    return x",
        "wrapped = tf.function(plain)",
        "class Fake:\n    get_concrete_function = None\nfake = Fake()",
    ]
    assert tf_function_names(sources) == {
        "tf": False,
        "fast": True,
        "signed": True,
        "plain": False,
        "wrapped": True,
        "Fake": False,
        "fake": False,
    }
    assert not any(tf_function_names([*sources, "import fakes as tf"]).values())


@pytest.mark.parametrize(
    "cheat",
    [
        "def keep(f):\n    return f\n@keep\n@tf.function\ndef fast(x):\n    return x",  # not the outermost decorator
        "@tf.function\ndef fast(x):\n    return x\nglobals()['fast'] = len",  # rebound where the source can't tell
        "@tf.function\ndef fast(x):\n    return x\nsetattr(__import__('__main__'), 'fast', len)",
        "tf.function = lambda f: f\n@tf.function\ndef fast(x):\n    return x",  # tf.function replaced
        "fast = len\nif False:\n    @tf.function\n    def fast(x):\n        return x",  # a definition that never runs
        "@tf.function\ndef fast(x):\n    return x\ndel fast",
    ],
)
def test_the_source_filter_reads_the_outermost_decorator_the_final_binding_and_reachable_code(cheat):
    assert not tf_function_names(["import minitf as tf", cheat]).get("fast")
    assert tf_function_names(["import minitf as tf", "if True:\n    @tf.function\n    def fast(x):\n        return x"])[
        "fast"
    ]


@pytest.mark.parametrize(
    "patch",
    [
        'setattr(np, "allclose", lambda *a, **k: True)',
        '__import__("numpy").allclose = lambda *a, **k: True',
        'setattr(__import__("numpy").testing, "assert_allclose", lambda *a, **k: None)',
        'import numpy\ndelattr(numpy, "isclose")',
    ],
)
def test_patching_a_library_in_one_answer_leaves_the_other_answers_tf_functions(patch):
    """A student who patched NumPy in one answer (a cheat the guard undoes before each test) kept a later, correct
    answer's tf.function from counting: 'matrix_multiply_optimized should be a tf.function', 3 points lost."""
    sources = ["import numpy as np\nimport minitf as tf", patch, "@tf.function\ndef fast(x):\n    return x"]
    assert tf_function_names(sources)["fast"]


@pytest.mark.parametrize(
    "cheat",
    [
        'import __main__\nsetattr(__main__, "fast", len)',
        'import numpy as np\nnp = __import__("__main__")\nsetattr(np, "fast", len)',  # np is not numpy any more
        'setattr(__import__("__main__"), "fast", len)',
        'setattr(__import__("minitf"), "function", lambda f: f)',
        'import minitf\nsetattr(minitf, "function", lambda f: f)',
        'setattr(np, "x", globals())',  # a library patched, but with what globals() gives
        'setattr(np.__dict__, "fast", len)',
        'import sys\nsetattr(sys.modules["__main__"], "fast", len)',
    ],
)
def test_patching_the_notebook_or_the_engine_still_counts_as_rebinding(cheat):
    sources = ["import numpy as np\nimport minitf as tf", "@tf.function\ndef fast(x):\n    return x", cheat]
    assert not tf_function_names(sources)["fast"]


def test_the_trusted_plan_takes_answers_from_the_student_and_everything_else_from_the_instructor():
    def cell(source, **meta):
        return new_code_cell(source, metadata={"nbgrader": {"schema_version": 3, **meta}} if meta else {})

    source = NotebookNode(
        cells=[
            cell("import numpy as np", grade_id="setup", locked=True),
            cell("data = np.arange(3)"),
            cell("def double(x):\n    return 2 * x\nsorted = 1", grade_id="a", solution=True),
            cell("assert double(data).tolist() == [0, 2, 4]", grade_id="t", grade=True, locked=True, points=1),
        ]
    )
    plan = TrustedPlan.from_source(source, {"t": "assert double(data).tolist() == [0, 2, 4]\n# hidden"})
    assert plan.student_names == {"double"}  # builtins a student rebinds are never taken from the student
    assert [c.source for c in plan.cells] == [
        "import numpy as np",
        "data = np.arange(3)",
        "assert double(data).tolist() == [0, 2, 4]\n# hidden",
    ]
    assert plan.wanted('assert "double" in globals()\nassert sorted(double(data))') == ["double"]


def test_a_helper_that_imports_a_module_inside_a_method_does_not_read_the_answers_name_for_it():
    """An answer cell's `import time` must not make the trusted kernel skip a helper whose methods import time."""

    def cell(source, **meta):
        return new_code_cell(source, metadata={"nbgrader": {"schema_version": 3, **meta}} if meta else {})

    helper = "class Slow:\n    def __call__(self):\n        import time\n        time.sleep(0.01)\n        return time"
    source = NotebookNode(
        cells=[
            cell(helper, grade_id="helper", locked=True),
            cell("import time\ndef watch(f):\n    return time.perf_counter()", grade_id="a", solution=True),
            cell("print(time.time())"),  # this one does read the answer's `time`
            cell("assert watch(Slow()) > 0", grade_id="t", grade=True, locked=True, points=1),
        ]
    )
    plan = TrustedPlan.from_source(source, {})
    assert [c.reads_answers for c in plan.cells] == [False, True, False]


def test_outputs_are_cut_by_characters_per_cell_and_per_notebook_with_a_note():
    big = new_code_cell(
        "print(...)",
        outputs=[
            new_output("stream", name="stdout", text="x" * 1000),
            new_output("stream", name="stderr", text="y" * 1000),
        ],
    )
    other = new_code_cell(
        "1/0",
        outputs=[
            NotebookNode(output_type="error", ename="ZeroDivisionError", evalue="z" * 1000, traceback=["t" * 1000])
        ],
    )
    nb = NotebookNode(cells=[big, other], metadata={})
    cap = CapOutputs(max_cell_chars=300, max_notebook_chars=500)
    cap.preprocess(nb, {})
    assert [o.name for o in big.outputs] == ["stdout", "stderr"]  # stderr still zeroes a test: kept
    assert big.outputs[0].text.startswith("x" * 300) and "700 more characters" in big.outputs[0].text
    assert other.outputs[0].ename == "ZeroDivisionError" and len(other.outputs[0].evalue) < 400


def test_feedback_removes_hidden_test_lines_from_every_output():
    test = new_code_cell(
        "### BEGIN HIDDEN TESTS\nassert secret_function(7) == 49, 'hidden'\n### END HIDDEN TESTS\n",
        metadata={"nbgrader": {"grade": True, "grade_id": "t", "points": 1}},
    )
    leak = new_code_cell(
        "print(In)",
        outputs=[
            new_output("stream", name="stdout", text="['', \"assert secret_function(7) == 49, 'hidden'\"]\nkept line\n")
        ],
    )
    nb = NotebookNode(cells=[test, leak], metadata={})
    HideHiddenTests().preprocess(nb, {})
    assert "secret_function" not in leak.outputs[0].text and "kept line" in leak.outputs[0].text
    assert "hidden test text removed" in leak.outputs[0].text


def test_links_and_special_files_are_not_collectable(tmp_path):
    notebook = tmp_path / "real.ipynb"
    notebook.write_text("{}")
    (tmp_path / "link.ipynb").symlink_to(notebook)
    os.mkfifo(tmp_path / "pipe.ipynb")
    assert not_regular(notebook) is None
    assert "symbolic link" in not_regular(tmp_path / "link.ipynb")
    assert "not a regular file" in not_regular(tmp_path / "pipe.ipynb")


def test_the_grading_profile_times_methods_that_exist():
    """benchmarks/grading_profile.py wraps the grader's methods by name: a rename must not break it silently."""
    import subprocess
    import sys

    program = "import benchmarks.grading_profile as p; p.instrument(); print('wrapped')"
    done = subprocess.run(
        [sys.executable, "-c", program],
        capture_output=True,
        text=True,
        cwd=Path(__file__).resolve().parents[2],
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert "wrapped" in done.stdout


def test_validation_kernels_output_channel_drops_log_lines_and_keeps_real_stderr():
    """nbgrader's own kernels (validate, the Validate button) read their output through this channel
    (grader/settings/nbgrader_config.py): a stderr message of log lines only never arrives, a real warning beside
    one arrives without it, and other output is untouched."""
    import asyncio

    import zmq
    import zmq.asyncio
    from jupyter_client.session import Session

    from grader.settings.quietclient import QuietOutputChannel

    async def receive() -> list[tuple[str, str, str]]:
        context = zmq.asyncio.Context()
        sender, receiver = context.socket(zmq.PAIR), context.socket(zmq.PAIR)
        port = receiver.bind_to_random_port("tcp://127.0.0.1")
        sender.connect(f"tcp://127.0.0.1:{port}")
        session = Session(key=b"k")
        for name, text in (("stderr", TF_LINES), ("stderr", TF_LINES + "UserWarning: real\n"), ("stdout", TF_LINES)):
            session.send(sender, "stream", {"name": name, "text": text})
        channel = QuietOutputChannel(receiver, session)
        try:
            messages = [await channel.get_msg(timeout=5) for _ in range(2)]
        finally:
            sender.close(linger=0)
            receiver.close(linger=0)
            context.term()
        return [(m["msg_type"], m["content"]["name"], m["content"]["text"]) for m in messages]

    assert asyncio.run(receive()) == [("stream", "stderr", "UserWarning: real\n"), ("stream", "stdout", TF_LINES)]
