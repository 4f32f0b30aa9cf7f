"""Data types: TensorFlow's DType objects and the rules for inferring one from a Python or NumPy value.

TensorFlow never promotes between tensors (int32 + float32 is an error), so this module has no promotion
lattice: only a mapping between TensorFlow's names and NumPy's dtypes, and the inference rules of
`tf.constant`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:  # tf.dtypes.cast and saturate_cast: minitf/__init__.py sets them (the ops import this module)
    from collections.abc import Callable

    cast: Callable[..., Any]
    saturate_cast: Callable[..., Any]

_py_bool = bool  # this module defines its own `bool` (TensorFlow's name for the dtype)


class DType:
    """A TensorFlow dtype such as `tf.float32`: a name plus the NumPy dtype that stores it."""

    __slots__ = ("name", "as_numpy_dtype", "_np", "kind")

    def __init__(self, name: str, np_dtype: Any) -> None:
        self.name = name
        self._np = np.dtype(np_dtype)
        self.as_numpy_dtype = self._np.type
        self.kind = self._np.kind  # NumPy's one-letter kind: "f" float, "i" int, "u" unsigned, "b" bool, ...

    # --- what kind of number is it ---
    @property
    def is_floating(self) -> _py_bool:
        return self._np.kind == "f"

    @property
    def is_integer(self) -> _py_bool:
        return self._np.kind in "iu"

    @property
    def is_unsigned(self) -> _py_bool:
        return self._np.kind == "u"

    @property
    def is_complex(self) -> _py_bool:
        return self._np.kind == "c"

    @property
    def is_bool(self) -> _py_bool:
        return self._np.kind == "b"

    @property
    def is_numeric(self) -> _py_bool:
        return self._np.kind in "iufc"

    @property
    def is_numpy_compatible(self) -> _py_bool:
        return True

    @property
    def base_dtype(self) -> DType:
        return self

    @property
    def real_dtype(self) -> DType:
        return {complex64: float32, complex128: float64}.get(self, self)

    @property
    def size(self) -> int:
        return self._np.itemsize

    @property
    def min(self) -> Any:
        if self.is_floating:
            return np.finfo(self._np).min
        if self.is_integer:
            return np.iinfo(self._np).min
        raise TypeError(f"Cannot find minimum value of {self.name}.")

    @property
    def max(self) -> Any:
        if self.is_floating:
            return np.finfo(self._np).max
        if self.is_integer:
            return np.iinfo(self._np).max
        raise TypeError(f"Cannot find maximum value of {self.name}.")

    def is_compatible_with(self, other: Any) -> _py_bool:
        return self is as_dtype(other)

    def __repr__(self) -> str:
        return f"tf.{self.name}"

    def __str__(self) -> str:
        return f"<dtype: '{self.name}'>"

    def __eq__(self, other: object) -> _py_bool:
        if other is self:
            return True
        if other is None:
            return False
        try:
            return as_dtype(other) is self
        except TypeError:
            return False

    @property
    def as_datatype_enum(self) -> int:
        """TensorFlow's number for this dtype (types.proto): float32 is 1, int32 is 3."""
        return _ENUM_OF[self]

    def __ne__(self, other: object) -> _py_bool:
        return not self.__eq__(other)

    # Identity hash: DTypes are singletons, and ops look them up in sets on every call.
    __hash__ = object.__hash__

    def __reduce__(self) -> tuple:
        return as_dtype, (self.name,)


float16 = DType("float16", np.float16)
float32 = DType("float32", np.float32)
float64 = DType("float64", np.float64)
int8 = DType("int8", np.int8)
int16 = DType("int16", np.int16)
int32 = DType("int32", np.int32)
int64 = DType("int64", np.int64)
uint8 = DType("uint8", np.uint8)
uint16 = DType("uint16", np.uint16)
uint32 = DType("uint32", np.uint32)
uint64 = DType("uint64", np.uint64)
bool = DType("bool", np.bool_)  # TensorFlow's name
complex64 = DType("complex64", np.complex64)
complex128 = DType("complex128", np.complex128)
string = DType("string", np.object_)
half = float16
double = float64

ALL: tuple[DType, ...] = (
    float16,
    float32,
    float64,
    int8,
    int16,
    int32,
    int64,
    uint8,
    uint16,
    uint32,
    uint64,
    bool,
    complex64,
    complex128,
    string,
)
# Not values a student computes with: a `resource` tensor stands for a Variable (the input of ReadVariableOp and
# the assign ops), a `variant` for a TensorArray's list. Neither is in ALL.
resource = DType("resource", np.object_)
variant = DType("variant", np.object_)
FLOATS = frozenset({float16, float32, float64})
FLOAT_OR_COMPLEX = FLOATS | {complex64, complex128}
INTEGERS = frozenset({int8, int16, int32, int64, uint8, uint16, uint32, uint64})
NUMERIC = FLOAT_OR_COMPLEX | INTEGERS
REAL = FLOATS | INTEGERS

_BY_NAME = {d.name: d for d in ALL} | {"half": float16, "double": float64}
# TensorFlow's DataType enum (types.proto): tf.as_dtype(1) is tf.float32, and every DType knows its number.
_BY_ENUM = {
    1: float32,
    2: float64,
    3: int32,
    4: uint8,
    5: int16,
    6: int8,
    7: string,
    8: complex64,
    9: int64,
    10: bool,
    17: uint16,
    18: complex128,
    19: float16,
    22: uint32,
    23: uint64,
}
_ENUM_OF = {d: number for number, d in _BY_ENUM.items()}
# NumPy dtype -> DType. Byte strings and unicode arrays are TensorFlow strings.
_BY_NUMPY: dict[Any, DType] = {d._np: d for d in ALL}


def from_numpy(np_dtype: np.dtype) -> DType:
    """The DType that stores values of NumPy dtype `np_dtype`."""
    d = _BY_NUMPY.get(np_dtype)
    if d is not None:
        return d
    if np_dtype.kind in "SUO":
        return string
    raise TypeError(f"Cannot convert the NumPy dtype {np_dtype} to a minitf dtype.")


def as_dtype(value: Any) -> DType:
    """`tf.as_dtype`: accepts a DType, a name like "float32", a NumPy dtype or a Python type."""
    if isinstance(value, DType):
        return value
    if isinstance(value, str):
        d = _BY_NAME.get(value)
        if d is None:
            raise TypeError(f"Cannot convert the argument `type_value`: {value!r} to a TensorFlow DType.")
        return d
    if isinstance(value, int) and not isinstance(value, _py_bool):
        d = _BY_ENUM.get(value)
        if d is None:
            raise TypeError(
                f"Cannot convert the argument `type_value`: {value!r} to a TensorFlow DType.\nHint: "
                "integers name dtypes by TensorFlow's DataType enum (1 is float32, 3 is int32, ...); "
                "minitf has no reference dtypes (101 and up)."
            )
        return d
    if value is float:
        return float32
    if value is int:
        return int32
    if value is complex:
        return complex128
    if value is _py_bool:
        return bool
    try:
        return from_numpy(np.dtype(value))
    except TypeError as exc:
        raise TypeError(f"Cannot convert the argument `type_value`: {value!r} to a TensorFlow DType.") from exc


def infer(value: Any) -> DType:
    """The dtype `tf.constant(value)` picks when none is given: TensorFlow's rules, not NumPy's.

    Python ints become int32 (int64 if they do not fit), Python floats float32, NumPy values keep their dtype.
    """
    if isinstance(value, np.ndarray | np.generic):
        return from_numpy(value.dtype)
    if isinstance(value, _py_bool):
        return bool
    if isinstance(value, int):
        return int32 if -(2**31) <= value < 2**31 else int64
    if isinstance(value, float):
        return float32
    if isinstance(value, complex):
        return complex128
    if isinstance(value, bytes | str):
        return string
    return _infer_nested(value)


def _infer_nested(value: Any) -> DType:
    """Infer the dtype of a (possibly nested) list: the "widest" kind among its leaves, as TensorFlow does."""
    kinds: set[str] = set()
    big_int = False
    np_dtypes: list[np.dtype] = []
    stack = [value]
    while stack:
        v = stack.pop()
        if isinstance(v, list | tuple):
            stack.extend(v)
        elif isinstance(v, _py_bool):
            kinds.add("b")
        elif isinstance(v, int):
            kinds.add("i")
            big_int = big_int or not (-(2**31) <= v < 2**31)
        elif isinstance(v, float):
            kinds.add("f")
        elif isinstance(v, complex):
            kinds.add("c")
        elif isinstance(v, bytes | str):
            kinds.add("s")
        elif isinstance(v, np.ndarray | np.generic):
            np_dtypes.append(v.dtype)
        elif hasattr(v, "dtype") and isinstance(v.dtype, DType):
            np_dtypes.append(v.dtype._np)
        elif v is value:
            raise ValueError(
                f"Attempt to convert a value ({value!r}) with an unsupported type ({type(v)}) to a Tensor."
            )
        else:
            raise ValueError("Can't convert Python sequence with mixed types to Tensor.")
    if np_dtypes and not kinds:
        return from_numpy(np.result_type(*np_dtypes))
    first = value
    while isinstance(first, list | tuple) and first:
        first = first[0]
    if isinstance(first, _py_bool) and kinds != {"b"}:  # TensorFlow reads the first element's type: [True, 1] fails
        raise ValueError("Can't convert Python sequence with mixed types to Tensor.")
    if "s" in kinds:
        if len(kinds) > 1 or np_dtypes:
            raise ValueError("Can't convert Python sequence with mixed types to Tensor.")
        return string
    if "c" in kinds:
        return complex128
    if "f" in kinds:
        return float32
    if "i" in kinds:
        return int64 if big_int else int32
    if "b" in kinds:
        return bool
    return float32  # an empty list
