"""The vectorised sums of `minitf/exact/summation.py` add in the order of Eigen's packet loops, written out here
element by element (slow and plain). `tests/engine/differential/test_float_order.py` checks that order against
TensorFlow's last digits; this file checks the fast code against the order on many more shapes, quickly."""

from __future__ import annotations

import numpy as np
import pytest

from minitf.exact import summation

P = {np.float32: 8, np.float64: 4}


def reference_row(values: np.ndarray, first: int, p: int) -> np.floating:
    """One row, its first element at flat position `first`: halves beyond 1024 packets, then Eigen's leaf."""
    n = len(values)
    zero = values.dtype.type(0)
    if n > p * summation.LEAF_PACKETS:
        left = p * -(-(first + -(-n // 2)) // p) - first
        return (zero + reference_row(values[:left], first, p)) + reference_row(values[left:], first + left, p)
    quads = n // (4 * p) * 4 * p
    acc = [[zero] * p for _ in range(4)]
    for block in range(0, quads, 4 * p):
        for q in range(4):
            for lane in range(p):
                acc[q][lane] = acc[q][lane] + values[block + q * p + lane]
    lanes = [((acc[0][i] + acc[1][i]) + acc[2][i]) + acc[3][i] for i in range(p)]
    for j in range(quads, n // p * p, p):
        lanes = [lanes[i] + values[j + i] for i in range(p)]
    single = zero
    for j in range(n // p * p, n):
        single = single + values[j]
    while len(lanes) > 4:
        half = len(lanes) // 2
        lanes = [lanes[i] + lanes[i + half] for i in range(half)]
    folded = (lanes[0] + lanes[2]) + (lanes[1] + lanes[3]) if len(lanes) == 4 else lanes[0] + lanes[1]
    return single + folded


def reference_columns(x: np.ndarray) -> np.ndarray:
    """(planes, rows, columns) summed over rows: aligned packets within a plane use 4 accumulators from 16 rows."""
    planes, rows, columns = x.shape
    p = P[x.dtype.type]
    zero = x.dtype.type(0)
    out = np.zeros(planes * columns, dtype=x.dtype)
    packed = set()
    for start in range(0, planes * columns // p * p, p):
        if start % columns + p - 1 < columns:
            packed.update(range(start, start + p))
    for o in range(planes * columns):
        column = x[o // columns, :, o % columns]
        if o in packed and rows >= 16:
            acc = [zero] * 4
            for r in range(rows // 4 * 4):
                acc[r % 4] = acc[r % 4] + column[r]
            total = ((acc[0] + acc[1]) + acc[2]) + acc[3]
            for r in range(rows // 4 * 4, rows):
                total = total + column[r]
        else:
            total = zero
            for value in column:
                total = total + value
        out[o] = total
    return out.reshape(planes, columns)


def awkward(shape: tuple[int, ...], dtype: type, seed: int) -> np.ndarray:
    """Values of very different sizes (so that the order shows in the last bits), with some -0.0."""
    rng = np.random.default_rng(seed)
    values = rng.normal(size=shape) * np.exp(rng.uniform(-15, 15, size=shape))
    values[rng.random(shape) < 0.05] = -0.0
    return values.astype(dtype)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize(
    "shape",
    [
        (1, 3),
        (4, 8),
        (3, 31),
        (2, 33),
        (5, 100),
        (1, 4097),
        (1, 8192),
        (1, 8193),
        (1, 16390),
        (2, 20001),
        (3, 10000),
        (1, 49170),
    ],
)
def test_row_sums_add_in_eigens_order(shape: tuple[int, int], dtype: type) -> None:
    x = awkward(shape, dtype, sum(shape))
    expected = np.array([reference_row(x[r], r * shape[1], P[dtype]) for r in range(shape[0])], dtype=dtype)
    assert summation.row_sums(x).tobytes() == expected.tobytes(), f"row sums of {shape} {dtype.__name__}"


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize(
    "shape",
    [(1, 5, 3), (1, 15, 9), (1, 16, 9), (1, 64, 10), (1, 64, 128), (1, 100, 100), (4, 30, 17), (3, 20, 18), (2, 17, 1)],
)
def test_column_sums_add_in_eigens_order(shape: tuple[int, int, int], dtype: type) -> None:
    x = awkward(shape, dtype, sum(shape))
    assert summation.column_sums(x).tobytes() == reference_columns(x).tobytes(), (
        f"column sums of {shape} {dtype.__name__}"
    )


def test_layout_of_the_input_does_not_change_the_order() -> None:
    x = awkward((300, 70), np.float32, 1)
    for view in (np.asfortranarray(x), x[::-1][::-1], x.T.copy().T):
        assert summation.tf_sum(view, (0,)).tobytes() == summation.tf_sum(x.copy(), (0,)).tobytes()
        assert summation.tf_sum(view, (1,)).tobytes() == summation.tf_sum(x.copy(), (1,)).tobytes()
    flipped = x[::-1]
    assert summation.tf_sum(flipped, None).tobytes() == summation.tf_sum(flipped.copy(), None).tobytes()


def test_a_total_of_negative_zeros_is_positive_zero() -> None:
    for shape in [(1, 7), (2, 40), (1, 9000)]:
        total = summation.row_sums(np.full(shape, -0.0, np.float32))
        assert not np.signbit(total).any(), f"-0.0 summed over {shape} should give +0.0"
    assert not np.signbit(summation.column_sums(np.full((1, 20, 9), -0.0, np.float32))).any()
