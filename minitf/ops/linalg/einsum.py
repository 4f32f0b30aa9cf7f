"""`tf.einsum`: products and sums written as an equation over index letters (`"ij,jk->ik"`), with ellipses for
broadcast batch dimensions, TensorFlow's checks and error messages, and a gradient that is itself an einsum."""

from __future__ import annotations

import string
from collections.abc import Sequence
from typing import Any, cast

import numpy as np

from minitf.core import dtypes
from minitf.core.conversion import convert_to_tensor
from minitf.core.errors import (
    InvalidArgumentError,
    allowed_dtypes,
    dims_text,
    same_dtype,
)
from minitf.core.op import GradContext, Op, bind
from minitf.core.shape_rules import Spec, broadcast_shapes
from minitf.core.tensor import Tensor
from minitf.core.tensor_shape import TensorShape
from minitf.ops.array.creation import eye, ones

# ---------------------------------------------------------------------------------------------------
# einsum
# ---------------------------------------------------------------------------------------------------

EINSUM_TYPES = dtypes.FLOAT_OR_COMPLEX | {dtypes.int32, dtypes.int64}


def _explicit(equation: str) -> str:
    """The equation with its output spelled out: TensorFlow's implicit output is the labels used once, sorted
    (and, unlike NumPy's, without the ellipsis)."""
    equation = equation.replace(" ", "")
    if "->" in equation:
        return equation
    labels = [c for c in equation if c.isalpha()]
    return equation + "->" + "".join(sorted(c for c in set(labels) if labels.count(c) == 1))


def _expand(equation: str, ranks: Sequence[int]) -> tuple[list[list[str]], list[str]]:
    """Input and output label lists with each '...' replaced by explicit labels, aligned from the right."""
    lhs, rhs = equation.split("->")
    parts = lhs.split(",")
    if len(parts) != len(ranks):
        raise ValueError(f"Expected {len(parts)} inputs but got: {len(ranks)}")
    spare = [c for c in string.ascii_letters if c not in equation]
    widest = 0
    inputs: list[Any] = []
    for part, rank in zip(parts, ranks):
        named = len(part.replace("...", ""))
        width = rank - named if "..." in part else 0
        if width < 0 or ("..." not in part and named != rank):
            raise InvalidArgumentError(
                None,
                None,
                f"Expected input {len(inputs)} to have rank {named} but got: "
                f"{rank} [Op:Einsum]\nHint: each input needs one label per dimension "
                f"(or '...' for the leading ones).",
            )
        widest = max(widest, width)
        before, _, after = part.partition("...")
        inputs.append(list(before) + _ellipsis(spare, width) + list(after) if "..." in part else list(part))
    out_before, dots, out_after = rhs.partition("...")
    output = list(out_before) + (_ellipsis(spare, widest) if dots else []) + list(out_after)
    return inputs, output


def _ellipsis(spare: list[str], width: int) -> list[str]:
    """The labels standing for the last `width` broadcast dimensions (shared by every input, right-aligned)."""
    return spare[len(spare) - width :] if width else []


def _einsum_kernel(*operands: np.ndarray, equation: str) -> np.ndarray:
    inputs, output = _expand(equation, [np.ndim(x) for x in operands])
    sizes: dict[str, int] = {}
    for labels, x in zip(inputs, operands):
        for axis, (label, size) in enumerate(zip(labels, np.shape(x))):
            known = sizes.setdefault(label, size)
            if known != size and 1 not in (known, size):
                raise InvalidArgumentError(
                    None,
                    None,
                    f"Expected dimension {known} at axis {axis} of the input "
                    f"shaped {dims_text(np.shape(x))} but got dimension {size} [Op:Einsum] name: \n"
                    f"Hint: a label that appears in several inputs must have the same size "
                    "everywhere.",
                )
            sizes[label] = max(known, size)
    broadcast = [c for labels in inputs for c in labels if c not in output and c not in equation]
    if broadcast and sizes[broadcast[0]] != 1:
        raise InvalidArgumentError(
            None,
            None,
            "Output contains broadcasting dimension(s) but no ellipsis (...) was "
            "found in the output subscripts. [Op:Einsum]\nHint: write '...' in the output "
            "too, e.g. '...ij,...jk->...ik'.",
        )
    spelled = ",".join("".join(labels) for labels in inputs) + "->" + "".join(output)
    return np.asarray(np.einsum(spelled, *operands))


def _einsum_shape(shapes: Sequence[TensorShape], types: Sequence[dtypes.DType], attrs: dict) -> list[Spec]:
    if any(s.rank is None for s in shapes):
        return [(TensorShape(None), types[0])]
    equation = attrs["equation"]
    try:
        inputs, output = _expand(equation, [s.rank for s in shapes])  # type: ignore[misc]
    except InvalidArgumentError:  # TensorFlow's shape function words it as a rank check
        index, named, shape = next(
            (i, len(p.replace("...", "")), s)
            for i, (p, s) in enumerate(zip(equation.split("->")[0].split(","), shapes))
            if len(p.replace("...", "")) > cast(int, s.rank) or ("..." not in p and len(p) != s.rank)
        )
        raise ValueError(
            f"Shape must be rank {named} but is rank {shape.rank}\n\t for {_ordinal(index)} input and "
            f"equation: {equation}\nHint: each input needs one label per dimension (or '...' for the "
            "leading ones)."
        ) from None
    sizes: dict[str, TensorShape] = {}
    for labels, shape in zip(inputs, shapes):
        for label, size in zip(labels, shape):
            sizes[label] = broadcast_shapes(sizes.get(label, TensorShape([1])), TensorShape([size]))
    broadcast = {c for labels in inputs for c in labels if c not in output and c not in equation}
    if broadcast and "..." not in equation.split("->")[1]:
        raise ValueError(
            f"Shape must be at most rank 0 but is rank {len(broadcast)}\n\t for einsum equation "
            f"'{equation}' without ellipsis (...) in the output subscripts where input(s) have non-empty "
            "broadcasting shape\nHint: write '...' in the output too, e.g. '...ij,...jk->...ik'."
        )
    return [(TensorShape([sizes[c][0] for c in output]), types[0])]


def _ordinal(n: int) -> str:
    return f"{n}{'th' if 10 <= n % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th')}"


def _einsum_grad(c: GradContext, g: Tensor) -> list:
    """d out / d operand k is an einsum of the output gradient with the other operands. Labels that only
    operand k has are spread out with ones; a label repeated inside operand k (a diagonal) with an identity."""
    operands = list(c.inputs)
    ranks = []
    for x in operands:
        if (rank := x.shape.rank) is None:
            raise ValueError(
                "einsum's gradient needs each operand's rank, unknown while tracing.\nHint: give the function an "
                "input_signature with the operands' ranks."
            )
        ranks.append(rank)
    inputs, output = _expand(c.attrs["equation"], ranks)
    used = set("".join("".join(labels) for labels in inputs) + "".join(output))
    fresh = iter(letter for letter in string.ascii_letters if letter not in used)
    grads: list[Tensor | None] = []
    for k, x in enumerate(operands):
        wanted = c.needs[k] if k < len(c.needs) else True
        if not wanted:
            grads.append(None)
            continue
        terms, tensors = ["".join(output)], [g]
        for j, other in enumerate(operands):
            if j != k:
                terms.append("".join(inputs[j]))
                tensors.append(other)
        seen: set[str] = set()
        target = []
        elsewhere = set("".join(terms))
        for label, size in zip(inputs[k], x.shape.as_list()):
            if label in seen:  # a diagonal: the second occurrence is tied to the first by an identity matrix
                if size is None:
                    raise ValueError(
                        f"einsum's gradient needs the size of the repeated label {label!r} of operand {k}, which "
                        "is unknown while tracing.\nHint: give the function an input_signature with that size."
                    )
                tied = next(fresh)
                terms.append(label + tied)
                tensors.append(eye(size, dtype=x.dtype))
                target.append(tied)
                continue
            seen.add(label)
            if label not in elsewhere:
                terms.append(label)
                tensors.append(ones([size], dtype=x.dtype))
            target.append(label)
        grads.append(einsum(",".join(terms) + "->" + "".join(target), *tensors))
    return grads


def _einsum_check(inputs: Sequence[Tensor], attrs: dict) -> None:
    same_dtype("Einsum", inputs)
    if inputs[0].dtype not in EINSUM_TYPES:
        allowed_dtypes("Einsum", EINSUM_TYPES, inputs[0].dtype)


# (TensorFlow contracts three or more operands two at a time, so its kernel sees at most two.)
Einsum = Op(
    "Einsum",
    _einsum_kernel,
    check=_einsum_check,
    shape=_einsum_shape,
    grad=_einsum_grad,
    node=lambda n, attrs: f"Einsum_N_{min(n, 2)}",
)


def einsum(equation: str, *inputs: Any, **kwargs: Any) -> Tensor:
    """Sum of products named by labels: 'ij,jk->ik' is a matrix product, 'ii->' a trace, 'i,j->ij' an outer
    product; '...' stands for leading (batch) dimensions."""
    kwargs.pop("name", None)
    kwargs.pop("optimize", None)
    if kwargs:
        raise TypeError(
            f"Invalid keyword arguments for this function: {', '.join(sorted(kwargs))}. Expected: name, optimize"
        )
    tensors = [convert_to_tensor(x) for x in inputs]
    expected = equation.split("->")[0].count(",") + 1
    if expected != len(tensors):
        raise ValueError(f'Got {len(tensors)} inputs for equation "{equation}", expecting {expected}')
    equation = _explicit(equation)
    if equation.count("->") != 1 or any(not (ch.isalpha() or ch in ",.->") for ch in equation):
        raise ValueError(
            f"Invalid equation: {equation}\nHint: use letters for labels, ',' between inputs and "
            "'->' before the output."
        )
    return bind(Einsum, *tensors, equation=equation)
