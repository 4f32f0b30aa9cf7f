"""Dense ops on RaggedTensors: `tf.add(rt, 1)`, `tf.reduce_sum(rt, axis=1)`, `tf.ragged.map_flat_values`.

An elementwise op applied to ragged arguments runs on their flat values and keeps their row structure (all
ragged arguments must have the same row splits). `dispatching` wraps a public op so that it accepts RaggedTensors
as TensorFlow's dispatch does; `install` (below, called by minitf/__init__.py) puts the wrappers in the public
namespaces.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import numpy as np

from minitf.composite.ragged import array_ops
from minitf.composite.ragged.array_ops import dense_per_value
from minitf.composite.ragged.dynamic_shape import DynamicRaggedShape
from minitf.composite.ragged.reductions import reduce
from minitf.composite.ragged.tensor import RAGGED, RaggedTensor, same_splits
from minitf.core import dtypes
from minitf.core.conversion import convert_to_tensor
from minitf.core.tensor import Tensor


def map_flat_values(op: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """`op` applied to the flat values of the ragged arguments; the result has their row structure."""
    ragged = [a for a in list(args) + list(kwargs.values()) if isinstance(a, RaggedTensor)]
    if not ragged:
        return op(*args, **kwargs)
    for other in ragged[1:]:
        same_splits(ragged[0], other)

    def flat(a: Any) -> Any:
        return a.flat_values if isinstance(a, RaggedTensor) else a

    return ragged[0].with_flat_values(op(*[flat(a) for a in args], **{k: flat(v) for k, v in kwargs.items()}))


def _operand(rt: RaggedTensor, other: Any) -> Any:
    """What an elementwise op combines with `rt`'s flat values: another ragged tensor's flat values (same
    rows), a dense operand repeated for the values of its rows (minitf/composite/ragged/array_ops.py), or a Python
    number as it is."""
    if isinstance(other, RaggedTensor):
        same_splits(rt, other)
        return other.flat_values
    if isinstance(other, Tensor | list | tuple | np.ndarray):
        dense = other if isinstance(other, Tensor) else convert_to_tensor(other, dtype_hint=rt.dtype)
        return dense_per_value(rt, dense)
    return other


def elementwise(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """Apply a dense elementwise function to the flat values of ragged arguments (dense ones broadcast)."""
    first = next(a for a in args if isinstance(a, RaggedTensor))
    return first.with_flat_values(fn(*[_operand(first, a) for a in args], **kwargs))


def dispatching(fn: Callable[..., Any], kind: str) -> Callable[..., Any]:
    """`fn` that also accepts RaggedTensors, as TensorFlow's ops do (`tf.add(rt, 1)`, `tf.reduce_sum(rt, 1)`)."""

    if kind == "reduce":

        @functools.wraps(fn)
        def reduce_wrapper(input_tensor: Any, *args: Any, **kwargs: Any) -> Any:
            if isinstance(input_tensor, RaggedTensor):
                return reduce(fn.__name__, fn, input_tensor, *args, **kwargs)
            return fn(input_tensor, *args, **kwargs)

        return reduce_wrapper

    if kind == "array":  # tf.concat, tf.tile, tf.reverse: the ragged version when a (listed) input is ragged
        ragged_version = getattr(array_ops, fn.__name__)

        @functools.wraps(fn)
        def array_wrapper(first: Any, *args: Any, **kwargs: Any) -> Any:
            items = first if isinstance(first, list | tuple) else [first]
            if any(isinstance(v, RaggedTensor) for v in items):
                return ragged_version(first, *args, **kwargs)
            return fn(first, *args, **kwargs)

        return array_wrapper

    if kind == "shape":  # tf.shape of a RaggedTensor; tf.zeros / tf.ones of a ragged shape

        @functools.wraps(fn)
        def shape_wrapper(first: Any, *args: Any, **kwargs: Any) -> Any:
            if isinstance(first, RaggedTensor) and fn.__name__ == "shape":
                return DynamicRaggedShape.from_tensor(first)
            if isinstance(first, DynamicRaggedShape):
                dtype = kwargs.get("dtype", args[0] if args else dtypes.float32)
                return first.filled(1 if fn.__name__ == "ones" else 0, dtype)
            return fn(first, *args, **kwargs)

        return shape_wrapper

    if kind == "ids":  # tf.gather(params, ragged_ids), tf.nn.embedding_lookup: one lookup per flat id

        @functools.wraps(fn)
        def ids_wrapper(params: Any, ids: Any, *args: Any, **kwargs: Any) -> Any:
            if isinstance(ids, RaggedTensor) and not isinstance(params, RaggedTensor):
                return ids.with_flat_values(fn(params, ids.flat_values, *args, **kwargs))
            return fn(params, ids, *args, **kwargs)

        return ids_wrapper

    if kind == "listed":  # tf.strings.join([rt, rt], separator): elementwise over a list of inputs

        @functools.wraps(fn)
        def listed_wrapper(inputs: Any, *args: Any, **kwargs: Any) -> Any:
            ragged = [v for v in inputs if isinstance(v, RaggedTensor)] if isinstance(inputs, list | tuple) else []
            if ragged:
                return ragged[0].with_flat_values(fn([_operand(ragged[0], v) for v in inputs], *args, **kwargs))
            return fn(inputs, *args, **kwargs)

        return listed_wrapper

    if kind == "map":  # tf.map_fn over the rows of a ragged tensor

        @functools.wraps(fn)
        def map_wrapper(f: Callable[..., Any], elems: Any, *args: Any, **kwargs: Any) -> Any:
            if isinstance(elems, RaggedTensor) and not args:
                return array_ops.map_fn(f, elems, **kwargs)
            return fn(f, elems, *args, **kwargs)

        return map_wrapper

    @functools.wraps(fn)
    def elementwise_wrapper(*args: Any, **kwargs: Any) -> Any:
        for a in args:  # (a plain loop: this runs on every eager call of the everyday ops)
            if isinstance(a, RaggedTensor):
                return elementwise(fn, *args, **kwargs)
        return fn(*args, **kwargs)

    return elementwise_wrapper


RAGGED.provide(operand=_operand)


# The public names that take RaggedTensors too (minitf/__init__.py installs them in tf, tf.math, tf.nn and
# tf.strings).
_ELEMENTWISE = (
    "abs",
    "add",
    "subtract",
    "multiply",
    "divide",
    "truediv",
    "maximum",
    "minimum",
    "negative",
    "square",
    "sqrt",
    "exp",
    "log",
    "sin",
    "cos",
    "tanh",
    "sigmoid",
    "cast",
    "equal",
    "not_equal",
    "less",
    "less_equal",
    "greater",
    "greater_equal",
    "logical_and",
    "logical_or",
    "logical_not",
    "floor",
    "round",
    "sign",
    "pow",
    # tf.strings: one string in, one value out, so a RaggedTensor of strings keeps its rows
    "substr",
    "to_hash_bucket_fast",
    "upper",
    "lower",
    "strip",
    "regex_replace",
    "regex_full_match",
    "as_string",
    "to_number",
)
_REDUCTIONS = ("reduce_sum", "reduce_mean", "reduce_max", "reduce_min", "reduce_prod")
_ARRAY = ("concat", "tile", "reverse")  # the ragged versions: minitf/composite/ragged/array_ops.py
_SHAPES = ("shape", "zeros", "ones")  # ragged shapes: minitf/composite/ragged/dynamic_shape.py
_KINDS = {"gather": "ids", "embedding_lookup": "ids", "join": "listed", "map_fn": "map"}


def install(*namespaces: Any) -> None:
    """Replace the everyday ops in each namespace by versions that also take RaggedTensors.

    One wrapper per function, so that names TensorFlow shares stay the same object (`tf.add is tf.math.add`).
    """
    wrappers: dict[int, Any] = {}
    for namespace in namespaces:
        for name in _ELEMENTWISE + _REDUCTIONS + _ARRAY + _SHAPES + tuple(_KINDS):
            fn = getattr(namespace, name, None)
            if fn is None or getattr(fn, "_ragged_aware", False):
                continue
            wrapped = wrappers.get(id(fn))
            if wrapped is None:
                kind = (
                    "reduce"
                    if name in _REDUCTIONS
                    else "array"
                    if name in _ARRAY
                    else "shape"
                    if name in _SHAPES
                    else _KINDS.get(name, "elementwise")
                )
                wrapped = dispatching(fn, kind)
                wrapped._ragged_aware = True  # type: ignore[attr-defined]
                wrappers[id(fn)] = wrapped
            setattr(namespace, name, wrapped)
