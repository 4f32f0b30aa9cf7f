"""`tf.Module`, `tf.name_scope` and `tf.init_scope`.

A Module is a container that finds the variables (and sub-modules) stored in its attributes, so that
`model.trainable_variables` lists what an optimizer should update. `tf.init_scope` leaves the graph being
traced for a moment: what runs inside it runs eagerly, once, as when a layer creates its weights.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from minitf.core.context import state
from minitf.function.tracing.trace import graph_scope
from minitf.ops.variables import Variable


@contextmanager
def init_scope() -> Iterator[None]:
    """Run the block eagerly, outside any function being traced (used to create variables once)."""
    tapes = list(state.tapes)
    state.tapes.clear()
    try:
        with graph_scope(None):
            yield
    finally:
        state.tapes[:] = tapes
        state.refresh()


class name_scope:  # TensorFlow's name
    """`tf.name_scope("dense")`: ops created inside a traced function get names like `dense/MatMul`."""

    def __init__(self, name: str) -> None:
        self.name = name
        self._graph: Any = None
        self._outer: list[str] = []

    def __enter__(self) -> str:
        self._graph = state.graph
        scopes = state.name_scopes()
        self._outer = list(scopes)
        if self.name.endswith("/"):  # a whole scope ("outer/inner/", as entering a scope returns it): not nested
            scopes[:] = [self.name.rstrip("/")]
        elif self.name:
            scopes.append(self.name)
        return "/".join(scopes) + "/" if self.name else ""

    def __exit__(self, *exc: Any) -> None:
        scopes = self._graph.name_scopes if self._graph is not None else state.eager_name_scopes
        scopes[:] = self._outer


def _camel_to_snake(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


class Module:
    """A named container of variables and sub-modules (the base of layers and models)."""

    def __init__(self, name: str | None = None) -> None:
        if name is None:
            name = _camel_to_snake(type(self).__name__)
        elif not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_.\-]*", name):
            raise ValueError(
                f"'{name}' is not a valid module name. Module names must be valid Python identifiers "
                f"(e.g. a valid class name)."
            )
        self._name = name
        with name_scope(name) as scope_name:  # the scopes around the constructor, as TensorFlow keeps them
            self._scope_name = scope_name

    @property
    def name(self) -> str:
        return self._name

    @property
    def name_scope(self) -> name_scope:
        return name_scope(self._scope_name)

    @property
    def variables(self) -> tuple:
        """Every Variable in this module and its sub-modules (each once, in attribute order)."""
        return tuple(self._flatten(lambda v: _is_variable(v)))

    @property
    def trainable_variables(self) -> tuple:
        return tuple(self._flatten(lambda v: _is_variable(v) and v.trainable))

    @property
    def non_trainable_variables(self) -> tuple:
        return tuple(self._flatten(lambda v: _is_variable(v) and not v.trainable))

    @property
    def submodules(self) -> tuple:
        return tuple(self._flatten(lambda v: isinstance(v, Module)))

    def _flatten(self, predicate: Any) -> list:
        found: list = []
        seen: set[int] = {id(self)}
        self._walk(self, predicate, found, seen)
        return found

    @staticmethod
    def _walk(obj: Any, predicate: Any, found: list, seen: set[int]) -> None:
        values = [obj.__dict__[k] for k in sorted(vars(obj))] if isinstance(obj, Module) else obj
        for value in values:
            for leaf in _leaves(value):
                if id(leaf) in seen:
                    continue
                seen.add(id(leaf))
                if predicate(leaf):
                    found.append(leaf)
                if isinstance(leaf, Module):
                    Module._walk(leaf, predicate, found, seen)

    @classmethod
    def with_name_scope(cls, method: Any) -> Any:
        def wrapped(self: Module, *args: Any, **kwargs: Any) -> Any:
            with self.name_scope:
                return method(self, *args, **kwargs)

        return wrapped

    def __repr__(self) -> str:
        # Python's own: a nested class by its qualified name, a class of the builtins module without the module.
        return object.__repr__(self)


def _is_variable(value: Any) -> bool:
    return isinstance(value, Variable)


def _leaves(value: Any) -> list:
    if isinstance(value, dict):
        return [leaf for k in sorted(value, key=str) for leaf in _leaves(value[k])]
    if isinstance(value, list | tuple):
        return [leaf for v in value for leaf in _leaves(v)]
    return [value]


def get_current_name_scope() -> str:
    """`tf.get_current_name_scope()`: the enclosing tf.name_scope blocks' names joined by "/" ("" outside any)."""
    return "/".join(state.name_scopes())
