"""Completeness by construction for a TensorFlow namespace: every public name the installed TensorFlow has there is
either implemented by minitf and exercised by a differential test (the test module says which names its tests use),
or stands in the minitf module's LEFT_OUT table with a reason (and raises minitf.left_out.LeftOutError). A name
TensorFlow gains that is in neither fails the check, naming it."""

from __future__ import annotations

from collections.abc import Iterable
from functools import reduce
from typing import Any

import pytest
from harness import minitf, real_tf

from minitf import left_out


def tensorflow_names(namespace: str) -> list[str]:
    """The public names of `tf.<namespace>` (`dir`, so nothing lazily loaded is imported)."""
    module = reduce(getattr, namespace.split("."), real_tf)
    return sorted(name for name in dir(module) if not name.startswith("_"))


def minitf_module(namespace: str) -> Any:
    return reduce(getattr, namespace.split("."), minitf)


def assert_enumerated(namespace: str, tested: Iterable[str]) -> None:
    """Each TensorFlow name in `tf.<namespace>` is in `tested` (and minitf has it) or in LEFT_OUT (and minitf
    refuses it with a LeftOutError); neither list names what TensorFlow lacks, and no name is in both."""
    module, tested = minitf_module(namespace), set(tested)
    table: dict[str, str] = getattr(module, "LEFT_OUT", {})
    names = set(tensorflow_names(namespace))
    assert not tested & set(table), f"tf.{namespace}: both tested and left out: {sorted(tested & set(table))}"
    strangers = sorted((tested | set(table)) - names)
    assert not strangers, f"tf.{namespace} has no such names (delete them from the lists): {strangers}"
    neither = sorted(names - tested - set(table))
    assert not neither, (
        f"tf.{namespace} has names that are neither tested against minitf nor in its LEFT_OUT table: {neither}"
    )
    lacking = sorted(name for name in tested if not hasattr(module, name))
    assert not lacking, f"minitf's tf.{namespace} lacks names its tests say they use: {lacking}"
    for name, reason in table.items():
        assert reason.strip(), f"tf.{namespace}.{name} is left out without a reason"
        with pytest.raises(left_out.LeftOutError, match=f"tf.{namespace}.{name}"):
            getattr(module, name)
