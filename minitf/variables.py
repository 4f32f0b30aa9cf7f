"""`tf.Variable`: a named, mutable slot holding a tensor; the only state a model has.

Reading a variable gives an ordinary (immutable) tensor. Tapes watch trainable variables when they are
read; a function being traced turns reads and assignments into graph operations (see `minitf/function/`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from minitf import dtypes
from minitf.core import convert_to_tensor, state
from minitf.errors import InvalidArgumentError
from minitf.tensor import EagerTensor, Reference, Tensor, make
from minitf.tensor_shape import TensorShape


class Variable:
    """A mutable tensor-valued slot. Arithmetic on it reads it and returns ordinary tensors."""

    _next_uid = 0

    def __init__(self, initial_value: Any = None, trainable: bool = True, validate_shape: bool = True,
                 caching_device: Any = None, name: str | None = None, variable_def: Any = None, dtype: Any = None,
                 import_scope: Any = None, constraint: Any = None, synchronization: Any = None,
                 aggregation: Any = None, shape: Any = None, experimental_enable_variable_lifting: bool = True) -> None:
        if initial_value is None:
            raise ValueError("The `initial_value` arg (None) must be specified.")
        if callable(initial_value) and not isinstance(initial_value, Tensor | Variable):
            initial_value = initial_value()
        if state.graph is not None:
            state.graph.on_variable_created(self)
        value = _eager_value(initial_value, dtype)
        self._value: EagerTensor = value
        self._dtype = value.dtype
        self._shape = TensorShape(np.shape(value._value)) if shape is None else TensorShape(shape)
        self._trainable = bool(trainable)
        self._name = f"{'Variable' if name is None else name}:0"
        Variable._next_uid += 1
        self._uid = Variable._next_uid

    # --- what it is ---
    @property
    def dtype(self) -> dtypes.DType:
        return self._dtype

    @property
    def shape(self) -> TensorShape:
        return self._shape

    @property
    def name(self) -> str:
        return self._name

    @property
    def device(self) -> str:
        """Where the variable lives: the one CPU (TensorFlow's full device name)."""
        from minitf.devices import CPU_DEVICE
        return CPU_DEVICE

    @property
    def trainable(self) -> bool:
        return self._trainable

    @property
    def ndim(self) -> int:
        return self._shape.rank  # type: ignore[return-value]

    def get_shape(self) -> TensorShape:
        return self._shape

    def numpy(self) -> Any:
        return self._value.numpy()

    # --- reading ---
    def value(self) -> Tensor:
        return self.read_value()

    def read_value(self) -> Tensor:
        """The current value as a tensor; tapes and the tracer get to see the read."""
        if not state.active:
            return self._value
        if state.graph is not None:
            out = state.graph.read_variable(self)
        else:
            out = make(self._value._value, self._dtype)
        for tape in state.tapes:
            tape.record_read(self, out)
        return out

    _as_tensor = read_value

    def __array__(self, dtype: Any = None, copy: bool | None = None) -> np.ndarray:
        return np.asarray(self._value, dtype=dtype)

    # --- writing ---
    def _checked(self, value: Any, how: str = "assign") -> Tensor:
        t = convert_to_tensor(value, dtype=self._dtype)
        if validate_shape_ok(self._shape, t.shape):
            return t
        if how != "assign":  # assign_add/assign_sub: the kernel checks, so it is an OpError
            op = "AssignAddVariableOp" if how == "add" else "AssignSubVariableOp"
            dims = [",".join(map(str, s.as_list())) for s in (self._shape, t.shape)]
            raise InvalidArgumentError(None, None, f"Cannot update variable with shape [{dims[0]}] using a Tensor with "
                                       f"shape [{dims[1]}], shapes must be equal. [Op:{op}] name: ")
        raise ValueError(f"Cannot assign value to variable ' {self._name}': Shape mismatch.The variable shape "
                         f"{self._shape}, and the assigned value shape {t.shape} are incompatible.")

    def assign(self, value: Any, use_locking: bool = False, name: str | None = None, read_value: bool = True) -> Any:
        """Replace the value (same dtype and shape); returns the variable."""
        return self._write(self._checked(value), "assign", read_value)

    def assign_add(self, delta: Any, use_locking: bool = False, name: str | None = None,
                   read_value: bool = True) -> Any:
        return self._write(self._checked(delta, "add"), "add", read_value)

    def assign_sub(self, delta: Any, use_locking: bool = False, name: str | None = None,
                   read_value: bool = True) -> Any:
        return self._write(self._checked(delta, "sub"), "sub", read_value)

    def _write(self, value: Tensor, how: str, read_value: bool) -> Any:
        if state.graph is not None:
            state.graph.assign_variable(self, value, how)
            return self if read_value else None
        new = value._value  # type: ignore[attr-defined]
        if how == "add":
            new = self._value._value + new
        elif how == "sub":
            new = self._value._value - new
        self._value = make(np.asarray(new, dtype=self._dtype._np)[()], self._dtype)
        return UnreadVariable(self) if read_value else None

    def _set_value_eagerly(self, value: Any) -> None:
        """Used by compiled functions to store their results."""
        self._value = make(value, self._dtype)

    def __iadd__(self, other: Any) -> Any:
        raise RuntimeError("`variable += value` with `tf.Variable`s is not supported. Use `variable.assign_add(value)`"
                           " to modify the variable, or `out = variable + value` if you need to get a new output "
                           "Tensor.")

    def __isub__(self, other: Any) -> Any:
        raise RuntimeError("`variable -= value` with `tf.Variable`s is not supported. Use `variable.assign_sub(value)`"
                           " to modify the variable, or `out = variable - value` if you need to get a new output "
                           "Tensor.")

    # --- printing and protocols ---
    def __repr__(self) -> str:
        if state.graph is not None:  # while tracing, TensorFlow shows no value
            return f"<tf.Variable '{self._name}' shape={self._shape} dtype={self._dtype.name}>"
        text = self._value._numpy_text(True)
        return f"<tf.Variable '{self._name}' shape={self._shape} dtype={self._dtype.name}, numpy={text}>"

    __str__ = __repr__

    def __hash__(self) -> int:
        raise TypeError("Variable is unhashable. Instead, use variable.ref() as the key.")

    def ref(self) -> Reference:
        return Reference(self)

    experimental_ref = ref

    def __bool__(self) -> bool:
        return bool(self.read_value())

    def __len__(self) -> int:
        raise TypeError("object of type 'ResourceVariable' has no len()\nHint: use v.shape[0] for the size of the "
                        "first axis.")

    def __int__(self) -> int:
        return int(self._value)

    def __float__(self) -> float:
        return float(self._value)

    def __index__(self) -> int:
        return self._value.__index__()

    def __format__(self, spec: str) -> str:
        return format(self._value, spec)

    def __getitem__(self, key: Any) -> Tensor:
        """A slice of the value; eagerly it also has `.assign`, so `v[0].assign(9.)` writes into the variable."""
        from minitf.ops.array_ops import getitem
        out = getitem(self.read_value(), key)
        # (Only in plain eager mode: a tape must see the very tensor the slice op produced.)
        if state.active or not isinstance(out, EagerTensor) or _is_mask(key):
            return out
        piece = _new(SliceOfVariable)
        piece._value, piece._dtype, piece._variable, piece._key = out._value, out._dtype, self, key
        return piece

    def __iter__(self) -> Any:
        return iter(self.read_value())

    def __deepcopy__(self, memo: dict) -> Variable:
        return Variable(self._value, trainable=self._trainable, name=self._name[:-2])


class UnreadVariable(Variable):
    """What `assign` returns eagerly, as in TensorFlow: the same variable seen through a new object that prints
    as 'UnreadVariable'. Reading it reads the variable; assigning through it assigns the variable."""

    def __init__(self, variable: Variable) -> None:
        self.__dict__["_variable"] = variable

    def __getattr__(self, name: str) -> Any:
        return getattr(self.__dict__["_variable"], name)

    def __setattr__(self, name: str, value: Any) -> None:
        setattr(self.__dict__["_variable"], name, value)

    @property
    def name(self) -> str:
        return "UnreadVariable"

    def __repr__(self) -> str:
        return super().__repr__().replace(f"'{self._variable._name}'", "'UnreadVariable'", 1)

    __str__ = __repr__


class SliceOfVariable(EagerTensor):
    """What `variable[key]` gives eagerly: an ordinary tensor that remembers where it came from, so that
    `variable[key].assign(value)` can write the value (broadcast) into that part of the variable."""

    __slots__ = ("_variable", "_key")

    def assign(self, value: Any, use_locking: bool = False, name: str | None = None, read_value: bool = True) -> Any:
        variable: Variable = self._variable
        new = np.array(variable._value._value, copy=True)
        key = _numpy_key(self._key)
        part = convert_to_tensor(value, dtype=variable.dtype)._value  # type: ignore[attr-defined]
        target = np.shape(new[key])
        try:
            np.broadcast_to(part, target)
        except ValueError:
            shapes = [",".join(map(str, s)) for s in (np.shape(part), target)]
            raise InvalidArgumentError(None, None, f"Cannot broadcast input shape [{shapes[0]}] into final shape "
                                       f"[{shapes[1]}] [Op:ResourceStridedSliceAssign] name: ") from None
        new[key] = part
        return variable.assign(new[()] if new.ndim == 0 else new, read_value=read_value)


def _numpy_key(key: Any) -> Any:
    """The same index with scalar tensors turned into ints, ready for NumPy's item assignment."""
    def plain(item: Any) -> Any:
        if isinstance(item, slice):
            return slice(plain(item.start), plain(item.stop), plain(item.step))
        return int(item) if isinstance(item, Tensor) else item
    return tuple(plain(k) for k in key) if isinstance(key, tuple) else plain(key)


def _is_mask(key: Any) -> bool:
    dtype = getattr(key, "dtype", None)
    return dtype is dtypes.bool or dtype == np.bool_


_new = object.__new__


def validate_shape_ok(expected: TensorShape, got: TensorShape) -> bool:
    return expected.is_compatible_with(got)


def _eager_value(initial_value: Any, dtype: Any) -> EagerTensor:
    """Variables always hold a concrete value, even when created while a function is traced."""
    dtype = None if dtype is None else dtypes.as_dtype(dtype)
    if isinstance(initial_value, Variable):
        initial_value = initial_value._value
    if isinstance(initial_value, EagerTensor):
        if dtype is not None and initial_value.dtype is not dtype:
            from minitf.ops.math_ops import cast
            return cast(initial_value, dtype)  # type: ignore[return-value]
        return initial_value
    if isinstance(initial_value, Tensor) and state.graph is not None:
        return make(state.graph.evaluate_constant(initial_value), initial_value.dtype)  # type: ignore[attr-defined]
    if isinstance(initial_value, Tensor):
        raise ValueError("A tf.Variable's initial value must be concrete; inside a traced function create "
                         "variables on the first call only (see `tf.init_scope`).")
    from minitf.core import to_numpy
    array, dt = to_numpy(initial_value, dtype)
    return make(array, dt)


def _install_operators() -> None:
    """Arithmetic on a Variable reads it and applies the Tensor operator."""
    names = ["add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "matmul", "and", "or", "xor"]
    for n in names:
        for dunder in (f"__{n}__", f"__r{n}__"):
            if hasattr(Tensor, dunder):
                setattr(Variable, dunder, _delegate(dunder))
    for dunder in ("__neg__", "__abs__", "__invert__", "__lt__", "__le__", "__gt__", "__ge__", "__eq__", "__ne__"):
        setattr(Variable, dunder, _delegate(dunder))
    for dunder in ("__eq__", "__ne__"):
        setattr(Variable, dunder, _compare_not_none(getattr(Variable, dunder)))


def _compare_not_none(compare: Any) -> Any:
    """`variable == None` converts None to a tensor in TensorFlow, which fails (a tensor just says False)."""
    def method(self: Variable, other: Any) -> Any:
        if other is None:
            raise ValueError("Attempt to convert a value (None) with an unsupported type (<class 'NoneType'>) to a "
                             "Tensor.")
        return compare(self, other)
    method.__name__ = compare.__name__
    return method


def _delegate(dunder: str) -> Any:
    def method(self: Variable, *args: Any) -> Any:
        return getattr(self.read_value(), dunder)(*args)
    method.__name__ = dunder
    return method
