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

Speed: the order is reproduced with whole-array NumPy operations, never element by element. `np.add.reduce`
over an axis that is not the innermost adds the slices one after the other (it only adds pairwise along the
innermost, contiguous axis), so a sum over `(rows, steps, lanes)` along `steps` is exactly the accumulators
of Eigen's packet loop. Long rows are cut into their halves once per shape (`_split_plan`, cached); the
halves of equal length at evenly spaced offsets are summed together through one strided view. Every NumPy
call costs about as much as adding a few thousand floats, so the stages after the 4-packet steps take as
few calls as possible: for a few rows (a whole tensor: one row or its halves) one reduction per stage
(`_leaf_few`); for many rows NumPy would reduce a short axis row by row, so whole-array adds over strided
slices are cheaper there (`_leaf_many`).

Signs of zero: every row sum starts from +0, so a total of -0.0 comes out as +0.0 (`test_float_order.py`).
"""

from __future__ import annotations

from functools import lru_cache
from typing import NamedTuple, cast

import numpy as np

LEAF_PACKETS = 1024  # rows longer than this many packets are split in two
FEW_ROWS = 4  # up to this many rows, a reduction per stage costs less than adds over strided slices


def lanes(dtype: np.dtype) -> int:
    """Values per AVX packet: 8 float32, 4 float64."""
    return 32 // np.dtype(dtype).itemsize


def _fold(acc: np.ndarray) -> np.ndarray:
    """A packet's lanes added up: the upper half onto the lower half until four are left, then (0+2)+(1+3)."""
    while acc.shape[1] > 4:
        half = acc.shape[1] // 2
        acc = acc[:, :half] + acc[:, half:]
    return (acc[:, 0] + acc[:, 2]) + (acc[:, 1] + acc[:, 3])


def _in_order(blocks: np.ndarray) -> np.ndarray:
    """`blocks` (outer, steps, inner...) summed along `steps` one slice after the other, starting from +0.

    NumPy reduces an axis that is not its innermost loop slice by slice; its pairwise summation only runs
    when the reduced axis has the smallest stride. Otherwise a running sum (`accumulate`, sequential by
    definition) gives the total. Adding +0 at the end turns a total of -0.0 into +0.0, as starting from +0
    does; it changes nothing else.
    """
    if blocks.shape[1] == 0:
        return np.zeros(blocks.shape[:1] + blocks.shape[2:], dtype=blocks.dtype)
    others = [stride for axis, (size, stride) in enumerate(zip(blocks.shape, blocks.strides)) if size > 1 and axis != 1]
    if min(blocks.strides) >= 0 and others and min(others) < blocks.strides[1]:
        total = np.add.reduce(blocks, axis=1)
    else:
        total = np.add.accumulate(blocks, axis=1)[:, -1]
    total += blocks.dtype.type(0)
    return total


def _leaf(x: np.ndarray) -> np.ndarray:
    """Sums of the rows of a (rows, n) array, n at most LEAF_PACKETS packets, innermost stride one element."""
    return _leaf_few(x) if x.shape[0] <= FEW_ROWS else _leaf_many(x)


def _leaf_few(x: np.ndarray) -> np.ndarray:
    """`_leaf` for a few rows (a whole tensor summed: one row, or its halves). Few NumPy calls, whatever the
    length (each costs as much as adding a thousand floats):
    one reduction for the 4-packet steps, written into a buffer after a slot of +0 (Eigen's accumulators
    start from +0, which also makes a row of -0.0 sum to +0.0) and before the leftover packets; one
    reduction adds that buffer's slots one after the other; one reduction per halving of the lanes.
    """
    rows, n = x.shape
    p = 32 // x.itemsize  # lanes(x.dtype), without the call (this runs for every sum)
    start = n // (4 * p) * 4 * p
    whole = n // p * p
    extra = (whole - start) // p  # at most three packets after the 4-packet steps
    first = 5 if start else 1
    acc = np.zeros((rows, first + extra, p), dtype=x.dtype)
    if start:  # four accumulators, each adding every fourth packet, one step after the other
        steps = x.reshape(rows, -1, 4, p) if start == n else x[:, :start].reshape(rows, -1, 4, p)
        np.add.reduce(steps, axis=1, out=acc[:, 1:5])
    if extra:
        acc[:, first:] = x[:, start:whole].reshape(rows, extra, p)
    # +0, then the accumulators added into the first one, then each leftover packet
    lanes_ = np.add.reduce(acc, axis=1)
    while lanes_.shape[1] > 4:  # the upper half of the lanes onto the lower half
        lanes_ = np.add.reduce(lanes_.reshape(rows, 2, -1), axis=1)
    pairs = np.add.reduce(lanes_.reshape(rows, 2, 2), axis=1)  # (0+2), (1+3)
    folded = np.add.reduce(pairs, axis=1)  # (0+2)+(1+3): two values along the innermost axis, added once
    if whole == n:
        return folded  # never -0.0: every lane started from +0
    single = np.zeros(rows, dtype=x.dtype)
    for j in range(whole, n):  # at most seven elements (small slices: plain adds cost less than a reduction)
        single = single + x[:, j]
    return single + folded


def _leaf_many(x: np.ndarray) -> np.ndarray:
    """`_leaf` for many rows: whole-array adds over all rows at once (NumPy reduces a short axis row by row)."""
    rows, n = x.shape
    p = 32 // x.itemsize  # lanes(x.dtype), without the call (this runs for every sum)
    start = n // (4 * p) * 4 * p
    if start:  # four accumulators, each adding every fourth packet, then added into the first
        # (steps of 4 packets, one after the other: `_in_order` without its checks, the lanes being innermost;
        # its +0 is left to the end)
        acc4 = np.add.reduce(x[:, :start].reshape(rows, -1, 4 * p), axis=1)
        acc = ((acc4[:, :p] + acc4[:, p : 2 * p]) + acc4[:, 2 * p : 3 * p]) + acc4[:, 3 * p :]
    else:
        acc = np.zeros((rows, p), dtype=x.dtype)
    whole = n // p * p
    for j in range(start, whole, p):  # at most three packets
        acc = acc + x[:, j : j + p]
    single = np.zeros(rows, dtype=x.dtype)
    for j in range(whole, n):  # at most seven elements (small slices: plain adds cost less than a reduction)
        single = single + x[:, j]
    return single + _fold(acc)


class _Plan(NamedTuple):
    """How the rows of one shape split into halves, and where the pieces of each half lie in the input."""

    total: int  # halves of all rows
    per_row: int  # halves per row when every row splits alike
    depth: int  # every half is this many splits deep, or -1 when the splitting is uneven
    trees: tuple  # per row: a half's position, or a pair (left, right) of subtrees
    length: int  # the length of every half, when they all have one and lie back to back from the start, else 0
    # otherwise the halves, in an order where equal lengths at evenly spaced offsets follow each other:
    blocks: tuple  # per group of such halves: (first, end) in that order, offset, spacing, steps of 4 packets
    packets: np.ndarray  # (3, halves, lanes) where the packets after the 4-packet steps are, for each half
    packet_used: np.ndarray  # (3, halves, 1): which of those exist
    singles: np.ndarray  # (lanes - 1, halves) where the leftover elements are
    single_used: np.ndarray  # (lanes - 1, halves)
    back: np.ndarray  # halves in that order -> halves in row order


@lru_cache(maxsize=64)
def _split_plan(rows: int, n: int, p: int) -> _Plan:
    """How the long rows of a (rows, n) array split into halves: the same for every call with that shape."""
    starts: list[int] = []
    lengths: list[int] = []
    depths: set[int] = set()

    def split(first: int, size: int, depth: int) -> object:
        if size <= p * LEAF_PACKETS:
            starts.append(first)
            lengths.append(size)
            depths.add(depth)
            return len(starts) - 1
        middle = p * -(-(first + -(-size // 2)) // p)  # the middle, moved up to a packet boundary of the input
        left = min(middle - first, size)
        return split(first, left, depth + 1), split(first + left, size - left, depth + 1)

    trees = tuple(split(r * n, n, 0) for r in range(rows))
    total = len(starts)
    count = total // rows
    even = len(depths) == 1 and count == 2 ** depths.pop()
    depth = count.bit_length() - 1 if even else -1
    if len(set(lengths)) == 1 and starts == [i * lengths[0] for i in range(total)]:
        none = np.zeros((0, 0), dtype=np.intp)
        return _Plan(total, count, depth, trees, lengths[0], (), none, none, none, none, np.arange(total))
    order: list[int] = []
    blocks = []
    for length in sorted(set(lengths)):
        group = [i for i, size in enumerate(lengths) if size == length]
        while group:  # the longest prefix at evenly spaced starts
            end = 2
            step = starts[group[1]] - starts[group[0]] if len(group) > 1 else 0
            while end < len(group) and starts[group[end]] - starts[group[end - 1]] == step:
                end += 1
            taken, group = group[:end], group[end:]
            blocks.append((len(order), len(order) + len(taken), starts[taken[0]], step, length // (4 * p)))
            order.extend(taken)
    packets = np.zeros((3, total, p), dtype=np.intp)
    packet_used = np.zeros((3, total, 1), dtype=bool)
    singles = np.zeros((p - 1, total), dtype=np.intp)
    single_used = np.zeros((p - 1, total), dtype=bool)
    for k, i in enumerate(order):
        first, length = starts[i], lengths[i]
        after_steps, whole = first + length // (4 * p) * 4 * p, first + length // p * p
        for m, j in enumerate(range(after_steps, whole, p)):
            packets[m, k], packet_used[m, k] = np.arange(j, j + p), True
        for m, j in enumerate(range(whole, first + length)):
            singles[m, k], single_used[m, k] = j, True
    back = np.argsort(np.array(order))
    return _Plan(total, count, depth, trees, 0, tuple(blocks), packets, packet_used, singles, single_used, back)


def _long_rows(x: np.ndarray) -> np.ndarray:
    """Sums of rows longer than LEAF_PACKETS packets: the halves summed, then added up the split tree."""
    rows, n = x.shape
    p = 32 // x.itemsize
    plan = _split_plan(rows, n, p)
    flat = x.reshape(-1)
    if plan.length:  # halves of one length, back to back
        halves = _leaf(flat.reshape(plan.total, plan.length))
    else:
        halves = _scattered_halves(flat, plan, p)
    zero = x.dtype.type(0)
    if plan.depth >= 0:  # a full binary tree: neighbours added level by level (Eigen adds the left one onto +0
        # first, which changes nothing here: no half is -0.0, each one started from +0)
        level = halves.reshape(rows, plan.per_row)
        for _ in range(plan.depth):  # (an innermost pair is reduced as one addition)
            level = np.add.reduce(level.reshape(rows, -1, 2), axis=2)
        return level.reshape(rows)

    def add_up(tree: object) -> np.floating:
        if isinstance(tree, tuple):
            return (zero + add_up(tree[0])) + add_up(tree[1])
        return halves[cast(int, tree)]  # a leaf: the index of a half

    return np.array([add_up(tree) for tree in plan.trees], dtype=x.dtype)


def _scattered_halves(flat: np.ndarray, plan: _Plan, p: int) -> np.ndarray:
    """`_leaf` for halves of different lengths at uneven offsets: one strided view per group of evenly spaced
    halves for the 4-packet steps, then the few packets and elements after them, all halves at once.

    (Where a half has fewer leftovers than another, +0 is added in their place: that changes the sign of a
    zero at most, and the half's total starts from +0 anyway.)
    """
    size = flat.itemsize
    acc4 = np.empty((plan.total, 4 * p), dtype=flat.dtype)
    for first, end, offset, step, steps in plan.blocks:
        view = np.ndarray(
            (end - first, steps, 4 * p),
            flat.dtype,
            buffer=flat,
            offset=offset * size,
            strides=(step * size, 4 * p * size, size),
        )
        np.add.reduce(view, axis=1, out=acc4[first:end])
    acc = ((acc4[:, :p] + acc4[:, p : 2 * p]) + acc4[:, 2 * p : 3 * p]) + acc4[:, 3 * p :]
    for where, used in zip(plan.packets, plan.packet_used):
        if used.any():
            acc = acc + np.where(used, flat[where], 0)
    single = np.zeros(plan.total, dtype=flat.dtype)
    for where, used in zip(plan.singles, plan.single_used):
        if used.any():
            single = single + np.where(used, flat[where], 0)
    return (single + _fold(acc))[plan.back]


def row_sums(x: np.ndarray) -> np.ndarray:
    """Sums of the rows of a (rows, n) array, in TensorFlow's order."""
    if not x.flags.c_contiguous:
        x = np.ascontiguousarray(x)
    if x.shape[1] <= 32 // x.itemsize * LEAF_PACKETS:
        return _leaf(x)
    return _long_rows(x)


@lru_cache(maxsize=64)
def _packed_outputs(planes: int, columns: int, p: int) -> np.ndarray | None:
    """Which outputs, flattened, Eigen computes in packets: those of an aligned packet within one plane.

    None when every output is (the index then costs nothing).
    """
    starts = np.arange(0, planes * columns // p * p, p)
    packet_starts = starts[(starts % columns) + p - 1 < columns]
    packed = np.zeros(planes * columns, dtype=bool)
    packed[(packet_starts[:, None] + np.arange(p)).reshape(-1)] = True
    return None if packed.all() else packed


def column_sums(x: np.ndarray) -> np.ndarray:
    """Sums over the middle axis of a (planes, rows, columns) array, in TensorFlow's order.

    The outputs, flattened, are computed in packets of 8 (4 for float64) starting at multiples of 8; a packet
    that stays within one plane adds the rows in 4 interleaved accumulators (16 rows or more), the others and
    the outputs past the last full packet add their rows one after the other.
    """
    planes, rows, columns = x.shape
    p = lanes(x.dtype)
    flat = np.ascontiguousarray(x.transpose(1, 0, 2)).reshape(rows, planes * columns)  # outputs side by side
    packed = _packed_outputs(planes, columns, p)
    if packed is None:
        return _interleaved_columns(flat).reshape(planes, columns)
    out = np.empty(planes * columns, dtype=x.dtype)
    out[~packed] = _in_order(np.compress(~packed, flat, axis=1)[None])[0]
    out[packed] = _interleaved_columns(np.compress(packed, flat, axis=1))
    return out.reshape(planes, columns)


def _interleaved_columns(flat: np.ndarray) -> np.ndarray:
    """Column sums of (rows, outputs): 4 interleaved accumulators over the first rows // 4 * 4 rows from 16 on."""
    rows, outputs = flat.shape
    interleaved = rows // 4 * 4 if rows >= 16 else 0
    if not interleaved or not outputs:
        return _in_order(flat[None])[0]
    acc4 = _in_order(flat[None, :interleaved].reshape(1, -1, 4, outputs))[0]
    acc = ((acc4[0] + acc4[1]) + acc4[2]) + acc4[3]
    for r in range(interleaved, rows):  # at most 15 rows
        acc = acc + flat[r]
    return acc


@lru_cache(maxsize=256)
def _simplified(shape: tuple[int, ...], axis: tuple | None) -> tuple[tuple[bool, ...], tuple[int, ...], tuple]:
    """TensorFlow's simplification: size-1 axes dropped, neighbours that are both reduced (or kept) merged.

    Gives (reduced?, size) of each merged axis, and the output shape.
    """
    axes = set(range(len(shape))) if axis is None else set(axis)
    out_shape = tuple(d for i, d in enumerate(shape) if i not in axes)
    groups: list[list] = []  # [size, reduced]
    for i, d in enumerate(shape):
        if d == 1:
            continue
        if groups and groups[-1][1] == (i in axes):
            groups[-1][0] *= d
        else:
            groups.append([d, i in axes])
    return tuple(reduced for _, reduced in groups), tuple(size for size, _ in groups), out_shape


class _WholePlan(NamedTuple):
    """How a whole tensor of one size is summed: split into `halves` rows of `length` (at most FEW_ROWS), added
    up a full binary tree `depth` levels deep; where the 4-packet steps end, how many packets follow."""

    halves: int
    length: int
    depth: int
    start: int
    whole: int
    extra: int


@lru_cache(maxsize=64)
def _whole_plan(n: int, p: int) -> _WholePlan | None:
    """The plan for summing all n elements in one pass of few NumPy calls, or None (many or uneven halves)."""
    if n <= p * LEAF_PACKETS:
        halves, length, depth = 1, n, 0
    else:
        split = _split_plan(1, n, p)
        if not split.length or split.depth < 0 or split.total > FEW_ROWS:
            return None
        halves, length, depth = split.total, split.length, split.depth
    start = length // (4 * p) * 4 * p
    whole = length // p * p
    return _WholePlan(halves, length, depth, start, whole, (whole - start) // p)


def _whole_sum(x: np.ndarray) -> np.generic | None:
    """The sum of every element (`row_sums` of the tensor as one row) with the decisions that depend on the
    size alone made once per size: the same NumPy reductions as `_leaf_few` and `_long_rows` in the same
    order, the lanes folded by adds of their halves (cheaper than three reductions on eight floats).
    None when the plan does not cover the size."""
    p = 32 // x.itemsize
    plan = _whole_plan(x.size, p)
    if plan is None:
        return None
    rows, n, start, whole, extra = plan.halves, plan.length, plan.start, plan.whole, plan.extra
    v = x.reshape(rows, n)
    first = 5 if start else 1
    acc = np.zeros((rows, first + extra, p), dtype=x.dtype)
    if start:
        np.add.reduce((v if start == n else v[:, :start]).reshape(rows, -1, 4, p), axis=1, out=acc[:, 1:5])
    if extra:
        acc[:, first:] = v[:, start:whole].reshape(rows, extra, p)
    lanes_ = np.add.reduce(acc, axis=1)
    if p == 8:  # the upper half of the lanes onto the lower half
        lanes_ = lanes_[:, :4] + lanes_[:, 4:]
    pairs = lanes_[:, :2] + lanes_[:, 2:]  # (0+2), (1+3)
    folded = pairs[:, 0] + pairs[:, 1]
    if whole != n:
        single = np.zeros(rows, dtype=x.dtype)
        for j in range(whole, n):
            single = single + v[:, j]
        folded = single + folded
    if rows == 1:
        return folded[0]
    if rows == 2:
        return folded[0] + folded[1]
    level = folded.reshape(1, rows)
    for _ in range(plan.depth):
        level = np.add.reduce(level.reshape(1, -1, 2), axis=2)
    return level[0, 0]


def tf_sum(x: np.ndarray, axis: tuple | None) -> np.ndarray | np.generic:
    """`reduce_sum(x, axis)` of a float32 or float64 array, without keepdims, in TensorFlow's order (a NumPy
    scalar when every axis is reduced)."""
    kinds, sizes, out_shape = _simplified(x.shape, None if axis is None else tuple(axis))
    if x.size == 0:
        return np.zeros(out_shape, dtype=x.dtype)
    if not any(kinds):
        return x.reshape(out_shape).copy()
    x = np.ascontiguousarray(x)
    if kinds == (True,):
        total = _whole_sum(x)
        if total is None:
            total = row_sums(x.reshape(1, -1))[0]
        return total if not out_shape else total.reshape(out_shape)
    if kinds == (False, True):
        return row_sums(x.reshape(sizes)).reshape(out_shape)
    if kinds == (True, False):
        return column_sums(x.reshape([1, *sizes])).reshape(out_shape)
    if kinds == (False, True, False):
        return column_sums(x.reshape(sizes)).reshape(out_shape)
    if kinds == (True, False, True):  # reduced, kept, reduced: the last axis in the outer loop, the first inside
        outer_first = np.ascontiguousarray(x.reshape(sizes).transpose(2, 0, 1)).reshape(1, -1, sizes[1])
        return _in_order(outer_first)[0].reshape(out_shape)
    kept = [i for i in range(len(kinds)) if not kinds[i]]
    reduced = [i for i in range(len(kinds)) if kinds[i]]
    moved = x.reshape(sizes).transpose(kept + reduced)
    return row_sums(moved.reshape(int(np.prod([sizes[i] for i in kept])), -1)).reshape(out_shape)
