"""Small helpers over lists of tensors that TensorFlow has at its top level: identity_n, shape_n, tuple,
unique_with_counts (unique plus how often each value occurs), and the graph-building helpers no_op, group
and inside_function, which eagerly do nothing (as in TensorFlow) and inside a tf.function need nothing
either, because minitf's stateful ops keep program order."""

from __future__ import annotations

import collections
from collections.abc import Sequence
from typing import Any

from minitf import dtypes
from minitf.context import state
from minitf.conversion import convert_to_tensor
from minitf.ops.segment_ops import unsorted_segment_sum
from minitf.ops.shape_ops import identity, shape, size
from minitf.ops.sort_ops import unique
from minitf.tensor import Tensor

UniqueWithCountsResult = collections.namedtuple("UniqueWithCounts", ["y", "idx", "count"])  # type: ignore[name-match]  # TensorFlow's class name


def identity_n(input: Sequence[Any], name: str | None = None) -> list[Tensor]:  # noqa: A002
    """Each tensor unchanged, as a list."""
    return [identity(t) for t in input]


def shape_n(input: Sequence[Any], out_type: Any = dtypes.int32, name: str | None = None) -> list[Tensor]:  # noqa: A002
    """The shape of each tensor, as a list of 1-D tensors."""
    return [shape(t, out_type=out_type) for t in input]


def tuple(tensors: Sequence[Any], control_inputs: Any = None, name: str | None = None) -> list[Any]:  # noqa: A001
    """The tensors, each available only once all are computed (always the case here): a list of identities."""
    return [None if t is None else identity(t) for t in tensors]


def unique_with_counts(x: Any, out_idx: Any = dtypes.int32, name: str | None = None) -> UniqueWithCountsResult:
    """The unique values in order of first appearance, each element's index among them, and each one's count."""
    y, idx = unique(x, out_idx=out_idx)
    ones = convert_to_tensor(1, dtype=out_idx) + 0 * idx
    return UniqueWithCountsResult(y, idx, unsorted_segment_sum(ones, idx, size(y, out_type=out_idx)))


def no_op(name: str | None = None) -> None:
    """Nothing (TensorFlow's placeholder op for control dependencies)."""
    return None


def group(*inputs: Any, **kwargs: Any) -> None:
    """Run `inputs` before whatever depends on the group: minitf already runs them in program order."""
    return None


def inside_function() -> bool:
    """True while a tf.function is being traced."""
    return state.graph is not None
