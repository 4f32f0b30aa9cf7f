"""The project's licence: an MIT LICENSE file at the root, declared in pyproject.toml in the form setuptools reads
without a deprecation warning (an SPDX expression, the file named in license-files)."""

import warnings
from pathlib import Path

import pytest
from setuptools.config.pyprojecttoml import apply_configuration
from setuptools.dist import Distribution

ROOT = Path(__file__).resolve().parent.parent


def test_the_licence_file_is_mit() -> None:
    text = (ROOT / "LICENSE").read_text()
    assert text.startswith("MIT License\n") and "Permission is hereby granted, free of charge" in text


def test_setuptools_reads_the_licence_as_an_spdx_expression_without_a_warning(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)  # license-files and readme are read relative to the project
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a deprecated licence table warns (SetuptoolsDeprecationWarning)
        metadata = apply_configuration(Distribution(), ROOT / "pyproject.toml").metadata
    assert metadata.license_expression == "MIT"
    assert metadata.license_files == ["LICENSE"]
