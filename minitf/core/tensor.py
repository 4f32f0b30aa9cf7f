"""`tf.Tensor`: an immutable value with a shape and a dtype.

An `EagerTensor` holds a NumPy array (or NumPy scalar). The Python operators (`+`, `@`, `[]`, ...) are
attached in `minitf/ops/operators.py`, next to the ops they call, so this file is only about what a
tensor *is*: its value, its shape and dtype, how it prints and which Python protocols it refuses.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from minitf.core import dtypes
from minitf.core.tensor_interface import TensorInterface
from minitf.core.tensor_shape import TensorShape, shape_of


class Tensor(TensorInterface):
    """The common base of eager and symbolic (traced) tensors, so `isinstance(x, tf.Tensor)` covers both.

    Every tensor has a `dtype`, a `shape`, a `name` and a `device`; a symbolic tensor (minitf/function/tracing/graph.py)
    also has the `op` that makes it and the `graph` it belongs to, which TensorFlow's eager tensors refuse.
    Each subclass implements them its own way (TensorInterface declares them for type checkers).
    """

    # `_keras_mask`: the mask a Keras layer attached to its output (keras/layers/masking.py); unset on most tensors.
    __slots__ = ("__weakref__", "_keras_mask")
    # Both kinds keep their dtype in a slot `_dtype`, which the hot paths of minitf read instead of the property.
    _dtype: dtypes.DType
    __array_priority__ = 100  # `np_array + tensor` calls the tensor's operator, as in TensorFlow

    def __hash__(self) -> int:
        raise TypeError("Tensor is unhashable. Instead, use tensor.ref() as the key.")

    def ref(self) -> Reference:
        """A hashable handle on this exact tensor (tensors themselves are unhashable, since `==` is elementwise)."""
        return Reference(self)

    experimental_ref = ref

    def get_shape(self) -> TensorShape:
        return self.shape

    @property
    def ndim(self) -> int | None:
        return self.shape.rank  # None when the rank is unknown


class Reference:
    """What `Tensor.ref()` returns: hashes and compares by identity."""

    __slots__ = ("_obj",)

    def __init__(self, obj: Any) -> None:
        self._obj = obj

    def deref(self) -> Any:
        return self._obj

    def __hash__(self) -> int:
        return id(self._obj)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Reference) and other._obj is self._obj

    def __repr__(self) -> str:
        return f"<Reference wrapping {self._obj!r}>"


class EagerTensor(Tensor):
    """A tensor with a concrete value: `_value` is a NumPy array or NumPy scalar, `_dtype` its DType."""

    __slots__ = ("_value", "_dtype")
    _value: Any  # np.ndarray or a NumPy scalar
    _dtype: dtypes.DType

    # Tensors are made by ops through `make`, never by calling the class; `tf.constant` is the public way.
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        raise TypeError("Tensors are created with tf.constant(...) or tf.convert_to_tensor(...).")

    @property
    def dtype(self) -> dtypes.DType:
        return self._dtype

    @property
    def shape(self) -> TensorShape:
        return shape_of(self._value)

    @property
    def ndim(self) -> int:
        return np.ndim(self._value)

    def numpy(self) -> Any:
        """The value as NumPy: an ndarray (a copy, so the tensor stays immutable) or a NumPy scalar."""
        v = self._value
        if isinstance(v, np.ndarray):
            return v.copy() if v.ndim else v[()]  # a scalar is a NumPy scalar (np.float32), as in TensorFlow
        return v.item() if type(v) is np.bytes_ else v  # a string scalar is bytes (np.add of two makes np.bytes_)

    _numpy = numpy

    def __array__(self, dtype: Any = None, copy: bool | None = None) -> np.ndarray:
        a = np.asarray(self._value)
        return a if dtype is None else a.astype(dtype, copy=False)

    # --- printing, exactly as TensorFlow prints ---
    def _numpy_text(self, is_repr: bool) -> str:
        v: Any = self._value
        if isinstance(v, np.ndarray) and v.ndim == 0:
            v = v[()]
        if is_repr:
            scalar = np.isscalar(v)  # a NumPy scalar here (kept in a name so checkers do not narrow `v`)
            text = repr(v.item()) if scalar and type(v) is not bytes else repr(v)
        else:
            text = str(v)
        return "\n" + text if "\n" in text else text

    def __str__(self) -> str:
        return f"tf.Tensor({self._numpy_text(False)}, shape={self.shape}, dtype={self._dtype.name})"

    def __repr__(self) -> str:
        return f"<tf.Tensor: shape={self.shape}, dtype={self._dtype.name}, numpy={self._numpy_text(True)}>"

    def __format__(self, spec: str) -> str:
        return format(self._value, spec)

    # --- Python protocols with TensorFlow's rules ---
    def __bool__(self) -> bool:
        v = self._value
        if isinstance(v, np.ndarray) and v.size == 0:
            return False  # TensorFlow keeps NumPy's old answer for empty arrays
        return bool(v)  # NumPy raises ValueError for more than one element, as TensorFlow does

    def __len__(self) -> int:
        if np.ndim(self._value) == 0:
            raise TypeError("Scalar tensor has no `len()`")
        return len(self._value)

    def __int__(self) -> int:
        return int(self._value)

    def __float__(self) -> float:
        return float(self._value)

    def __complex__(self) -> complex:
        return complex(self._value)

    def __index__(self) -> int:
        return np.asarray(self._value).__index__()

    def __copy__(self) -> EagerTensor:
        return self

    def __deepcopy__(self, memo: dict) -> EagerTensor:
        return self

    def __reduce__(self) -> tuple:
        return _rebuild, (np.asarray(self._value), self._dtype.name)

    @property
    def name(self) -> str:
        raise AttributeError("Tensor.name is undefined when eager execution is enabled.")

    @property
    def device(self) -> str:
        """Every eager tensor lives on the one CPU (minitf/core/devices.py)."""
        return "/job:localhost/replica:0/task:0/device:CPU:0"


def make(value: Any, dtype: dtypes.DType) -> EagerTensor:
    """Wrap a NumPy value that already has `dtype`'s storage type. The one constructor every op uses."""
    t = _new(EagerTensor)
    t._value = value
    t._dtype = dtype
    return t


_new = object.__new__


def _rebuild(value: np.ndarray, dtype_name: str) -> EagerTensor:
    v = value[()] if value.ndim == 0 else value
    return make(v, dtypes.as_dtype(dtype_name))
