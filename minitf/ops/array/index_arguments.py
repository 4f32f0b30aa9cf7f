"""How indices arrive: int32/int64 tensors, values known before anything runs, and checks that TensorFlow
makes while it builds a graph (ValueError then, InvalidArgumentError when run eagerly).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from minitf.core import dtypes
from minitf.core.conversion import convert_to_tensor
from minitf.core.errors import InvalidArgumentError, allowed_dtypes
from minitf.core.tensor import Tensor

INDEX_TYPES = frozenset({dtypes.int32, dtypes.int64})


def known_ints(t: Tensor) -> list[int] | None:
    """The integer values of an eager (or constant) tensor; None when they are only known at run time."""
    value = getattr(t, "_value", None)
    if value is None and getattr(t, "op", None) is not None and t.op.type == "Const":
        value = t.op.attrs["value"]
    if value is None:
        return None
    return [int(v) for v in np.ravel(value)]


def at_graph_build(check: Callable[[], Any], op_name: str) -> None:
    """Run a check that needs only static shapes while a graph is built: TensorFlow's shape inference reports
    such mistakes as ValueError then, before anything runs."""
    try:
        check()
    except InvalidArgumentError as exc:
        raise ValueError(exc.message.replace("[Op:", f"for '{{{{node {op_name}}}}}' [Op:", 1)) from None


def index_tensor(value: Any, name: str = "indices") -> Tensor:
    """Indices as TensorFlow converts them: Python ints become int32; only int32 and int64 are accepted."""
    t = convert_to_tensor(value, dtype_hint=dtypes.int32)
    allowed_dtypes(name, INDEX_TYPES, t.dtype)
    return t
