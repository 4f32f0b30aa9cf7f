"""Row splits as TensorFlow checks them: they start at 0, never decrease and end at the number of values.

Eagerly the checks run at once; while tracing, the rank is checked at once and the values by assertions that
run with the function. Also here: the row lengths `RaggedTensor.from_tensor` reads off a padded dense tensor.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from minitf.core import dtypes
from minitf.core.context import state
from minitf.core.conversion import convert_to_tensor
from minitf.core.errors import InvalidArgumentError
from minitf.core.tensor import EagerTensor, Tensor
from minitf.ops.array.creation import range as tf_range
from minitf.ops.array.gather_scatter import boolean_mask
from minitf.ops.checks.check_ops import assert_equal
from minitf.ops.math.cast import cast
from minitf.ops.math.comparisons import greater_equal
from minitf.ops.math.reductions import reduce_all


def check_splits(splits: Tensor, nvalues: Any, where: str) -> None:
    """TensorFlow's checks on row_splits: start at 0, never decrease, end at the number of values.

    Eagerly they run now; while tracing, the rank is checked at once (TensorFlow's ValueError) and the values
    by assertions that run with the function (TensorFlow's InvalidArgumentError when the graph runs)."""
    if not isinstance(splits, EagerTensor):
        if splits.shape.rank is not None and splits.shape.rank != 1:
            raise ValueError(
                f"Shape {splits.shape} must have rank 1\nHint: row_splits is a vector: [0, end of row "
                "0, end of row 1, ...]."
            )
        if state.graph is not None:
            _assert_splits(splits, nvalues, where)
        return
    s = np.asarray(splits._value)
    if s.ndim != 1 or s.size == 0:
        raise ValueError(f"row_splits must be a non-empty vector; got shape {splits.shape}.")
    n = int(nvalues._value) if isinstance(nvalues, EagerTensor) else nvalues
    if s[0] != 0:
        raise InvalidArgumentError(
            None,
            None,
            f"Arguments to {where} do not form a valid RaggedTensor:zero\n"
            f"Condition x == y did not hold.\nFirst 1 elements of x:\n[{s[0]}]\nFirst 1 "
            f"elements of y:\n[0]\nHint: row_splits start at 0.",
        )
    if np.any(np.diff(s) < 0):
        raise InvalidArgumentError(
            None,
            None,
            f"Arguments to {where} do not form a valid RaggedTensor:monotonic\n"
            f"Condition x >= 0 did not hold element-wise.\nHint: row_splits never decrease "
            f"(row lengths are never negative).",
        )
    if n is not None and s[-1] != n:
        raise InvalidArgumentError(
            None,
            None,
            f"Arguments to {where} do not form a valid RaggedTensor\nCondition "
            f"x == y did not hold.\nFirst 1 elements of x:\n[{s[-1]}]\nFirst 1 elements of "
            f"y:\n[{n}]\nHint: the row lengths must add up to the number of values "
            f"({n}).",
        )


def _assert_splits(splits: Tensor, nvalues: Any, where: str) -> None:
    """The checks of `_check_splits` as assertions in the graph being traced."""
    if splits.shape[0] == 0:
        raise ValueError(f"row_splits must be a non-empty vector; got shape {splits.shape}.")
    bad = f"Arguments to {where} do not form a valid RaggedTensor"
    zero = convert_to_tensor(0, dtype=dtypes.int64)
    assert_equal(splits[0], zero, message=f"{bad}:zero")
    rising = reduce_all(greater_equal(splits[1:], splits[:-1]))
    assert_equal(rising, convert_to_tensor(True), message=f"{bad}:monotonic")
    if nvalues is not None:
        assert_equal(
            splits[-1],
            convert_to_tensor(nvalues, dtype=dtypes.int64) if not isinstance(nvalues, Tensor) else to_int64(nvalues),
            message=bad,
        )


def to_int64(t: Tensor) -> Tensor:
    if t.dtype is dtypes.int64:
        return t
    if t.dtype is not dtypes.int32:
        raise ValueError(
            f"Expected row_splits to have dtype int32 or int64; got {t.dtype.name}.\nHint: row "
            f"splits and row lengths are integers."
        )
    return cast(t, dtypes.int64)


def lengths_without_padding(t: Tensor, padding: Any) -> list[int]:
    """Each row's length once its trailing `padding` items are dropped (eager tensors only)."""
    if not isinstance(t, EagerTensor):
        raise ValueError(
            "minitf's RaggedTensor.from_tensor(padding=...) works on eager tensors.\nHint: pass "
            "lengths=... inside a tf.function."
        )
    value = np.asarray(t._value)
    kept = value != np.asarray(getattr(padding, "_value", padding))
    kept = kept.reshape(kept.shape[:2] + (-1,)).any(axis=2)
    return [int(np.flatnonzero(row)[-1]) + 1 if row.any() else 0 for row in kept]


def take_lengths(t: Tensor, lengths: Any) -> Tensor:
    lengths = to_int64(convert_to_tensor(lengths, dtype_hint=dtypes.int64))
    cols = t.shape[1]
    mask = tf_range(cols, dtype=dtypes.int64)[None, :] < lengths[:, None]
    return boolean_mask(t, mask)
