"""tf.reverse_sequence: each batch entry's first seq_lengths[b] items along seq_axis reversed, the rest left
in place (padded sequences reversed without moving the padding). Its gradient reverses the gradient the same
way."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from minitf.core import dtypes
from minitf.core.conversion import convert_to_tensor
from minitf.core.errors import InvalidArgumentError, allowed_dtypes
from minitf.core.op import GradContext, Op, bind
from minitf.core.shape_rules import merge_dims
from minitf.core.tensor import Tensor
from minitf.core.tensor_shape import TensorShape
from minitf.ops.array.gather_scatter import gather
from minitf.ops.array.index_arguments import INDEX_TYPES


def _axes_error(rank: int, seq_dim: int, batch_dim: int) -> str | None:
    """TensorFlow's complaint about the axes, if any (it takes no negative axes)."""
    if not 0 <= batch_dim < rank:
        return f"Invalid batch_dim {batch_dim}"
    if not 0 <= seq_dim < rank:
        return f"Invalid seq_dim {seq_dim}"
    if batch_dim == seq_dim:
        return f"batch_dim == seq_dim == {seq_dim}"
    return None


def _kernel(x: np.ndarray, lengths: np.ndarray, seq_dim: int, batch_dim: int) -> np.ndarray:
    problem = _axes_error(x.ndim, seq_dim, batch_dim)
    if problem is not None:
        raise InvalidArgumentError(
            None,
            None,
            f"{problem} [Op:ReverseSequence]\nHint: seq_axis and batch_axis are two different axes counted from 0.",
        )
    lengths = np.asarray(lengths)
    if lengths.shape != (x.shape[batch_dim],):
        raise InvalidArgumentError(
            None,
            None,
            f"Length of seq_lengths != input.dims({batch_dim}), "
            f"({lengths.size} vs. {x.shape[batch_dim]}) [Op:ReverseSequence]\nHint: give one "
            "length per batch entry.",
        )
    for b, n in enumerate(lengths):
        if n > x.shape[seq_dim] or n < 0:
            raise InvalidArgumentError(
                None,
                None,
                f"seq_lens({b}) > input.dims({seq_dim}) [Op:ReverseSequence]"
                "\nHint: a sequence cannot be longer than its axis.",
            )
    out = x.copy()
    for b, n in enumerate(lengths):
        index: list[Any] = [slice(None)] * x.ndim
        index[batch_dim] = b
        source = list(index)
        index[seq_dim] = slice(0, int(n))
        source[seq_dim] = slice(int(n) - 1, None, -1) if n > 0 else slice(0, 0)
        out[tuple(index)] = x[tuple(source)]
    return out


def _check(inputs: Sequence[Tensor], attrs: dict) -> None:
    if inputs[1].dtype not in INDEX_TYPES:
        allowed_dtypes("ReverseSequence", INDEX_TYPES, inputs[1].dtype)


def _shape(shapes: Sequence[TensorShape], types: Sequence[dtypes.DType], attrs: dict) -> list:
    x, lengths = shapes
    batch = attrs["batch_dim"]
    if x.rank is not None and 0 <= batch < x.rank and lengths.rank == 1:  # the axes are checked when it runs
        merge_dims(x[batch], lengths[0], "")
    return [(x, types[0])]


def _grad(c: GradContext, g: Tensor) -> list:
    return [bind(ReverseSequence, g, c.inputs[1], **c.attrs), None]


ReverseSequence = Op("ReverseSequence", _kernel, check=_check, shape=_shape, grad=_grad)


def reverse_sequence(
    input: Any, seq_lengths: Any, seq_axis: int | None = None, batch_axis: int | None = None, name: str | None = None
) -> Tensor:
    """Reverse the first seq_lengths[b] entries along seq_axis of each batch entry b (batch_axis, 0 by default)."""
    x = convert_to_tensor(input)
    lengths = convert_to_tensor(seq_lengths, dtype_hint=dtypes.int32)
    if seq_axis is None:
        raise TypeError("reverse_sequence_v2() missing required argument 'seq_axis'")
    batch = 0 if batch_axis is None else int(batch_axis)
    return bind(ReverseSequence, x, lengths, seq_dim=int(seq_axis), batch_dim=batch)


# ---------------------------------------------------------------------------------------------------
# dynamic_stitch: merged[indices[m][i]] = data[m][i], later pieces overwriting earlier ones
# ---------------------------------------------------------------------------------------------------


def _stitch_kernel(*arrays: np.ndarray, n: int) -> np.ndarray:
    indices, data = [np.asarray(a) for a in arrays[:n]], [np.asarray(a) for a in arrays[n:]]
    for m, (idx, values) in enumerate(zip(indices, data)):
        if values.shape[: idx.ndim] != idx.shape:
            raise InvalidArgumentError(
                None,
                None,
                f"data[{m}].shape = [{','.join(map(str, values.shape))}] does not "
                f"start with indices[{m}].shape = [{','.join(map(str, idx.shape))}] "
                "[Op:DynamicStitch]\nHint: give one index per leading entry of each data "
                "tensor.",
            )
    rows = 1 + max((int(idx.max()) for idx in indices if idx.size), default=-1)
    element = data[0].shape[indices[0].ndim :]
    out = np.zeros((rows,) + element, dtype=data[0].dtype)
    for idx, values in zip(indices, data):
        flat = idx.ravel()
        bad = np.flatnonzero(flat < 0)
        if bad.size:
            raise InvalidArgumentError(
                None,
                None,
                f"indices[{int(bad[0])}] is out of range [Op:DynamicStitch]\nHint: the indices count from 0.",
            )
        out[flat] = values.reshape((-1,) + element)
    return out


def _stitch_shape(
    shapes: Sequence[TensorShape], types: Sequence[dtypes.DType], attrs: dict, values: Any = None
) -> list:
    n = attrs["n"]
    first_index, first_data = shapes[0], shapes[n]
    known = None if values is None else values[:n]
    rows = None
    if known is not None and all(v is not None for v in known):
        rows = 1 + max((int(np.max(v)) for v in known if np.size(v)), default=-1)
    for index, piece in zip(shapes[:n], shapes[n:]):  # each data tensor starts with its indices' shape
        if index.rank is not None and piece.rank is not None:
            for have, want in zip(piece.as_list(), index.as_list()):
                merge_dims(have, want, "")
    if first_index.rank is None or first_data.rank is None:
        return [(TensorShape(None), types[n])]
    return [(TensorShape([rows] + first_data.as_list()[first_index.rank :]), types[n])]


def _stitch_grad(c: GradContext, g: Tensor) -> list:
    """Each piece receives the gradient at its indices (overwritten entries too, as in TensorFlow)."""
    n = c.attrs["n"]
    return [None] * n + [gather(g, idx) for idx in c.inputs[:n]]


DynamicStitch = Op("DynamicStitch", _stitch_kernel, shape=_stitch_shape, grad=_stitch_grad, value_dependent=True)


def dynamic_stitch(indices: Sequence[Any], data: Sequence[Any], name: str | None = None) -> Tensor:
    """One tensor from pieces: merged[indices[m][i]] = data[m][i] (a later piece wins where indices repeat)."""
    index_tensors = [convert_to_tensor(i, dtype_hint=dtypes.int32) for i in indices]
    data_tensors = [convert_to_tensor(d) for d in data]
    data_tensors = [data_tensors[0]] + [convert_to_tensor(d, dtype=data_tensors[0].dtype) for d in data_tensors[1:]]
    return bind(DynamicStitch, *index_tensors, *data_tensors, n=len(index_tensors))
