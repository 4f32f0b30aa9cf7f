"""The user functions of `map`, `filter` and `reduce`, traced once on the element_spec as tf.data traces them."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

from minitf.core import dtypes, nest
from minitf.core.context import state
from minitf.data.structure import as_traceable, leaves_of, tuples, value_spec
from minitf.function.autograph.converter import converted_call
from minitf.function.cache_keys import TensorSpec
from minitf.function.function import function


class TracedFunction:
    """A user function traced once on the element_spec, as tf.data traces `map`, `filter` and `reduce` functions.

    The trace takes the element's leaves as flat arguments and packs them back into the element's structure
    before calling the user's function (converted by AutoGraph, as `tf.function` would).
    """

    def __init__(self, fn: Callable[..., Any], element_spec: Any, what: str) -> None:

        self._unpack = isinstance(element_spec, tuple) and not hasattr(element_spec, "_fields")
        self._spec = element_spec
        user_fn = converted_call(fn)

        def on_leaves(*leaves: Any) -> Any:
            element = nest.pack_sequence_as(element_spec, leaves)
            return user_fn(*element) if self._unpack else user_fn(element)

        on_leaves.__name__ = getattr(fn, "__name__", what)
        flat_specs = [as_traceable(s) for s in leaves_of(element_spec)]
        # One positional parameter per leaf (named as TensorFlow names them), so each is traced as a TensorSpec.
        on_leaves.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
            [inspect.Parameter(f"args_{i}", inspect.Parameter.POSITIONAL_ONLY) for i in range(len(flat_specs))]
        )
        previous, state.graph = state.graph, None  # trace as a standalone function, even inside another trace
        state.refresh()
        try:
            self._concrete = function(on_leaves, autograph=False).get_concrete_function(*flat_specs)
        finally:
            state.graph = previous
            state.refresh()
        outputs = self._concrete.structured_outputs
        if outputs is None or (isinstance(outputs, tuple | list | dict) and not leaves_of(outputs)):
            raise TypeError(
                f"The {what} function must return a value (a tensor or a structure of tensors); it "
                f"returned {outputs!r}."
            )
        self.output_spec = tuples(nest.map_structure(value_spec, outputs))

    def __call__(self, element: Any) -> Any:
        return tuples(self._concrete(*leaves_of(element)))


def traced_predicate(fn: Callable[..., Any], element_spec: Any, what: str, message: str) -> TracedFunction:
    """A predicate (filter's, take_while's) traced once; it must return a bool scalar, else a ValueError with
    TensorFlow's `message` for that method (`{spec}` stands for what it returned)."""
    traced = TracedFunction(fn, element_spec, what)
    spec = traced.output_spec
    if not isinstance(spec, TensorSpec) or spec.dtype is not dtypes.bool or spec.shape.rank != 0:
        raise ValueError(message.format(spec=repr(spec)) + "\nHint: return a comparison, e.g. lambda x: x < 10.")
    return traced
