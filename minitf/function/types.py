"""The abstract types TensorFlow's own signatures use, for annotations and `isinstance` checks
(`tf.types.experimental`, listed in minitf/api/types/).

`tf.types.experimental.TensorLike` is what ops accept (tensors, Python numbers, strings, lists, tuples and
NumPy values); `GenericFunction`/`PolymorphicFunction` are what `tf.function` returns, `ConcreteFunction`
one trace of it, `FunctionType` a trace's signature.
"""

from __future__ import annotations

import abc
import typing

import numpy as np

from minitf.core.tensor import Tensor
from minitf.function.cache_keys import TensorSpec
from minitf.function.concrete_function import ConcreteFunction as _ConcreteFunction
from minitf.function.function import Function as _Function


class Callable(metaclass=abc.ABCMeta):  # noqa: B024  (an abstract base for isinstance checks)
    """Something TensorFlow can call like a function (a tf.function, or one trace of it)."""


class GenericFunction(Callable):
    """A function that traces itself for new kinds of arguments (what `tf.function` returns)."""


class PolymorphicFunction(GenericFunction):
    """`tf.function`'s result: one graph per input signature."""


class ConcreteFunction(Callable):
    """One traced graph with a fixed signature."""


class AtomicFunction(Callable):
    """The lowest-level callable graph function (minitf runs concrete functions directly)."""


class TraceType(metaclass=abc.ABCMeta):
    """What a value contributes to a tf.function's cache key (a TensorSpec for a tensor).

    As in TensorFlow, a subclass must say how it compares, hashes, relaxes and stands in for its value while
    tracing: one that leaves any of these out cannot be instantiated.
    """

    @abc.abstractmethod
    def is_subtype_of(self, other: typing.Any) -> bool:
        """Whether a trace made for `other` also serves this type."""

    @abc.abstractmethod
    def most_specific_common_supertype(self, others: typing.Any) -> typing.Any:
        """The narrowest type all of `self` and `others` are subtypes of, or None."""

    @abc.abstractmethod
    def placeholder_value(self, placeholder_context: typing.Any) -> typing.Any:
        """The value the traced function sees in place of an argument of this type."""

    @abc.abstractmethod
    def __eq__(self, other: object) -> bool:
        """Equal types share one trace."""

    @abc.abstractmethod
    def __hash__(self) -> int:
        """Types key the trace cache."""


class SupportsTracingProtocol(metaclass=abc.ABCMeta):  # noqa: B024
    """Objects that say themselves how tf.function should key them."""


PolymorphicFunction.register(_Function)
ConcreteFunction.register(_ConcreteFunction)
TraceType.register(TensorSpec)

# typing.Union, not `|`: it prints as TensorFlow's does (typing.Union[...]).
TensorLike = typing.Union[Tensor, int, float, bool, str, bytes, complex, tuple, list, np.ndarray, np.generic]  # noqa: UP007
