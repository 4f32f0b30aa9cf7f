"""Initializers: objects that make a starting value for a variable when called with a shape
(`tf.constant_initializer`, `tf.zeros_initializer`, `tf.ones_initializer`, `tf.random_normal_initializer`,
`tf.random_uniform_initializer`)."""

from __future__ import annotations

from typing import Any

import numpy as np

from minitf.core import dtypes
from minitf.core.tensor import Tensor
from minitf.ops.array.creation import constant, ones, zeros
from minitf.ops.random import random_ops, stateless_random_ops


class Initializer:
    """Called with a shape (and optionally a dtype) it returns a tensor; `get_config` lists its arguments."""

    def __call__(self, shape: Any, dtype: Any = None, **kwargs: Any) -> Tensor:
        raise NotImplementedError

    def get_config(self) -> dict:
        return {}

    @classmethod
    def from_config(cls, config: dict) -> Initializer:
        config = dict(config)
        config.pop("dtype", None)
        return cls(**config)

    @staticmethod
    def _check_kwargs(kwargs: dict) -> None:
        for key in kwargs:
            if key not in ("partition_shape", "partition_offset"):
                raise TypeError(
                    f"Keyword argument should be one of ['partition_shape', 'partition_offset']. Received: {key}"
                )


class Constant(Initializer):
    """Every call gives `value` (a scalar is repeated over the shape; a list must have that many entries)."""

    def __init__(self, value: Any = 0, support_partition: bool = False) -> None:
        if not (np.isscalar(value) or isinstance(value, list | tuple | np.ndarray | Tensor)):
            raise TypeError(
                f"Invalid type for initial value={value} of type: {type(value).__name__}. Expected "
                "Python scalar, list or tuple of values, or numpy.ndarray."
            )
        self.value = value
        self.support_partition = support_partition

    def __call__(self, shape: Any, dtype: Any = None, **kwargs: Any) -> Tensor:
        self._check_kwargs(kwargs)
        return constant(self.value, dtype=None if dtype is None else dtypes.as_dtype(dtype), shape=shape)

    def get_config(self) -> dict:
        return {"value": self.value}


class Zeros(Initializer):
    """Every call gives zeros (float32 unless told otherwise)."""

    def __call__(self, shape: Any, dtype: Any = dtypes.float32, **kwargs: Any) -> Tensor:
        self._check_kwargs(kwargs)
        dtype = dtypes.as_dtype(dtype)
        if not (dtype.is_numeric or dtype.is_bool):
            raise ValueError(f"Argument `dtype` expected to be numeric or boolean. Received {dtype!r}.")
        return zeros(shape, dtype)


class RandomNormal(Initializer):
    """Normal samples with `mean` and `stddev`; with a seed every call gives the same values (TensorFlow uses
    the stateless sampler with seed [seed, 0] then)."""

    def __init__(self, mean: float = 0.0, stddev: float = 0.05, seed: int | None = None) -> None:
        self.mean = mean
        self.stddev = stddev
        self.seed = seed

    def __call__(self, shape: Any, dtype: Any = dtypes.float32, **kwargs: Any) -> Tensor:
        self._check_kwargs(kwargs)
        dtype = dtypes.as_dtype(dtype)
        if not dtype.is_floating:
            raise ValueError(f"Argument `dtype` is expected to be floating point. Received: {dtype!r}.")
        if self.seed is None:
            return random_ops.normal(shape, self.mean, self.stddev, dtype=dtype)
        return stateless_random_ops.stateless_normal(
            shape, seed=[self.seed, 0], mean=self.mean, stddev=self.stddev, dtype=dtype
        )

    def get_config(self) -> dict:
        return {"mean": self.mean, "stddev": self.stddev, "seed": self.seed}


class Ones(Initializer):
    """Every call gives ones (float32 unless told otherwise)."""

    def __call__(self, shape: Any, dtype: Any = dtypes.float32, **kwargs: Any) -> Tensor:
        self._check_kwargs(kwargs)
        dtype = dtypes.as_dtype(dtype)
        if not (dtype.is_numeric or dtype.is_bool):
            raise ValueError(f"Argument `dtype` expected to be numeric or boolean. Received {dtype!r}.")
        return ones(shape, dtype)


class RandomUniform(Initializer):
    """Uniform samples in [minval, maxval); with a seed every call gives the same values (TensorFlow uses the
    stateless sampler with seed [seed, 0] then)."""

    def __init__(self, minval: float = -0.05, maxval: float = 0.05, seed: int | None = None) -> None:
        self.minval = minval
        self.maxval = maxval
        self.seed = seed

    def __call__(self, shape: Any, dtype: Any = dtypes.float32, **kwargs: Any) -> Tensor:
        self._check_kwargs(kwargs)
        dtype = dtypes.as_dtype(dtype)
        if not (dtype.is_floating or dtype.is_integer):
            raise ValueError(f"Argument `dtype` expected to be numeric or boolean. Received {dtype!r}.")
        if self.seed is None:
            return random_ops.uniform(shape, self.minval, self.maxval, dtype=dtype)
        return stateless_random_ops.stateless_uniform(
            shape, seed=[self.seed, 0], minval=self.minval, maxval=self.maxval, dtype=dtype
        )

    def get_config(self) -> dict:
        return {"minval": self.minval, "maxval": self.maxval, "seed": self.seed}


# TensorFlow exports the classes themselves under these names: `tf.constant_initializer(3)` is a Constant.
constant_initializer = Constant
zeros_initializer = Zeros
random_normal_initializer = RandomNormal
ones_initializer = Ones
random_uniform_initializer = RandomUniform
