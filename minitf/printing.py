"""`tf.print`: prints when it runs (every call of a traced function), to stderr by default, as TensorFlow does."""

from __future__ import annotations

import sys
from typing import Any

import numpy as np

from minitf.tensor import Tensor


def format_value(value: Any, summarize: int = 3) -> str:
    """TensorFlow's print format: `%g`-style numbers, at most `summarize` entries at each end of an axis."""
    if isinstance(value, Tensor):
        value = value._value  # type: ignore[attr-defined]
    if isinstance(value, np.ndarray | np.generic):
        array = np.asarray(value)
        if array.dtype.kind == "O":
            return np.array2string(array, formatter={"all": lambda s: str(s.decode() if isinstance(s, bytes) else s)},
                                   separator=" ")
        if array.dtype.kind == "b":
            return np.array2string(array, separator=" ", threshold=2 * summarize, edgeitems=summarize)
        fmt = (lambda v: f"{v:g}") if array.dtype.kind == "f" else str
        text = np.array2string(array, formatter={"all": fmt}, separator=" ", threshold=2 * summarize,
                               edgeitems=summarize, max_line_width=10**6)
        return text
    return str(value)


def print_values(*inputs: Any, output_stream: Any = None, summarize: int = 3, sep: str = " ", end: str = "\n",
                 name: str | None = None) -> None:
    from minitf.core import state

    if state.graph is not None and hasattr(state.graph, "add_print"):
        state.graph.add_print(inputs, output_stream=output_stream, summarize=summarize, sep=sep, end=end)
        return
    stream = output_stream if output_stream is not None else sys.stderr
    if stream == "stdout" or stream is sys.stdout:
        stream = sys.stdout
    elif stream == "stderr":
        stream = sys.stderr
    if hasattr(inputs[0] if inputs else None, "_as_tensor") and not isinstance(inputs[0], Tensor):
        pass
    text = sep.join(format_value(getattr(v, "_value", v) if not hasattr(v, "read_value") else v.read_value(),
                                 summarize) for v in inputs)
    stream.write(text + end)
    stream.flush()
