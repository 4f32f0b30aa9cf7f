"""Turning Python and NumPy values into tensors, with TensorFlow's rules: `tf.convert_to_tensor`, the dtype a
literal gets (Python int -> int32, float -> float32), the conversions TensorFlow refuses (a float to an int
tensor), and the other operand of `x * 2` (converted to `x`'s dtype).
"""

from __future__ import annotations

from typing import Any, cast

import numpy as np

from minitf.core import dtypes
from minitf.core.context import state
from minitf.core.tensor import Tensor, make
from minitf.core.tensor_shape import TensorShape


def to_numpy(value: Any, dtype: dtypes.DType | None = None) -> tuple[Any, dtypes.DType]:
    """A Python or NumPy value as a NumPy value of the dtype `tf.constant(value, dtype)` gives it."""
    try:
        inferred = dtypes.infer(value)
    except ValueError as exc:
        if state.graph is not None and "mixed types" in str(exc):  # TensorFlow's graph-mode conversion
            raise TypeError(
                f"Failed to convert elements of {value!r} to Tensor. Consider casting elements to a "
                "supported type. See https://www.tensorflow.org/api_docs/python/tf/dtypes for "
                "supported TF dtypes."
            ) from None
        raise
    target = inferred if dtype is None else dtype
    if not isinstance(value, np.ndarray | np.generic) and dtype is not None and not _holds_nothing(value):
        _refuse_lossy(value, inferred, target)
    if target is dtypes.string:
        if isinstance(value, np.ndarray) and value.dtype.kind not in "SUO" and state.graph is not None:
            raise TypeError(
                f"Expected binary or unicode string, got {value.flat[0].item() if value.size else value!r}"
                "\nHint: tf.strings.as_string turns numbers into text."
            )
        if isinstance(value, np.ndarray) and value.dtype.kind not in "SUO":
            raise ValueError(
                f"Failed to convert a NumPy array to a Tensor (Unsupported object type "
                f"{type(value.flat[0].item()).__name__ if value.size else value.dtype})."
            )
        return _strings(value), target
    try:
        # Build floats directly in the target precision (0.1 as float64 must not pass through float32);
        # integers go through the inferred type so that narrowing wraps around as in TensorFlow.
        build = target if target.kind in "fc" else inferred
        array = np.array(value, dtype=build._np if build is not dtypes.string else None)
    except ValueError as exc:
        if "inhomogeneous" in str(exc) or "sequence" in str(exc):
            raise ValueError("Can't convert non-rectangular Python sequence to Tensor.") from None
        raise
    if array.dtype != target._np:
        with np.errstate(all="ignore"):
            array = array.astype(target._np)
    return (array[()] if array.ndim == 0 else array), target


# The dtypes TensorFlow converts a Python bool to (it refuses int8, int16, uint8, uint16, uint32 and complex64).
_BOOL_TARGETS = frozenset(
    {
        dtypes.bool,
        dtypes.int32,
        dtypes.int64,
        dtypes.uint64,
        dtypes.float16,
        dtypes.float32,
        dtypes.float64,
        dtypes.complex128,
    }
)


def _holds_nothing(value: Any) -> bool:
    """`[]`, `[[], []]`: no element whose type could be lost, so any dtype takes it (`tf.constant([], tf.string)`)."""
    return isinstance(value, list | tuple) and all(_holds_nothing(item) for item in value)


def _refuse_lossy(value: Any, inferred: dtypes.DType, target: dtypes.DType) -> None:
    """TensorFlow refuses to turn Python floats into ints (and complex into reals, text into numbers)."""
    lossy = (
        (inferred.is_floating and (target.is_integer or target.is_bool))
        or (inferred.is_complex and not target.is_complex)
        or ((inferred is dtypes.string) != (target is dtypes.string))
        or (inferred.is_integer and target.is_bool)
        # A graph's constants are built more leniently than eager tensors: True becomes an int8 1 there.
        or (inferred.is_bool and target not in _BOOL_TARGETS and state.graph is None)
    )
    if lossy:
        raise TypeError(f"Cannot convert {value!r} to EagerTensor of dtype {target.name}")


def _strings(value: Any) -> Any:
    def enc(v: Any) -> Any:
        if isinstance(v, str):
            return v.encode()
        if isinstance(v, list | tuple):
            return [enc(x) for x in v]
        return v

    if isinstance(value, bytes | str):
        return enc(value)
    array = np.empty(np.shape(value), dtype=object)
    array[...] = (
        enc(value)
        if not isinstance(value, np.ndarray)
        else np.vectorize(lambda s: s.encode() if isinstance(s, str) else s, otypes=[object])(value)
    )
    return array


def constant_tensor(value: Any, dtype: dtypes.DType | None = None) -> Tensor:
    """A tensor holding `value`: eager, or a `Const` node when a function is being traced."""
    array, dtype = to_numpy(value, dtype)
    if state.graph is not None:
        return state.graph.constant(array, dtype)
    return make(array, dtype)


def convert_to_tensor(value: Any, dtype: Any = None, dtype_hint: Any = None, name: str | None = None) -> Tensor:
    """`tf.convert_to_tensor`: tensors pass through (their dtype must match), everything else becomes a constant."""
    dtype = None if dtype is None else dtypes.as_dtype(dtype)
    if isinstance(value, Tensor):
        if dtype is not None and value.dtype is not dtype:
            raise ValueError(
                f"Tensor conversion requested dtype {dtype.name} for Tensor with dtype {value.dtype.name}: {value!r}"
            )
        return value
    as_tensor = getattr(value, "_as_tensor", None)  # Variables
    if as_tensor is not None:
        return convert_to_tensor(as_tensor(), dtype)
    to_dense = getattr(value, "_to_dense", None)  # IndexedSlices
    if to_dense is not None:
        return convert_to_tensor(to_dense(), dtype)
    if isinstance(value, TensorShape):
        return constant_tensor(np.array(_shape_values(value), dtype=np.int32), dtype or dtypes.int32)
    if hasattr(value, "_components"):  # a RaggedTensor or SparseTensor is made of tensors, not one
        raise ValueError(
            f"Attempt to convert a value ({value!r}) with an unsupported type ({type(value)}) to a Tensor.\nHint: "
            f"use its parts (values, to_tensor(), tf.sparse.to_dense) or an op of tf.ragged / tf.sparse."
        )
    if dtype is None and dtype_hint is not None:
        try:
            return constant_tensor(value, dtypes.as_dtype(dtype_hint))
        except (TypeError, ValueError):
            pass
    return constant_tensor(value, dtype)


def _shape_values(shape: TensorShape) -> list[int]:
    """A TensorShape's dimensions as values; TensorFlow refuses a partly unknown shape."""
    if not shape.is_fully_defined():
        raise ValueError(f"Cannot convert a partially known TensorShape {shape} to a Tensor.")
    return cast("list[int]", shape.as_list())  # fully defined: no None left


def static_value(t: Any) -> Any:
    """The value a tensor is known to have before running anything: an eager tensor's, or a traced constant's
    (None when it is only known at run time)."""
    value = getattr(t, "_value", None)
    if value is not None:
        return value
    op = getattr(t, "op", None)
    if op is not None and getattr(op, "type", None) == "Const":
        return op.attrs["value"]
    return None


def operand(value: Any, dtype: dtypes.DType, strict: bool = True) -> Tensor:
    """The other operand of a binary op, converted to the first operand's dtype.

    `x * 2` on a float32 `x` multiplies by a float32 2; `int_tensor * 1.5` cannot convert 1.5 to int32 and
    raises TypeError, as TensorFlow does. Only addition converts leniently (`strict=False`):
    `int_tensor + 1.5` keeps 1.5 a float32 and AddV2 then reports the dtype mismatch.
    """
    if isinstance(value, Tensor):
        return value
    kind = type(value)
    if (kind is float and dtype.kind == "f" or kind is int and dtype.kind in "fc") and state.graph is None:
        key = (kind, value, dtype)
        t = _scalar_cache.get(key)
        if t is None:
            if len(_scalar_cache) > 512:
                _scalar_cache.clear()
            # a 0-d array: NumPy combines it with an array in about two thirds of the time of a NumPy scalar
            t = _scalar_cache[key] = make(np.array(value, dtype=dtype.as_numpy_dtype), dtype)
        return t
    if not strict:
        return convert_to_tensor(value, dtype_hint=dtype)
    as_tensor = getattr(value, "_as_tensor", None)  # a Variable keeps its dtype; the op reports a mismatch
    return as_tensor() if as_tensor is not None else convert_to_tensor(value, dtype=dtype)


# Python numbers used as operands (`x * 1.01`) recur in loops; tensors are immutable, so one per value will do.
_scalar_cache: dict[tuple, Tensor] = {}
