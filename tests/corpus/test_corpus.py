"""The corpus: short programs of our own that use TensorFlow's and Keras's API the way TensorFlow's tutorials
(quickstart, customization, Keras classification and regression) and Keras's guides on the basics (sequential
and functional models, training with built-in methods, new layers by subclassing, a training loop from scratch,
callbacks, saving, preprocessing layers) use it, each on synthetic data of the tutorial's shapes with few epochs.
Each program runs on TensorFlow and on minitf, in a process of its own, and must print the same text.

Programs print what does not depend on an engine's random numbers: they set their weights from NumPy's seeded
generator and round what training computes. The times in progress lines of fit, evaluate and predict
(`3/3 - 0s - 20ms/step - loss: ...`) differ between two runs of the same engine, so they are compared as `<time>`."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).parent
PROGRAMS = sorted((HERE / "programs").glob("*.py"))
ROOT = HERE.parents[1]
# Slow as a whole: each program starts two Python processes, one of them importing TensorFlow.
pytestmark = [pytest.mark.slow, pytest.mark.tf]


TIME = re.compile(r"\b\d+(?:ms|us|s)\b")


def without_times(text: str) -> str:
    """Each time in a progress line (one with `/step`) as `<time>`."""
    return "\n".join(TIME.sub("<time>", line) if "/step" in line else line for line in text.split("\n"))


def run(engine: str, program: Path, folder: Path) -> str:
    env = dict(os.environ, PYTHONPATH=str(ROOT), TF_CPP_MIN_LOG_LEVEL="3")
    done = subprocess.run(
        [sys.executable, str(HERE / "run_program.py"), engine, str(program)],
        cwd=folder,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, f"{program.name} failed on {engine}:\n{done.stdout}\n{done.stderr[-3000:]}"
    return without_times(done.stdout)


@pytest.mark.parametrize("program", PROGRAMS, ids=[p.stem for p in PROGRAMS])
def test_a_program_prints_the_same_on_both_engines(program: Path, tmp_path: Path) -> None:
    (tmp_path / "tensorflow").mkdir()
    (tmp_path / "minitf").mkdir()
    expected = run("tensorflow", program, tmp_path / "tensorflow")
    actual = run("minitf", program, tmp_path / "minitf")
    assert actual == expected, f"{program.name} prints differently:\n--- TensorFlow\n{expected}\n--- minitf\n{actual}"
