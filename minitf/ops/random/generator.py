"""`tf.random.Generator`: a Philox counter and key kept in an int64 variable `[counter_low, counter_high, key]`.

Each draw reads the state, moves the counter on by 256 blocks per sample, and samples with the stateless kernels
from the state it read: so a generator's numbers depend only on its seed and on how many numbers it has
drawn, eagerly and inside a `tf.function` alike.
"""

from __future__ import annotations

import enum
import os
from typing import Any

import numpy as np

from minitf.core import context, dtypes, shape_rules
from minitf.core.conversion import convert_to_tensor
from minitf.core.op import Op, bind
from minitf.core.tensor import Tensor
from minitf.core.tensor_shape import TensorShape
from minitf.ops.array.creation import zeros_like
from minitf.ops.array.join_split import stack, unstack
from minitf.ops.math.binary_math import add, subtract
from minitf.ops.math.cast import cast
from minitf.ops.random import philox, random_ops, stateless_random_ops
from minitf.ops.variables import Variable


class Algorithm(enum.Enum):
    """The random-number algorithms TensorFlow names; minitf implements Philox (AUTO_SELECT picks it on CPU)."""

    PHILOX = 1
    THREEFRY = 2
    AUTO_SELECT = 3


PHILOX = Algorithm.PHILOX.value
STATE_SIZE = 3  # two 64-bit words of counter, one of key
_INT64_SPAN = 1 << 64


def _as_int64(n: int) -> int:
    """An unsigned 64-bit word as the int64 that holds the same bits."""
    n &= philox.MASK64
    return n - _INT64_SPAN if n >= 1 << 63 else n


def _skip_kernel(state: np.ndarray, *, delta: int) -> np.ndarray:
    words = [int(w) & philox.MASK64 for w in state]
    counter = (words[0] | words[1] << 64) + delta * philox.RESERVED_PER_SAMPLE
    new = [counter & philox.MASK64, (counter >> 64) & philox.MASK64, words[2]]
    return np.array([_as_int64(w) for w in new], dtype=np.int64)


def _key_counter_kernel(state: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    words = np.asarray(state, dtype=np.int64).view(np.uint64)
    return words[2:3].copy(), words[0:2].copy()


def _key_counter_rule(shapes_: Any, types: Any, attrs: dict) -> list[shape_rules.Spec]:
    return [(TensorShape([1]), dtypes.uint64), (TensorShape([2]), dtypes.uint64)]


RngSkip = Op("RngSkip", _skip_kernel, shape=shape_rules.same_as_first)
RngStateKeyCounter = Op("RngStateKeyCounter", _key_counter_kernel, shape=_key_counter_rule, num_outputs=2)


def _state_from_seed(seed: Any) -> list[int] | Tensor:
    """TensorFlow's seed -> state: a Python int is cut into 64-bit words, lowest first; a vector is cast to
    int64, cut to 3 words, and padded with zeros *on the left* (so that a short seed becomes the key)."""
    if isinstance(seed, int):
        return [_as_int64(seed >> (64 * i)) for i in range(STATE_SIZE)]
    words = [int(w) for w in np.asarray(convert_to_tensor(seed)).reshape(-1)[:STATE_SIZE]]
    return [0] * (STATE_SIZE - len(words)) + [_as_int64(w) for w in words]


def create_rng_state(seed: Any, alg: Any) -> Tensor:
    """The int64 state [counter_low, counter_high, key] that `Generator.from_seed(seed, alg)` starts from."""
    _algorithm(alg)
    return convert_to_tensor(_state_from_seed(seed), dtype=dtypes.int64)


def _algorithm(alg: Any) -> int:
    stateless_random_ops._check_alg(alg)
    return PHILOX


class Generator:
    """A random-number generator with its state in a variable (`from_seed`, `from_non_deterministic_state`)."""

    def __init__(self, copy_from: Generator | None = None, state: Any = None, alg: Any = None) -> None:
        if copy_from is not None:
            state, alg = copy_from.state.numpy(), copy_from.algorithm
        elif state is None:
            raise ValueError(
                "Either `copy_from` or `state` must be given.\nHint: use "
                "tf.random.Generator.from_seed(seed) to make a generator from a seed."
            )
        self._alg = _algorithm(alg)
        self._state_var = Variable(convert_to_tensor(state, dtype=dtypes.int64), trainable=False, name="StateVar")
        self._strategy = context.state.strategy  # made in a strategy's scope: each replica gets its own stream

    @classmethod
    def from_seed(cls, seed: Any, alg: Any = None) -> Generator:
        return cls(state=_state_from_seed(seed), alg=alg)

    @classmethod
    def from_state(cls, state: Any, alg: Any) -> Generator:
        return cls(state=state, alg=alg)

    @classmethod
    def from_key_counter(cls, key: Any, counter: Any, alg: Any) -> Generator:
        counter = [int(c) for c in np.asarray(convert_to_tensor(counter)).reshape(-1)]
        return cls(state=counter + [int(np.asarray(convert_to_tensor(key)).reshape(-1)[0])], alg=alg)

    @classmethod
    def from_non_deterministic_state(cls, alg: Any = None) -> Generator:
        """A generator seeded from the operating system: different numbers in every run."""
        words = np.frombuffer(os.urandom(8 * STATE_SIZE), dtype=np.int64)
        return cls(state=words, alg=alg)

    @property
    def state(self) -> Variable:
        return self._state_var

    @property
    def algorithm(self) -> int:
        return self._alg

    @property
    def key(self) -> Tensor:
        return self._state_var[-1]

    def reset(self, state: Any) -> None:
        self._state_var.assign(convert_to_tensor(state, dtype=dtypes.int64))

    def reset_from_seed(self, seed: Any) -> None:
        self.reset(_state_from_seed(seed))

    def reset_from_key_counter(self, key: Any, counter: Any) -> None:
        self.reset(Generator.from_key_counter(key, counter, self._alg).state.numpy())

    def skip(self, delta: int) -> Tensor:
        """Advance the state as drawing `delta` numbers would; returns the state before."""
        old = self._state_var.read_value()
        self._state_var.assign(bind(RngSkip, old, delta=int(delta)), read_value=False)
        return old

    def _key_counter(self, dims: tuple) -> tuple[Tensor, Tensor]:
        key, counter = bind(RngStateKeyCounter, self.skip(random_ops._size(dims)))
        replica = context.state.replica_id
        if self._strategy is not None and replica is not None:
            # TensorFlow's per-replica stream: the key hashed with the replica's id (a Philox draw keyed by it)
            key = bind(
                stateless_random_ops.StatelessRandomUniformFullIntV2,
                key,
                convert_to_tensor(np.array([replica, 0], dtype=np.uint64)),
                shape=(1,),
                dtype=dtypes.uint64,
            )
        return key, counter

    def uniform(
        self, shape: Any, minval: Any = 0, maxval: Any = None, dtype: Any = dtypes.float32, name: str | None = None
    ) -> Tensor:
        dtype = dtypes.as_dtype(dtype)
        if dtype.is_integer:
            if (minval is None) != (maxval is None):
                raise ValueError(
                    f"For integer dtype {dtype!r}, minval and maxval must be both `None` or both "
                    f"non-`None`; got minval={minval} and maxval={maxval}"
                )
        elif maxval is None:
            maxval = 1
        dims = random_ops._shape(shape)
        if dtype.is_integer and minval is None:
            return self.uniform_full_int(dims, dtype)
        minval, maxval = convert_to_tensor(minval, dtype=dtype), convert_to_tensor(maxval, dtype=dtype)
        key, counter = self._key_counter(dims)
        if dtype.is_integer:
            return bind(stateless_random_ops.StatelessRandomUniformIntV2, key, counter, minval, maxval, shape=dims)
        rnd = bind(stateless_random_ops.StatelessRandomUniformV2, key, counter, shape=dims, dtype=dtype)
        return add(rnd * subtract(maxval, minval), minval)

    def uniform_full_int(self, shape: Any, dtype: Any = dtypes.uint64, name: str | None = None) -> Tensor:
        dims = random_ops._shape(shape)
        key, counter = self._key_counter(dims)
        return bind(
            stateless_random_ops.StatelessRandomUniformFullIntV2, key, counter, shape=dims, dtype=dtypes.as_dtype(dtype)
        )

    def _normal(self, op: Op, shape: Any, mean: Any, stddev: Any, dtype: Any) -> Tensor:
        dtype = dtypes.as_dtype(dtype)
        dims = random_ops._shape(shape)
        mean, stddev = convert_to_tensor(mean, dtype=dtype), convert_to_tensor(stddev, dtype=dtype)
        random_ops._floats_only(dtype, op.name)
        key, counter = self._key_counter(dims)
        return add(bind(op, key, counter, shape=dims, dtype=dtype) * stddev, mean)

    def normal(
        self, shape: Any, mean: Any = 0.0, stddev: Any = 1.0, dtype: Any = dtypes.float32, name: str | None = None
    ) -> Tensor:
        return self._normal(stateless_random_ops.StatelessRandomNormalV2, shape, mean, stddev, dtype)

    def truncated_normal(
        self, shape: Any, mean: Any = 0.0, stddev: Any = 1.0, dtype: Any = dtypes.float32, name: str | None = None
    ) -> Tensor:
        return self._normal(stateless_random_ops.StatelessTruncatedNormalV2, shape, mean, stddev, dtype)

    def make_seeds(self, count: int = 1) -> Tensor:
        """Seeds for stateless ops, shape [2, count]: random int64 keys over zeros."""
        keys = self.uniform_full_int([count], dtypes.int64)
        return stack([keys, zeros_like(keys)])

    def split(self, count: int = 1) -> list[Generator]:
        """`count` new, independent generators (this one moves on too): each has a random key and counter 0."""
        keys = self.uniform_full_int([count], dtypes.int64)
        return [
            Generator(state=stack([cast(0, dtypes.int64), cast(0, dtypes.int64), key]), alg=self._alg)
            for key in unstack(keys, num=count)
        ]


_global_generator: Generator | None = None


def get_global_generator() -> Generator:
    """The generator `tf.random` keeps for everyone (seeded from the operating system on first use)."""
    global _global_generator
    if _global_generator is None:
        _global_generator = Generator.from_non_deterministic_state()
    return _global_generator


def set_global_generator(generator: Generator) -> None:
    global _global_generator
    _global_generator = generator
