"""Stateless random ops (`tf.random.stateless_uniform`, ...): a two-number seed is scrambled into a Philox key
and counter (`StatelessRandomGetKeyCounter`), and the same seed always gives the same numbers. They have no state
at all; `tf.random.Generator` (minitf/ops/random/generator.py) keeps its key and counter in a variable and calls the
same kernels. Seeding and the stateful ops are in minitf/ops/random/random_ops.py.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from minitf.core import dtypes, shape_rules
from minitf.core.context import state
from minitf.core.conversion import convert_to_tensor
from minitf.core.errors import InvalidArgumentError, op_error, tf_type_name
from minitf.core.op import Op, bind
from minitf.core.tensor import Tensor
from minitf.core.tensor_shape import TensorShape
from minitf.ops.array.join_split import stack
from minitf.ops.math.binary_math import add, subtract
from minitf.ops.random import philox
from minitf.ops.random.random_ops import (
    _categorical,
    _check_int_range,
    _floats_only,
    _int_rule,
    _logits,
    _multinomial_rule,
    _random_rule,
    _shape,
    _size,
)


def _generator(key: Any, counter: Any) -> philox.Philox:
    """A position from TensorFlow's uint64 key [1] and counter [2] tensors."""
    return philox.Philox(int(key[0]), int(counter[0]) | int(counter[1]) << 64)


def _key_counter_kernel(seed: Any) -> tuple[np.ndarray, np.ndarray]:
    if np.shape(seed) != (2,):
        raise op_error(
            InvalidArgumentError,
            "StatelessRandomGetKeyCounter",
            f"seed must have shape [2], not {list(np.shape(seed))}",
            hint="a stateless seed is a pair of integers, e.g. seed=[1, 2].",
        )
    gen = philox.key_counter_from_seed(int(seed[0]), int(seed[1]))
    counter = [gen.counter & philox.MASK64, gen.counter >> 64]
    return np.array([gen.key], dtype=np.uint64), np.array(counter, dtype=np.uint64)


def _key_counter_rule(shapes_: Any, types: Any, attrs: dict) -> list[shape_rules.Spec]:
    if shapes_[0].rank is not None and (shapes_[0].rank != 1 or shapes_[0][0] not in (None, 2)):
        raise ValueError(
            f"Dimension must be 2 but is {shapes_[0][0]}"
            if shapes_[0].rank == 1
            else f"Shape must be rank 1 but is rank {shapes_[0].rank}"
        )
    return [(TensorShape([1]), dtypes.uint64), (TensorShape([2]), dtypes.uint64)]


def _sampler(sample: Any) -> Any:
    def kernel(key: Any, counter: Any, *, shape: tuple, dtype: dtypes.DType) -> np.ndarray:
        n = _size(shape)
        return sample(_generator(key, counter), n, dtype._np).reshape(shape)

    return kernel


def _stateless_int_kernel(key: Any, counter: Any, minval: Any, maxval: Any, *, shape: tuple) -> np.ndarray:
    _check_int_range(minval, maxval, shape, "StatelessRandomUniformIntV2")
    n = _size(shape)
    return philox.uniform_int(_generator(key, counter), n, int(minval), int(maxval), np.asarray(minval).dtype).reshape(
        shape
    )


def _stateless_multinomial_kernel(
    logits: Any, seed: Any, *, num_samples: int, output_dtype: dtypes.DType
) -> np.ndarray:
    key, counter = _key_counter_kernel(seed)
    return _categorical(_generator(key, counter), logits, num_samples, output_dtype._np)


StatelessRandomGetKeyCounter = Op(
    "StatelessRandomGetKeyCounter", _key_counter_kernel, shape=_key_counter_rule, num_outputs=2
)
StatelessRandomUniformV2 = Op("StatelessRandomUniformV2", _sampler(philox.uniform), shape=_random_rule)
StatelessRandomNormalV2 = Op("StatelessRandomNormalV2", _sampler(philox.normal), shape=_random_rule)
StatelessTruncatedNormalV2 = Op("StatelessTruncatedNormalV2", _sampler(philox.truncated_normal), shape=_random_rule)
StatelessRandomUniformFullIntV2 = Op("StatelessRandomUniformFullIntV2", _sampler(philox.full_int), shape=_random_rule)
StatelessRandomUniformIntV2 = Op("StatelessRandomUniformIntV2", _stateless_int_kernel, shape=_int_rule)
StatelessMultinomial = Op("StatelessMultinomial", _stateless_multinomial_kernel, shape=_multinomial_rule)


def _key_counter(seed: Any) -> tuple[Tensor, Tensor]:
    seed = convert_to_tensor(seed)
    if seed.dtype not in (dtypes.int32, dtypes.int64) and state.graph is not None:
        raise TypeError(
            f"Value passed to parameter 'seed' has DataType {tf_type_name(seed.dtype)} not in list of "
            "allowed values: int32, int64"
        )
    if seed.dtype not in (dtypes.int32, dtypes.int64):
        raise InvalidArgumentError(
            None,
            None,
            f"Value for attr 'Tseed' of {tf_type_name(seed.dtype)} is not in the "
            "list of allowed values: int32, int64 [Op:StatelessRandomGetKeyCounter]\nHint: a "
            "stateless seed is a pair of integers, e.g. seed=[1, 2].",
        )
    return bind(StatelessRandomGetKeyCounter, seed)


def _check_alg(alg: Any) -> None:
    if alg not in ("auto_select", "philox", 1, 3, None) and getattr(alg, "value", None) not in (1, 3):
        raise ValueError(
            f"Argument `alg` got unsupported value {alg!r}. minitf implements only Philox "
            "('philox' or 'auto_select', the default)."
        )


_STATELESS_DTYPES = (
    dtypes.float16,
    dtypes.float32,
    dtypes.float64,
    dtypes.int32,
    dtypes.int64,
    dtypes.uint32,
    dtypes.uint64,
)


def stateless_uniform(
    shape: Any,
    seed: Any,
    minval: Any = 0,
    maxval: Any = None,
    dtype: Any = dtypes.float32,
    name: str | None = None,
    alg: Any = "auto_select",
) -> Tensor:
    """Uniform samples that depend only on `seed` (a pair of integers): the same seed, the same numbers."""
    dtype = dtypes.as_dtype(dtype)
    if dtype not in _STATELESS_DTYPES:
        raise ValueError(
            f"Argument `dtype` got invalid value {dtype}. Accepted dtypes are (tf.float16, "
            "tf.bfloat16, tf.float32, tf.float64, tf.int32, tf.int64, tf.uint32, tf.uint64)."
        )
    _check_alg(alg)
    if dtype.is_integer:
        if (minval is None) != (maxval is None):
            raise ValueError(
                f"For integer `dtype` argument {dtype}, argument `minval` and `maxval` must be both "
                f"None or not None. Got `minval`={minval} and `maxval`={maxval}."
            )
        if minval is not None and dtype in (dtypes.uint32, dtypes.uint64):
            raise ValueError(
                f"Argument `dtype` got invalid value {dtype} when argument `minval` is not None. "
                "Please don't use unsigned integers in this case."
            )
    elif maxval is None:
        maxval = 1
    dims = _shape(shape)
    if dtype.is_integer and minval is None:
        key, counter = _key_counter(seed)
        return bind(StatelessRandomUniformFullIntV2, key, counter, shape=dims, dtype=dtype)
    minval, maxval = convert_to_tensor(minval, dtype=dtype), convert_to_tensor(maxval, dtype=dtype)
    key, counter = _key_counter(seed)
    if dtype.is_integer:
        return bind(StatelessRandomUniformIntV2, key, counter, minval, maxval, shape=dims)
    rnd = bind(StatelessRandomUniformV2, key, counter, shape=dims, dtype=dtype)
    return add(rnd * subtract(maxval, minval), minval)


def _stateless_normal(op: Op, shape: Any, seed: Any, mean: Any, stddev: Any, dtype: Any, alg: Any) -> Tensor:
    dtype = dtypes.as_dtype(dtype)
    _check_alg(alg)
    dims = _shape(shape)
    mean, stddev = convert_to_tensor(mean, dtype=dtype), convert_to_tensor(stddev, dtype=dtype)
    _floats_only(dtype, op.name)
    key, counter = _key_counter(seed)
    return add(bind(op, key, counter, shape=dims, dtype=dtype) * stddev, mean)


def stateless_normal(
    shape: Any,
    seed: Any,
    mean: Any = 0.0,
    stddev: Any = 1.0,
    dtype: Any = dtypes.float32,
    name: str | None = None,
    alg: Any = "auto_select",
) -> Tensor:
    """Normal samples that depend only on `seed`."""
    return _stateless_normal(StatelessRandomNormalV2, shape, seed, mean, stddev, dtype, alg)


def stateless_truncated_normal(
    shape: Any,
    seed: Any,
    mean: Any = 0.0,
    stddev: Any = 1.0,
    dtype: Any = dtypes.float32,
    name: str | None = None,
    alg: Any = "auto_select",
) -> Tensor:
    """Truncated normal samples that depend only on `seed`."""
    return _stateless_normal(StatelessTruncatedNormalV2, shape, seed, mean, stddev, dtype, alg)


def stateless_categorical(
    logits: Any, num_samples: int, seed: Any, dtype: Any = dtypes.int64, name: str | None = None
) -> Tensor:
    """Class indices drawn from `logits`, depending only on `seed` (TensorFlow's numbers for inputs that
    TensorFlow samples on one thread: see `categorical`)."""
    logits, dtype = _logits(logits, dtype)
    return bind(StatelessMultinomial, logits, convert_to_tensor(seed), num_samples=int(num_samples), output_dtype=dtype)


def split(seed: Any, num: int = 2, alg: Any = "auto_select") -> Tensor:
    """`num` new seeds (shape [num, 2]) from one seed, for stateless ops."""
    seed = convert_to_tensor(seed)
    return stateless_uniform([num, 2], seed=seed, dtype=seed.dtype, minval=None, maxval=None, alg=alg)


def fold_in(seed: Any, data: Any, alg: Any = "auto_select") -> Tensor:
    """A new seed from `seed` and an integer `data` (a step number, a replica id, ...)."""
    data = convert_to_tensor(data)
    first = stateless_uniform([], seed=seed, dtype=data.dtype, minval=None, maxval=None, alg=alg)
    return stack([first, data])
