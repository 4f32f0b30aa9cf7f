"""Where a dataset's elements come from: `from_tensors`, `from_tensor_slices`, `range`, `zip`, `from_generator`
(a Python generator), `counter` (0, 1, 2, ... forever),
`random` (TensorFlow's random integers), and the ways to attach settings or checks to one (`Options`,
`with_options`, `apply`, `tf.data.experimental.assert_cardinality`).

Each is a dataset step like those in dataset.py (a subclass of `DatasetV2`), provided to `Dataset`'s methods of the
same names.
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from minitf.core import dtypes, nest
from minitf.core.conversion import convert_to_tensor
from minitf.core.errors import FailedPreconditionError, InvalidArgumentError, kernel_prefix, op_error
from minitf.core.tensor_shape import TensorShape
from minitf.data.dataset import DATASETS, INFINITE, UNKNOWN, DatasetV2
from minitf.data.structure import leaves_of, normalize, python_int, row_of, row_spec, scalar, spec_of
from minitf.function.cache_keys import TensorSpec
from minitf.ops.random import philox
from minitf.ops.random.random_ops import seeds


def _signature(output_types: Any, output_shapes: Any) -> Any:
    """The older `output_types` / `output_shapes` arguments as one structure of TensorSpecs."""
    if isinstance(output_types, tuple):
        shapes = output_shapes if output_shapes is not None else (None,) * len(output_types)
        return tuple(_signature(t, s) for t, s in zip(output_types, shapes))
    if isinstance(output_types, dict):
        shapes = output_shapes if output_shapes is not None else dict.fromkeys(output_types)
        return {k: _signature(t, shapes[k]) for k, t in output_types.items()}
    return TensorSpec(TensorShape(output_shapes), dtypes.as_dtype(output_types))


def _conform(spec: Any, value: Any) -> Any:
    """A generator's value as tensors of the signature's structure, dtypes and shapes."""
    if isinstance(spec, tuple):
        if not isinstance(value, tuple | list) or len(value) != len(spec):
            raise _generator_error(
                f"`generator` yielded an element that did not match the expected structure. "
                f"The expected structure was {spec}, but the yielded element was {value}."
            )
        return tuple(_conform(s, v) for s, v in zip(spec, value))
    if isinstance(spec, dict):
        return {k: _conform(s, value[k]) for k, s in spec.items()}
    try:
        tensor = convert_to_tensor(value, dtype=spec.dtype)
    except (TypeError, ValueError):
        raise _generator_error(
            f"`generator` yielded an element that could not be converted to the expected type. "
            f"The expected type was {spec.dtype.name}, but the yielded element was "
            f"{value}."
        ) from None
    if not spec.shape.is_compatible_with(tensor.shape):
        raise _generator_error(
            f"`generator` yielded an element of shape {tensor.shape} where an element of shape "
            f"{spec.shape} was expected."
        )
    return tensor


def _generator_error(message: str) -> Exception:
    """TensorFlow's error from inside its `PyFunc` (the Python TypeError quoted), raised where elements are read."""
    return InvalidArgumentError(
        None,
        None,
        f"{kernel_prefix('IteratorGetNext')}TypeError: {message}\n\n\t "
        "[[{{node PyFunc}}]] [Op:IteratorGetNext] name: \nHint: make the generator yield "
        "what output_signature describes.",
    )


class _FlatMapDataset(DatasetV2):
    """`Dataset.from_generator`: the values a Python generator yields, each checked against the signature.
    (TensorFlow builds it as a flat_map over one py_function call, hence the name it prints.)"""

    def __init__(self, generator: Callable[..., Any], spec: Any, args: tuple) -> None:
        if not callable(generator):
            raise TypeError("`generator` must be a Python callable.")
        self._generator, self._args = generator, args
        super().__init__(spec, UNKNOWN)

    def _elements(self) -> Iterator[Any]:
        args = [np.asarray(convert_to_tensor(a)) for a in self._args]
        for value in self._generator(*args):
            yield _conform(self.element_spec, value)


def from_generator(
    generator: Callable[..., Any],
    output_types: Any = None,
    output_shapes: Any = None,
    args: Any = None,
    output_signature: Any = None,
    name: str | None = None,
) -> DatasetV2:
    if output_signature is None:
        if output_types is None:
            raise TypeError(
                "The `output_signature` argument must be set.\nHint: describe each yielded value, "
                "e.g. output_signature=tf.TensorSpec(shape=(), dtype=tf.int32)."
            )
        output_signature = _signature(output_types, output_shapes)
    elif output_types is not None or output_shapes is not None:
        raise TypeError("The `output_types` argument can not be used together with the `output_signature` argument.")
    return _FlatMapDataset(generator, output_signature, tuple(args or ()))


class _ScanDataset(DatasetV2):
    """`Dataset.counter`: start, start + step, ... without end (TensorFlow builds it with `scan`)."""

    def __init__(self, start: int, step: int, dtype: dtypes.DType) -> None:
        self._start, self._step, self._dtype = start, step, dtype
        super().__init__(TensorSpec([], dtype), INFINITE)

    def _elements(self) -> Iterator[Any]:
        for n in itertools.count(self._start, self._step):
            yield scalar(self._dtype._np.type(n), self._dtype)


def counter(start: int = 0, step: int = 1, dtype: Any = dtypes.int64, name: str | None = None) -> DatasetV2:
    return _ScanDataset(int(start), int(step), dtypes.as_dtype(dtype))


class _RandomDataset(DatasetV2):
    """Endless random int64 scalars in [0, 2**32): TensorFlow's Philox words for the seeds (seed, seed2) that a
    random op with this seed would get; each pass starts over unless `rerandomize_each_iteration`."""

    def __init__(self, seed: int | None, rerandomize: bool) -> None:
        s, s2 = seeds.seeds_for(seed)
        if s == 0 and s2 == 0:
            s, s2 = (int.from_bytes(os.urandom(8), "little") for _ in range(2))
        self._seeds = (s, s2)
        self._epochs = philox.word_stream(philox.Philox.from_seeds(s, s2)) if rerandomize else None
        super().__init__(TensorSpec([], dtypes.int64), INFINITE)

    def _elements(self) -> Iterator[Any]:
        s, s2 = self._seeds if self._epochs is None else (next(self._epochs), next(self._epochs))
        for word in philox.word_stream(philox.Philox.from_seeds(s, s2)):
            yield scalar(np.int64(word), dtypes.int64)


def random(
    seed: int | None = None, rerandomize_each_iteration: bool | None = None, name: str | None = None
) -> DatasetV2:
    return _RandomDataset(seed, bool(rerandomize_each_iteration))


class Options:
    """`tf.data.Options`: settings for how a pipeline runs. minitf runs every pipeline in one thread, in order,
    so it keeps the settings (and `dataset.options()` shows them) without acting on them."""

    def __init__(self) -> None:
        self.deterministic: bool | None = None
        self.experimental_optimization = _Group()
        self.threading = _Group()
        self.autotune = _Group()
        self.experimental_distribute = _Group()
        self.experimental_slack: bool | None = None
        self.experimental_warm_start: bool | None = None

    def merge(self, other: Options) -> Options:
        merged = Options()
        for options in (self, other):
            for key, value in vars(options).items():
                if isinstance(value, _Group):
                    getattr(merged, key).__dict__.update({k: v for k, v in vars(value).items() if v is not None})
                elif value is not None:
                    setattr(merged, key, value)
        return merged


class _Group:
    """A group of options (`options.threading.private_threadpool_size = 8`): any option, None until set."""

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        return None


class _OptionsDataset(DatasetV2):
    def __init__(self, source: DatasetV2, options: Options) -> None:
        self._source = source
        self._options = options_of(source).merge(options)
        super().__init__(source.element_spec, source._cardinality)

    def _elements(self) -> Iterator[Any]:
        return self._source._elements()


def options_of(dataset: DatasetV2) -> Options:
    """The options in force: those of the nearest `with_options` up the chain of sources."""
    step: Any = dataset
    while step is not None:
        if isinstance(step, _OptionsDataset):
            return step._options
        step = getattr(step, "_source", None)
    return Options()


class _AssertCardinalityDataset(DatasetV2):
    """The source's elements, failing as soon as their number turns out not to be `expected`."""

    def __init__(self, source: DatasetV2, expected: int) -> None:
        self._source, self._expected = source, expected
        super().__init__(source.element_spec, expected)

    def _elements(self) -> Iterator[Any]:
        count = 0
        for element in self._source._elements():
            count += 1
            if count > self._expected:
                raise self._error(f"at least {count}")
            yield element
        if count < self._expected:
            raise self._error(f"only {count}")

    def _error(self, found: str) -> Exception:
        node = f"IteratorGetNext_output_types_{len(leaves_of(self.element_spec))}"
        return FailedPreconditionError(
            None,
            None,
            f"{kernel_prefix(node)}Input dataset was expected to contain "
            f"{self._expected} elements but contained {found} elements. "
            f"[Op:IteratorGetNext] name: \nHint: the dataset's length is not the "
            f"asserted cardinality.",
        )


def assert_cardinality(expected_cardinality: Any) -> Callable[[DatasetV2], DatasetV2]:
    """For `dataset.apply(...)`: declare the dataset's length (and check it while iterating)."""
    expected = int(np.asarray(convert_to_tensor(expected_cardinality)))
    return lambda dataset: _AssertCardinalityDataset(dataset, expected)


def cardinality(dataset: DatasetV2) -> Any:
    """`tf.data.experimental.cardinality(dataset)`: the same as `dataset.cardinality()`."""
    return dataset.cardinality()


class _TensorDataset(DatasetV2):
    """One element: the whole value."""

    def __init__(self, tensors: Any) -> None:
        self._value = normalize(tensors)
        super().__init__(spec_of(self._value), 1)

    def _elements(self) -> Iterator[Any]:
        yield self._value


class _TensorSliceDataset(DatasetV2):
    """One element per row of the first axis of every component."""

    def __init__(self, tensors: Any) -> None:
        self._value = normalize(tensors)
        sizes = set()
        for t in leaves_of(self._value):
            if t.shape.rank == 0:
                raise ValueError("Unbatching a tensor is only supported for rank >= 1")
            sizes.add(t.shape[0])
        known = sorted(s for s in sizes if s is not None)
        if len(known) > 1:
            raise ValueError(f"Dimensions {known[-1]} and {known[0]} are not compatible")
        self._size = known[0] if known and None not in sizes else None
        spec = nest.map_structure(row_spec, self._value)
        super().__init__(spec, self._size if self._size is not None else UNKNOWN)

    def _elements(self) -> Iterator[Any]:
        if self._size is None:
            raise TypeError(
                "minitf iterates a dataset of tensors whose length is unknown while tracing only "
                "when the length is known.\nHint: build the dataset from eager values."
            )
        for i in range(self._size):
            yield nest.map_structure(lambda t, i=i: row_of(t, i), self._value)


class _RangeDataset(DatasetV2):
    """start, start + step, ... up to (not including) stop."""

    def __init__(self, *args: Any, output_type: Any = dtypes.int64, name: str | None = None) -> None:
        if not 1 <= len(args) <= 3:
            raise ValueError(f"Invalid arguments to RangeDataset: {args}")
        ints = [python_int(a, "range argument") for a in args]
        start, stop, step = (0, ints[0], 1) if len(ints) == 1 else (ints[0], ints[1], ints[2] if len(ints) == 3 else 1)
        if step == 0:
            raise op_error(InvalidArgumentError, "RangeDataset", "step must be a non-zero integer.")
        self._range = range(start, stop, step)
        self._dtype = dtypes.as_dtype(output_type)
        super().__init__(TensorSpec([], self._dtype), len(self._range))

    def _elements(self) -> Iterator[Any]:
        np_type = self._dtype._np.type
        for i in self._range:
            yield scalar(np_type(i), self._dtype)


class _ZipDataset(DatasetV2):
    """Elements of several datasets side by side, as long as the shortest."""

    def __init__(self, datasets: Any) -> None:
        members = nest.flatten(datasets)
        for d in members:
            if not isinstance(d, DatasetV2):
                raise TypeError(
                    f"Invalid input to `zip`. Inputs are expected to be (nested) structures of "
                    f"`tf.data.Dataset` objects. Python `list` is not supported and you should use "
                    f"`tuple` instead.\nHint: got {type(d).__name__}."
                )
        self._datasets = datasets
        cards = [d._cardinality for d in members]
        if UNKNOWN in cards:
            card = UNKNOWN
        else:
            finite = [c for c in cards if c != INFINITE]
            card = min(finite) if finite else INFINITE
        super().__init__(nest.map_structure(lambda d: d.element_spec, datasets), card)

    def _elements(self) -> Iterator[Any]:
        members = nest.flatten(self._datasets)
        for items in zip(*[d._elements() for d in members]):
            yield nest.pack_sequence_as(self._datasets, items)


DATASETS.provide(
    from_tensors=_TensorDataset,
    from_tensor_slices=_TensorSliceDataset,
    range=_RangeDataset,
    zip=_ZipDataset,
    from_generator=from_generator,
    counter=counter,
    random=random,
    with_options=lambda dataset, options: _OptionsDataset(dataset, options),
    options=options_of,
)
