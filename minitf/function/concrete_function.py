"""`ConcreteFunction`: one trace of a `tf.function`, and calling it.

A concrete function is a traced graph plus how Python arguments map onto its inputs: its cache key (one
entry per parameter, cache_keys.py) says which arguments are tensors (fed to the graph) and which are
Python values (which must equal the traced ones). It can be called with the original arguments or with
its tensor arguments alone (the flat signature), as TensorFlow's concrete functions can.

A call runs the optimised graph as generated code (optimizer.py, codegen.py); under a tape the traced graph
is replayed op by op instead, so gradients see every op (execute.py); inside another trace it becomes one
call op (calls.py).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Sequence
from typing import Any

from minitf.composite.indexed_slices import IndexedSlices
from minitf.core import dtypes, nest
from minitf.core.context import state
from minitf.core.conversion import convert_to_tensor
from minitf.core.dtypes import resource
from minitf.core.errors import InvalidArgumentError
from minitf.core.errors import tf_type_name as _tf_name
from minitf.core.numpy_errors import quietly
from minitf.core.op import make_output
from minitf.core.tensor import EagerTensor, Tensor, make
from minitf.function.cache_keys import ById, Literal, TensorSpec, VariableSpec, output_type, trace_type, type_text
from minitf.function.compiling import codegen, optimizer
from minitf.function.compiling.execute import KERNEL_ERRORS, call_graph, compiled, node_error
from minitf.function.compiling.optimizer import OptimizationReport
from minitf.function.control_flow.calls import call_traced
from minitf.function.drawing import svg
from minitf.function.tracing.func_graph import FuncGraph
from minitf.function.tracing.graph import SymbolicTensor
from minitf.ops.variables import Variable


class ConcreteFunction:
    """One trace of a `tf.function`: a FuncGraph plus how Python arguments map onto its inputs."""

    def __init__(
        self,
        graph: FuncGraph,
        sig: inspect.Signature,
        key: tuple,
        param_names: list[str],
        function_name: str,
        jit_compile: bool | None = None,
    ) -> None:
        self.graph = graph
        self._jit_compile = jit_compile
        self._compilable = False  # checked once, at the first call
        self._sig = sig
        self._key = key
        self._param_names = param_names
        self._parameters = _flat_parameters(sig, param_names, key)
        self.name = f"__inference_{function_name}"
        self._function_name = function_name
        self._captures = graph.external_captures()
        self._single_output = isinstance(graph.structured_outputs, SymbolicTensor)
        self._optimized: tuple[int, FuncGraph, OptimizationReport] | None = None
        self._runner: tuple[int, Callable[[Sequence[Any]], Any]] | None = None

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
        params = [inspect.Parameter(name, kind, annotation=t) for name, kind, t in self._parameters]
        return FunctionType(params, return_annotation=output_type(self.graph.structured_outputs))

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        """Call with the original arguments (Python values must equal the traced ones), or with the tensor
        arguments alone (the flat signature), as TensorFlow's concrete functions accept."""
        function_type = self.function_type
        try:
            bound = function_type.bind(*args, **kwargs)
            flat: list[Any] = []
            for name, _, expected in self._parameters:
                flat.extend(check_argument(bound.arguments[name], expected, self))
        except TypeError as structured:
            try:
                flat = self._flat_arguments(args, kwargs)
            except TypeError as fallback:
                raise TypeError(
                    f"Binding inputs to tf.function failed due to `{structured}`. Received args: {args} and kwargs: "
                    f"{kwargs} for signature: {function_type}.\nFallback to flat signature also failed due to: "
                    f"{fallback}\nHint: call a concrete function with the arguments it was traced for (Python "
                    f"values equal to the traced ones), or with its tensor arguments only."
                ) from None
        return self._call_flat(flat)

    def _flat_arguments(self, args: tuple, kwargs: dict) -> list[Any]:
        """The flat signature: the tensor inputs only, by position or by name."""
        holders = self.graph.inputs[: len(self.graph.inputs) - len(self.graph.captures)]
        names = [t.op.name for t in holders]
        header = f"{self._function_name}({', '.join(names)})"
        if len(args) > len(names):
            raise TypeError(f"{header} takes {len(names)} positional arguments, got {len(args)}.")
        unexpected = [k for k in kwargs if k not in names[len(args) :]]
        if unexpected:
            raise TypeError(f"{header} got unexpected keyword arguments: {', '.join(unexpected)}.")
        missing = [n for n in names[len(args) :] if n not in kwargs]
        if missing:
            raise TypeError(f"{header} missing required arguments: {', '.join(missing)}.")
        values = list(args) + [kwargs[n] for n in names[len(args) :]]
        for i, (value, holder) in enumerate(zip(values, holders)):
            if not isinstance(value, Tensor | Variable):
                raise TypeError(
                    f"{header}: expected argument #{i}(zero-based) to be a Tensor; got "
                    f"{type(value).__name__} ({value})."
                )
            if holder.dtype is not resource and value.dtype is not holder.dtype:
                check_argument(value, TensorSpec(holder.shape, holder.dtype), self)
        return values

    # --- what the optimiser made of the graph (minitf-only: TensorFlow keeps its optimised graph inside) ---
    def _optimize(self) -> tuple[int, FuncGraph, OptimizationReport]:
        """Optimise once per setting of `tf.config.optimizer` (changing a switch optimises again)."""
        version = optimizer.options_version()
        if self._optimized is None or self._optimized[0] != version:
            if self._jit():
                from minitf.function.compiling.jit import pipeline  # the jit loads with its first function

                graph, report = pipeline.compile_graph(self.graph)
            else:
                graph, report = optimizer.optimize(self.graph)
            self._optimized = (version, graph, report)
        return self._optimized

    def _jit(self) -> bool:
        """Compiled by the jit: `jit_compile=True`, or auto-clustering on and `jit_compile` not False."""
        return bool(self._jit_compile) or (self._jit_compile is None and optimizer.get_jit() == "autoclustering")

    def _check_compilable(self) -> None:
        if self._jit_compile and not self._compilable:  # the whole function must compile (auto-clustering
            from minitf.function.compiling.jit import pipeline  # the jit loads with its first function

            pipeline.check_compilable(self.graph, self._function_name)  # leaves out what cannot)
            self._compilable = True

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
        return svg.draw(self.optimized_graph if optimized else self.graph, **options)

    def draw_optimization(self) -> Any:
        """The traced graph and the optimised graph side by side (minitf-only)."""
        return svg.side_by_side(self.graph, self.optimized_graph, titles=("traced", "optimised"))

    def generated_code(self) -> str:
        """The Python code the optimised graph became, with the kernels fusion made (minitf-only)."""
        return codegen.source_of(self.optimized_graph, compiled)

    def _run_plain(self, args: Sequence[Any]) -> Any:
        """`_call_flat` when nothing watches (no tape, no trace) and `args` are the graph's eager tensor
        inputs: what can be decided once (captures' values, output dtypes, how results are packed) was
        decided when the runner was made, so a call is the generated code and the wrapping of its results."""
        runner = self._runner
        if runner is None or runner[0] != optimizer._version[0]:
            runner = self._runner = (optimizer._version[0], self._make_runner())
        return runner[1](args)

    def _make_runner(self) -> Callable[[Sequence[Any]], Any]:
        self._check_compilable()
        graph = self._optimize()[1]
        code = compiled(graph)
        fn = code.fn
        captured = [v._value if type(v) is EagerTensor else v for v in self._captures]
        out_dtypes = [t._dtype for t in graph.outputs]
        tensors_out = len(graph.outputs) == 1 and self._single_output
        wrap = make_output if dtypes.string in out_dtypes else make

        def run(args: Sequence[Any]) -> Any:
            try:  # (NumPy's floating-point warnings off while the graph runs: minitf/core/numpy_errors.py)
                outs = quietly(fn, *[a._value for a in args], *captured)
            except KERNEL_ERRORS as exc:
                op = code.failing_op(exc)
                if op is None:
                    raise
                raise node_error(exc, op) from None
            if tensors_out:
                return wrap(outs[0], out_dtypes[0])
            return self._pack([wrap(v, d) for v, d in zip(outs, out_dtypes)])

        return run

    def _pack(self, outputs: list[Any]) -> Any:
        """The graph's flat outputs in the structure the Python function returned."""
        if self._single_output:
            return outputs[0]
        it = iter(outputs)
        return nest.pack_sequence_as(
            self.graph.structured_outputs,
            [
                next(it) if isinstance(leaf, Tensor) else rebuild_composite(leaf, it)
                for leaf in nest.flatten(self.graph.structured_outputs, expand_composites=True)
            ],
            expand_composites=True,
        )

    def _call_flat(self, flat_args: list[Any]) -> Any:
        """Run the graph on the flat tensor arguments (captures are added here): the generated code when nothing
        watches, else through `bind`, op by op (`call_graph`) or as one call op inside a trace (`call_traced`)."""
        if not state.active and all(type(a) is EagerTensor for a in flat_args):
            return self._run_plain(flat_args)
        inputs = flat_args + self._captures if self._captures else flat_args
        self._check_compilable()
        if state.graph is not None:
            outputs = call_traced(self.graph, inputs)
        else:
            outputs = call_graph(self.graph, inputs, self._optimize()[1])
        return self._pack(outputs)

    def pretty_printed_signature(self, verbose: bool = True) -> str:
        params = []
        for name, kind, t in self._parameters:
            params.append(f"  {name} ({kind.name}): {type_text(t)}")
        out_text = type_text(output_type(self.graph.structured_outputs))
        captures = [
            f"  {id(v)}: TensorSpec(shape=(), dtype=tf.resource, name=None)"
            if hasattr(v, "assign")
            else f"  {id(v)}: TensorSpec(shape={v.shape}, dtype={v.dtype!r}, name=None)"
            for v in self.graph.external_captures()
        ]
        return "\n".join(
            ["Input Parameters:", *params, "Output Type:", f"  {out_text}", "Captures:", *(captures or ["  None"])]
        )

    def __repr__(self) -> str:
        return f"<ConcreteFunction {self.function_type} at 0x{id(self):X}>"

    def __str__(self) -> str:
        return f"ConcreteFunction {self.pretty_printed_signature()}"


def _flat_parameters(sig: inspect.Signature, names: list[str], key: tuple) -> list[tuple[str, Any, Any]]:
    """(name, kind, type) of each parameter of a trace, as TensorFlow lists them: the values of `*args` are
    positional-only parameters `args_0`, `args_1`, ..., and with `*args` every parameter is positional-only."""
    Parameter = inspect.Parameter
    kinds = [sig.parameters[n].kind if n in sig.parameters else Parameter.POSITIONAL_ONLY for n in names]
    var_positional = Parameter.VAR_POSITIONAL in kinds
    flat: list[tuple[str, Any, Any]] = []
    for name, kind, t in zip(names, kinds, key):
        if kind is Parameter.VAR_POSITIONAL:
            flat.extend((f"{name}_{i}", Parameter.POSITIONAL_ONLY, item) for i, item in enumerate(t[1:]))
        else:
            flat.append(
                (
                    name,
                    Parameter.POSITIONAL_ONLY if var_positional and kind is Parameter.POSITIONAL_OR_KEYWORD else kind,
                    t,
                )
            )
    return flat


class FunctionType(inspect.Signature):
    """`ConcreteFunction.function_type`: a signature whose annotations are the traced types, printed as
    `(x: TensorSpec(shape=(None,), dtype=tf.float32, name=None), n: Literal[3]) -> TensorSpec(...)`.

    Its parameters have no defaults: a concrete function is called with every argument it was traced for.
    """

    __slots__ = ()

    def __str__(self) -> str:
        """Python's signature layout (`*args`, `/` after positional-only, `*` before keyword-only parameters)
        with the traced types as annotations."""
        params = []
        kinds = [p.kind for p in self.parameters.values()]
        last_positional_only = max((i for i, k in enumerate(kinds) if k is k.POSITIONAL_ONLY), default=-1)
        bare_star = inspect.Parameter.VAR_POSITIONAL not in kinds
        for i, p in enumerate(self.parameters.values()):
            if p.kind is p.KEYWORD_ONLY and bare_star:
                params.append("*")
                bare_star = False
            stars: dict[Any, str] = {p.VAR_POSITIONAL: "*", p.VAR_KEYWORD: "**"}
            name = stars.get(p.kind, "") + p.name
            text = name if p.annotation is p.empty else f"{name}: {type_text(p.annotation)}"
            if p.default is not p.empty:
                text += "=<captured_default_value>" if p.annotation is p.empty else " = <captured_default_value>"
            params.append(text)
            if i == last_positional_only:
                params.append("/")
        returns = "" if self.return_annotation is self.empty else f" -> {type_text(self.return_annotation)}"
        return f"({', '.join(params)}){returns}"

    __repr__ = __str__


def check_argument(value: Any, expected: Any, cf: ConcreteFunction) -> list[Any]:
    """The flat tensor inputs for one argument of a concrete function; TensorFlow's errors when it doesn't fit."""
    if isinstance(expected, VariableSpec):
        if not (isinstance(value, Variable) and value.dtype is expected.dtype and value.shape == expected.shape):
            raise TypeError(f"Can not cast {type_text(trace_type(value))} to {expected!r}")
        return [value]
    if isinstance(expected, TensorSpec):
        if isinstance(value, TensorSpec) and value.is_subtype_of(expected):
            return []  # get_concrete_function(spec): nothing to feed
        if isinstance(value, Tensor):
            if value.dtype is not expected.dtype:
                raise InvalidArgumentError(
                    None,
                    None,
                    f"cannot compute {cf.name} as input #0(zero-based) was expected to be a "
                    f"{_tf_name(expected.dtype)} tensor but is a {_tf_name(value.dtype)} tensor "
                    f"[Op:{cf.name}]\nHint: convert the argument with tf.cast(x, tf.{expected.dtype.name}), the "
                    f"dtype this concrete function was traced for.",
                )
            return [value]
        if isinstance(value, Variable):
            return [value.read_value()]
        try:
            return [convert_to_tensor(value, dtype=expected.dtype)]
        except (TypeError, ValueError):
            raise TypeError(f"Can not cast {type_text(trace_type(value))} to {expected!r}") from None
    if hasattr(expected, "_flat_inputs"):  # RaggedTensorSpec, SparseTensorSpec
        return expected._flat_inputs(value)
    if isinstance(expected, ById):
        if value is not expected.obj:
            raise TypeError(f"Can not cast {type_text(trace_type(value))} to {expected!r}")
        return []
    if isinstance(expected, tuple) and expected and expected[0] in ("List", "Tuple", "Dict"):
        if expected[0] == "Dict":
            if not isinstance(value, dict) or sorted(map(str, value)) != [str(k) for k, _ in expected[1:]]:
                raise TypeError(f"Can not cast {type_text(trace_type(value))} to {type_text(expected)}")
            return [x for k, t in expected[1:] for x in check_argument(value[k], t, cf)]
        if not isinstance(value, list | tuple) or len(value) != len(expected) - 1:
            raise TypeError(f"Can not cast {type_text(trace_type(value))} to {type_text(expected)}")
        return [x for v, t in zip(value, expected[1:]) for x in check_argument(v, t, cf)]
    if isinstance(expected, Literal) and literal_matches(value, expected.value):
        return []  # TensorFlow compares a literal with ==, so tf.constant(3.0) passes for Literal[3]
    if trace_type(value) != expected:
        raise TypeError(f"Can not cast {value!r} to {type_text(expected)}")
    return []


def literal_matches(value: Any, literal: Any) -> bool:
    """TensorFlow compares a Python value with a traced one by ==, so 3.0 and tf.constant(3.0) match 3."""
    try:
        return bool(value == literal)
    except (TypeError, ValueError):
        return False


def components(slices: IndexedSlices) -> list[Tensor]:
    parts = [slices.values, slices.indices]
    return parts if slices.dense_shape is None else [*parts, slices.dense_shape]


def rebuild_composite(leaf: Any, outputs: Any) -> Any:
    """A returned IndexedSlices is rebuilt from its components' values; other Python values come back as they are."""
    if isinstance(leaf, IndexedSlices):
        return IndexedSlices(*[next(outputs) for _ in components(leaf)])
    return leaf
