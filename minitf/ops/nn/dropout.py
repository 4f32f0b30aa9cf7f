"""tf.nn.dropout: zero each entry with probability `rate` and scale the rest by 1 / (1 - rate), so the expected
value is unchanged; the mask comes from minitf's random ops, so seeds behave as TensorFlow's do."""

from __future__ import annotations

import numbers
from typing import Any

from minitf.core.conversion import convert_to_tensor
from minitf.core.tensor import Tensor
from minitf.ops.array.where import where
from minitf.ops.math.binary_math import (
    multiply,
    subtract,
    truediv,
)
from minitf.ops.math.cast import cast
from minitf.ops.math.comparisons import greater_equal
from minitf.ops.random import random_ops


def dropout(x: Any, rate: Any, noise_shape: Any = None, seed: int | None = None, name: str | None = None) -> Tensor:
    """Zero each entry with probability `rate` and scale the kept ones by 1 / (1 - rate), so that the expected
    sum stays the same. Training only: at inference, use the input as it is."""
    is_number = isinstance(rate, numbers.Real)
    if is_number and not 0 <= rate < 1:
        raise ValueError(f"`rate` must be a scalar tensor or a float in the range [0, 1). Received: rate={rate}")
    x = convert_to_tensor(x)
    x_dtype = x.dtype
    if not x_dtype.is_floating:
        raise ValueError(
            f"`x.dtype` must be a floating point tensor as `x` will be scaled. Received: x_dtype={x_dtype!r}"
        )
    if is_number and rate == 0:
        random_ops.seeds.seeds_for(seed)  # TensorFlow still takes an op seed, so later seeded ops line up
        return x
    if is_number:
        scaled = multiply(x, convert_to_tensor(1 / (1 - rate), dtype=x_dtype))
    elif isinstance(rate, Tensor):
        if rate.shape.rank not in (0, None):
            raise ValueError(f"Shape {rate.shape} must have rank 0")
        rate = cast(rate, x_dtype) if rate.dtype is not x_dtype else rate
        scaled = truediv(x, subtract(convert_to_tensor(1, dtype=x_dtype), rate))
    else:
        raise ValueError(f"`rate` must be a scalar or scalar tensor. Received: rate={rate}")
    shape = x.shape.as_list()
    if noise_shape is not None:  # None entries of noise_shape take x's size
        shape = [shape[i] if d is None else int(getattr(d, "_value", d)) for i, d in enumerate(noise_shape)]
    keep = greater_equal(random_ops.uniform(shape, dtype=x_dtype, seed=seed), rate)
    return where(keep, scaled, convert_to_tensor(0, dtype=x_dtype))
