"""`tf.function`: trace a Python function into graphs, cache them by input signature, call them.

A `Function` keeps one `ConcreteFunction` (a traced graph, concrete_function.py) per *cache key*
(cache_keys.py): tensors count by dtype and shape, Python values by value. A call whose key no trace
covers traces again ("retracing", retracing.py; the trace itself: function_trace.py). With an
`input_signature`, arguments are converted to its specs and there is one trace (input_signature.py).

Reading order: cache_keys.py, function_trace.py, concrete_function.py, then this file.
"""

from __future__ import annotations

import contextlib
import functools
import inspect
import weakref
from collections.abc import Callable, Sequence
from typing import Any, cast

import numpy as np

from minitf.core.context import state
from minitf.core.tensor import EagerTensor
from minitf.function.autograph.converter import converted
from minitf.function.cache_keys import TensorSpec, trace_type
from minitf.function.concrete_function import ConcreteFunction, FunctionType, check_argument
from minitf.function.input_signature import (
    apply_input_signature,
    checked_input_signature,
    signature_key,
    signature_parameters,
)
from minitf.function.retracing import TracingDetector, detector_for, matching_trace, relaxed_key
from minitf.function.tracing.function_trace import trace_graph

_RUN_EAGERLY = [False]


def run_functions_eagerly(run_eagerly: bool) -> None:
    """`tf.config.run_functions_eagerly`: call the Python function every time instead of tracing (for debugging)."""
    _RUN_EAGERLY[0] = bool(run_eagerly)


def functions_run_eagerly() -> bool:
    return _RUN_EAGERLY[0]


def _signature(fn: Callable) -> inspect.Signature:
    try:
        return inspect.signature(fn)
    except (TypeError, ValueError):
        return inspect.Signature([inspect.Parameter("args", inspect.Parameter.VAR_POSITIONAL)])


def _bind(sig: inspect.Signature, args: Sequence[Any], kwargs: dict) -> inspect.BoundArguments:
    bound = sig.bind(*args, **kwargs)
    bound.apply_defaults()
    return bound


class Function:
    """What `tf.function(f)` returns: calls trace `f` once per new input signature, then run the graph."""

    def __init__(
        self,
        python_function: Callable,
        name: str | None = None,
        input_signature: Sequence[Any] | None = None,
        autograph: bool = True,
        reduce_retracing: bool = False,
        jit_compile: bool | None = None,
    ) -> None:
        self._python_function = python_function
        self._name = cast(str, name or getattr(python_function, "__name__", "function"))
        self._sig = _signature(python_function)
        self._input_signature = None if input_signature is None else checked_input_signature(self._sig, input_signature)
        self._autograph = autograph
        self._reduce_retracing = reduce_retracing
        self._jit_compile = jit_compile
        self._cache: dict[tuple, ConcreteFunction] = {}
        self._concrete: list[ConcreteFunction] = []
        self._tracing_count = 0
        self._created_variables = False
        self._instances: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
        self._converted: Callable | None = None
        # Calls with eager tensors only (the common case) skip argument binding: (dtype, shape)s -> trace.
        params = list(self._sig.parameters.values())
        plain = all(p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) for p in params)
        self._fast_arity = len(params) if plain else -1
        self._fast: dict[tuple, ConcreteFunction] = {}
        self._detector: TracingDetector | None = None
        self._warns_on_frequent_tracing = True  # Keras's fit turns it off: a trace per batch shape is its design
        functools.update_wrapper(self, python_function)

    # --- what TensorFlow exposes ---
    @property
    def python_function(self) -> Callable:
        return self._python_function

    @property
    def name(self) -> str:
        return self._name

    @property
    def input_signature(self) -> tuple | None:
        return self._input_signature

    @property
    def function_spec(self) -> inspect.Signature:
        return self._sig

    @property
    def function_type(self) -> FunctionType:
        """The Python function's parameters (defaults are captured when a call is traced); with an
        input_signature, each parameter's spec (`Literal[default]` for those after it)."""
        if self._input_signature is None:
            return FunctionType([p.replace(annotation=p.empty) for p in self._sig.parameters.values()])
        return FunctionType(signature_parameters(self._sig, self._input_signature))

    def experimental_get_compiler_ir(self, *args: Any, **kwargs: Any) -> Callable[..., str | bytes]:
        """What the jit makes of the trace for these arguments, stage by stage: call the result with
        `stage="hlo"` (the default), "optimized_hlo", "optimized_hlo_dot", or minitf's own "loop_ir",
        "python", "llvm", "asm"."""
        from minitf.function.compiling.jit.stages import compiler_ir  # the jit loads on first use

        return compiler_ir(self.get_concrete_function(*args, **kwargs))

    def experimental_get_tracing_count(self) -> int:
        return self._tracing_count

    def pretty_printed_concrete_signatures(self, verbose: bool = True) -> str:
        return "\n\n".join(cf.pretty_printed_signature(verbose) for cf in self._concrete)

    def __repr__(self) -> str:
        return f"<minitf.function.Function object at 0x{id(self):x} wrapping {self._python_function!r}>"

    # --- methods: `@tf.function` inside a class gives one Function per instance ---
    def __get__(self, instance: Any, owner: Any = None) -> Any:
        if instance is None:
            return self
        slot = f"_minitf_function_{id(self)}"
        try:
            bound = self._instances.get(instance)
        except TypeError:  # an unhashable instance keeps its Function itself
            bound = getattr(instance, "__dict__", {}).get(slot)
        if bound is None:
            bound = Function(
                self._python_function.__get__(instance, owner),
                self._name,
                self._input_signature,
                self._autograph,
                self._reduce_retracing,
                self._jit_compile,
            )
            try:
                self._instances[instance] = bound
            except TypeError:
                with contextlib.suppress(AttributeError, TypeError):
                    instance.__dict__[slot] = bound
        return bound

    # --- calling ---
    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if _RUN_EAGERLY[0]:
            return self._python_function(*args, **kwargs)
        fast_key = self._fast_key(args) if not kwargs and len(args) == self._fast_arity else None
        concrete = self._fast.get(fast_key) if fast_key is not None else None
        if concrete is not None and fast_key is not None and None in fast_key:
            # A None argument (an optional one left unset, as fit's sample_weight) is part of the trace's key and
            # no input of its graph: the graph's inputs are the tensors.
            args = tuple(a for a in args if a is not None)
        if concrete is not None and not state.active and self._detector is not None:
            # The common call: eager tensors of a (dtype, shape) seen before, nothing watching. Their trace was
            # found (and its arguments checked) the first time, and no tape or trace can see this call, so the
            # generated code runs at once (`_run_plain`); the detector counts a call without tracing.
            result = concrete._run_plain(args)
            self._detector.called_without_tracing()
            return result
        before = self._tracing_count
        if concrete is not None:
            result = concrete._call_flat(list(args))
        else:
            concrete, flat = self._concrete_for_call(args, kwargs)
            result = concrete._call_flat(flat)
            if fast_key is not None:
                self._fast[fast_key] = concrete
        if state.graph is None and self._warns_on_frequent_tracing:
            if self._detector is None:
                self._detector = detector_for(self._python_function)
            if self._tracing_count == before:
                self._detector.called_without_tracing()
            else:
                self._detector.called_with_tracing(self._python_function)
        return result

    @staticmethod
    def _fast_key(args: Sequence[Any]) -> tuple | None:
        key: list[Any] = []
        for a in args:
            if a is None:
                key.append(None)
                continue
            if type(a) is not EagerTensor:
                return None
            value = a._value
            key.append((a._dtype, value.shape if type(value) is np.ndarray else np.shape(value)))
        return tuple(key)

    def get_concrete_function(self, *args: Any, **kwargs: Any) -> ConcreteFunction:
        """The trace for these arguments (tensors or TensorSpecs), tracing if needed."""
        if not args and not kwargs and self._input_signature is not None:
            args = self._input_signature
        concrete, _ = self._concrete_for_call(args, kwargs)
        return concrete

    def _canonical(self, args: Sequence[Any], kwargs: dict) -> tuple[inspect.BoundArguments, list[str], tuple]:
        if self._input_signature is not None:
            args, kwargs = apply_input_signature(self._sig, self._input_signature, args, kwargs)
        bound = _bind(self._sig, args, kwargs)
        names = list(bound.arguments)
        key = tuple(
            trace_type(bound.arguments[n])
            if not isinstance(bound.arguments[n], TensorSpec)
            else TensorSpec(bound.arguments[n].shape, bound.arguments[n].dtype)
            for n in names
        )
        return bound, names, key

    def _concrete_for_call(self, args: Sequence[Any], kwargs: dict) -> tuple[ConcreteFunction, list[Any]]:
        bound, names, key = self._canonical(args, kwargs)
        concrete = self._lookup(key)
        if concrete is None:
            if self._input_signature is not None:
                key = signature_key(self._sig, self._input_signature)
            elif self._reduce_retracing:
                key = relaxed_key(self._concrete, key)
            first_trace = self._tracing_count == 0
            concrete = self._trace(bound, key)
            if concrete.graph.variables and not first_trace:
                self._cache.pop(key, None)
                self._concrete.remove(concrete)
                raise ValueError("Creating variables on a non-first call to a function decorated with tf.function.")
            if concrete.graph.variables:
                # TensorFlow traces again once variables were created: now creating one is an error, and the
                # `if self.v is None:` pattern sees the variable it made the first time.
                self._cache.pop(key, None)
                self._concrete.remove(concrete)
                concrete = self._trace(bound, key)
        flat: list[Any] = []
        for name, expected in zip(names, concrete._key):
            value = bound.arguments[name]
            if isinstance(value, TensorSpec):
                continue
            flat.extend(check_argument(value, expected, concrete))
        return concrete, flat

    def _lookup(self, key: tuple) -> ConcreteFunction | None:
        concrete = self._cache.get(key)
        return concrete if concrete is not None else matching_trace(self._concrete, key)

    def _trace(self, bound: inspect.BoundArguments, key: tuple) -> ConcreteFunction:
        fn = self._python_function
        if self._autograph:
            if self._converted is None:
                self._converted = converted(fn)
            fn = self._converted
        graph = trace_graph(
            self._name,
            fn,
            self._sig,
            bound.arguments,
            key,
            autograph=self._autograph,
            allow_variable_creation=not self._created_variables,
        )
        if graph.variables:
            self._created_variables = True
        self._tracing_count += 1
        concrete = ConcreteFunction(graph, self._sig, key, list(bound.arguments), self._name, self._jit_compile)
        self._cache[key] = concrete
        self._concrete.append(concrete)
        return concrete


def function(
    func: Callable | None = None,
    input_signature: Sequence[Any] | None = None,
    autograph: bool = True,
    jit_compile: bool | None = None,
    reduce_retracing: bool = False,
    experimental_implements: Any = None,
    experimental_autograph_options: Any = None,
    experimental_attributes: Any = None,
    experimental_relax_shapes: Any = None,
    experimental_compile: Any = None,
    experimental_follow_type_hints: Any = None,
    name: str | None = None,
) -> Any:
    """`tf.function`: as a decorator (with or without arguments) or called on a function."""
    if experimental_relax_shapes is not None:
        reduce_retracing = bool(experimental_relax_shapes)

    def decorate(fn: Callable) -> Function:
        return Function(
            fn,
            name=name,
            input_signature=input_signature,
            autograph=autograph,
            reduce_retracing=reduce_retracing,
            jit_compile=jit_compile,
        )

    if func is None:
        return decorate
    return decorate(func)
