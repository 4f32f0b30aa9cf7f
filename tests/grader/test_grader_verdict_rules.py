"""Every test cell of the course follows the rules that keep its verdict safe (docs/lessons.md)."""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_notebook

from grader.paths import REPO
from grader.trusted.rules import check_notebook

SOURCES = sorted((REPO / "solutions").glob("*/*.ipynb")) + sorted(
    (REPO / "tests" / "grader_fixtures").glob("solutions*/*/*.ipynb")
)


@pytest.mark.parametrize("path", SOURCES, ids=[f"{p.parent.name}/{p.name}" for p in SOURCES])
def test_every_test_cell_of_the_course_is_verdict_safe(path):
    assert check_notebook(path) == []


def write(tmp_path: Path, answer: str, test: str, other: str = "import numpy as np\nimport minitf as tf") -> Path:
    def meta(grade_id: str, **flags) -> dict:
        return {
            "nbgrader": {
                "grade": False,
                "solution": False,
                "locked": False,
                "grade_id": grade_id,
                "schema_version": 3,
                **flags,
            }
        }

    cells = [
        new_code_cell(other, metadata=meta("setup", locked=True)),
        new_code_cell(answer, metadata=meta("ex-answer", solution=True)),
        new_code_cell(test, metadata=meta("ex-tests", grade=True, locked=True, points=1)),
    ]
    folder = tmp_path / "rules"
    folder.mkdir(exist_ok=True)
    nbformat.write(new_notebook(cells=cells), folder / "n.ipynb")
    return folder / "n.ipynb"


@pytest.mark.parametrize(
    ("answer", "test", "other", "problem"),
    [
        (
            "def f(g, x):\n    return g(x)",
            "scale = 3\nassert f(lambda t: t * scale, 1) == 3",
            None,
            "a lambda uses ['scale']",
        ),
        (
            "@tf.function\ndef f(x):\n    return x",
            "g = f\nassert hasattr(g, 'get_concrete_function')",
            None,
            "must name an exercise's function directly",
        ),
        ("data = [1, 2]", "assert data == [1, 2]", "import numpy as np\ndata = []", "which both an answer cell"),
        ("len = 3", "assert len == 3", None, "a builtin, tf or np"),
    ],
)
def test_the_rules_catch_unsafe_test_cells(tmp_path, answer, test, other, problem):
    path = write(tmp_path, answer, test, *([other] if other else []))
    assert any(problem in found for found in check_notebook(path)), check_notebook(path)


def test_a_test_may_lend_an_instance_of_any_instructor_class(tmp_path):
    helper = (
        "import numpy as np\nimport minitf as tf\nimport time\nclass Base:\n    pass\n"
        "class Slow(Base):\n    def __init__(self, seconds):\n"
        "        self.seconds = seconds\n    def __call__(self, x):\n"
        "        time.sleep(self.seconds)\n        return tf.constant(np.float32(x))\n"
    )
    path = write(tmp_path, "def f(g, x):\n    return g(x)", "assert f(Slow(0.01), 2.0).numpy() == 2.0", helper)
    assert check_notebook(path) == []


def test_a_plain_test_cell_passes_the_rules(tmp_path):
    path = write(
        tmp_path,
        "@tf.function\ndef f(x):\n    return 2 * x",
        'assert "f" in globals(), "define f"\nassert hasattr(f, "get_concrete_function")\n'
        "assert np.allclose(f(tf.constant([1.0])).numpy(), [2.0])\nassert f(lambda t: t) is not None",
    )
    assert check_notebook(path) == []
