"""The ops that give a graph its inputs, constants and effects.

`Const` and `Placeholder` start a graph; `ReadVariableOp` and the three assign ops read and write variables;
`StringFormat` and `PrintV2` are `tf.print`; `NoOp` groups a function's effects. They are ordinary `Op`s:
eager code, the tracer and the tapes reach them through `core.bind` like any other op, and the graph
evaluator and code generator run their kernels like any other kernel.

A `resource` input carries the Variable itself: eagerly an EagerTensor wrapping it (`Variable.handle`), in
a graph a Placeholder that stands for it (its value is fed when the graph runs).
"""

from __future__ import annotations

import sys
import time
from collections.abc import Sequence
from typing import Any

import numpy as np

from minitf.core import dtypes
from minitf.core.errors import InvalidArgumentError
from minitf.core.logs import interactive
from minitf.core.op import Op, bind
from minitf.core.printing import format_value
from minitf.core.tensor import EagerTensor, Tensor, make
from minitf.core.tensor_shape import TensorShape

Spec = tuple[TensorShape, dtypes.DType]


# --- graph inputs and constants ---


def _const_kernel(*, value: Any, dtype: dtypes.DType) -> Any:
    # A scalar string constant holds bytes; replayed through `bind` (under a tape) it needs an array's dtype.
    return np.array(value, dtype=object) if isinstance(value, bytes) else value


def _const_shape(shapes: Sequence[TensorShape], types: Sequence[dtypes.DType], attrs: dict) -> list[Spec]:
    return [(TensorShape(np.shape(attrs["value"])), attrs["dtype"])]


def _placeholder_kernel(*, dtype: dtypes.DType, shape: TensorShape) -> Any:
    raise InvalidArgumentError(
        None, None, f"You must feed a value for placeholder tensor with dtype {dtype.name} and shape {shape}"
    )


def _placeholder_shape(shapes: Sequence[TensorShape], types: Sequence[dtypes.DType], attrs: dict) -> list[Spec]:
    return [(TensorShape(attrs["shape"]), attrs["dtype"])]


Const = Op("Const", _const_kernel, shape=_const_shape)
Placeholder = Op("Placeholder", _placeholder_kernel, shape=_placeholder_shape)


# --- variables ---
# Reads are stateful too: two reads of one variable with an assignment between them must stay two reads,
# in their places, so no pass may merge or move them.


def variable_of(handle: Any) -> Any:
    """The Variable behind a resource value: an eager handle, a graph's placeholder for it, or itself."""
    if isinstance(handle, Tensor):
        return handle._value if isinstance(handle, EagerTensor) else handle._variable  # type: ignore[attr-defined]
    return handle


def _read_kernel(variable: Any, *, dtype: dtypes.DType, _shape: TensorShape | None = None) -> Any:
    return variable._value._value


def _read_shape(shapes: Sequence[TensorShape], types: Sequence[dtypes.DType], attrs: dict) -> list[Spec]:
    return [(TensorShape(attrs.get("_shape")), attrs["dtype"])]


def _store(variable: Any, value: Any) -> tuple:
    variable._value = make(np.asarray(value, dtype=variable.dtype._np)[()], variable.dtype)
    return ()


def _assign_kernel(variable: Any, value: Any, *, dtype: dtypes.DType) -> tuple:
    return _store(variable, value)


def _assign_add_kernel(variable: Any, delta: Any, *, dtype: dtypes.DType) -> tuple:
    return _store(variable, variable._value._value + delta)


def _assign_sub_kernel(variable: Any, delta: Any, *, dtype: dtypes.DType) -> tuple:
    return _store(variable, variable._value._value - delta)


def _no_outputs(shapes: Sequence[TensorShape], types: Sequence[dtypes.DType], attrs: dict) -> list[Spec]:
    return []


ReadVariableOp = Op("ReadVariableOp", _read_kernel, shape=_read_shape, stateful=True)
AssignVariableOp = Op("AssignVariableOp", _assign_kernel, shape=_no_outputs, num_outputs=0, stateful=True)
AssignAddVariableOp = Op("AssignAddVariableOp", _assign_add_kernel, shape=_no_outputs, num_outputs=0, stateful=True)
AssignSubVariableOp = Op("AssignSubVariableOp", _assign_sub_kernel, shape=_no_outputs, num_outputs=0, stateful=True)
ASSIGN = {"assign": AssignVariableOp, "add": AssignAddVariableOp, "sub": AssignSubVariableOp}


# --- tf.print: format the values into one string, then write it ---


def _format_kernel(*values: Any, template: tuple, summarize: int, sep: str) -> Any:
    parts = [format_value(values[k], summarize) if kind == "tensor" else k for kind, k in template]
    return np.asarray(sep.join(parts).encode("utf-8", "surrogateescape"), dtype=object)


def _format_shape(shapes: Sequence[TensorShape], types: Sequence[dtypes.DType], attrs: dict) -> list[Spec]:
    return [(TensorShape([]), dtypes.string)]


def _print_kernel(text: Any, *, output_stream: Any, end: str) -> tuple:
    stream = output_stream
    if stream is None:  # TensorFlow writes to stderr, which Jupyter shows in the cell as its output
        stream = sys.stdout if interactive() else sys.stderr
    elif stream == "stdout":
        stream = sys.stdout
    elif stream == "stderr":
        stream = sys.stderr
    value = text[()] if isinstance(text, np.ndarray) else text
    stream.write((value.decode("utf-8", "surrogateescape") if isinstance(value, bytes) else str(value)) + end)
    stream.flush()
    return ()


StringFormat = Op("StringFormat", _format_kernel, shape=_format_shape)
PrintV2 = Op("PrintV2", _print_kernel, shape=_no_outputs, num_outputs=0, stateful=True)


# --- grouping ---

NoOp = Op("NoOp", lambda: (), shape=_no_outputs, num_outputs=0)


def print_values(
    *inputs: Any,
    output_stream: Any = None,
    summarize: int = 3,
    sep: str = " ",
    end: str = "\n",
    name: str | None = None,
) -> None:
    """`tf.print`: a StringFormat op puts the values into one string, a PrintV2 op writes it (when it runs:
    right away eagerly, at every call of a traced function)."""
    template: list[tuple[str, Any]] = []
    tensors: list[Tensor] = []
    for value in inputs:
        if hasattr(value, "read_value") and not isinstance(value, Tensor):  # a Variable prints its value
            value = value.read_value()
        if isinstance(value, Tensor):
            tensors.append(value)
            template.append(("tensor", len(tensors) - 1))
        else:
            template.append(("text", format_value(value, summarize)))
    text = bind(StringFormat, *tensors, template=tuple(template), summarize=summarize, sep=sep)
    bind(PrintV2, text, output_stream=output_stream, end=end)


# Stateful, so that each call of a traced function reads the clock anew.
Timestamp = Op(
    "Timestamp",
    lambda: np.float64(time.time()),
    shape=lambda s, t, a: [(TensorShape([]), dtypes.float64)],
    stateful=True,
)


def timestamp(name: str | None = None) -> Tensor:
    """`tf.timestamp()`: the time in seconds since the epoch, as a float64 scalar (when the graph runs, if traced)."""
    return bind(Timestamp)
