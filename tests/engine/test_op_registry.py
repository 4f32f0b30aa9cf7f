"""One definition per op: the registry holds each op under its TensorFlow name once, and refuses a second one.

Every op is defined in one place (kernel, checks, shape rule, gradient); a second `Op` of the same name would
be a second definition that a reader, the tracer or a graph pass could meet instead of the first.
"""

from __future__ import annotations

import importlib
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest

import minitf
from minitf.core.op import DEFINED_IN, REGISTRY, Op
from minitf.core.shape_rules import same_as_first


def _every_module() -> list[ModuleType]:
    """Every module of minitf, imported (some are loaded only when used, such as Keras's file loading)."""
    root = Path(minitf.__file__).parent
    names = {".".join(path.relative_to(root.parent).with_suffix("").parts) for path in root.rglob("*.py")}
    return [importlib.import_module(name.removesuffix(".__init__")) for name in sorted(names)]


def test_every_op_in_every_module_is_the_one_registered_under_its_name() -> None:
    found: dict[str, list[str]] = {}
    for module in _every_module():
        for attribute, value in vars(module).items():
            if isinstance(value, Op) and REGISTRY.get(value.name) is not value:
                found.setdefault(value.name, []).append(f"{module.__name__}.{attribute}")
    assert not found, f"ops that are not the registered op of their name (second definitions): {found}"


def test_every_registered_op_says_which_module_defines_it() -> None:
    modules = {module.__name__ for module in _every_module()}
    assert len(REGISTRY) > 250 and set(DEFINED_IN) == set(REGISTRY)
    assert {name: where for name, where in DEFINED_IN.items() if where not in modules} == {}
    assert DEFINED_IN["AddV2"] == "minitf.ops.math.binary_math"
    assert DEFINED_IN["BitwiseAnd"] == DEFINED_IN["Invert"] == "minitf.ops.math.bitwise_ops"


def test_a_second_op_of_a_taken_name_is_refused_and_the_first_kept() -> None:
    first = REGISTRY["AddV2"]
    with pytest.raises(ValueError) as raised:
        Op("AddV2", np.add, shape=same_as_first)
    message = str(raised.value)
    assert "'AddV2' is defined twice" in message
    assert f"in minitf.ops.math.binary_math and again in {__name__}" in message
    assert REGISTRY["AddV2"] is first and DEFINED_IN["AddV2"] == "minitf.ops.math.binary_math"
