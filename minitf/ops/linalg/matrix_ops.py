"""Matrices beyond the product: tf.einsum, tf.linalg.band_part, diag, diag_part, set_diag, tensor_diag /
tensor_diag_part, and cross products."""

from __future__ import annotations

import string
from collections.abc import Sequence
from typing import Any, cast

import numpy as np

from minitf.core import dtypes
from minitf.core.context import state
from minitf.core.conversion import convert_to_tensor
from minitf.core.errors import (
    InvalidArgumentError,
    allowed_dtypes,
    bad_string_attr,
    dims_text,
    graph_build_error,
    same_dtype,
)
from minitf.core.op import Op, bind
from minitf.core.shape_rules import broadcast_shapes, need_rank
from minitf.core.tensor import Tensor
from minitf.core.tensor_shape import TensorShape
from minitf.ops.array.creation import eye, ones
from minitf.ops.array.index_arguments import at_graph_build
from minitf.ops.array.join_split import stack
from minitf.ops.array.shape_ops import reshape
from minitf.ops.array.where import where
from minitf.ops.math.binary_math import subtract
from minitf.ops.math.cast import cast as tf_cast

Specs = list[tuple[TensorShape, dtypes.DType]]
EINSUM_TYPES = dtypes.FLOAT_OR_COMPLEX | {dtypes.int32, dtypes.int64}


# ---------------------------------------------------------------------------------------------------
# einsum
# ---------------------------------------------------------------------------------------------------


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
                    f"shaped {dims_text(np.shape(x))} but got dimension {size} [Op:Einsum]\n"
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


def _einsum_shape(shapes: Sequence[TensorShape], types: Sequence[dtypes.DType], attrs: dict) -> Specs:
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


def _einsum_grad(c: Any, g: Tensor) -> list:
    """d out / d operand k is an einsum of the output gradient with the other operands. Labels that only
    operand k has are spread out with ones; a label repeated inside operand k (a diagonal) with an identity."""
    operands = list(c.inputs)
    inputs, output = _expand(c.attrs["equation"], [x.shape.rank for x in operands])
    used = set("".join("".join(labels) for labels in inputs) + "".join(output))
    fresh = iter(c for c in string.ascii_letters if c not in used)
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


Einsum = Op("Einsum", _einsum_kernel, check=_einsum_check, shape=_einsum_shape, grad=_einsum_grad)


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


# ---------------------------------------------------------------------------------------------------
# band_part
# ---------------------------------------------------------------------------------------------------


def _band_kernel(x: np.ndarray, num_lower: Any, num_upper: Any) -> np.ndarray:
    if np.ndim(x) < 2:
        raise InvalidArgumentError(
            None,
            None,
            f"input must be at least 2-dim, received shape: "
            f"{dims_text(np.shape(x))} [Op:MatrixBandPart]\nHint: band_part works on matrices "
            "(the last two dimensions).",
        )
    rows, cols = np.shape(x)[-2:]
    lower, upper = int(num_lower), int(num_upper)
    for name, value, limit, what in (("num_lower", lower, rows, "rows"), ("num_upper", upper, cols, "cols")):
        if value > limit:
            raise InvalidArgumentError(
                None,
                None,
                f"{name} must be negative or less or equal to number of {what} "
                f"({limit}) got: {value} [Op:MatrixBandPart]\nHint: -1 keeps the whole "
                "triangle.",
            )
    i = np.arange(rows)[:, None]
    j = np.arange(cols)[None, :]
    keep = ((lower < 0) | (i - j <= lower)) & ((upper < 0) | (j - i <= upper))
    return np.where(keep, x, np.zeros((), dtype=x.dtype))


MatrixBandPart: Op = Op(
    "MatrixBandPart",
    _band_kernel,
    shape=lambda s, t, a: [(s[0], t[0])],
    grad=lambda c, g: [bind(MatrixBandPart, g, c.inputs[1], c.inputs[2]), None, None],
)


def band_part(input: Any, num_lower: Any, num_upper: Any, name: str | None = None) -> Tensor:
    """Keep `num_lower` diagonals below the main one and `num_upper` above it (-1: all); zero the rest."""
    x = convert_to_tensor(input)
    lower = convert_to_tensor(num_lower, dtype_hint=dtypes.int64)
    upper = convert_to_tensor(num_upper, dtype=lower.dtype) if not isinstance(num_upper, Tensor) else num_upper
    return bind(MatrixBandPart, x, lower, upper)


# ---------------------------------------------------------------------------------------------------
# diag and diag_part: one diagonal (k an int) or a band of them (k = (low, high)), stored one per row
# ---------------------------------------------------------------------------------------------------

ALIGNMENTS = ("LEFT_RIGHT", "RIGHT_LEFT", "LEFT_LEFT", "RIGHT_RIGHT")


def _diagonal_positions(rows: int, cols: int, k: int) -> tuple[np.ndarray, np.ndarray]:
    length = max(0, min(rows - max(-k, 0), cols - max(k, 0)))
    start = np.arange(length)
    return start + max(-k, 0), start + max(k, 0)


def _layout(k: tuple[int, int], rows: int, cols: int, align: str) -> tuple[int, list[tuple[int, int, int]]]:
    """The longest diagonal's length, and for each diagonal d (from k[1] down to k[0]): (d, stored row,
    offset of its first entry in that row)."""
    low, high = k
    lengths = {d: max(0, min(rows - max(-d, 0), cols - max(d, 0))) for d in range(low, high + 1)}
    longest = max(lengths.values(), default=0)
    upper, lower = align.split("_")
    layout = []
    for row, d in enumerate(range(high, low - 1, -1)):
        side = upper if d >= 0 else lower
        layout.append((d, row, longest - lengths[d] if side == "RIGHT" else 0))
    return longest, layout


def _check_k(k: tuple[int, int], op_name: str) -> None:
    if k[0] > k[1]:
        raise InvalidArgumentError(
            None,
            None,
            f"lower_diag_index must not be larger than upper_diag_index: {k[0]} > "
            f"{k[1]} [Op:{op_name}]\nHint: give k as (lowest, highest) diagonal.",
        )


def _diag_size(n: int, k: tuple[int, int], num_rows: int, num_cols: int) -> tuple[int, int]:
    """TensorFlow's rule: the smallest matrix that holds the diagonals, unless num_rows / num_cols say more."""
    least_rows, least_cols = n - min(k[1], 0), n + max(k[0], 0)
    if num_rows == -1 and num_cols == -1:
        side = max(least_rows, least_cols)
        return side, side
    rows = least_rows if num_rows == -1 else num_rows
    cols = least_cols if num_cols == -1 else num_cols
    if rows != least_rows and cols != least_cols:
        raise InvalidArgumentError(
            None,
            None,
            f"The number of diagonal elements should match either num_rows or "
            f"num_cols. [Op:MatrixDiagV3]\nHint: diagonals of {n} entries at offsets {k} "
            f"need {least_rows} rows or {least_cols} columns.",
        )
    return rows, cols


def _diag_kernel(
    diagonal: np.ndarray, k: tuple[int, int], num_rows: int, num_cols: int, padding_value: Any, align: str
) -> np.ndarray:
    _check_k(k, "MatrixDiagV3")
    single = k[0] == k[1]
    if np.ndim(diagonal) < (1 if single else 2):
        raise InvalidArgumentError(
            None,
            None,
            f"diagonal must be at least {1 if single else 2}-dim, received shape: "
            f"{dims_text(np.shape(diagonal))} [Op:MatrixDiagV3]\nHint: pass the diagonal's "
            "entries as a vector (one row per diagonal for a band), e.g. tf.linalg.diag([x]).",
        )
    band = diagonal[..., None, :] if single else diagonal
    rows, cols = _diag_size(np.shape(band)[-1], k, num_rows, num_cols)
    out = np.full(np.shape(band)[:-2] + (rows, cols), padding_value, dtype=diagonal.dtype)
    _, layout = _layout(k, rows, cols, align)
    for d, row, offset in layout:
        r, c = _diagonal_positions(rows, cols, d)
        out[..., r, c] = band[..., row, offset : offset + len(r)]
    return out


def _diag_shape(shapes: Sequence[TensorShape], types: Sequence[dtypes.DType], attrs: dict) -> Specs:
    s, k = shapes[0], attrs["k"]
    need_rank(s, 1, at_least=True)
    batch = 1 if k[0] == k[1] else 2
    if s.rank is None or s.rank < batch or s[-1] is None:
        return [(TensorShape(None) if s.rank is None else TensorShape(s.as_list()[:-batch] + [None, None]), types[0])]
    rows, cols = _diag_size(s[-1], k, attrs["num_rows"], attrs["num_cols"])
    return [(TensorShape(s.as_list()[:-batch] + [rows, cols]), types[0])]


def _diag_part_kernel(x: np.ndarray, k: tuple[int, int], padding_value: Any, align: str) -> np.ndarray:
    _check_k(k, "MatrixDiagPartV3")
    if np.ndim(x) < 2:
        raise InvalidArgumentError(
            None,
            None,
            "input must be at least 2-dim, received shape: "
            f"{dims_text(np.shape(x))} [Op:MatrixDiagPartV3]\nHint: diag_part reads the "
            "diagonal of matrices; for a vector, tf.linalg.diag builds the matrix.",
        )
    rows, cols = np.shape(x)[-2:]
    for d in k:
        if not -rows < d < cols and not (rows == 0 or cols == 0):
            raise InvalidArgumentError(
                None,
                None,
                f"diag_index is out of bounds: k = {d} for a {rows}x{cols} matrix "
                "[Op:MatrixDiagPartV3]\nHint: k must lie in (-rows, cols).",
            )
    longest, layout = _layout(k, rows, cols, align)
    band = np.full(np.shape(x)[:-2] + (len(layout), longest), padding_value, dtype=x.dtype)
    for d, row, offset in layout:
        r, c = _diagonal_positions(rows, cols, d)
        band[..., row, offset : offset + len(r)] = x[..., r, c]
    return band[..., 0, :] if k[0] == k[1] else band


def _diag_part_shape(shapes: Sequence[TensorShape], types: Sequence[dtypes.DType], attrs: dict) -> Specs:
    s = shapes[0]
    if s.rank is None:
        return [(TensorShape(None), types[0])]
    k = attrs["k"]
    if s.rank < 2 or (s[-2] is not None and s[-1] is not None):
        dims: list[Any] = [0] * (s.rank - 2) + s.as_list()[-2:] if s.rank >= 2 else [0] * s.rank  # known sizes
        stand_in = np.broadcast_to(np.float32(0), dims)  # a view: nothing allocated
        at_graph_build(lambda: _diag_part_kernel(stand_in, k, 0, attrs["align"]), "MatrixDiagPartV3")
    rows, cols = s[-2], s[-1]
    longest = None if rows is None or cols is None else _layout(k, rows, cols, attrs["align"])[0]
    band = [] if k[0] == k[1] else [k[1] - k[0] + 1]
    return [(TensorShape(s.as_list()[:-2] + band + [longest]), types[0])]


def _diag_grad(c: Any, g: Tensor) -> list:
    zero = np.zeros((), dtype=g.dtype._np)
    return [bind(MatrixDiagPartV3, g, k=c.attrs["k"], padding_value=zero, align=c.attrs["align"])]


def _diag_part_grad(c: Any, g: Tensor) -> list:
    rows, cols = c.x.shape[-2], c.x.shape[-1]
    zero = np.zeros((), dtype=g.dtype._np)
    return [
        bind(MatrixDiagV3, g, k=c.attrs["k"], num_rows=rows, num_cols=cols, padding_value=zero, align=c.attrs["align"])
    ]


MatrixDiagV3 = Op("MatrixDiagV3", _diag_kernel, shape=_diag_shape, grad=_diag_grad)
MatrixDiagPartV3 = Op("MatrixDiagPartV3", _diag_part_kernel, shape=_diag_part_shape, grad=_diag_part_grad)


def _offsets(k: Any, op_name: str) -> tuple[int, int]:
    values = [int(v) for v in np.ravel(getattr(k, "_value", k))]
    if len(values) not in (1, 2):
        if state.graph is not None:  # TensorFlow's shape function reads the constant k while building the graph
            raise graph_build_error(
                op_name,
                f"diag_index must be a vector with one or two elements. It has {len(values)} elements.",
                "k is one offset, or (low, high).",
            )
        raise InvalidArgumentError(
            None,
            None,
            f"diag_index must have only one or two elements, received "
            f"{len(values)} elements. [Op:{op_name}]\nHint: k is one offset, or (low, high).",
        )
    return (values[0], values[-1])


def _alignment(align: str, op_name: str) -> str:
    if align not in ALIGNMENTS:
        raise bad_string_attr(
            op_name,
            "align",
            align,
            ALIGNMENTS,
            "align says where shorter diagonals sit: "
            '"RIGHT_LEFT" (TensorFlow\'s default) is what tf.linalg.diag_part uses.',
        )
    return align


def diag(
    diagonal: Any,
    name: str = "diag",
    k: Any = 0,
    num_rows: int = -1,
    num_cols: int = -1,
    padding_value: Any = 0,
    align: str = "RIGHT_LEFT",
) -> Tensor:
    """A (batch of) matrix with `diagonal` on its k-th diagonal (or, with k = (low, high), one row of the input per
    diagonal from high down to low) and `padding_value` elsewhere."""
    d = convert_to_tensor(diagonal)
    pad = np.asarray(getattr(padding_value, "_value", padding_value)).astype(d.dtype._np)  # a 0-d array
    return bind(
        MatrixDiagV3,
        d,
        k=_offsets(k, "MatrixDiagV3"),
        num_rows=int(num_rows),
        num_cols=int(num_cols),
        padding_value=pad,
        align=_alignment(align, "MatrixDiagV3"),
    )


def diag_part(
    input: Any, name: str = "diag_part", k: Any = 0, padding_value: Any = 0, align: str = "RIGHT_LEFT"
) -> Tensor:
    """The k-th diagonal of each matrix in the last two dimensions (or, with k = (low, high), the diagonals from
    high down to low, one per row, shorter ones padded as `align` says)."""
    x = convert_to_tensor(input)
    pad = np.asarray(getattr(padding_value, "_value", padding_value)).astype(x.dtype._np)  # a 0-d array
    return bind(
        MatrixDiagPartV3,
        x,
        k=_offsets(k, "MatrixDiagPartV3"),
        padding_value=pad,
        align=_alignment(align, "MatrixDiagPartV3"),
    )


def cross(a: Any, b: Any, name: str | None = None) -> Tensor:
    """The cross product of 3-vectors along the last axis."""
    u = convert_to_tensor(a)
    v = convert_to_tensor(b, dtype=u.dtype)
    u0, u1, u2 = (u[..., i] for i in range(3))
    v0, v1, v2 = (v[..., i] for i in range(3))
    return stack([subtract(u1 * v2, u2 * v1), subtract(u2 * v0, u0 * v2), subtract(u0 * v1, u1 * v0)], axis=-1)


def set_diag(input: Any, diagonal: Any, name: str = "set_diag", k: int = 0, align: str = "RIGHT_LEFT") -> Tensor:
    """`input` with its main diagonal replaced by `diagonal`."""
    x = convert_to_tensor(input)
    d = convert_to_tensor(diagonal, dtype=x.dtype)
    rows, cols = x.shape[-2], x.shape[-1]
    mask = tf_cast(eye(rows, cols, dtype=dtypes.int32), dtypes.bool)
    return where(mask, diag(d, num_rows=rows, num_cols=cols), x)


def tensor_diag(diagonal: Any, name: str | None = None) -> Tensor:
    """A tensor of shape s + s with `diagonal` (shape s) on its diagonal and zeros elsewhere."""
    d = convert_to_tensor(diagonal)
    dims = d.shape.as_list()
    return reshape(diag(reshape(d, [-1])), dims + dims)


def tensor_diag_part(input: Any, name: str | None = None) -> Tensor:
    """The diagonal of a tensor of shape s + s, of shape s."""
    x = convert_to_tensor(input)
    dims: list[Any] = x.shape.as_list()  # known sizes: the diagonal's length is their product
    half = dims[: len(dims) // 2]
    n = int(np.prod(half))
    return reshape(diag_part(reshape(x, [n, n])), half)
