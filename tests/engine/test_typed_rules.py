"""Gradient and shape rules are typed against the op record: a rule written as a function names `GradContext` as
the type of the call it differentiates (mypy then checks what it reads of it), and every op has a shape rule."""

from __future__ import annotations

import inspect

import minitf  # noqa: F401  (registers every op)
from minitf.core.op import REGISTRY


def _first_parameter_annotation(function: object) -> str | None:
    parameters = list(inspect.signature(function).parameters.values())  # type: ignore[arg-type]
    if not parameters or parameters[0].annotation is inspect.Parameter.empty:
        return None
    annotation = parameters[0].annotation
    return annotation if isinstance(annotation, str) else getattr(annotation, "__name__", str(annotation))


def test_gradient_rules_written_as_functions_take_the_typed_call_record() -> None:
    untyped = []
    for name, op in REGISTRY.items():
        rule = op.grad
        if rule is None or getattr(rule, "__name__", "") == "<lambda>" or not inspect.isfunction(rule):
            continue  # lambdas take their types from Op's `grad` parameter (GradRule)
        if _first_parameter_annotation(rule) != "GradContext":
            untyped.append(f"{name}: {rule.__module__}.{rule.__qualname__}")
    assert not untyped, "gradient rules whose call record is not typed GradContext:\n" + "\n".join(untyped)


def test_every_op_has_a_callable_shape_rule() -> None:
    assert REGISTRY, "no op registered"
    missing = [name for name, op in REGISTRY.items() if not callable(op.shape)]
    assert not missing
