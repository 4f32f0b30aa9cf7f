"""The C library's log, sin and cos, as TensorFlow's random kernels call them for Box-Muller's normals.

float32: `logf`, `sinf`, `cosf`, which Numba's compiled `math.log` / `math.sin` / `math.cos` of a float32 call
(compiled on first use; without Numba, NumPy's double result rounded to float32, which differs in the last bit
for about one value in a hundred). float64: Python's `math` functions, which call the C library's.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

Function = Callable[[np.ndarray], np.ndarray]


def _element_by_element(function: Callable[[float], float], x: np.ndarray) -> np.ndarray:
    return np.fromiter(map(function, x.ravel().tolist()), dtype=x.dtype, count=x.size).reshape(x.shape)


def _compiled_float32(name: str) -> Function | None:
    try:
        # Numba is optional (the `lab` extra) and compiling costs a second: loaded when a normal is drawn
        from numba import vectorize
    except ImportError:
        return None
    function = getattr(math, name)
    return vectorize(["float32(float32)"])(lambda x: function(x))


def c_library(name: str) -> Function:
    """`name` ("log", "sin" or "cos") of float32 and float64 arrays as the C library computes it."""
    compiled: list[Function | None] = []

    def call(x: np.ndarray) -> np.ndarray:
        if x.dtype != np.float32:
            return _element_by_element(getattr(math, name), x)
        if not compiled:
            compiled.append(_compiled_float32(name))
        if compiled[0] is None:
            return getattr(np, name)(x.astype(np.float64)).astype(np.float32)
        return compiled[0](x)

    return call
