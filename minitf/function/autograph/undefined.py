"""AutoGraph's undefined values: a Python variable that has no value (yet) on some path through the code.

A converted `if` whose one branch assigns `x` and the other does not leaves `x` undefined after it; using
it raises the error TensorFlow raises (for example "'x' must also be initialized in the else branch").
A converted function's return value is an `UndefinedReturnValue` until a `return` runs.
"""

from __future__ import annotations

from typing import Any


class Undefined:
    """A Python variable that has no value (yet) on some path; using it raises the error it carries."""

    def __init__(self, name: str, error: Exception | None = None) -> None:
        object.__setattr__(self, "symbol_name", name)
        object.__setattr__(self, "error", error)

    def fail(self) -> Any:
        error = object.__getattribute__(self, "error")
        if error is not None:
            raise error
        name = object.__getattribute__(self, "symbol_name")
        raise UnboundLocalError(f"local variable '{name}' referenced before assignment")

    def __getattr__(self, name: str) -> Any:
        return self.fail()

    def __repr__(self) -> str:
        return f"Undefined({object.__getattribute__(self, 'symbol_name')!r})"

    def __bool__(self) -> bool:
        return self.fail()


for _dunder in (
    "add",
    "sub",
    "mul",
    "truediv",
    "floordiv",
    "mod",
    "pow",
    "matmul",
    "lt",
    "le",
    "gt",
    "ge",
    "radd",
    "rsub",
    "rmul",
    "rtruediv",
    "getitem",
    "call",
    "iter",
    "len",
    "neg",
    "index",
    "float",
    "int",
):
    setattr(Undefined, f"__{_dunder}__", lambda self, *a, **k: self.fail())


class UndefinedReturnValue(Undefined):
    """The value of a function's return before any `return` ran."""

    def __init__(self, error: Exception | None = None) -> None:
        super().__init__("retval_", error)
