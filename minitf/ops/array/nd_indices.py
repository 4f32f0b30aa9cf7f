"""N-d indices as TensorFlow's gather_nd and scatter kernels read them: one coordinate per leading dimension
in the last axis of `indices`, each checked to lie inside the shape, with TensorFlow's errors; `place` combines updates
in at those positions (update, add, sub, min, max)."""

from __future__ import annotations

import typing
from collections.abc import Sequence

import numpy as np

from minitf.core.errors import InvalidArgumentError, dims_text
from minitf.core.tensor_shape import TensorShape


def nd_positions(indices: np.ndarray, shape: Sequence[int], what: str, op_name: str) -> tuple[np.ndarray, ...]:
    """The index rows of `indices` (last axis = one coordinate per leading dimension of `shape`), checked."""
    depth = np.shape(indices)[-1]
    rows = np.reshape(indices, (-1, depth)).astype(np.int64)
    bad = np.flatnonzero(np.any((rows < 0) | (rows >= np.asarray(shape[:depth], dtype=np.int64)), axis=1))
    if bad.size:
        i = int(bad[0])
        row = ", ".join(str(v) for v in rows[i])
        raise InvalidArgumentError(
            None,
            None,
            f"indices[{i}] = [{row}] does not index into {what} "
            f"{dims_text(shape)}{', node name: GatherNd' if op_name == 'GatherNd' else ''} [Op:{op_name}]\n"
            "Hint: coordinate j of each index must lie "
            f"in [0, size of dimension j).",
        )
    return tuple(rows.T)


def check_depth(index_shape: Sequence[int], rank: int, op_name: str, what: str = "params rank") -> None:
    if len(index_shape) < 1:
        raise InvalidArgumentError(
            None,
            None,
            f"indices must be at least a vector, got a scalar [Op:{op_name}]\n"
            "Hint: the last axis of indices holds the coordinates, e.g. [[0, 1]].",
        )
    if index_shape[-1] > rank:
        raise InvalidArgumentError(
            None,
            None,
            f"index innermost dimension length must be <= {what}; saw: "
            f"{index_shape[-1]} vs. {rank} [Op:{op_name}]\nHint: each index row "
            f"names at most one coordinate per dimension.",
        )


def known_dims(shape: TensorShape) -> list[int]:
    """The dimensions of a shape its caller has checked is fully defined."""
    return typing.cast("list[int]", shape.as_list())


def check_updates(index_shape: Sequence[int], update_shape: Sequence[int], shape: Sequence[int], op_name: str) -> None:
    depth = index_shape[-1]
    expected = tuple(index_shape[:-1]) + tuple(shape[depth:])
    if tuple(update_shape) != expected:
        raise InvalidArgumentError(
            None,
            None,
            f"Dimensions of updates {dims_text(update_shape)} must equal "
            f"indices.shape[:-1] + shape[indices.shape[-1]:] = {dims_text(expected)} "
            f"[Op:{op_name}]\nHint: one update per index row, shaped like the slice it "
            "replaces.",
        )


def place(out: np.ndarray, indices: np.ndarray, updates: np.ndarray, how: str, op_name: str) -> np.ndarray:
    """Combine `updates` into `out` (in place) at the rows of `indices`: TensorFlow's scatter kernels."""
    check_depth(np.shape(indices), np.ndim(out), op_name, "rank of the shape")
    check_updates(np.shape(indices), np.shape(updates), np.shape(out), op_name)
    if np.size(updates) == 0:
        return out
    depth = np.shape(indices)[-1]
    where = nd_positions(indices, np.shape(out), "shape", op_name) if depth else ()
    rows = np.reshape(updates, (-1,) + np.shape(out)[depth:])
    if depth == 0:  # every update applies to the whole tensor
        for row in rows:
            place(out[None], np.zeros((1, 1), np.int64), row[None], how, op_name)
        return out
    combine = {"add": np.add, "sub": np.subtract, "min": np.minimum, "max": np.maximum}
    if how == "update":
        out[where] = rows
    else:
        combine[how].at(out, where, rows)
    return out
