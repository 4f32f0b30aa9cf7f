"""Dense ops on RaggedTensors: `tf.add(rt, 1)`, `tf.reduce_sum(rt, axis=1)`, `tf.ragged.map_flat_values`.

An elementwise op applied to ragged arguments runs on their flat values and keeps their row structure (all
ragged arguments must have the same row splits). `dispatching` wraps a public op so that it accepts RaggedTensors
as TensorFlow's dispatch does; minitf/api_extensions.py installs the wrappers in the public namespaces.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from minitf.ragged.reductions import reduce
from minitf.ragged.tensor import RaggedTensor, same_splits


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


def elementwise(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """Apply a dense elementwise function to the flat values of ragged arguments (scalars broadcast)."""
    ragged = [a for a in args if isinstance(a, RaggedTensor)]
    first = ragged[0]
    for other in ragged[1:]:
        same_splits(first, other)
    flat = [a.flat_values if isinstance(a, RaggedTensor) else a for a in args]
    return first.with_flat_values(fn(*flat, **kwargs))


def dispatching(fn: Callable[..., Any], kind: str) -> Callable[..., Any]:
    """`fn` that also accepts RaggedTensors, as TensorFlow's ops do (`tf.add(rt, 1)`, `tf.reduce_sum(rt, 1)`)."""

    if kind == "reduce":
        @functools.wraps(fn)
        def reduce_wrapper(input_tensor: Any, *args: Any, **kwargs: Any) -> Any:
            if isinstance(input_tensor, RaggedTensor):
                return reduce(fn.__name__, fn, input_tensor, *args, **kwargs)
            return fn(input_tensor, *args, **kwargs)
        return reduce_wrapper

    @functools.wraps(fn)
    def elementwise_wrapper(*args: Any, **kwargs: Any) -> Any:
        for a in args:  # (a plain loop: this runs on every eager call of the everyday ops)
            if isinstance(a, RaggedTensor):
                return elementwise(fn, *args, **kwargs)
        return fn(*args, **kwargs)
    return elementwise_wrapper
