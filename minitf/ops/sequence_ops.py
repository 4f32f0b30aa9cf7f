"""tf.reverse_sequence: each batch entry's first seq_lengths[b] items along seq_axis reversed, the rest left
in place (padded sequences reversed without moving the padding). Its gradient reverses the gradient the same
way."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from minitf import dtypes
from minitf.conversion import convert_to_tensor
from minitf.core import Op, bind
from minitf.errors import InvalidArgumentError, allowed_dtypes
from minitf.ops.indices import INDEX_TYPES
from minitf.ops.shapes import merge_dims
from minitf.tensor import Tensor
from minitf.tensor_shape import TensorShape


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
        raise InvalidArgumentError(None, None, f"{problem} [Op:ReverseSequence]\nHint: seq_axis and batch_axis are "
                                   "two different axes counted from 0.")
    lengths = np.asarray(lengths)
    if lengths.shape != (x.shape[batch_dim],):
        raise InvalidArgumentError(None, None, f"Length of seq_lengths != input.dims({batch_dim}), "
                                   f"({lengths.size} vs. {x.shape[batch_dim]}) [Op:ReverseSequence]\nHint: give one "
                                   "length per batch entry.")
    for b, n in enumerate(lengths):
        if n > x.shape[seq_dim] or n < 0:
            raise InvalidArgumentError(None, None, f"seq_lens({b}) > input.dims({seq_dim}) [Op:ReverseSequence]"
                                       "\nHint: a sequence cannot be longer than its axis.")
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


def _grad(c: Any, g: Tensor) -> list:
    return [bind(ReverseSequence, g, c.inputs[1], **c.attrs), None]


ReverseSequence = Op("ReverseSequence", _kernel, check=_check, shape=_shape, grad=_grad)


def reverse_sequence(input: Any, seq_lengths: Any, seq_axis: int | None = None, batch_axis: int | None = None,  # noqa: A002
                     name: str | None = None) -> Tensor:
    """Reverse the first seq_lengths[b] entries along seq_axis of each batch entry b (batch_axis, 0 by default)."""
    x = convert_to_tensor(input)
    lengths = convert_to_tensor(seq_lengths, dtype_hint=dtypes.int32)
    if seq_axis is None:
        raise TypeError("reverse_sequence_v2() missing required argument 'seq_axis'")
    batch = 0 if batch_axis is None else int(batch_axis)
    return bind(ReverseSequence, x, lengths, seq_dim=int(seq_axis), batch_dim=batch)
