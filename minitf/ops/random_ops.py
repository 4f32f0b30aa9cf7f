"""`tf.random`: uniform and normal samples with TensorFlow's seed rules (not its exact bits).

TensorFlow's rules: with a global seed (`tf.random.set_seed`) the *sequence* of random ops is
reproducible: each op without its own seed gets the next number from a counter, and repeated calls of an
op with the same seeds draw fresh values from an internal counter. `set_seed` resets both.
"""

from __future__ import annotations

import itertools
import os
from typing import Any

import numpy as np

from minitf import dtypes
from minitf.core import Op, bind, convert_to_tensor
from minitf.errors import InvalidArgumentError
from minitf.ops import shapes
from minitf.ops.array_ops import _static_ints
from minitf.tensor import Tensor

DEFAULT_GRAPH_SEED = 87654321


class SeedState:
    """The global seed, the counter that hands out op seeds, and the per-(seed, seed2) draw counters."""

    def __init__(self) -> None:
        self.global_seed: int | None = None
        self.op_counter = itertools.count()
        self.draws: dict[tuple[int, int], int] = {}

    def reset(self, seed: int | None) -> None:
        self.global_seed = seed
        self.op_counter = itertools.count()
        self.draws.clear()

    def seeds_for(self, op_seed: int | None) -> tuple[int, int]:
        """(seed, seed2) for a new random op, as TensorFlow's `random_seed.get_seed` picks them."""
        if self.global_seed is None and op_seed is None:
            entropy = int.from_bytes(os.urandom(8), "little")
            return entropy >> 32, entropy & 0xFFFFFFFF
        global_seed = DEFAULT_GRAPH_SEED if self.global_seed is None else self.global_seed
        return global_seed, next(self.op_counter) if op_seed is None else int(op_seed)

    def generator(self, seed: int, seed2: int) -> np.random.Generator:
        """A generator for the next draw of the op with these seeds: same seeds, fresh values each call."""
        k = self.draws.get((seed, seed2), 0)
        self.draws[(seed, seed2)] = k + 1
        return np.random.default_rng([seed & 0xFFFFFFFF, seed2 & 0xFFFFFFFF, k])


seeds = SeedState()


def set_seed(seed: int | None) -> None:
    """Make the sequence of random ops reproducible from here on (and restart it)."""
    seeds.reset(None if seed is None else int(seed))


def get_global_generator_seed() -> int | None:
    return seeds.global_seed


def _uniform_kernel(minval: Any, maxval: Any, shape: tuple, seed: int, seed2: int) -> np.ndarray:
    dtype = np.asarray(minval).dtype
    rng = seeds.generator(seed, seed2)
    if dtype.kind in "iu":
        if not minval < maxval and int(np.prod(shape)) > 0:
            raise InvalidArgumentError(None, None, f"Need minval < maxval: {minval} >= {maxval} "
                                       "[Op:RandomUniformInt] name: ")
        return rng.integers(minval, maxval, size=shape, dtype=dtype)
    return (minval + (maxval - minval) * rng.random(size=shape)).astype(dtype)


def _normal_kernel(mean: Any, stddev: Any, shape: tuple, seed: int, seed2: int) -> np.ndarray:
    rng = seeds.generator(seed, seed2)
    return (mean + stddev * rng.standard_normal(size=shape)).astype(np.asarray(mean).dtype)


def _truncated_kernel(mean: Any, stddev: Any, shape: tuple, seed: int, seed2: int) -> np.ndarray:
    rng = seeds.generator(seed, seed2)
    z = rng.standard_normal(size=shape)
    bad = np.abs(z) > 2
    while bad.any():
        z[bad] = rng.standard_normal(size=int(bad.sum()))
        bad = np.abs(z) > 2
    return (mean + stddev * z).astype(np.asarray(mean).dtype)


RandomUniform = Op("RandomUniform", _uniform_kernel, shape=shapes.attr_shape_rule, stateful=True)
RandomStandardNormal = Op("RandomStandardNormal", _normal_kernel, shape=shapes.attr_shape_rule, stateful=True)
TruncatedNormal = Op("TruncatedNormal", _truncated_kernel, shape=shapes.attr_shape_rule, stateful=True)


def _sample(op: Op, shape: Any, a: Any, b: Any, dtype: Any, seed: int | None) -> Tensor:
    dtype = dtypes.as_dtype(dtype)
    dims = tuple(_static_ints(shape, "shape"))
    s, s2 = seeds.seeds_for(seed)
    return bind(op, convert_to_tensor(a, dtype=dtype), convert_to_tensor(b, dtype=dtype), shape=dims, seed=s, seed2=s2)


def uniform(shape: Any, minval: Any = 0, maxval: Any = None, dtype: Any = dtypes.float32, seed: int | None = None,
            name: str | None = None) -> Tensor:
    """Samples from [minval, maxval); floats default to [0, 1), ints need maxval."""
    dtype = dtypes.as_dtype(dtype)
    if maxval is None:
        if dtype.is_integer:
            raise ValueError(f"Must specify maxval for integer dtype {dtype!r}")
        maxval = 1
    if not (dtype.is_floating or dtype in (dtypes.int32, dtypes.int64)):
        raise ValueError(f"Argument `dtype` got invalid value {dtype}. Accepted dtypes are (tf.float16, "
                         "tf.bfloat16, tf.float32, tf.float64, tf.int32, tf.int64).")
    return _sample(RandomUniform, shape, minval, maxval, dtype, seed)


def normal(shape: Any, mean: Any = 0.0, stddev: Any = 1.0, dtype: Any = dtypes.float32, seed: int | None = None,
           name: str | None = None) -> Tensor:
    """Samples from a normal distribution with the given mean and standard deviation."""
    dtype = dtypes.as_dtype(dtype)
    if not dtype.is_floating:  # mean and stddev are converted first, so `mean=0.0` with int32 is a TypeError
        convert_to_tensor(mean, dtype=dtype)
        convert_to_tensor(stddev, dtype=dtype)
        names = {dtypes.int32: "int32", dtypes.int64: "int64"}.get(dtype, dtype.name)
        raise InvalidArgumentError(None, None, f"Value for attr 'dtype' of {names} is not in the list of allowed "
                                   "values: half, bfloat16, float, double [Op:RandomStandardNormal] name: \nHint: "
                                   "normal samples are floats; tf.cast them afterwards if you need integers.")
    return _sample(RandomStandardNormal, shape, mean, stddev, dtype, seed)


def truncated_normal(shape: Any, mean: Any = 0.0, stddev: Any = 1.0, dtype: Any = dtypes.float32,
                     seed: int | None = None, name: str | None = None) -> Tensor:
    """Normal samples, redrawn when more than two standard deviations from the mean."""
    return _sample(TruncatedNormal, shape, mean, stddev, _float(dtype), seed)


def _float(dtype: Any) -> dtypes.DType:
    dtype = dtypes.as_dtype(dtype)
    if not dtype.is_floating:
        raise TypeError(f"Argument `dtype` got invalid value {dtype!r}. Accepted dtypes are float16, float32, float64.")
    return dtype


def shuffle(value: Any, seed: int | None = None, name: str | None = None) -> Tensor:
    """The tensor with its first axis randomly permuted."""
    from minitf.ops.array_ops import gather
    x = convert_to_tensor(value)
    s, s2 = seeds.seeds_for(seed)
    n = x.shape[0]
    order = seeds.generator(s, s2).permutation(n).astype(np.int32)
    return gather(x, order)
