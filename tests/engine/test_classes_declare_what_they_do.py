"""What a class can do is in the class: `import minitf` sets no attribute on Tensor, Variable, GradientTape,
Dataset or RaggedTensor from outside, and changes no logging.

A fresh Python process imports minitf, then each class's attributes are compared with the names its own body
binds (read from the source): an attribute its body does not bind was put there by some other code.
"""

from __future__ import annotations

import ast
import functools
import json
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
CLASSES = {
    "minitf.core.tensor": ["Tensor", "EagerTensor"],
    "minitf.core.tensor_interface": ["TensorInterface"],
    "minitf.function.tracing.graph": ["SymbolicTensor"],
    "minitf.ops.variables": ["Variable", "ResourceVariable"],
    "minitf.ops.variable_operators": ["VariableOperators"],
    "minitf.autodiff.tape": ["GradientTape"],
    "minitf.data.dataset": ["DatasetV2"],
    "minitf.composite.ragged.tensor": ["RaggedTensor"],
    "minitf.composite.sparse": ["SparseTensor"],
    "minitf.composite.indexed_slices": ["IndexedSlices"],
    "minitf.composite.specs": ["RaggedTensorSpec", "SparseTensorSpec"],
}
# What Python itself puts in a class's namespace.
AUTOMATIC = {
    "__module__",
    "__qualname__",
    "__doc__",
    "__dict__",
    "__weakref__",
    "__annotations__",
    "__slots__",
    "__firstlineno__",
    "__static_attributes__",
    "__hash__",  # None when the body defines __eq__ only
}

_AFTER_IMPORT = """
import json, logging, sys
before = {"root": list(logging.getLogger().handlers), "level": logging.getLogger("minitf").level}
import importlib, minitf
classes = json.loads(sys.argv[1])
found = {}
for module, names in classes.items():
    for name in names:
        cls = getattr(importlib.import_module(module), name)
        attributes = {}
        for key, value in vars(cls).items():
            value = getattr(value, "__func__", getattr(value, "fget", value))  # classmethods, properties
            attributes[key] = getattr(value, "__qualname__", None) if callable(value) else None
        found[f"{module}.{name}"] = attributes
found["logging"] = [
    len(logging.getLogger("minitf").handlers), logging.getLogger().handlers == before["root"],
    logging.getLogger("minitf").level == before["level"],
]
print(json.dumps(found))
"""


@functools.cache
def _attributes_after_import() -> dict[str, Any]:
    result = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(_AFTER_IMPORT), json.dumps(CLASSES)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=True,
    )
    return json.loads(result.stdout)


def defined_in_body(source: str, name: str) -> set[str]:
    """The methods a top-level class body defines with `def` (also under `if`)."""
    (found,) = [node for node in ast.parse(source).body if isinstance(node, ast.ClassDef) and node.name == name]
    todo, names = list(found.body), set()
    while todo:
        node = todo.pop()
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            names.add(node.name)
        elif isinstance(node, ast.If):
            todo += node.body + node.orelse
    return names


def bound_in_body(source: str, name: str) -> set[str]:
    """The names a top-level class body binds: defs, classes, assignments, slots (also under `if`)."""
    (found,) = [node for node in ast.parse(source).body if isinstance(node, ast.ClassDef) and node.name == name]
    names: set[str] = set()
    todo = list(found.body)
    while todo:
        node = todo.pop()
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.If):
            todo += node.body + node.orelse
        elif isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                names |= {leaf.id for leaf in ast.walk(target) if isinstance(leaf, ast.Name)}
            if any(isinstance(t, ast.Name) and t.id == "__slots__" for t in targets) and node.value is not None:
                names |= {c.value for c in ast.walk(node.value) if isinstance(c, ast.Constant)}
    return names


@pytest.mark.slow  # a fresh Python process imports minitf
def test_no_class_gets_attributes_from_outside_its_body() -> None:
    after = _attributes_after_import()
    outside = {}
    for module, names in CLASSES.items():
        source = (ROOT / (module.replace(".", "/") + ".py")).read_text()
        for name in names:
            attributes = after[f"{module}.{name}"]
            extra = set(attributes) - bound_in_body(source, name) - AUTOMATIC
            # a method the body defines with `def` is still that function (nothing assigned over it later)
            extra |= {
                key for key in defined_in_body(source, name) & set(attributes) if attributes[key] != f"{name}.{key}"
            }
            if extra:
                outside[f"{module}.{name}"] = sorted(extra)
    assert not outside, (
        f"class attributes set from outside the class body: {outside}. Define the method in the class (or "
        "declare it there and let the module with the code provide it: minitf/core/provided.py)."
    )


@pytest.mark.slow  # the same fresh process
def test_importing_minitf_changes_no_logging() -> None:
    handlers, root_unchanged, level_unchanged = _attributes_after_import()["logging"]
    assert (handlers, root_unchanged, level_unchanged) == (0, True, True)


def test_the_body_reader_sees_methods_assignments_and_slots_but_not_later_additions() -> None:
    source = textwrap.dedent(
        """
        class A:
            __slots__ = ("x", "y")
            def f(self): ...
            g = f
            if True:
                h: int = 1
        A.late = 1
        """
    )
    assert bound_in_body(source, "A") == {"__slots__", "x", "y", "f", "g", "h"}
    assert defined_in_body(source, "A") == {"f"}
