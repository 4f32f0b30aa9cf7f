"""Float sums in TensorFlow's order, so that `reduce_sum` and `reduce_mean` print TensorFlow's last digit.

Floating-point addition is not associative: the order of a sum shows in the last bits, and TensorFlow prints
float32 with all the digits that tell two floats apart. TensorFlow's CPU kernels (Eigen, built for AVX) add
in a fixed order that depends on the shape, not on the number of threads (checked up to 3 million elements).

First the reduction is simplified as TensorFlow does: size-1 axes dropped, neighbouring axes that are both
reduced (or both kept) merged. Then:

* summing along the last axis ("rows"): 8 float32 lanes (4 for float64) added packet by packet, in 4
  interleaved accumulators once a row has 4 packets; the leftover elements added one by one; then the
  lanes folded pairwise. Rows longer than 1024 packets are split in halves (at a packet boundary), summed
  separately and added;
* summing along an axis with kept axes after it ("columns"): every packet of 8 (4) neighbouring outputs
  adds the rows in 4 interleaved accumulators when there are 16 rows or more (see `column_sums`);
* other patterns move the reduced axes last and sum rows.
"""

from __future__ import annotations

import numpy as np

LEAF_PACKETS = 1024  # rows longer than this many packets are split in two


def lanes(dtype: np.dtype) -> int:
    """Values per AVX packet: 8 float32, 4 float64."""
    return 32 // np.dtype(dtype).itemsize


def _fold(acc: np.ndarray) -> np.ndarray:
    """A packet's lanes added up: the upper half onto the lower half until four are left, then (0+2)+(1+3)."""
    while acc.shape[1] > 4:
        half = acc.shape[1] // 2
        acc = acc[:, :half] + acc[:, half:]
    if acc.shape[1] == 4:
        return (acc[:, 0] + acc[:, 2]) + (acc[:, 1] + acc[:, 3])
    return acc[:, 0] + acc[:, 1]


def _in_order(blocks: np.ndarray, axis: int) -> np.ndarray:
    """`blocks` summed along `axis` one slice after the other, starting from +0.

    A running sum (`accumulate`) is sequential by definition, whereas `np.sum` may add pairwise. Adding +0 at
    the end turns a total of -0.0 into +0.0, as starting from +0 does; it changes nothing else.
    """
    if blocks.shape[axis] == 0:
        return np.zeros(np.delete(blocks.shape, axis), dtype=blocks.dtype)
    running = np.add.accumulate(blocks, axis=axis)
    return np.take(running, -1, axis=axis) + blocks.dtype.type(0)


def _leaf(x: np.ndarray) -> np.ndarray:
    """Sums of the rows of a (rows, n) array, n at most LEAF_PACKETS packets."""
    rows, n = x.shape
    p = lanes(x.dtype)
    start = n // (4 * p) * 4 * p if n >= 4 * p else 0
    if start:  # four accumulators, each adding every fourth packet, then added into the first
        acc4 = _in_order(x[:, :start].reshape(rows, -1, 4, p), axis=1)
        acc = ((acc4[:, 0] + acc4[:, 1]) + acc4[:, 2]) + acc4[:, 3]
    else:
        acc = np.zeros((rows, p), dtype=x.dtype)
    whole = n // p * p
    for j in range(start, whole, p):  # at most three packets
        acc = acc + x[:, j:j + p]
    single = np.zeros(rows, dtype=x.dtype)
    for j in range(whole, n):  # at most seven elements
        single = single + x[:, j]
    return single + _fold(acc)


def _row(x: np.ndarray, first: int) -> np.ndarray:
    """The sum of one long row (1, n) whose first element is element `first` of the flattened input."""
    n = x.shape[1]
    p = lanes(x.dtype)
    if n <= p * LEAF_PACKETS:
        return _leaf(x)
    split = p * -(-(first + -(-n // 2)) // p)  # the middle, moved up to a packet boundary of the whole input
    left = min(split - first, n)
    total = np.zeros(1, dtype=x.dtype) + _row(x[:, :left], first)
    if left < n:
        total += _row(x[:, left:], first + left)
    return total


def row_sums(x: np.ndarray) -> np.ndarray:
    """Sums of the rows of a (rows, n) array, in TensorFlow's order."""
    rows, n = x.shape
    if n <= lanes(x.dtype) * LEAF_PACKETS:
        return _leaf(x)
    return np.concatenate([_row(x[r:r + 1], r * n) for r in range(rows)])


def column_sums(x: np.ndarray) -> np.ndarray:
    """Sums over the middle axis of a (planes, rows, columns) array, in TensorFlow's order.

    The outputs, flattened, are computed in packets of 8 (4 for float64) starting at multiples of 8; a packet
    that stays within one plane adds the rows in 4 interleaved accumulators (16 rows or more), the others and
    the outputs past the last full packet add their rows one after the other.
    """
    planes, rows, columns = x.shape
    p = lanes(x.dtype)
    flat = x.transpose(1, 0, 2).reshape(rows, planes * columns)  # row r of every output, outputs side by side
    starts = np.arange(0, planes * columns // p * p, p)
    packed = np.zeros(planes * columns, dtype=bool)
    for start in starts[(starts % columns) + p - 1 < columns]:
        packed[start:start + p] = True
    out = np.zeros(planes * columns, dtype=x.dtype)
    out[~packed] = _in_order(flat[:, ~packed], axis=0)
    columns_in_packets = flat[:, packed]
    interleaved = rows // 4 * 4 if rows >= 16 else 0
    if interleaved and columns_in_packets.size:
        acc4 = _in_order(columns_in_packets[:interleaved].reshape(-1, 4, columns_in_packets.shape[1]), axis=0)
        acc = ((acc4[0] + acc4[1]) + acc4[2]) + acc4[3]
    else:
        acc = np.zeros(columns_in_packets.shape[1], dtype=x.dtype)
    for r in range(interleaved, rows):  # at most 15 rows
        acc = acc + columns_in_packets[r]
    out[packed] = acc
    return out.reshape(planes, columns)


def tf_sum(x: np.ndarray, axis: tuple | None) -> np.ndarray:
    """`reduce_sum(x, axis)` of a float32 or float64 array, without keepdims, in TensorFlow's order."""
    axes = set(range(x.ndim)) if axis is None else set(axis)
    out_shape = tuple(d for i, d in enumerate(x.shape) if i not in axes)
    if x.size == 0:
        return np.zeros(out_shape, dtype=x.dtype)
    # TensorFlow's simplification: drop size-1 axes, merge neighbours that are both reduced or both kept
    groups: list[list] = []  # [size, reduced]
    for i, d in enumerate(x.shape):
        if d == 1:
            continue
        if groups and groups[-1][1] == (i in axes):
            groups[-1][0] *= d
        else:
            groups.append([d, i in axes])
    kinds = tuple(reduced for _, reduced in groups)
    sizes = [size for size, _ in groups]
    if not any(kinds):
        return x.reshape(out_shape).copy()
    if kinds == (True,):
        return row_sums(x.reshape(1, -1))[0].reshape(out_shape)
    if kinds == (False, True):
        return row_sums(x.reshape(sizes)).reshape(out_shape)
    if kinds == (True, False):
        return column_sums(x.reshape([1, *sizes])).reshape(out_shape)
    if kinds == (False, True, False):
        return column_sums(x.reshape(sizes)).reshape(out_shape)
    if kinds == (True, False, True):  # reduced, kept, reduced: the last axis in the outer loop, the first inside
        cube = x.reshape(sizes)
        out = np.zeros(sizes[1], dtype=x.dtype)
        for k in range(sizes[2]):
            for i in range(sizes[0]):
                out += cube[i, :, k]
        return out.reshape(out_shape)
    kept = [i for i in range(len(groups)) if not kinds[i]]
    reduced = [i for i in range(len(groups)) if kinds[i]]
    moved = x.reshape(sizes).transpose(kept + reduced)
    return row_sums(moved.reshape(int(np.prod([sizes[i] for i in kept])), -1)).reshape(out_shape)
