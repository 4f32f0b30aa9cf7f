"""Methods a class declares and a module above it provides.

A class lists everything it can do in its own body. Where a method needs code that itself needs the class (every
op imports `Tensor`; a while loop's gradient uses `GradientTape`; each kind of dataset subclasses `Dataset`), the
method calls a function of a `Provided` table, which the module with that code fills when it is imported, once
per name (as each op goes into `REGISTRY` once): one attribute read and one call, no import inside a method and
no class changed from outside.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


class Provided:
    """A table of functions, one per name its subclass declares (`add: Callable[..., Any]`)."""

    def provide(self, **functions: Callable[..., Any]) -> None:
        """Fill in functions; each declared name is provided once."""
        declared = {name for cls in type(self).__mro__ for name in getattr(cls, "__annotations__", {})}
        for name, function in functions.items():
            if name not in declared or name in vars(self):
                raise ValueError(f"{type(self).__name__}: {name!r} is not declared or was provided already")
            setattr(self, name, function)
