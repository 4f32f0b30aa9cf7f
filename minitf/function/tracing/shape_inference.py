"""Shape inference while tracing: the static shape and dtype of every new graph operation's outputs.

Every op has a shape rule (minitf/core/shape_rules.py) that works them out from its inputs' shapes and dtypes
(unknown dimensions stay None, as in TensorFlow); no kernel runs while tracing. `FuncGraph.create_op`
calls `infer_specs` for each operation it adds.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from minitf.core import dtypes
from minitf.core.conversion import static_value
from minitf.core.errors import InvalidArgumentError
from minitf.core.op import Op
from minitf.core.shape_rules import shape_text
from minitf.core.tensor import Tensor
from minitf.core.tensor_shape import TensorShape


def infer_specs(op: Op, inputs: Sequence[Tensor], attrs: dict) -> list[tuple[TensorShape, dtypes.DType]]:
    """(shape, dtype) of each output of `op` applied to `inputs`, from the op's shape rule; nothing runs.

    Ops whose output shape depends on input values (`Op.value_dependent`: `Range`, `StridedSlice` with tensor
    bounds, ...) also get the values of their constant inputs (None for the others), as TensorFlow's
    constant-value shape inference does. A shape the rule finds impossible is TensorFlow's graph-building
    ValueError, which names the node and the input shapes.
    """
    shapes = [t.shape for t in inputs]
    types = [t.dtype for t in inputs]
    try:
        if op.value_dependent:
            return list(op.shape(shapes, types, attrs, values=[static_value(t) for t in inputs]))
        return list(op.shape(shapes, types, attrs))
    except ValueError as exc:
        raise ValueError(_build_error(op, shapes, str(exc))) from None
    except InvalidArgumentError as exc:  # a rule sharing the kernel's check: at graph building, a ValueError
        message = re.sub(r" ?\[Op:\w+\]( name: ?)?", "", exc.message)
        raise ValueError(_build_error(op, shapes, message)) from None


def _build_error(op: Op, shapes: Sequence[TensorShape], message: str) -> str:
    """TensorFlow's graph-building message: what is wrong, for which node, with which input shapes."""
    head, _, hint = message.partition("\nHint:")
    listed = ", ".join(shape_text(s) for s in shapes)
    hint = hint or (
        " the shapes of the inputs do not fit this op; print(x.shape) inside the function shows "
        "the shapes it was traced with."
    )
    return f"{head} for '{{{{node {op.name}}}}}' with input shapes: {listed}.\nHint:{hint}"
