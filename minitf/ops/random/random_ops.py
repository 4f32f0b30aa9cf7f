"""`tf.random`: TensorFlow's random numbers, bit for bit (the generator itself is in `philox.py`).

Seeds, as TensorFlow picks them (`random_seed.get_seed`):
  * an op gets two numbers, `seed` (the global seed, `tf.random.set_seed`) and `seed2` (the op's own seed);
  * without an op seed, eager ops take the next number of Python's `random.Random(global_seed)`, and ops traced
    in a `tf.function` count 0, 1, 2, ... per graph;
  * with neither seed the op is seeded from the operating system, differently on every run.

Stateful ops (`uniform`, `normal`, `shuffle`, ...) keep a generator in their *kernel*, so calling the same op
again draws fresh numbers: eagerly TensorFlow caches one kernel per op signature (name, dtype, seeds), in a
graph every node has its own. Each call reserves 256 blocks per sample and moves on. `set_seed` throws every
kernel away, so all sequences restart.

Stateless ops (`stateless_uniform`, ...) scramble their two-number seed into a Philox key and counter and have
no state at all; `tf.random.Generator` keeps its counter and key in a variable (both in stateless_random_ops.py).
"""

from __future__ import annotations

import contextlib
import os
import random as _py_random
import weakref
from collections.abc import Iterator
from typing import Any

import numpy as np

from minitf.core import dtypes, shape_rules
from minitf.core.context import state
from minitf.core.conversion import convert_to_tensor
from minitf.core.errors import InvalidArgumentError, op_error
from minitf.core.op import Op, bind
from minitf.core.tensor import Tensor
from minitf.core.tensor_shape import TensorShape
from minitf.ops.array.shape_ops import static_ints
from minitf.ops.math.binary_math import add, multiply, subtract
from minitf.ops.random import philox

DEFAULT_GRAPH_SEED = 87654321
_MAXINT32 = 2**31 - 1


class Stream:
    """The generator inside one stateful kernel: where it started, and where its next call starts."""

    __slots__ = ("start", "position", "epoch")

    def __init__(self, seed: int, seed2: int) -> None:
        if seed == 0 and seed2 == 0:  # no seed at all: the kernel seeds itself from the operating system
            seed, seed2 = (int.from_bytes(os.urandom(8), "little") for _ in range(2))
        self.start = self.position = philox.Philox.from_seeds(seed, seed2)
        self.epoch = seeds.epoch

    def reserve(self, blocks: int) -> philox.Philox:
        """The position for this call; the next call starts `blocks` further on."""
        if self.epoch != seeds.epoch:  # set_seed was called since: TensorFlow made this kernel anew
            self.position, self.epoch = self.start, seeds.epoch
        here = self.position
        self.position = here.skip(blocks)
        return here


class SeedState:
    """The global seed, where op seeds come from, and the kernels' generators."""

    def __init__(self) -> None:
        self.global_seed: int | None = None
        self.op_seeds = _py_random.Random()
        self.epoch = 0
        self.eager_streams: dict[tuple, Stream] = {}
        self.graph_counters: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()

    def reset(self, seed: int | None) -> None:
        self.global_seed = seed
        self.op_seeds = _py_random.Random(seed)
        self.epoch += 1
        self.eager_streams.clear()

    def seeds_for(self, op_seed: int | None) -> tuple[int, int]:
        """(seed, seed2) for a new random op, as TensorFlow's `random_seed.get_seed` picks them."""
        graph = state.graph
        if self.global_seed is None:
            if op_seed is None:
                return 0, 0
            return DEFAULT_GRAPH_SEED, int(op_seed) % _MAXINT32
        if op_seed is None:
            if graph is None:
                op_seed = self.op_seeds.randint(0, _MAXINT32)
            else:
                op_seed = self.graph_counters.get(graph, 0)
                self.graph_counters[graph] = op_seed + 1
        result = self.global_seed % _MAXINT32, int(op_seed) % _MAXINT32
        return (0, _MAXINT32) if result == (0, 0) else result

    def stream(self, signature: tuple, seed: int, seed2: int) -> Stream:
        """The generator of the kernel that will run this op: cached by signature eagerly, new for a graph node."""
        if state.graph is not None:
            return Stream(seed, seed2)
        stream = self.eager_streams.get(signature)
        if stream is None:
            stream = self.eager_streams[signature] = Stream(seed, seed2)
        return stream


seeds = SeedState()


def set_seed(seed: int | None) -> None:
    """Make the sequence of random ops reproducible from here on (and restart it)."""
    seeds.reset(None if seed is None else int(seed))


# ------------------------------------------------------------------------------------------------------------
# Stateful ops: the generator lives in the kernel (attr `_stream`)
# ------------------------------------------------------------------------------------------------------------


def _size(shape: tuple) -> int:
    return int(np.prod(shape, dtype=np.int64))


def _reserve(stream: Stream, outputs: int) -> philox.Philox:
    return stream.reserve(outputs * philox.RESERVED_PER_SAMPLE)


def _uniform_kernel(*, shape: tuple, dtype: dtypes.DType, seed: int, seed2: int, _stream: Stream) -> np.ndarray:
    n = _size(shape)
    return philox.uniform(_reserve(_stream, n), n, dtype._np).reshape(shape)


def _normal_kernel(*, shape: tuple, dtype: dtypes.DType, seed: int, seed2: int, _stream: Stream) -> np.ndarray:
    n = _size(shape)
    return philox.normal(_reserve(_stream, n), n, dtype._np).reshape(shape)


def _truncated_kernel(*, shape: tuple, dtype: dtypes.DType, seed: int, seed2: int, _stream: Stream) -> np.ndarray:
    n = _size(shape)
    return philox.truncated_normal(_reserve(_stream, n), n, dtype._np).reshape(shape)


def _check_int_range(minval: Any, maxval: Any, shape: tuple, op_name: str) -> None:
    if _size(shape) > 0 and not minval < maxval:
        raise InvalidArgumentError(
            None,
            None,
            f"Need minval < maxval, got {minval} >= {maxval} [Op:{op_name}] "
            "name: \nHint: integers are drawn from [minval, maxval): maxval must be larger.",
        )


def _uniform_int_kernel(
    minval: Any, maxval: Any, *, shape: tuple, seed: int, seed2: int, _stream: Stream
) -> np.ndarray:
    _check_int_range(minval, maxval, shape, "RandomUniformInt")
    n = _size(shape)
    dtype = np.asarray(minval).dtype
    return philox.uniform_int(_reserve(_stream, n), n, int(minval), int(maxval), dtype).reshape(shape)


def _shuffle_kernel(value: Any, *, seed: int, seed2: int, _stream: Stream) -> np.ndarray:
    value = np.asarray(value)
    if value.size <= 1 or value.shape[0] <= 1:  # nothing to shuffle: TensorFlow draws nothing either
        return value
    n = value.shape[0]
    return value[philox.permutation(_stream.reserve(-(-(n - 1) // 4)), n)]


def _categorical(gen: philox.Philox, logits: np.ndarray, num_samples: int, dtype: np.dtype) -> np.ndarray:
    """Each row: cumulative sums of exp(logit - max) in float64, searched with uniform doubles times the total."""
    logits = np.asarray(logits, dtype=np.float64)
    finite = np.isfinite(logits)
    top = np.max(np.where(finite, logits, -np.inf), axis=1, keepdims=True)
    cdf = np.cumsum(np.where(finite, np.exp(logits - top), 0.0), axis=1)
    draws = philox.uniform_doubles(gen, logits.shape[0] * num_samples).reshape(logits.shape[0], num_samples)
    targets = draws * cdf[:, -1:] if cdf.size else draws
    out = [np.searchsorted(row, t, side="right") for row, t in zip(cdf, targets)]
    return np.array(out, dtype=dtype).reshape(logits.shape[0], num_samples)


def _multinomial_kernel(
    logits: Any, *, num_samples: int, output_dtype: dtypes.DType, seed: int, seed2: int, _stream: Stream
) -> np.ndarray:
    per_row = -(-num_samples // 4) * 4
    gen = _reserve(_stream, logits.shape[0] * per_row)
    return _categorical(gen, logits, num_samples, output_dtype._np)


def _random_rule(shapes_: Any, types: Any, attrs: dict) -> list[shape_rules.Spec]:
    return [(TensorShape(attrs["shape"]), attrs["dtype"])]


def _int_rule(shapes_: Any, types: Any, attrs: dict) -> list[shape_rules.Spec]:
    return [(TensorShape(attrs["shape"]), types[-1])]


def _multinomial_rule(shapes_: Any, types: Any, attrs: dict) -> list[shape_rules.Spec]:
    if shapes_[0].rank is not None and shapes_[0].rank != 2:
        raise ValueError(f"Shape must be rank 2 but is rank {shapes_[0].rank}")
    return [(TensorShape([shapes_[0][0], attrs["num_samples"]]), attrs["output_dtype"])]


RandomUniform = Op("RandomUniform", _uniform_kernel, shape=_random_rule, stateful=True)
RandomUniformInt = Op("RandomUniformInt", _uniform_int_kernel, shape=_int_rule, stateful=True)
RandomStandardNormal = Op("RandomStandardNormal", _normal_kernel, shape=_random_rule, stateful=True)
TruncatedNormal = Op("TruncatedNormal", _truncated_kernel, shape=_random_rule, stateful=True)
RandomShuffle = Op("RandomShuffle", _shuffle_kernel, shape=shape_rules.same_as_first, stateful=True)
Multinomial = Op("Multinomial", _multinomial_kernel, shape=_multinomial_rule, stateful=True)


def _stateful(op: Op, inputs: tuple, signature: tuple, seed: int | None, **attrs: Any) -> Tensor:
    s, s2 = seeds.seeds_for(seed)
    stream = seeds.stream((op.name, *signature, s, s2), s, s2)
    return bind(op, *inputs, seed=s, seed2=s2, _stream=stream, **attrs)


def _index_dtype(shape: Any) -> dtypes.DType:
    """The dtype of the shape tensor: part of the kernel's signature (an int64 shape is another kernel)."""
    if isinstance(shape, Tensor):
        return shape.dtype
    dims = shape.as_list() if isinstance(shape, TensorShape) else np.ravel(shape).tolist()
    return dtypes.int32 if all(-(2**31) <= int(d) < 2**31 for d in dims if d is not None) else dtypes.int64


def _shape(shape: Any, op_name: str = "RandomUniform") -> tuple:
    op: Any = getattr(shape, "op", None)  # tf.shape(x) inside a tf.function: x's static shape, when it is known
    if getattr(op, "type", None) == "Shape" and op.inputs[0].shape.is_fully_defined():
        shape = op.inputs[0].shape
    dims = tuple(static_ints(shape, "shape"))
    for d in dims:
        if d < 0:
            raise op_error(
                InvalidArgumentError,
                op_name,
                f"Dimension {d} must be >= 0",
                hint="a shape lists how many numbers go along each axis, so none is negative.",
                kernel=True,
            )
    return dims


def uniform(
    shape: Any,
    minval: Any = 0,
    maxval: Any = None,
    dtype: Any = dtypes.float32,
    seed: int | None = None,
    name: str | None = None,
) -> Tensor:
    """Samples from [minval, maxval); floats default to [0, 1), ints need maxval."""
    dtype = dtypes.as_dtype(dtype)
    if not (dtype.is_floating or dtype in (dtypes.int32, dtypes.int64)):
        raise ValueError(
            f"Argument `dtype` got invalid value {dtype}. Accepted dtypes are (tf.float16, "
            "tf.bfloat16, tf.float32, tf.float64, tf.int32, tf.int64)."
        )
    if maxval is None:
        if dtype.is_integer:
            raise ValueError(f"Must specify maxval for integer dtype {dtype!r}")
        maxval = 1
    dims = _shape(shape, "RandomUniformInt" if dtype.is_integer else "RandomUniform")
    minval_is_zero = type(minval) is int and minval == 0
    maxval_is_one = type(maxval) is int and maxval == 1
    if not minval_is_zero or not maxval_is_one or dtype.is_integer:
        minval = convert_to_tensor(minval, dtype=dtype)
        maxval = convert_to_tensor(maxval, dtype=dtype)
    if dtype.is_integer:
        return _stateful(RandomUniformInt, (minval, maxval), (dtype, _index_dtype(shape)), seed, shape=dims)
    result = _stateful(RandomUniform, (), (dtype, _index_dtype(shape)), seed, shape=dims, dtype=dtype)
    if minval_is_zero:
        return result if maxval_is_one else multiply(result, maxval)
    return add(result * subtract(maxval, minval), minval)


def normal(
    shape: Any,
    mean: Any = 0.0,
    stddev: Any = 1.0,
    dtype: Any = dtypes.float32,
    seed: int | None = None,
    name: str | None = None,
) -> Tensor:
    """Samples from a normal distribution with the given mean and standard deviation."""
    dtype = dtypes.as_dtype(dtype)
    dims = _shape(shape, "RandomStandardNormal")
    mean, stddev = convert_to_tensor(mean, dtype=dtype), convert_to_tensor(stddev, dtype=dtype)
    _floats_only(dtype, "RandomStandardNormal")
    rnd = _stateful(RandomStandardNormal, (), (dtype, _index_dtype(shape)), seed, shape=dims, dtype=dtype)
    return add(rnd * stddev, mean)


def truncated_normal(
    shape: Any,
    mean: Any = 0.0,
    stddev: Any = 1.0,
    dtype: Any = dtypes.float32,
    seed: int | None = None,
    name: str | None = None,
) -> Tensor:
    """Normal samples, redrawn when two standard deviations or more from the mean."""
    dtype = dtypes.as_dtype(dtype)
    dims = _shape(shape, "TruncatedNormal")
    mean, stddev = convert_to_tensor(mean, dtype=dtype), convert_to_tensor(stddev, dtype=dtype)
    _floats_only(dtype, "TruncatedNormal")
    rnd = _stateful(TruncatedNormal, (), (dtype, _index_dtype(shape)), seed, shape=dims, dtype=dtype)
    return add(rnd * stddev, mean)


def _floats_only(dtype: dtypes.DType, op_name: str) -> None:
    if not dtype.is_floating:
        names = {dtypes.int32: "int32", dtypes.int64: "int64"}.get(dtype, dtype.name)
        raise op_error(
            InvalidArgumentError,
            op_name,
            f"Value for attr 'dtype' of {names} is not in the list of allowed values: half, bfloat16, float, double",
            hint="normal samples are floats; tf.cast them afterwards if you need integers.",
        )


def shuffle(value: Any, seed: int | None = None, name: str | None = None) -> Tensor:
    """The tensor with its first axis randomly permuted."""
    x = convert_to_tensor(value)
    return _stateful(RandomShuffle, (x,), (x.dtype,), seed)


def _logits(logits: Any, dtype: Any) -> tuple[Tensor, dtypes.DType]:
    logits = convert_to_tensor(logits)
    dtype = dtypes.int64 if dtype is None else dtypes.as_dtype(dtype)
    if dtype not in (dtypes.int32, dtypes.int64):
        raise ValueError(f"Argument `dtype` got invalid value {dtype}. Accepted dtypes are (tf.int32, tf.int64).")
    if logits.shape.rank != 2 and state.graph is None:  # traced: the shape rule's ValueError, as in TensorFlow
        raise op_error(
            InvalidArgumentError,
            "Multinomial",
            f"logits should be a matrix, got shape {list(logits.shape)}",
            hint="logits has one row per batch entry and one column per class: tf.expand_dims(logits, 0) "
            "makes a vector a matrix.",
            kernel=True,
        )
    return logits, dtype


def categorical(
    logits: Any, num_samples: int, dtype: Any = None, seed: int | None = None, name: str | None = None
) -> Tensor:
    """num_samples class indices per row of `logits` (unnormalised log-probabilities).

    TensorFlow's numbers, as long as TensorFlow draws them on one thread: it splits the rows among threads
    (in a way that depends on the machine) once rows * 50 * (num_samples * log2(classes) + classes) passes
    about 200,000.
    """
    logits, dtype = _logits(logits, dtype)
    return _stateful(
        Multinomial, (logits,), (logits.dtype, dtype), seed, num_samples=int(num_samples), output_dtype=dtype
    )


# ------------------------------------------------------------------------------------------------------------
# The shuffle buffer of tf.data (for Dataset.shuffle)
# ------------------------------------------------------------------------------------------------------------


# True while minitf looks at a dataset's first element to learn its structure (reshaping._mapped_spec):
# TensorFlow traces instead and never iterates, so that look must not use up a reshuffle's epoch seeds.
_PEEKING = [False]


@contextlib.contextmanager
def peeking() -> Iterator[None]:
    """Shuffles started inside use their first epoch's seeds without moving on to the next epoch's."""
    _PEEKING[0] = True
    try:
        yield
    finally:
        _PEEKING[0] = False


class DatasetShuffle:
    """TensorFlow's order for `Dataset.shuffle(buffer_size, seed, reshuffle_each_iteration)`, epoch by epoch.

    Make one when the dataset is made (that is when TensorFlow picks the seeds), then call `epoch` for every
    pass over the data. Each epoch's buffer draws from its own generator: with `reshuffle_each_iteration` its two
    seeds are the next two words of a generator seeded by (seed, seed2), otherwise they are (seed, seed2) itself.
    """

    def __init__(self, seed: int | None = None, reshuffle_each_iteration: bool = True) -> None:
        s, s2 = seeds.seeds_for(seed)
        if s == 0 and s2 == 0:
            s, s2 = (int.from_bytes(os.urandom(8), "little") for _ in range(2))
        self._fixed = (s, s2)
        self._epoch_seeds = philox.word_stream(philox.Philox.from_seeds(s, s2)) if reshuffle_each_iteration else None

    def epoch(self, elements: Any, buffer_size: int) -> Any:
        """The elements of one pass, in shuffled order: an iterator (the input may be endless)."""
        if self._epoch_seeds is None or _PEEKING[0]:
            seed, seed2 = self._fixed
        else:
            seed, seed2 = next(self._epoch_seeds), next(self._epoch_seeds)
        return shuffle_buffer(elements, buffer_size, philox.word_stream(philox.Philox.from_seeds(seed, seed2)))


def shuffle_buffer(elements: Any, buffer_size: int, words: Any) -> Any:
    """Fill a buffer of `buffer_size`; then repeatedly hand out a random element of it (word % filled) and
    refill its place from the input. The buffer is a ring: the element handed out swaps with the oldest one.
    A `buffer_size` of -2 (tf.data's UNKNOWN_CARDINALITY) is a buffer without bound, which holds the whole input.
    The ring is a dict of the filled positions, so a large `buffer_size` over a short input costs nothing."""
    unbounded = buffer_size == -2
    buffer: dict[int, Any] = {}
    start = end = 0  # the buffer holds elements start .. end-1, at positions modulo buffer_size
    source = iter(elements)
    exhausted = False

    def position(count: int) -> int:
        return count if unbounded else count % buffer_size

    while True:
        while not exhausted and (unbounded or end - start < buffer_size):
            try:
                buffer[position(end)] = next(source)
                end += 1
            except StopIteration:
                exhausted = True
        if start == end:
            return
        index = position(start + next(words) % (end - start))
        oldest = position(start)
        yield buffer[index]
        buffer[index] = buffer[oldest]
        del buffer[oldest]
        start += 1
