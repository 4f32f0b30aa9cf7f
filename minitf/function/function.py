"""`tf.function`: trace a Python function into graphs, cache them by input signature, call them.

A `Function` keeps one `ConcreteFunction` (a traced graph) per *cache key*. The key follows TensorFlow:
tensors and NumPy arrays count by dtype and shape, Variables by identity, Python values by value (so
`f(1)` and `f(1.0)` share a trace, because `1 == 1.0` and both hash alike), lists, tuples and dicts by
content. A call whose key is new traces again ("retracing"); five traces within the last ten calls make
TensorFlow's retracing warning appear (at most twice per Python function).

A call runs the concrete function's optimised graph as generated code (optimizer.py, codegen.py); under a
tape the traced graph is replayed op by op instead, so gradients see every op (execute.py).
"""

from __future__ import annotations

import contextlib
import functools
import inspect
import logging
import weakref
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from minitf import dtypes, nest
from minitf.core import convert_to_tensor, state
from minitf.errors import InvalidArgumentError
from minitf.function import codegen, optimizer
from minitf.function.execute import call_graph, compiled
from minitf.function.graph import FuncGraph, SymbolicTensor, resource
from minitf.function.optimizer import OptimizationReport
from minitf.function.trace import graph_scope
from minitf.indexed_slices import IndexedSlices
from minitf.tensor import EagerTensor, Tensor
from minitf.tensor_shape import as_shape

log = logging.getLogger("minitf")

FREQUENT_TRACING_WARNING_MAX_CALL_HISTORY = 10
FREQUENT_TRACING_WARNING_THRESHOLD = 5
FREQUENT_TRACING_WARNING_MAX_WARNING_PER_DETECTOR = 2

_RUN_EAGERLY = [False]


def run_functions_eagerly(run_eagerly: bool) -> None:
    """`tf.config.run_functions_eagerly`: call the Python function every time instead of tracing (for debugging)."""
    _RUN_EAGERLY[0] = bool(run_eagerly)


def functions_run_eagerly() -> bool:
    return _RUN_EAGERLY[0]


# ---------------------------------------------------------------------------------------------------
# TensorSpec and the other parts of a cache key
# ---------------------------------------------------------------------------------------------------

class TensorSpec:
    """Describes a tensor argument: its shape (None for unknown dimensions) and dtype."""

    __slots__ = ("shape", "dtype", "name")

    def __init__(self, shape: Any, dtype: Any = dtypes.float32, name: str | None = None) -> None:
        self.shape = as_shape(shape)
        self.dtype = dtypes.as_dtype(dtype)
        self.name = name

    @classmethod
    def from_tensor(cls, tensor: Any, name: str | None = None) -> TensorSpec:
        return cls(tensor.shape, tensor.dtype, name)

    def is_compatible_with(self, other: Any) -> bool:
        if isinstance(other, TensorSpec | Tensor):
            return self.dtype is other.dtype and self.shape.is_compatible_with(other.shape)
        return False

    def is_subtype_of(self, other: TensorSpec) -> bool:
        """True when every tensor this spec describes is also described by `other`."""
        if self.dtype is not other.dtype:
            return False
        if other.shape.rank is None:
            return True
        if self.shape.rank != other.shape.rank:
            return False
        return all(o is None or s == o for s, o in zip(self.shape, other.shape))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, TensorSpec) and self.dtype is other.dtype and self.shape == other.shape \
            and self.name == other.name

    def __hash__(self) -> int:
        return hash((self.shape, self.dtype.name, self.name))

    def __repr__(self) -> str:
        name = "None" if self.name is None else repr(self.name)
        return f"TensorSpec(shape={self.shape}, dtype={self.dtype!r}, name={name})"


class VariableSpec(TensorSpec):
    """A Variable argument: the graph reads whichever variable of this shape and dtype it is given."""

    __slots__ = ()

    def __eq__(self, other: object) -> bool:
        return isinstance(other, VariableSpec) and TensorSpec.__eq__(self, other)

    def __hash__(self) -> int:
        return hash(("variable", self.shape, self.dtype.name))

    def __repr__(self) -> str:
        return f"VariableSpec(shape={self.shape}, dtype={self.dtype!r}, trainable=True, alias_id=None)"


class _Literal:
    """A Python value in a cache key: equal keys for equal values (1 == 1.0 == True, as TensorFlow)."""

    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Literal) and type(other.value) is not type(None) and self.value == other.value \
            or (isinstance(other, _Literal) and self.value is None and other.value is None)

    def __hash__(self) -> int:
        return hash(self.value)

    def __repr__(self) -> str:
        return f"Literal[{self.value!r}]"


class _ById:
    """An object that is not a value (a Python function, `self` of a method, ...): keys by identity.

    TensorFlow keeps a weak reference to such an object and prints the key as `Weakref[<weakref ...>])`.
    """

    __slots__ = ("obj", "label", "ref")

    def __init__(self, obj: Any, label: str) -> None:
        self.obj = obj
        self.label = label
        try:
            self.ref: Any = weakref.ref(obj)
        except TypeError:
            self.ref = None

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _ById) and other.obj is self.obj

    def __hash__(self) -> int:
        return id(self.obj)

    def __repr__(self) -> str:
        return self.label if self.ref is None else f"Weakref[{self.ref!r}])"


def _trace_type(value: Any) -> Any:
    """The part of the cache key for one argument."""
    from minitf.variables import Variable

    if isinstance(value, Tensor):
        return TensorSpec(value.shape, value.dtype)
    if isinstance(value, TensorSpec):
        return TensorSpec(value.shape, value.dtype)
    if isinstance(value, np.ndarray | np.generic) and not isinstance(value, np.str_ | np.bytes_):
        return TensorSpec(np.shape(value), dtypes.from_numpy(value.dtype))
    if isinstance(value, Variable):
        return VariableSpec(value.shape, value.dtype)
    if isinstance(value, list):
        return ("List", *(_trace_type(v) for v in value))
    if isinstance(value, tuple):
        return ("Tuple", *(_trace_type(v) for v in value))
    if isinstance(value, dict):
        return ("Dict", *((k, _trace_type(value[k])) for k in sorted(value, key=str)))
    if hasattr(value, "_trace_spec"):  # RaggedTensor, SparseTensor: traced by a spec, as TensorFlow does
        return value._trace_spec()
    try:
        hash(value)
    except TypeError:
        return _ById(value, f"{type(value).__name__}")
    if isinstance(value, int | float | complex | str | bytes | bool | type(None)):
        return _Literal(value)
    return _ById(value, f"{type(value).__name__}")


def _type_text(t: Any) -> str:
    if isinstance(t, tuple) and t and t[0] == "Dict":
        return "Dict[" + ", ".join(f"[{k!r}, {_type_text(v)}]" for k, v in t[1:]) + "]"
    if isinstance(t, tuple) and t and t[0] in ("List", "Tuple"):
        return f"{t[0]}[" + ", ".join(_type_text(v) for v in t[1:]) + "]"
    return repr(t)


def _is_subtype(specific: Any, general: Any) -> bool:
    if isinstance(specific, TensorSpec) and isinstance(general, TensorSpec):
        return type(specific) is type(general) and specific.is_subtype_of(general)
    if isinstance(specific, tuple) and isinstance(general, tuple):
        if len(specific) != len(general) or (specific and specific[0] != general[0]):
            return False
        return all(_is_subtype(a, b) for a, b in zip(specific[1:], general[1:]))
    return bool(specific == general)


def _generalize(a: Any, b: Any) -> Any:
    """The most specific key that covers both `a` and `b` (None when they differ in more than shapes)."""
    if isinstance(a, TensorSpec) and isinstance(b, TensorSpec):
        if a.dtype is not b.dtype or type(a) is not type(b) or isinstance(a, VariableSpec):
            return None
        return TensorSpec(a.shape.most_specific_compatible_shape(b.shape), a.dtype)
    if isinstance(a, tuple) and isinstance(b, tuple):
        if len(a) != len(b) or (a and a[0] != b[0]):
            return None
        parts = [_generalize(x, y) for x, y in zip(a[1:], b[1:])]
        return None if any(p is None for p in parts) else (a[0],) + tuple(parts)
    if isinstance(a, str) and a == b:
        return a
    return a if a == b else None


# ---------------------------------------------------------------------------------------------------
# Binding arguments
# ---------------------------------------------------------------------------------------------------

def _signature(fn: Callable) -> inspect.Signature:
    try:
        return inspect.signature(fn)
    except (TypeError, ValueError):
        return inspect.Signature([inspect.Parameter("args", inspect.Parameter.VAR_POSITIONAL)])


def _bind(sig: inspect.Signature, args: Sequence[Any], kwargs: dict) -> inspect.BoundArguments:
    bound = sig.bind(*args, **kwargs)
    bound.apply_defaults()
    return bound


# ---------------------------------------------------------------------------------------------------
# ConcreteFunction: one traced graph
# ---------------------------------------------------------------------------------------------------

class ConcreteFunction:
    """One trace of a `tf.function`: a FuncGraph plus how Python arguments map onto its inputs."""

    def __init__(self, graph: FuncGraph, sig: inspect.Signature, key: tuple, param_names: list[str],
                 function_name: str) -> None:
        self.graph = graph
        self._sig = sig
        self._key = key
        self._param_names = param_names
        self.name = f"__inference_{function_name}"
        self._function_name = function_name
        self._captures = graph.external_captures()
        self._single_output = isinstance(graph.structured_outputs, SymbolicTensor)
        self._optimized: tuple[int, FuncGraph, OptimizationReport] | None = None

    @property
    def inputs(self) -> list[SymbolicTensor]:
        return list(self.graph.inputs)

    @property
    def outputs(self) -> list[SymbolicTensor]:
        return list(self.graph.outputs)

    @property
    def structured_outputs(self) -> Any:
        return self.graph.structured_outputs

    @property
    def structured_input_signature(self) -> Any:
        return self.graph.structured_input_signature

    @property
    def captured_inputs(self) -> list[Any]:
        return self.graph.external_captures()

    @property
    def variables(self) -> tuple:
        return tuple(v for v in self.graph.external_captures() if hasattr(v, "assign"))

    @property
    def trainable_variables(self) -> tuple:
        return tuple(v for v in self.variables if v.trainable)

    @property
    def function_def(self) -> Any:
        return self.graph.as_graph_def()

    @property
    def function_type(self) -> FunctionType:
        """The trace's signature: each parameter with what it accepts (a TensorSpec, or `Literal[value]`)."""
        params = [inspect.Parameter(name, self._sig.parameters[name].kind, annotation=t)
                  for name, t in zip(self._param_names, self._key)]
        return FunctionType(params, return_annotation=_output_type(self.graph.structured_outputs))

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        """Call with the original arguments (Python values must equal the traced ones), or with the tensor
        arguments alone (the flat signature), as TensorFlow's concrete functions accept."""
        function_type = self.function_type
        try:
            bound = function_type.bind(*args, **kwargs)
            flat: list[Any] = []
            for name, expected in zip(self._param_names, self._key):
                flat.extend(_check_argument(bound.arguments[name], expected, self))
        except TypeError as structured:
            try:
                flat = self._flat_arguments(args, kwargs)
            except TypeError as fallback:
                raise TypeError(
                    f"Binding inputs to tf.function failed due to `{structured}`. Received args: {args} and kwargs: "
                    f"{kwargs} for signature: {function_type}.\nFallback to flat signature also failed due to: "
                    f"{fallback}\nHint: call a concrete function with the arguments it was traced for (Python "
                    f"values equal to the traced ones), or with its tensor arguments only.") from None
        return self._call_flat(flat)

    def _flat_arguments(self, args: tuple, kwargs: dict) -> list[Any]:
        """The flat signature: the tensor inputs only, by position or by name."""
        from minitf.variables import Variable

        holders = self.graph.inputs[:len(self.graph.inputs) - len(self.graph.captures)]
        names = [t.op.name for t in holders]
        header = f"{self._function_name}({', '.join(names)})"
        if len(args) > len(names):
            raise TypeError(f"{header} takes {len(names)} positional arguments, got {len(args)}.")
        unexpected = [k for k in kwargs if k not in names[len(args):]]
        if unexpected:
            raise TypeError(f"{header} got unexpected keyword arguments: {', '.join(unexpected)}.")
        missing = [n for n in names[len(args):] if n not in kwargs]
        if missing:
            raise TypeError(f"{header} missing required arguments: {', '.join(missing)}.")
        values = list(args) + [kwargs[n] for n in names[len(args):]]
        for i, (value, holder) in enumerate(zip(values, holders)):
            if not isinstance(value, Tensor | Variable):
                raise TypeError(f"{header}: expected argument #{i}(zero-based) to be a Tensor; got "
                                f"{type(value).__name__} ({value}).")
            if holder.dtype is not resource and value.dtype is not holder.dtype:  # type: ignore[attr-defined]
                _check_argument(value, TensorSpec(holder.shape, holder.dtype), self)
        return values

    # --- what the optimiser made of the graph (minitf-only: TensorFlow keeps its optimised graph inside) ---
    def _optimize(self) -> tuple[int, FuncGraph, OptimizationReport]:
        """Optimise once per setting of `tf.config.optimizer` (changing a switch optimises again)."""
        version = optimizer.options_version()
        if self._optimized is None or self._optimized[0] != version:
            graph, report = optimizer.optimize(self.graph)
            self._optimized = (version, graph, report)
        return self._optimized

    @property
    def optimized_graph(self) -> FuncGraph:
        """The graph calls run: `graph` after the optimisation passes (minitf-only)."""
        return self._optimize()[1]

    @property
    def optimization_report(self) -> OptimizationReport:
        """What each pass changed, with the graph's size before and after (minitf-only)."""
        return self._optimize()[2]

    def draw(self, optimized: bool = False, **options: Any) -> Any:
        """The graph (or the optimised graph) drawn inline, as SVG (minitf-only; TensorFlow uses TensorBoard)."""
        from minitf.function import drawing  # the drawing code is only needed when someone draws
        return drawing.draw(self.optimized_graph if optimized else self.graph, **options)

    def draw_optimization(self) -> Any:
        """The traced graph and the optimised graph side by side (minitf-only)."""
        from minitf.function import drawing
        return drawing.side_by_side(self.graph, self.optimized_graph, titles=("traced", "optimised"))

    def generated_code(self) -> str:
        """The Python code the optimised graph became, with the kernels fusion made (minitf-only)."""
        return codegen.source_of(self.optimized_graph, compiled)

    def _call_flat(self, flat_args: list[Any]) -> Any:
        """Run the graph on the flat tensor arguments (captures are added here)."""
        inputs = flat_args + self._captures if self._captures else flat_args
        if state.graph is not None:
            from minitf.function.control_flow import call_traced
            outputs = call_traced(self.graph, inputs)
        else:
            outputs = call_graph(self.graph, inputs, self._optimize()[1])
        if self._single_output:
            return outputs[0]
        it = iter(outputs)
        return nest.pack_sequence_as(self.graph.structured_outputs,
                                     [next(it) if isinstance(leaf, Tensor) else _rebuild_composite(leaf, it)
                                      for leaf in nest.flatten(self.graph.structured_outputs, expand_composites=True)],
                                     expand_composites=True)

    def pretty_printed_signature(self, verbose: bool = True) -> str:
        params = []
        for name, t in zip(self._param_names, self._key):
            kind = self._sig.parameters[name].kind.name
            params.append(f"  {name} ({kind}): {_type_text(t)}")
        out_text = _type_text(_output_type(self.graph.structured_outputs))
        captures = [f"  {id(v)}: TensorSpec(shape=(), dtype=tf.resource, name=None)" if hasattr(v, "assign")
                    else f"  {id(v)}: TensorSpec(shape={v.shape}, dtype={v.dtype!r}, name=None)"
                    for v in self.graph.external_captures()]
        return "\n".join(["Input Parameters:", *params, "Output Type:", f"  {out_text}", "Captures:",
                          *(captures or ["  None"])])

    def __repr__(self) -> str:
        return f"<ConcreteFunction {self.function_type} at 0x{id(self):X}>"

    def __str__(self) -> str:
        return f"ConcreteFunction {self.pretty_printed_signature()}"


class FunctionType(inspect.Signature):
    """`ConcreteFunction.function_type`: a signature whose annotations are the traced types, printed as
    `(x: TensorSpec(shape=(None,), dtype=tf.float32, name=None), n: Literal[3]) -> TensorSpec(...)`.

    Its parameters have no defaults: a concrete function is called with every argument it was traced for.
    """

    __slots__ = ()

    def __str__(self) -> str:
        params = []
        for p in self.parameters.values():
            text = p.name if p.annotation is p.empty else f"{p.name}: {_type_text(p.annotation)}"
            if p.default is not p.empty:
                text += "=<captured_default_value>" if p.annotation is p.empty else " = <captured_default_value>"
            params.append(text)
        returns = "" if self.return_annotation is self.empty else f" -> {_type_text(self.return_annotation)}"
        return f"({', '.join(params)}){returns}"

    __repr__ = __str__


class _NoneType:
    def __repr__(self) -> str:
        return "None"


def _output_type(structure: Any) -> Any:
    """The type of what a trace returns; dicts keep their keys' order here (TensorFlow prints them so)."""
    if structure is None:
        return _NoneType()
    if isinstance(structure, dict):
        return ("Dict", *((k, _output_type(v)) for k, v in structure.items()))
    if isinstance(structure, list | tuple):
        return ("List" if isinstance(structure, list) else "Tuple", *(_output_type(v) for v in structure))
    return _trace_type(_specs_of(structure))


def _specs_of(structure: Any) -> Any:
    return nest.map_structure(lambda t: TensorSpec(t.shape, t.dtype) if isinstance(t, Tensor) else t, structure) \
        if nest.is_nested(structure) else (TensorSpec(structure.shape, structure.dtype)
                                           if isinstance(structure, Tensor) else structure)


def _check_argument(value: Any, expected: Any, cf: ConcreteFunction) -> list[Any]:
    """The flat tensor inputs for one argument of a concrete function; TensorFlow's errors when it doesn't fit."""
    from minitf.variables import Variable

    if isinstance(expected, VariableSpec):
        if not (isinstance(value, Variable) and value.dtype is expected.dtype and value.shape == expected.shape):
            raise TypeError(f"Can not cast {_type_text(_trace_type(value))} to {expected!r}")
        return [value]
    if isinstance(expected, TensorSpec):
        if isinstance(value, TensorSpec) and value.is_subtype_of(expected):
            return []  # get_concrete_function(spec): nothing to feed
        if isinstance(value, Tensor):
            if value.dtype is not expected.dtype:  # type: ignore[attr-defined]
                from minitf.core import _tf_name
                raise InvalidArgumentError(
                    None, None, f"cannot compute {cf.name} as input #0(zero-based) was expected to be a "
                    f"{_tf_name(expected.dtype)} tensor but is a {_tf_name(value.dtype)} tensor "  # type: ignore
                    f"[Op:{cf.name}]\nHint: convert the argument with tf.cast(x, tf.{expected.dtype.name}), the "
                    f"dtype this concrete function was traced for.")
            return [value]
        if isinstance(value, Variable):
            return [value.read_value()]
        try:
            return [convert_to_tensor(value, dtype=expected.dtype)]
        except (TypeError, ValueError):
            raise TypeError(f"Can not cast {_type_text(_trace_type(value))} to {expected!r}") from None
    if hasattr(expected, "_flat_inputs"):  # RaggedTensorSpec, SparseTensorSpec
        return expected._flat_inputs(value)
    if isinstance(expected, _ById):
        if value is not expected.obj:
            raise TypeError(f"Can not cast {_type_text(_trace_type(value))} to {expected!r}")
        return []
    if isinstance(expected, tuple) and expected and expected[0] in ("List", "Tuple", "Dict"):
        if expected[0] == "Dict":
            if not isinstance(value, dict) or sorted(map(str, value)) != [str(k) for k, _ in expected[1:]]:
                raise TypeError(f"Can not cast {_type_text(_trace_type(value))} to {_type_text(expected)}")
            return [x for k, t in expected[1:] for x in _check_argument(value[k], t, cf)]
        if not isinstance(value, list | tuple) or len(value) != len(expected) - 1:
            raise TypeError(f"Can not cast {_type_text(_trace_type(value))} to {_type_text(expected)}")
        return [x for v, t in zip(value, expected[1:]) for x in _check_argument(v, t, cf)]
    if isinstance(expected, _Literal) and _equals(value, expected.value):
        return []  # TensorFlow compares a literal with ==, so tf.constant(3.0) passes for Literal[3]
    if _trace_type(value) != expected:
        raise TypeError(f"Can not cast {value!r} to {_type_text(expected)}")
    return []


def _equals(value: Any, literal: Any) -> bool:
    try:
        return bool(value == literal)
    except (TypeError, ValueError):
        return False


# ---------------------------------------------------------------------------------------------------
# Function: the polymorphic callable `tf.function` returns
# ---------------------------------------------------------------------------------------------------

class _TracingDetector:
    """Counts how many of the recent calls traced (TensorFlow's _FrequentTracingDetector)."""

    def __init__(self) -> None:
        self.calls_per_tracing: list[int] = []
        self.call_count = 0
        self.warnings = 0

    def called_with_tracing(self, function: Callable) -> None:
        self.call_count += 1
        self.calls_per_tracing.append(1)
        while self.calls_per_tracing:
            if self.call_count - self.calls_per_tracing[0] > FREQUENT_TRACING_WARNING_MAX_CALL_HISTORY:
                self.call_count -= self.calls_per_tracing.pop(0)
            else:
                break
        if self.warnings >= FREQUENT_TRACING_WARNING_MAX_WARNING_PER_DETECTOR:
            return
        if len(self.calls_per_tracing) >= FREQUENT_TRACING_WARNING_THRESHOLD:
            self.warnings += 1
            log.warning(
                "%d out of the last %d calls to %s triggered tf.function retracing. Tracing is expensive and the "
                "excessive number of tracings could be due to (1) creating @tf.function repeatedly in a loop, (2) "
                "passing tensors with different shapes, (3) passing Python objects instead of tensors. For (1), "
                "please define your @tf.function outside of the loop. For (2), @tf.function has "
                "reduce_retracing=True option that can avoid unnecessary retracing. For (3), please refer to "
                "https://www.tensorflow.org/guide/function#controlling_retracing and "
                "https://www.tensorflow.org/api_docs/python/tf/function for  more details.",
                len(self.calls_per_tracing), self.call_count, function)

    def called_without_tracing(self) -> None:
        if not self.calls_per_tracing:
            self.calls_per_tracing = [0]
        self.calls_per_tracing[-1] += 1
        self.call_count += 1


_detectors: dict[Any, _TracingDetector] = {}


def _detector_key(fn: Callable) -> Any:
    target = fn
    while hasattr(target, "__wrapped__"):
        target = target.__wrapped__
    target = getattr(target, "__func__", target)
    return getattr(target, "__code__", target)


class Function:
    """What `tf.function(f)` returns: calls trace `f` once per new input signature, then run the graph."""

    def __init__(self, python_function: Callable, name: str | None = None, input_signature: Sequence[Any] | None = None,
                 autograph: bool = True, reduce_retracing: bool = False, jit_compile: bool | None = None) -> None:
        self._python_function = python_function
        self._name = name or getattr(python_function, "__name__", "function")
        self._input_signature = None if input_signature is None else tuple(input_signature)
        self._autograph = autograph
        self._reduce_retracing = reduce_retracing
        self._jit_compile = jit_compile
        self._sig = _signature(python_function)
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
        self._detector: _TracingDetector | None = None
        functools.update_wrapper(self, python_function)  # type: ignore[arg-type]

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
        params = list(self._sig.parameters.values())
        if self._input_signature is None:
            return FunctionType([p.replace(annotation=p.empty) for p in params])
        specs = [_trace_type(s) for s in self._input_signature]
        return FunctionType([p.replace(annotation=specs[i] if i < len(specs) else _Literal(p.default))
                             for i, p in enumerate(params)])

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
            bound = Function(self._python_function.__get__(instance, owner), self._name, self._input_signature,
                             self._autograph, self._reduce_retracing, self._jit_compile)
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
        concrete = self._fast.get(fast_key) if fast_key is not None else None  # type: ignore[arg-type]
        before = self._tracing_count
        if concrete is not None:
            result = concrete._call_flat(list(args))
        else:
            concrete, flat = self._concrete_for_call(args, kwargs)
            result = concrete._call_flat(flat)
            if fast_key is not None:
                self._fast[fast_key] = concrete
        if state.graph is None:
            if self._detector is None:
                self._detector = _detectors.setdefault(_detector_key(self._python_function), _TracingDetector())
            if self._tracing_count == before:
                self._detector.called_without_tracing()
            else:
                self._detector.called_with_tracing(self._python_function)
        return result

    @staticmethod
    def _fast_key(args: Sequence[Any]) -> tuple | None:
        key = []
        for a in args:
            if type(a) is not EagerTensor:
                return None
            key.append((a._dtype, np.shape(a._value)))
        return tuple(key)

    def get_concrete_function(self, *args: Any, **kwargs: Any) -> ConcreteFunction:
        """The trace for these arguments (tensors or TensorSpecs), tracing if needed."""
        if not args and not kwargs and self._input_signature is not None:
            args = self._input_signature
        concrete, _ = self._concrete_for_call(args, kwargs)
        return concrete

    def _canonical(self, args: Sequence[Any], kwargs: dict) -> tuple[inspect.BoundArguments, list[str], tuple]:
        if self._input_signature is not None:
            args = self._apply_input_signature(args, kwargs)
            kwargs = {}
        bound = _bind(self._sig, args, kwargs)
        names = list(bound.arguments)
        key = tuple(_trace_type(bound.arguments[n]) if not isinstance(bound.arguments[n], TensorSpec)
                    else TensorSpec(bound.arguments[n].shape, bound.arguments[n].dtype) for n in names)
        return bound, names, key

    def _apply_input_signature(self, args: Sequence[Any], kwargs: dict) -> tuple:
        """Convert the arguments to the signature's specs; TensorFlow's TypeError when they don't fit."""
        bound = self._sig.bind_partial(*args, **kwargs)
        values = list(bound.arguments.values())
        spec = self._input_signature
        assert spec is not None
        if len(values) > len(spec):
            raise TypeError(f"Binding inputs to tf.function failed due to `too many positional arguments`. Received "
                            f"args: {tuple(args)} and kwargs: {kwargs} for signature: {self._signature_text()}.")
        fail = (f"Received args: {tuple(args)} and kwargs: {kwargs} for signature: {self._signature_text()}.")
        return tuple(_fit_to_spec(value, s, fail) for value, s in zip(values, spec))

    def _signature_text(self) -> str:
        assert self._input_signature is not None
        return "(" + ", ".join(f"{n}: {s!r}" for n, s in zip(self._sig.parameters, self._input_signature)) + ")"

    def _concrete_for_call(self, args: Sequence[Any], kwargs: dict) -> tuple[ConcreteFunction, list[Any]]:
        bound, names, key = self._canonical(args, kwargs)
        concrete = self._lookup(key)
        if concrete is None:
            if self._input_signature is not None:
                key = tuple(_trace_type(s) for s in self._input_signature)
            elif self._reduce_retracing:
                key = self._generalized(key)
            first_trace = self._tracing_count == 0
            concrete = self._trace(bound, names, key)
            if concrete.graph.variables and not first_trace:
                self._cache.pop(key, None)
                self._concrete.remove(concrete)
                raise ValueError("Creating variables on a non-first call to a function decorated with tf.function.")
            if concrete.graph.variables:
                # TensorFlow traces again once variables were created: now creating one is an error, and the
                # `if self.v is None:` pattern sees the variable it made the first time.
                self._cache.pop(key, None)
                self._concrete.remove(concrete)
                concrete = self._trace(bound, names, key)
        flat: list[Any] = []
        for name, expected in zip(names, concrete._key):
            value = bound.arguments[name]
            if isinstance(value, TensorSpec):
                continue
            flat.extend(_check_argument(value, expected, concrete))
        return concrete, flat

    def _lookup(self, key: tuple) -> ConcreteFunction | None:
        concrete = self._cache.get(key)
        if concrete is not None:
            return concrete
        candidates = [cf for cf in self._concrete if _is_subtype(("Tuple",) + key, ("Tuple",) + cf._key)]
        if not candidates:
            return None
        # The most specific one: a candidate that is a subtype of all the others.
        for cf in candidates:
            if all(_is_subtype(("Tuple",) + cf._key, ("Tuple",) + other._key) for other in candidates):
                return cf
        return candidates[0]

    def _generalized(self, key: tuple) -> tuple:
        for cf in reversed(self._concrete):
            general = _generalize(("Tuple",) + key, ("Tuple",) + cf._key)
            if general is not None:
                return general[1:]
        return key

    def _trace(self, bound: inspect.BoundArguments, names: list[str], key: tuple) -> ConcreteFunction:
        from minitf.function.autograph import converted
        from minitf.ops.state_ops import NoOp

        graph = FuncGraph(self._name, autograph=self._autograph)
        graph.allow_variable_creation = not self._created_variables  # type: ignore[attr-defined]
        call_args: dict[str, Any] = {}
        specs_in: list[Any] = []
        for name, expected in zip(names, key):
            value = bound.arguments[name]
            param = self._sig.parameters.get(name)
            if param is not None and param.kind is inspect.Parameter.VAR_POSITIONAL:
                # TensorFlow names the placeholders of `*p` p_0, p_1, ... (a list argument x gets x, x_1, ...)
                call_args[name] = tuple(_placeholders(graph, f"{name}_{i}", v, t)
                                        for i, (v, t) in enumerate(zip(value, expected[1:])))
            else:
                call_args[name] = _placeholders(graph, name, value, expected)
            specs_in.append(_input_spec(name, expected))
        graph.structured_input_signature = (tuple(specs_in), {})
        fn = self._python_function
        if self._autograph:
            if self._converted is None:
                self._converted = converted(fn)
            fn = self._converted
        args, kwargs = _rebuild_call(self._sig, call_args)
        with graph_scope(graph):
            try:
                result = fn(*args, **kwargs)
            except Exception as exc:
                if not self._autograph:
                    raise
                from minitf.function.user_code import in_user_code
                raise in_user_code(exc, exc.__traceback__.tb_next) from None
            flat_out = nest.flatten(result, expand_composites=True)
            outputs = []
            packed = []
            for leaf in flat_out:
                if leaf is None:
                    packed.append(None)
                    continue
                if isinstance(leaf, IndexedSlices):  # a composite: its component tensors are the outputs
                    parts = [_output_identity(graph, t) for t in _components(leaf)]
                    outputs.extend(parts)
                    packed.append(IndexedSlices(*parts))
                    continue
                if hasattr(leaf, "_as_tensor") and not isinstance(leaf, Tensor):
                    leaf = leaf.read_value()
                if not isinstance(leaf, Tensor):
                    leaf = _output_tensor(leaf, fn)
                ident = _output_identity(graph, leaf)
                outputs.append(ident)
                packed.append(ident)
            if graph.control_outputs or any(op.type == "ReadVariableOp" for op in graph.get_operations()):
                graph.create_op(NoOp, [])
        graph.outputs = outputs
        graph.structured_outputs = nest.pack_sequence_as(result, packed, expand_composites=True)
        if graph.variables:
            self._created_variables = True
        self._tracing_count += 1
        concrete = ConcreteFunction(graph, self._sig, key, names, self._name)
        self._cache[key] = concrete
        self._concrete.append(concrete)
        return concrete


def _output_identity(graph: FuncGraph, leaf: Tensor) -> SymbolicTensor:
    """A returned tensor goes through an Identity op, as in TensorFlow's graphs."""
    from minitf.ops.array_ops import Identity
    leaf = graph.capture(leaf) if not (isinstance(leaf, SymbolicTensor) and leaf.graph is graph) else leaf
    return graph.create_op(Identity, [leaf]).outputs[0]


def _components(slices: IndexedSlices) -> list[Tensor]:
    parts = [slices.values, slices.indices]
    return parts if slices.dense_shape is None else [*parts, slices.dense_shape]


def _rebuild_composite(leaf: Any, outputs: Any) -> Any:
    """A returned IndexedSlices is rebuilt from its components' values; other Python values come back as they are."""
    if isinstance(leaf, IndexedSlices):
        return IndexedSlices(*[next(outputs) for _ in _components(leaf)])
    return leaf


def _fit_to_spec(value: Any, spec: Any, received: str) -> Any:
    """One argument converted to its input_signature entry (a TensorSpec, or a list/tuple of them)."""
    if isinstance(spec, list | tuple):
        if not isinstance(value, list | tuple) or len(value) != len(spec):
            raise TypeError(f"Binding inputs to tf.function failed due to `Can not cast {value!r} to "
                            f"{_type_text(_trace_type(spec))}`. {received}")
        return type(value)(_fit_to_spec(v, s, received) for v, s in zip(value, spec))
    if isinstance(value, TensorSpec):
        ok = value.is_subtype_of(spec)
        converted: Any = TensorSpec(spec.shape, spec.dtype)
    else:
        try:
            converted = value if isinstance(value, Tensor) else convert_to_tensor(
                value.read_value() if hasattr(value, "read_value") else value, dtype=spec.dtype)
        except (TypeError, ValueError):
            converted = convert_to_tensor(value)
        ok = converted.dtype is spec.dtype and spec.shape.is_compatible_with(converted.shape)
    if not ok:
        got = value if isinstance(value, TensorSpec) else TensorSpec(converted.shape, converted.dtype)
        raise TypeError(f"Binding inputs to tf.function failed due to `Can not cast {got!r} to {spec!r}`. "
                        f"{received}")
    return converted


def _input_spec(name: str, expected: Any) -> Any:
    """One entry of `structured_input_signature`: specs named after the argument (`d_a`, `lst_0` inside
    containers), Python values as they are."""
    if isinstance(expected, VariableSpec):
        return expected
    if isinstance(expected, TensorSpec):
        return TensorSpec(expected.shape, expected.dtype, name)
    if isinstance(expected, _Literal):
        return expected.value
    if isinstance(expected, tuple) and expected and expected[0] == "Dict":
        return {k: _input_spec(f"{name}_{k}", t) for k, t in expected[1:]}
    if isinstance(expected, tuple) and expected and expected[0] in ("List", "Tuple"):
        items = [_input_spec(f"{name}_{i}", t) for i, t in enumerate(expected[1:])]
        return items if expected[0] == "List" else tuple(items)
    return expected


def _placeholders(graph: FuncGraph, name: str, value: Any, expected: Any) -> Any:
    """What the Python function sees for one argument while tracing: placeholders where tensors go."""

    if isinstance(expected, VariableSpec):
        from minitf.function.graph import resource
        handle = graph.placeholder([], resource, name=name)
        handle._variable = value
        graph.inputs.append(handle)
        graph._captured[id(value)] = handle  # reads of this variable use the input
        return value
    if hasattr(expected, "_placeholders"):  # RaggedTensorSpec, SparseTensorSpec
        return expected._placeholders(graph, name)
    if isinstance(expected, TensorSpec):
        holder = graph.placeholder(expected.shape, expected.dtype, name=name)
        graph.inputs.append(holder)
        return holder
    if isinstance(expected, tuple) and expected and expected[0] in ("List", "Tuple"):
        items = [_placeholders(graph, name, v, t) for v, t in zip(value, expected[1:])]
        return type(value)(items) if not hasattr(value, "_fields") else type(value)(*items)
    if isinstance(expected, tuple) and expected and expected[0] == "Dict":
        return {k: _placeholders(graph, name, value[k], t) for k, t in expected[1:]}
    return value


def _rebuild_call(sig: inspect.Signature, arguments: dict[str, Any]) -> tuple[list[Any], dict[str, Any]]:
    args: list[Any] = []
    kwargs: dict[str, Any] = {}
    for name, param in sig.parameters.items():
        if name not in arguments:
            continue
        value = arguments[name]
        if param.kind is inspect.Parameter.VAR_POSITIONAL:
            args.extend(value)
        elif param.kind is inspect.Parameter.VAR_KEYWORD:
            kwargs.update(value)
        elif param.kind is inspect.Parameter.KEYWORD_ONLY:
            kwargs[name] = value
        else:
            args.append(value)
    return args, kwargs


def function(func: Callable | None = None, input_signature: Sequence[Any] | None = None, autograph: bool = True,
             jit_compile: bool | None = None, reduce_retracing: bool = False,
             experimental_implements: Any = None, experimental_autograph_options: Any = None,
             experimental_attributes: Any = None, experimental_relax_shapes: Any = None,
             experimental_compile: Any = None, experimental_follow_type_hints: Any = None,
             name: str | None = None) -> Any:
    """`tf.function`: as a decorator (with or without arguments) or called on a function."""
    if experimental_relax_shapes is not None:
        reduce_retracing = bool(experimental_relax_shapes)

    def decorate(fn: Callable) -> Function:
        return Function(fn, name=name, input_signature=input_signature, autograph=autograph,
                        reduce_retracing=reduce_retracing, jit_compile=jit_compile)

    if func is None:
        return decorate
    return decorate(func)


def _output_tensor(value: Any, fn: Any) -> Tensor:
    """A returned Python value as a tensor (numbers, strings, fully known shapes), or TensorFlow's TypeError."""
    try:
        return convert_to_tensor(value)
    except (TypeError, ValueError):
        raise TypeError(f"To be compatible with tf.function, Python functions must return zero or more Tensors or "
                        f"ExtensionTypes or None values; in compilation of {fn}, found return value of type "
                        f"{type(value).__name__}, which is not a Tensor or ExtensionType.\nHint: return tensors (or "
                        f"numbers); values such as dtypes or partly unknown shapes stay outside the "
                        f"function.") from None
