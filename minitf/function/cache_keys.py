"""Cache keys: what of a call's arguments decides whether a `tf.function` traces again.

TensorFlow's rules: tensors and NumPy arrays count by dtype and shape (`TensorSpec`), Variables by dtype
and shape too (`VariableSpec`: the graph reads whichever variable it is given), Python values by value
(`Literal`: `f(1)` and `f(1.0)` share a trace, because `1 == 1.0` and both hash alike), other objects by
identity (`ById`), and lists, tuples and dicts by their content, as tuples `("List", ...)`. A key is a
*subtype* of another when every call it describes is also described by the other (an unknown dimension
covers every size); `generalize` finds the key that covers two (what `reduce_retracing=True` traces).
"""

from __future__ import annotations

import weakref
from typing import Any

import numpy as np

from minitf.core import dtypes, nest
from minitf.core.tensor import Tensor
from minitf.core.tensor_shape import as_shape
from minitf.ops.variables import Variable


class TensorSpec:
    """Describes a tensor argument: its shape (None for unknown dimensions) and dtype."""

    __slots__ = ("shape", "dtype", "name")

    def __init__(self, shape: Any, dtype: Any = dtypes.float32, name: str | None = None) -> None:
        self.shape = as_shape(shape)
        self.dtype = dtypes.as_dtype(dtype)
        self.name = name

    @classmethod
    def from_tensor(cls, tensor: Any, name: str | None = None) -> TensorSpec:
        return cls(tensor.shape, tensor.dtype, name)

    def is_compatible_with(self, other: Any) -> bool:
        if isinstance(other, TensorSpec | Tensor):
            return self.dtype is other.dtype and self.shape.is_compatible_with(other.shape)
        return False

    def is_subtype_of(self, other: TensorSpec) -> bool:
        """True when every tensor this spec describes is also described by `other`."""
        if self.dtype is not other.dtype:
            return False
        if other.shape.rank is None:
            return True
        if self.shape.rank != other.shape.rank:
            return False
        return all(o is None or s == o for s, o in zip(self.shape, other.shape))

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, TensorSpec)
            and self.dtype is other.dtype
            and self.shape == other.shape
            and self.name == other.name
        )

    def __hash__(self) -> int:
        return hash((self.shape, self.dtype.name, self.name))

    def __repr__(self) -> str:
        name = "None" if self.name is None else repr(self.name)
        return f"TensorSpec(shape={self.shape}, dtype={self.dtype!r}, name={name})"


class VariableSpec(TensorSpec):
    """A Variable argument: the graph reads whichever variable of this shape and dtype it is given."""

    __slots__ = ()

    def __eq__(self, other: object) -> bool:
        return isinstance(other, VariableSpec) and TensorSpec.__eq__(self, other)

    def __hash__(self) -> int:
        return hash(("variable", self.shape, self.dtype.name))

    def __repr__(self) -> str:
        return f"VariableSpec(shape={self.shape}, dtype={self.dtype!r}, trainable=True, alias_id=None)"


class Literal:
    """A Python value in a cache key: equal keys for equal values (1 == 1.0 == True, as TensorFlow)."""

    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, Literal)
            and type(other.value) is not type(None)
            and self.value == other.value
            or (isinstance(other, Literal) and self.value is None and other.value is None)
        )

    def __hash__(self) -> int:
        return hash(self.value)

    def __repr__(self) -> str:
        return f"Literal[{self.value!r}]"


class ById:
    """An object that is not a value (a Python function, `self` of a method, ...): keys by identity.

    TensorFlow keeps a weak reference to such an object and prints the key as `Weakref[<weakref ...>])`.
    """

    __slots__ = ("obj", "label", "ref")

    def __init__(self, obj: Any, label: str) -> None:
        self.obj = obj
        self.label = label
        try:
            self.ref: Any = weakref.ref(obj)
        except TypeError:
            self.ref = None

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ById) and other.obj is self.obj

    def __hash__(self) -> int:
        return id(self.obj)

    def __repr__(self) -> str:
        return self.label if self.ref is None else f"Weakref[{self.ref!r}])"


def trace_type(value: Any) -> Any:
    """The part of the cache key for one argument."""
    if isinstance(value, Tensor):
        return TensorSpec(value.shape, value.dtype)
    if isinstance(value, TensorSpec):
        return TensorSpec(value.shape, value.dtype)
    if isinstance(value, np.ndarray | np.generic) and not isinstance(value, np.str_ | np.bytes_):
        return TensorSpec(np.shape(value), dtypes.from_numpy(value.dtype))
    if isinstance(value, Variable):
        return VariableSpec(value.shape, value.dtype)
    if isinstance(value, list):
        return ("List", *(trace_type(v) for v in value))
    if isinstance(value, tuple):
        return ("Tuple", *(trace_type(v) for v in value))
    if isinstance(value, dict):
        return ("Dict", *((k, trace_type(value[k])) for k in sorted(value, key=str)))
    if hasattr(type(value), "__tf_tracing_type__"):  # the tracing protocol: the object says how it is keyed
        return value.__tf_tracing_type__(None)
    if hasattr(value, "_trace_spec"):  # RaggedTensor, SparseTensor: traced by a spec, as TensorFlow does
        return value._trace_spec()
    try:
        hash(value)
    except TypeError:
        return ById(value, f"{type(value).__name__}")
    if isinstance(value, int | float | complex | str | bytes | bool | type(None)):
        return Literal(value)
    return ById(value, f"{type(value).__name__}")


def type_text(t: Any) -> str:
    if isinstance(t, tuple) and t and t[0] == "Dict":
        return "Dict[" + ", ".join(f"[{k!r}, {type_text(v)}]" for k, v in t[1:]) + "]"
    if isinstance(t, tuple) and t and t[0] in ("List", "Tuple"):
        return f"{t[0]}[" + ", ".join(type_text(v) for v in t[1:]) + "]"
    return repr(t)


def is_subtype(specific: Any, general: Any) -> bool:
    if isinstance(specific, TensorSpec) and isinstance(general, TensorSpec):
        return type(specific) is type(general) and specific.is_subtype_of(general)
    if isinstance(specific, tuple) and isinstance(general, tuple):
        if len(specific) != len(general) or (specific and specific[0] != general[0]):
            return False
        return all(is_subtype(a, b) for a, b in zip(specific[1:], general[1:]))
    return bool(specific == general)


def generalize(a: Any, b: Any) -> Any:
    """The most specific key that covers both `a` and `b` (None when they differ in more than shapes)."""
    if isinstance(a, TensorSpec) and isinstance(b, TensorSpec):
        if a.dtype is not b.dtype or type(a) is not type(b) or isinstance(a, VariableSpec):
            return None
        return TensorSpec(a.shape.most_specific_compatible_shape(b.shape), a.dtype)
    if isinstance(a, tuple) and isinstance(b, tuple):
        if len(a) != len(b) or (a and a[0] != b[0]):
            return None
        parts = [generalize(x, y) for x, y in zip(a[1:], b[1:])]
        return None if any(p is None for p in parts) else (a[0],) + tuple(parts)
    if isinstance(a, str) and a == b:
        return a
    return a if a == b else None


class NoneType:
    def __repr__(self) -> str:
        return "None"


def output_type(structure: Any) -> Any:
    """The type of what a trace returns; dicts keep their keys' order here (TensorFlow prints them so)."""
    if structure is None:
        return NoneType()
    if isinstance(structure, dict):
        return ("Dict", *((k, output_type(v)) for k, v in structure.items()))
    if isinstance(structure, list | tuple):
        return ("List" if isinstance(structure, list) else "Tuple", *(output_type(v) for v in structure))
    return trace_type(specs_of(structure))


def specs_of(structure: Any) -> Any:
    return (
        nest.map_structure(lambda t: TensorSpec(t.shape, t.dtype) if isinstance(t, Tensor) else t, structure)
        if nest.is_nested(structure)
        else (TensorSpec(structure.shape, structure.dtype) if isinstance(structure, Tensor) else structure)
    )
