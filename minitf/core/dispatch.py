"""Composite values given to a public op (`tf.add(rt, 1)`, `tf.reduce_sum(rt, axis=1)`): one table, by type.

A RaggedTensor is not a Tensor but a Python object over tensors, so `tf.add` cannot convert it; TensorFlow lets
a composite type take over an API for its values instead (`tf.experimental.dispatch_for_api`, and
`dispatch_for_unary_elementwise_apis` / `..._binary_...` for every elementwise op at once). minitf keeps the same
two tables here, filled by the composite types' modules (minitf/composite/ragged/dispatch.py):

* ELEMENTWISE: composite class -> handler(function, *args, **kwargs), for every elementwise op;
* APIS: (public function, composite class) -> handler(*args, **kwargs), for one op (SparseTensor takes over the
  elementwise ops that keep zeros zero, as in TensorFlow: minitf/composite/sparse_dispatch.py).

An op looks the tables up only in the branch where an argument is not a Tensor (where it would convert a Python
value), so a call on tensors never passes through a composite type's code.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

ELEMENTWISE: dict[type, Callable[..., Any]] = {}
APIS: dict[tuple[Callable[..., Any], type], Callable[..., Any]] = {}


def elementwise_handler(*values: Any, api: Callable[..., Any] | None = None) -> Callable[..., Any] | None:
    """The handler of the first argument whose type took over the elementwise ops, or this one (`api`), called as
    handler(function, *args) (None: convert as usual)."""
    for value in values:
        handler = ELEMENTWISE.get(type(value))
        if handler is not None:
            return handler
        one = APIS.get((api, type(value))) if api is not None else None
        if one is not None:
            return lambda function, *args, **kwargs: one(*args, **kwargs)
    return None


def api_handler(api: Callable[..., Any] | None, *values: Any) -> Callable[..., Any] | None:
    """The handler of the first argument whose type took over `api` (None: convert as usual)."""
    if api is None:
        return None
    for value in values:
        handler = APIS.get((api, type(value)))
        if handler is not None:
            return handler
    return None


def dispatch_for_api(api: Callable[..., Any], *types: type) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Decorator: `handler` runs `api` when one of its arguments is of one of `types` (TensorFlow's name)."""

    def register(handler: Callable[..., Any]) -> Callable[..., Any]:
        for cls in types:
            if (api, cls) in APIS:
                raise ValueError(f"{api.__name__} already dispatches {cls.__name__} values")
            APIS[(api, cls)] = handler
        return handler

    return register
