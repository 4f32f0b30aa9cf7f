"""Matrices beyond the product: tf.linalg.band_part, diag, diag_part, set_diag, tensor_diag / tensor_diag_part,
and cross products (tf.einsum: einsum.py)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from minitf.core import dtypes
from minitf.core.context import state
from minitf.core.conversion import convert_to_tensor
from minitf.core.errors import (
    InvalidArgumentError,
    bad_string_attr,
    dims_text,
    graph_build_error,
)
from minitf.core.op import GradContext, Op, bind
from minitf.core.shape_rules import need_rank
from minitf.core.tensor import Tensor
from minitf.core.tensor_shape import TensorShape
from minitf.ops.array.creation import eye
from minitf.ops.array.index_arguments import at_graph_build
from minitf.ops.array.join_split import stack
from minitf.ops.array.shape_ops import reshape
from minitf.ops.array.where import where
from minitf.ops.math.binary_math import subtract
from minitf.ops.math.cast import cast as tf_cast

Specs = list[tuple[TensorShape, dtypes.DType]]


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
            f"{dims_text(np.shape(x))} [Op:MatrixDiagPartV3] name: diag_part\nHint: diag_part reads the "
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


def _diag_grad(c: GradContext, g: Tensor) -> list:
    zero = np.zeros((), dtype=g.dtype._np)
    return [bind(MatrixDiagPartV3, g, k=c.attrs["k"], padding_value=zero, align=c.attrs["align"])]


def _diag_part_grad(c: GradContext, g: Tensor) -> list:
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
