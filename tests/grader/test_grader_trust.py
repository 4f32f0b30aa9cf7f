"""End to end on a minitf assignment: verdicts come from a kernel where no student code ever ran.

The student's values reach the tests as data (tensors, Variables, numbers) rebuilt in the trusted kernel;
student functions are called with data arguments, including lambdas and library functions the test passes,
and Variables they update in place come back updated.  What data cannot show is decided elsewhere:
whether a function is a tf.function comes from the submitted source, and types are checked on the
rebuilt values.  Also: the start-up probe refuses to grade when the notebooks' imports fail in a kernel.
"""

from __future__ import annotations

import os
import subprocess

import pytest
from grader_fixtures.submissions import autograde_scores, grader_command, nbgrader_meta, one_notebook_class
from nbformat.v4 import new_code_cell

from grader.paths import REPO

pytestmark = pytest.mark.slow

ASSIGNMENT = "trust"
SETUP = "import numpy as np\nimport minitf as tf"
ANSWERS = {
    "answer-answer": "answer = tf.constant(42)",
    "fast-answer": "@tf.function\ndef fast_double(x):\n    return 2 * x",
    "step-answer": "def step(params, rate):\n    for param in params:\n        param.assign_sub(rate * param)\n"
    "    return len(params)",
    "twice-answer": "def apply_twice(f, x):\n    return f(f(x))",
}
TESTS = {
    "answer-tests": (
        'assert "answer" in globals(), "define answer in the cell above, then run it"\n'
        'assert isinstance(answer, tf.Tensor), f"answer should be a tensor, not a {type(answer).__name__}"\n'
        'assert int(answer.numpy()) == 42, f"answer should be 42, not {answer.numpy()}"\n'
        "### BEGIN HIDDEN TESTS\n"
        'assert answer.dtype == tf.int32, f"answer should be int32, not {answer.dtype}"\n'
        "### END HIDDEN TESTS"
    ),
    "fast-tests": (
        'assert hasattr(fast_double, "get_concrete_function"), "put @tf.function above def fast_double"\n'
        "result = fast_double(tf.constant([1.0, 2.0]))\n"
        'assert isinstance(result, tf.Tensor), f"fast_double should return a tensor, not a {type(result).__name__}"\n'
        'assert np.allclose(result.numpy(), [2.0, 4.0]), f"fast_double([1, 2]) should be [2, 4], not {result}"\n'
        "### BEGIN HIDDEN TESTS\n"
        "fast_double(tf.constant([3.0, 4.0]))\n"
        'assert fast_double.experimental_get_tracing_count() == 1, "same shape and dtype: one trace"\n'
        "### END HIDDEN TESTS"
    ),
    "step-tests": (
        "params = [tf.Variable([1.0, 2.0]), tf.Variable(4.0)]\n"
        "count = step(params, 0.5)\n"
        'assert count == 2, f"step should return 2, not {count}"\n'
        'assert all(isinstance(p, tf.Variable) for p in params), "update the Variables in place"\n'
        'assert np.allclose(params[0].numpy(), [0.5, 1.0]), f"params[0] should be [0.5, 1], not {params[0].numpy()}"\n'
        'assert np.isclose(float(params[1].numpy()), 2.0), f"params[1] should be 2, not {params[1].numpy()}"'
    ),
    "twice-tests": (
        "result = apply_twice(lambda t: t * 3.0, tf.constant(2.0))\n"
        'assert np.isclose(float(result.numpy()), 18.0), f"apply_twice(times 3, 2) should be 18, not {result}"\n'
        "### BEGIN HIDDEN TESTS\n"
        "result = apply_twice(tf.nn.relu, tf.constant([-1.0, 2.0]))\n"
        'assert np.allclose(result.numpy(), [0.0, 2.0]), "apply_twice(relu, [-1, 2]) should be [0, 2]"\n'
        "### END HIDDEN TESTS"
    ),
}
POINTS = {"answer-tests": 1, "fast-tests": 1, "step-tests": 1, "twice-tests": 1}
FAKE_TF_FUNCTION = """class Fast:
    get_concrete_function = None
    def experimental_get_tracing_count(self):
        return 1
    def __call__(self, x):
        return 2 * x
fast_double = Fast()
"""
SHADOWED_ISINSTANCE = """class Answer(int):
    dtype = tf.int32
    def numpy(self):
        return 42
answer = Answer(42)
isinstance = lambda value, kind: True
"""
COPIES_INSTEAD_OF_UPDATING = (
    "def step(params, rate):\n    for i, p in enumerate(params):\n"
    "        params[i] = p - rate * p\n    return len(params)"
)


def exercise_cells(setup: str = SETUP) -> list:
    """The setup cell, then each exercise's answer cell and test cell."""
    cells = [new_code_cell(setup, metadata=nbgrader_meta("setup", locked=True))]
    for name, answer in ANSWERS.items():
        test = name.replace("-answer", "-tests")
        cells.append(
            new_code_cell(
                f"### BEGIN SOLUTION\n{answer}\n### END SOLUTION", metadata=nbgrader_meta(name, solution=True)
            )
        )
        cells.append(new_code_cell(TESTS[test], metadata=nbgrader_meta(test, grade=True, locked=True, points=1)))
    return cells


def test_graded_values_functions_and_in_place_updates_cross_as_data_and_cheats_fail(tmp_path):
    term = one_notebook_class(
        tmp_path,
        ASSIGNMENT,
        exercise_cells(),
        {
            "honest": ANSWERS,
            "blank": {},
            "fake_tf_function": {**ANSWERS, "fast-answer": FAKE_TF_FUNCTION},
            "shadows_isinstance": {**ANSWERS, "answer-answer": SHADOWED_ISINSTANCE},
            "copies_params": {**ANSWERS, "step-answer": COPIES_INSTEAD_OF_UPDATING},
            "plain_function": {**ANSWERS, "fast-answer": "def fast_double(x):\n    return 2 * x"},
        },
    )
    assert autograde_scores(term, "--timeout", "20") == {
        "honest": "4/4",
        "blank": "0/4",
        "fake_tf_function": "3/4",  # has the attribute, but its source carries no @tf.function
        "shadows_isinstance": "3/4",  # an int subclass stays in the student's kernel: not a tensor
        "copies_params": "3/4",  # the list now holds new tensors, not the updated Variables
        "plain_function": "3/4",
    }


def test_autograde_stops_before_grading_when_a_kernel_cannot_import_the_notebooks_modules(tmp_path):
    """As with an editable install from a folder the sandbox hides: the grader sees the module, kernels do not."""
    hidden = tmp_path / "hidden-packages"
    hidden.mkdir()
    (hidden / "course_helpers_only_here.py").write_text("VALUE = 1\n")
    term = one_notebook_class(
        tmp_path, ASSIGNMENT, exercise_cells(SETUP + "\nimport course_helpers_only_here"), {"honest": ANSWERS}
    )
    environment = {**os.environ, "PYTHONPATH": str(hidden)}
    result = subprocess.run(
        grader_command(term, "autograde", "--quiet"),
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=600,
        env=environment,
    )
    assert result.returncode != 0
    assert "cannot import what the course notebooks import" in result.stderr
    assert "course_helpers_only_here" in result.stderr
    assert not (term.autograded / "honest").exists()
    assert not any(term.state.glob("done/*/*.json"))


# A timing exercise: the test hands the student's stopwatch an instance of a class that an instructor cell defines.
TIMING_HELPER = """class Sleeper:
    def __init__(self, first, later):
        self.first = first
        self.later = later
        self.calls = 0

    def __call__(self, x):
        import time

        self.calls += 1
        time.sleep(self.first if self.calls == 1 else self.later)
        return tf.constant(x)
"""
STOPWATCH = (
    "import time\n\ndef stopwatch(function, x):\n    function(x).numpy()\n"
    "    start = time.perf_counter()\n    function(x).numpy()\n    return time.perf_counter() - start"
)
TIMING_TESTS = (
    "probe = Sleeper(0.4, 0.1)\n"
    "seconds = stopwatch(probe, 2.0)\n"
    'assert isinstance(seconds, float), f"stopwatch should return a float, not a {type(seconds).__name__}"\n'
    'assert 0.1 <= seconds < 0.3, f"one call after the warm-up takes 0.1 s, not {seconds:.3f} s"\n'
    "assert probe.calls == 2, \"the test's own object is called: it is lent to the student's code, not copied\"\n"
    "### BEGIN HIDDEN TESTS\n"
    "seconds = stopwatch(Sleeper(0.3, 0.15), 1.0)\n"
    'assert 0.15 <= seconds < 0.35, f"one call after the warm-up takes 0.15 s, not {seconds:.3f} s"\n'
    "### END HIDDEN TESTS"
)
OWN_SLEEPER = (
    "class Sleeper:\n    def __init__(self, *args):\n        pass\n\n    def __call__(self, x):\n"
    "        return tf.constant(x)\n\n\n" + STOPWATCH
)


TIMING_CELLS = [
    new_code_cell(SETUP, metadata=nbgrader_meta("setup", locked=True)),
    new_code_cell(TIMING_HELPER, metadata=nbgrader_meta("helper", locked=True)),
    new_code_cell(
        f"### BEGIN SOLUTION\n{STOPWATCH}\n### END SOLUTION", metadata=nbgrader_meta("watch-answer", solution=True)
    ),
    new_code_cell(TIMING_TESTS, metadata=nbgrader_meta("watch-tests", grade=True, locked=True, points=1)),
]


def test_a_test_times_student_code_with_an_instructors_object_lent_from_the_trusted_kernel(tmp_path):
    term = one_notebook_class(
        tmp_path,
        ASSIGNMENT,
        TIMING_CELLS,
        {
            "honest": {"watch-answer": STOPWATCH},
            "blank": {},
            "no_warm_up": {"watch-answer": STOPWATCH.replace("    function(x).numpy()\n    start", "    start")},
            # the student's own Sleeper (which never sleeps) is not the one the test's object is rebuilt from
            "own_sleeper": {"watch-answer": OWN_SLEEPER},
            "returns_the_object": {"watch-answer": "def stopwatch(function, x):\n    return function"},
            "typed_in": {"watch-answer": "def stopwatch(function, x):\n    return 0.1"},
            # the planted costs are not in the student's kernel: reading them fails instead of measuring them
            "reads_the_costs": {"watch-answer": "def stopwatch(function, x):\n    return float(function.later)"},
            "reads_the_dict": {
                "watch-answer": "def stopwatch(function, x):\n    return float(vars(function)['later'])"
            },
        },
    )
    assert autograde_scores(term, "--timeout", "20") == {
        "honest": "1/1",
        "blank": "0/1",
        "no_warm_up": "0/1",
        "own_sleeper": "1/1",
        "returns_the_object": "0/1",
        "typed_in": "0/1",
        "reads_the_costs": "0/1",
        "reads_the_dict": "0/1",
    }


# Instructor cells between two tests are sent to the trusted kernel right after the first test, so they run while the
# student's kernel runs the cells in between; they must still run after the first test and before the second, in order.
BETWEEN_TESTS_CELLS = [
    new_code_cell(SETUP, metadata=nbgrader_meta("setup", locked=True)),
    new_code_cell(
        "### BEGIN SOLUTION\nanswer = tf.constant(42)\n### END SOLUTION",
        metadata=nbgrader_meta("answer-answer", solution=True),
    ),
    new_code_cell(
        'checked = int(answer.numpy())\nassert checked == 42, f"answer should be 42, not {checked}"',
        metadata=nbgrader_meta("answer-tests", grade=True, locked=True, points=1),
    ),
    new_code_cell("after_first = checked + 1  # reads what the first test left", metadata=nbgrader_meta("uses-test")),
    new_code_cell('raise ValueError("an instructor demo that fails")', metadata=nbgrader_meta("broken-demo")),
    new_code_cell("scale = 10.0", metadata=nbgrader_meta("scale", locked=True)),
    new_code_cell(
        "### BEGIN SOLUTION\ndef scaled(x):\n    return scale * x\n### END SOLUTION",
        metadata=nbgrader_meta("scaled-answer", solution=True),
    ),
    new_code_cell(
        'assert after_first == 43, f"the cell between the tests saw checked = {after_first - 1}"\n'
        "result = scaled(tf.constant(2.0))\n"
        'assert float(result.numpy()) == 20.0, f"scaled(2) should be 20, not {result}"',
        metadata=nbgrader_meta("scaled-tests", grade=True, locked=True, points=1),
    ),
]


def test_instructor_cells_between_tests_run_after_the_first_test_and_before_the_next(tmp_path):
    term = one_notebook_class(
        tmp_path,
        ASSIGNMENT,
        BETWEEN_TESTS_CELLS,
        {
            "honest": {
                "answer-answer": "answer = tf.constant(42)",
                "scaled-answer": "def scaled(x):\n    return scale * x",
            },
            "wrong_first": {
                "answer-answer": "answer = tf.constant(41)",
                "scaled-answer": "def scaled(x):\n    return scale * x",
            },
            "wrong_second": {
                "answer-answer": "answer = tf.constant(42)",
                "scaled-answer": "def scaled(x):\n    return 2 * x",
            },
        },
    )
    # wrong_first: its first test fails after setting checked = 41, so the second sees after_first = 42 and fails too
    assert autograde_scores(term, "--timeout", "20") == {"honest": "2/2", "wrong_first": "0/2", "wrong_second": "1/2"}
