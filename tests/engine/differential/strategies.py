"""Hypothesis strategies for the differential tests: dtypes, shapes that (mostly) broadcast, arrays with edge values.

Arrays are NumPy values; each check turns them into tensors with its engine's `tf.constant`, so both
engines start from identical inputs.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

FLOATS = ["float16", "float32", "float64"]
SIGNED_INTS = ["int8", "int16", "int32", "int64"]
INTS = [*SIGNED_INTS, "uint8"]
COMPLEX = ["complex64", "complex128"]
REAL = FLOATS + INTS
NUMERIC = REAL + COMPLEX
ALL = NUMERIC + ["bool"]

# Edge values every float array may contain; magnitudes stay far from overflow boundaries, where two
# correct implementations may round to inf differently.
FLOAT_SPECIALS = [0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 2.5, -2.5, np.inf, -np.inf, np.nan]


def elements(dtype: str, *, finite: bool = False, nonzero: bool = False, small: bool = False) -> st.SearchStrategy:
    """Values of one dtype: moderate numbers plus the edge values (0, negatives, inf, nan)."""
    kind = np.dtype(dtype).kind
    if kind == "f":
        bound = 8.0 if small else 50.0
        width = np.dtype(dtype).itemsize * 8
        specials = [v for v in FLOAT_SPECIALS if not (finite and not np.isfinite(v)) and not (nonzero and v == 0)]
        # Tiny magnitudes become 0: below ~1e-6 engines legitimately differ (flush to zero, hypot vs sqrt).
        numbers = (
            st.floats(-bound, bound, width=width, allow_subnormal=False)
            .map(lambda v: v if abs(v) > 1e-6 else 0.0)
            .filter(lambda v: not (nonzero and v == 0))
        )
        return st.one_of(st.sampled_from(specials), numbers)
    if kind == "c":
        parts = elements("float32" if dtype == "complex64" else "float64", finite=True, small=small)
        return st.builds(complex, parts, parts).filter(lambda v: not (nonzero and v == 0))
    if kind == "b":
        return st.booleans()
    info = np.iinfo(dtype)
    low, high = (max(info.min, -20), min(info.max, 20)) if small else (max(info.min, -1000), min(info.max, 1000))
    if dtype in ("int8", "uint8") and not small:
        low, high = info.min, info.max
    return st.integers(low, high).filter(lambda v: not (nonzero and v == 0))


def shapes(min_dims: int = 0, max_dims: int = 3, min_side: int = 0, max_side: int = 4) -> st.SearchStrategy:
    return hnp.array_shapes(min_dims=min_dims, max_dims=max_dims, min_side=min_side, max_side=max_side)


def arrays(dtype: str | st.SearchStrategy, shape: Any = None, **element_options: Any) -> st.SearchStrategy:
    """NumPy arrays of `dtype` (a name or a strategy of names) and `shape` (a shape, a strategy, or any)."""
    dtype_st = dtype if isinstance(dtype, st.SearchStrategy) else st.just(dtype)
    shape_st = shape if isinstance(shape, st.SearchStrategy) else (shapes() if shape is None else st.just(shape))
    return st.tuples(dtype_st, shape_st).flatmap(
        lambda ds: hnp.arrays(np.dtype(ds[0]), ds[1], elements=elements(ds[0], **element_options))
    )


@st.composite
def broadcast_pair(
    draw: Any,
    dtype: str | st.SearchStrategy,
    other_dtype: Any = None,
    compatible_only: bool = False,
    **element_options: Any,
) -> tuple[np.ndarray, np.ndarray]:
    """Two arrays whose shapes broadcast, or (now and then) do not: both engines must agree either way."""
    first_dtype = draw(dtype) if isinstance(dtype, st.SearchStrategy) else dtype
    second_dtype = (
        first_dtype
        if other_dtype is None
        else (draw(other_dtype) if isinstance(other_dtype, st.SearchStrategy) else other_dtype)
    )
    if compatible_only or draw(st.integers(0, 5)):
        shape_a, shape_b = draw(
            hnp.mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=3, min_side=0, max_side=4)
        ).input_shapes
    else:
        shape_a, shape_b = draw(shapes()), draw(shapes())
    a = draw(hnp.arrays(np.dtype(first_dtype), shape_a, elements=elements(first_dtype, **element_options)))
    b = draw(hnp.arrays(np.dtype(second_dtype), shape_b, elements=elements(second_dtype, **element_options)))
    return a, b


@st.composite
def array_and_axis(
    draw: Any, dtype: str | st.SearchStrategy, min_dims: int = 0, allow_bad: bool = True, **element_options: Any
) -> tuple[np.ndarray, Any]:
    """An array and an axis argument for it: None, an int, a list of ints, sometimes out of range."""
    a = draw(arrays(dtype, shapes(min_dims=min_dims), **element_options))
    rank = a.ndim
    bound = max(rank, 1) + (1 if allow_bad else 0)
    choices = [st.none(), st.integers(-bound, bound - 1)]
    if rank:
        choices.append(st.lists(st.integers(-rank, rank - 1), min_size=1, max_size=rank, unique=True))
    return a, draw(st.one_of(*choices))


dtype_names = st.sampled_from
