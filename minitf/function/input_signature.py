"""`tf.function(input_signature=[...])`: one trace for every call whose arguments fit the given specs.

The signature is checked when the `tf.function` is made, as TensorFlow checks it: it must be a list or tuple
of TensorSpecs (possibly nested in lists and tuples) with one entry per parameter that has no default; a
parameter after them keeps its default as a Python value, and `*args` takes the entries that are left (its
values are named `args_0`, `args_1`, ...). A call binds its arguments to those parameters and converts each
to its spec (lists and NumPy arrays become tensors of the spec's dtype); one that does not fit is
TensorFlow's "Binding inputs to tf.function failed" TypeError.
"""

from __future__ import annotations

import inspect
from collections.abc import Sequence
from typing import Any

from minitf.composite.specs import VALUE_TYPES, RaggedTensorSpec
from minitf.core import nest
from minitf.core.conversion import convert_to_tensor
from minitf.core.tensor import Tensor
from minitf.function.cache_keys import Literal, TensorSpec, trace_type, type_text
from minitf.function.concrete_function import FunctionType, literal_matches

Parameter = inspect.Parameter


def checked_input_signature(sig: inspect.Signature, input_signature: Any) -> tuple:
    """The input_signature as a tuple, or TensorFlow's TypeError when it cannot describe `sig`'s parameters."""
    if not isinstance(input_signature, list | tuple):
        raise TypeError(f"input_signature must be either a tuple or a list, got {type(input_signature)}.")
    bad = [s for s in nest.flatten(list(input_signature)) if not isinstance(s, TensorSpec | RaggedTensorSpec)]
    if bad:
        raise TypeError(
            f"input_signature must be a possibly nested sequence of TensorSpec objects, got invalid "
            f"args {bad} with types {[type(b) for b in bad]}."
        )
    signature_parameters(sig, tuple(input_signature))
    return tuple(input_signature)


def signature_parameters(sig: inspect.Signature, input_signature: tuple) -> list[Parameter]:
    """The parameters a function with an input_signature takes, each annotated with what it accepts (its spec,
    or `Literal[default]`), as TensorFlow's function_type lists them. With `*args` in the function, every
    parameter becomes positional-only, as in TensorFlow."""
    constraints = list(input_signature)
    has_var_positional = any(p.kind is Parameter.VAR_POSITIONAL for p in sig.parameters.values())
    parameters = []
    for param in sig.parameters.values():
        kind = (
            Parameter.POSITIONAL_ONLY
            if has_var_positional and param.kind is Parameter.POSITIONAL_OR_KEYWORD
            else param.kind
        )
        if param.kind is Parameter.VAR_KEYWORD:
            continue
        if param.name == "self":  # a method, decorated in its class: `self` is bound before any call
            parameters.append(param.replace(kind=kind))
        elif param.kind is Parameter.VAR_POSITIONAL:
            parameters.extend(
                Parameter(f"{param.name}_{i}", Parameter.POSITIONAL_ONLY, annotation=_shown(c))
                for i, c in enumerate(constraints)
            )
            constraints = []
        elif param.kind is Parameter.KEYWORD_ONLY:
            if param.default is Parameter.empty:
                raise TypeError(
                    f"Since input_signature is defined, keyword-only parameter `{param.name}` must have a default value"
                )
            parameters.append(param.replace(annotation=Literal(param.default)))
        elif constraints:
            parameters.append(param.replace(kind=kind, annotation=_shown(constraints.pop(0)), default=Parameter.empty))
        elif param.default is not Parameter.empty:
            parameters.append(param.replace(kind=kind, annotation=Literal(param.default)))
        else:
            raise TypeError(f"input_signature missing type constraint for {param.name}")
    if constraints:
        raise TypeError(f"input_signature contains {len(constraints)} extra type constraints.")
    return parameters


def _shown(spec: Any) -> Any:
    """A signature entry as function_type shows it: a TensorSpec as given (with its name), lists as types."""
    return spec if isinstance(spec, TensorSpec | RaggedTensorSpec) else trace_type(spec)


def signature_key(sig: inspect.Signature, input_signature: tuple) -> tuple:
    """The cache key of the one trace: the specs bound to the parameters as a call's arguments are."""
    bound = sig.bind(*input_signature)
    bound.apply_defaults()
    return tuple(trace_type(value) for value in bound.arguments.values())


def apply_input_signature(
    sig: inspect.Signature, input_signature: tuple, args: Sequence[Any], kwargs: dict
) -> tuple[tuple, dict]:
    """The arguments to call the Python function with, each converted to its spec (TensorSpecs pass as they
    are, for get_concrete_function); TensorFlow's TypeError when they don't fit."""
    parameters = signature_parameters(sig, input_signature)
    received = f"Received args: {tuple(args)} and kwargs: {kwargs} for signature: {FunctionType(parameters)}."
    try:
        bound = inspect.Signature(parameters).bind(*args, **kwargs)
    except TypeError as exc:
        raise TypeError(f"Binding inputs to tf.function failed due to `{exc}`. {received}") from None
    specs = dict(zip([p.name for p in parameters if _is_spec(p)], input_signature))
    call_args: list[Any] = []
    call_kwargs: dict[str, Any] = {}
    for param in parameters:
        if param.name not in bound.arguments:
            continue
        value = bound.arguments[param.name]
        if isinstance(param.annotation, Literal):
            if not literal_matches(value, param.annotation.value):
                raise TypeError(
                    f"Binding inputs to tf.function failed due to `Can not cast {value!r} to "
                    f"{param.annotation!r}`. {received}"
                )
        elif param.name in specs:
            value = fit_to_spec(value, specs[param.name], received)
        if param.kind is Parameter.KEYWORD_ONLY:
            call_kwargs[param.name] = value
        else:
            call_args.append(value)
    return tuple(call_args), call_kwargs


def _is_spec(param: Parameter) -> bool:
    return param.annotation is not Parameter.empty and not isinstance(param.annotation, Literal)


def fit_to_spec(value: Any, spec: Any, received: str) -> Any:
    """One argument converted to its input_signature entry (a TensorSpec, or a list/tuple of them)."""
    if isinstance(spec, list | tuple):
        if not isinstance(value, list | tuple) or len(value) != len(spec):
            raise TypeError(
                f"Binding inputs to tf.function failed due to `Can not cast {value!r} to "
                f"{type_text(trace_type(spec))}`. {received}"
            )
        return type(value)(fit_to_spec(v, s, received) for v, s in zip(value, spec))
    if isinstance(spec, RaggedTensorSpec):
        return _fit_to_ragged_spec(value, spec, received)
    if isinstance(value, TensorSpec):
        ok = value.is_subtype_of(spec)
        converted: Any = TensorSpec(spec.shape, spec.dtype)
    else:
        try:
            converted = (
                value
                if isinstance(value, Tensor)
                else convert_to_tensor(value.read_value() if hasattr(value, "read_value") else value, dtype=spec.dtype)
            )
        except (TypeError, ValueError):
            converted = convert_to_tensor(value)
        ok = converted.dtype is spec.dtype and spec.shape.is_compatible_with(converted.shape)
    if not ok:
        got = value if isinstance(value, TensorSpec) else TensorSpec(converted.shape, converted.dtype, spec.name)
        raise TypeError(f"Binding inputs to tf.function failed due to `Can not cast {got!r} to {spec!r}`. {received}")
    return converted


def _fit_to_ragged_spec(value: Any, spec: RaggedTensorSpec, received: str) -> Any:
    """A RaggedTensor argument (or, for get_concrete_function, a RaggedTensorSpec) that fits a RaggedTensorSpec:
    the same dtype and ragged_rank, a compatible shape."""
    actual = (
        value
        if isinstance(value, RaggedTensorSpec)
        else RaggedTensorSpec.from_value(value)
        if isinstance(value, VALUE_TYPES.ragged)
        else None
    )
    if (
        actual is None
        or actual.dtype is not spec.dtype
        or actual.ragged_rank != spec.ragged_rank
        or not spec.shape.is_compatible_with(actual.shape)
    ):
        raise TypeError(
            f"Binding inputs to tf.function failed due to `Can not cast {actual or value!r} to {spec!r}`. {received}"
        )
    return spec if isinstance(value, RaggedTensorSpec) else value
