"""The digits the network chapter trains on: shipped with the course, unchanged, complete, credited, and readable
without scikit-learn or a network."""

from __future__ import annotations

import hashlib
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import numpy as np
import pytest

import course_data
from course_data import DIGITS_SHA256, load_digits

REPO = Path(__file__).resolve().parents[2]
DATA = REPO / "course_data"


def test_digits_file_is_the_recorded_one_and_small() -> None:
    data = (DATA / "digits.csv.gz").read_bytes()
    assert hashlib.sha256(data).hexdigest() == DIGITS_SHA256
    assert len(data) < 100_000, f"the data file should stay small, but it has {len(data)} bytes"


def test_load_digits_gives_1797_images_of_8x8_with_labels_0_to_9() -> None:
    images, labels = load_digits()
    assert images.shape == (1797, 8, 8) and images.dtype == np.uint8
    assert labels.shape == (1797,) and labels.dtype == np.int32
    assert images.min() == 0 and images.max() == 16
    counts = np.bincount(labels, minlength=10)
    assert counts.tolist() == [178, 182, 177, 183, 181, 182, 181, 179, 174, 180]


def test_first_digit_is_the_zero_the_source_starts_with() -> None:
    images, labels = load_digits()
    assert labels[0] == 0
    assert images[0, 0].tolist() == [0, 0, 5, 13, 9, 1, 0, 0]
    assert images[0, :, 0].tolist() == [0, 0, 0, 0, 0, 0, 0, 0]


def test_load_digits_refuses_a_changed_file(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(course_data, "DIGITS_SHA256", "0" * 64)
    with pytest.raises(ValueError, match="sha256"):
        load_digits()


def test_readme_states_source_licence_and_checksum() -> None:
    readme = (DATA / "README.md").read_text()
    assert DIGITS_SHA256 in readme
    assert "CC BY 4.0" in readme and "creativecommons.org/licenses/by/4.0" in readme
    assert "Alpaydin" in readme and "Kaynak" in readme and "10.24432/C50P49" in readme


def test_package_installs_the_data_file_and_readme() -> None:
    setuptools = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]
    assert "course_data*" in setuptools["packages"]["find"]["include"]
    assert set(setuptools["package-data"]["course_data"]) >= {"*.csv.gz", "README.md"}


def test_loading_needs_neither_scikit_learn_nor_a_network() -> None:
    code = ("import socket, sys\n"
            "sys.modules['sklearn'] = None\n"
            "def refuse(*args, **kwargs):\n    raise OSError('no network')\n"
            "socket.socket.connect = refuse\n"
            "from course_data import load_digits\n"
            "print(len(load_digits()[1]))")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd="/", timeout=120)
    assert run.returncode == 0 and run.stdout.strip() == "1797", run.stderr


def test_no_course_code_imports_scikit_learn() -> None:
    pattern = re.compile(r"^\s*(import|from)\s+sklearn", re.MULTILINE)
    for folder in ("course_data", "minitf", "grader", "solutions", "course"):
        for path in (REPO / folder).rglob("*"):
            if path.suffix in {".py", ".ipynb"}:
                assert not pattern.search(path.read_text()), f"{path} imports scikit-learn"


def test_grading_sandbox_binds_the_data_package_back() -> None:
    from grader.sandbox.prepare import _needed_paths

    assert DATA in _needed_paths()
