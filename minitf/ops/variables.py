"""`tf.Variable`: a named, mutable slot holding a tensor; the only state a model has.

Reading a variable gives an ordinary (immutable) tensor. Tapes watch trainable variables when they are
read; a function being traced turns reads and assignments into graph operations (see `minitf/function/`).
"""

from __future__ import annotations

import enum
import weakref
from typing import Any

import numpy as np

from minitf.core import dtypes
from minitf.core.context import state
from minitf.core.conversion import convert_to_tensor, to_numpy
from minitf.core.devices import CPU_DEVICE
from minitf.core.errors import InvalidArgumentError, op_error
from minitf.core.op import REGISTRY, bind
from minitf.core.tensor import EagerTensor, Reference, Tensor, make
from minitf.core.tensor_interface import OPERATORS
from minitf.core.tensor_shape import TensorShape
from minitf.ops import state_ops
from minitf.ops.array.gather_scatter import gather, gather_nd
from minitf.ops.array.index_arguments import index_tensor
from minitf.ops.array.shape_ops import expand_dims
from minitf.ops.array.slicing import getitem, slice_update
from minitf.ops.math.cast import cast
from minitf.ops.variable_operators import VariableOperators


class VariableAggregation(enum.Enum):
    """How a distributed variable combines the updates of its replicas (`tf.VariableAggregation`)."""

    NONE = 0
    SUM = 1
    MEAN = 2
    ONLY_FIRST_REPLICA = 3


VariableAggregation.__name__ = VariableAggregation.__qualname__ = "VariableAggregationV2"  # TensorFlow's name


class VariableSynchronization(enum.Enum):
    """When a distributed variable is synchronized (`tf.VariableSynchronization`; one device here: recorded)."""

    AUTO = 0
    NONE = 1
    ON_WRITE = 2
    ON_READ = 3


class Variable(VariableOperators):
    """A mutable tensor-valued slot. Arithmetic on it reads it and returns ordinary tensors."""

    _next_uid = 0

    def __new__(cls, *args: Any, **kwargs: Any) -> Variable:
        # As in TensorFlow, `tf.Variable(...)` makes a ResourceVariable, a subclass: isinstance(v, tf.Variable) holds.
        # Under a strategy's scope the strategy chooses the class (MirroredStrategy: a MirroredVariable).
        if cls is Variable:
            cls = ResourceVariable if state.strategy is None else state.strategy._variable_class
        return object.__new__(cls)

    def __init__(
        self,
        initial_value: Any = None,
        trainable: bool = True,
        validate_shape: bool = True,
        caching_device: Any = None,
        name: str | None = None,
        variable_def: Any = None,
        dtype: Any = None,
        import_scope: Any = None,
        constraint: Any = None,
        synchronization: Any = None,
        aggregation: Any = None,
        shape: Any = None,
        experimental_enable_variable_lifting: bool = True,
    ) -> None:
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
        # inside tf.name_scope blocks the name starts with their names ("outer/inner/w:0"), as in TensorFlow
        self._name = "/".join([*state.name_scopes(), "Variable" if name is None else name]) + ":0"
        Variable._next_uid += 1
        self._uid = Variable._next_uid
        self._handle = make(self, dtypes.resource)  # what ReadVariableOp and the assign ops take as input

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
        return CPU_DEVICE

    @property
    def trainable(self) -> bool:
        return self._trainable

    @property
    def ndim(self) -> int | None:
        return self._shape.rank

    def get_shape(self) -> TensorShape:
        return self._shape

    def numpy(self) -> Any:
        return self._value.numpy()

    # --- reading ---
    def value(self) -> Tensor:
        return self.read_value()

    @property
    def handle(self) -> Tensor:
        """The `resource` tensor that stands for this variable in ops that read or write it."""
        return self._handle

    def read_value(self) -> Tensor:
        """The current value as a tensor: a ReadVariableOp, so tapes and the tracer see the read."""
        return bind(state_ops.ReadVariableOp, self._handle, dtype=self._dtype, _shape=self._shape)

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
            raise op_error(
                InvalidArgumentError,
                op,
                f"Cannot update variable with shape [{dims[0]}] using a Tensor "
                f"with shape [{dims[1]}], shapes must be equal.",
            )
        raise ValueError(
            f"Cannot assign value to variable ' {self._name}': Shape mismatch.The variable shape "
            f"{self._shape}, and the assigned value shape {t.shape} are incompatible."
        )

    def assign(self, value: Any, use_locking: bool = False, name: str | None = None, read_value: bool = True) -> Any:
        """Replace the value (same dtype and shape); returns the variable."""
        return self._write(self._checked(value), "assign", read_value)

    def assign_add(
        self, delta: Any, use_locking: bool = False, name: str | None = None, read_value: bool = True
    ) -> Any:
        return self._write(self._checked(delta, "add"), "add", read_value)

    def assign_sub(
        self, delta: Any, use_locking: bool = False, name: str | None = None, read_value: bool = True
    ) -> Any:
        return self._write(self._checked(delta, "sub"), "sub", read_value)

    def _write(self, value: Tensor, how: str, read_value: bool) -> Any:
        bind(state_ops.ASSIGN[how], self._handle, value, dtype=self._dtype)
        if state.graph is not None:
            return self if read_value else None
        return UnreadVariable(self) if read_value else None

    def __iadd__(self, other: Any) -> Any:
        raise RuntimeError(
            "`variable += value` with `tf.Variable`s is not supported. Use `variable.assign_add(value)`"
            " to modify the variable, or `out = variable + value` if you need to get a new output "
            "Tensor."
        )

    def __isub__(self, other: Any) -> Any:
        raise RuntimeError(
            "`variable -= value` with `tf.Variable`s is not supported. Use `variable.assign_sub(value)`"
            " to modify the variable, or `out = variable - value` if you need to get a new output "
            "Tensor."
        )

    # --- printing and protocols ---
    def __repr__(self) -> str:
        if state.graph is not None:  # while tracing, TensorFlow shows no value
            return f"<tf.Variable '{self._name}' shape={self._shape} dtype={self._dtype.name}>"
        text = self._value._numpy_text(True)
        return f"<tf.Variable '{self._name}' shape={self._shape} dtype={self._dtype.name}, numpy={text}>"

    __str__ = __repr__

    def __hash__(self) -> int:
        raise TypeError(f"Variable is unhashable. Instead, use variable.ref() as the key. (Variable: {self!r})")

    def ref(self) -> Reference:
        return Reference(self)

    experimental_ref = ref

    def __bool__(self) -> bool:
        return bool(self.read_value())

    def __len__(self) -> int:
        raise TypeError(
            "object of type 'ResourceVariable' has no len()\nHint: use v.shape[0] for the size of the first axis."
        )

    def __int__(self) -> int:
        return int(self._value)

    def __float__(self) -> float:
        return float(self._value)

    def __index__(self) -> int:
        return self._value.__index__()

    def __format__(self, spec: str) -> str:
        return format(self._value, spec)

    def __getitem__(self, key: Any) -> Tensor:
        """A slice of the value that also has `.assign`, so `v[0].assign(9.)` writes into the variable (eagerly,
        under a tape and inside a tf.function alike)."""
        out = getitem(self.read_value(), key)
        if not _is_mask(key):
            _remember_slice(out, self, key)
        return out

    # --- reading parts ---
    def sparse_read(self, indices: Any, name: str | None = None) -> Tensor:
        """The rows at `indices`: tf.gather of the value (its gradient is IndexedSlices, as TensorFlow's)."""
        return gather(self, indices)

    def gather_nd(self, indices: Any, name: str | None = None) -> Tensor:
        return gather_nd(self, indices)

    # --- scattering: tf.tensor_scatter_nd_* written back into the variable ---
    def scatter_nd_update(self, indices: Any, updates: Any, name: str | None = None) -> Any:
        """Replace the entries (or slices) at `indices` by `updates`; returns the variable."""
        return self._scatter_nd("TensorScatterUpdate", indices, updates)

    def scatter_nd_add(self, indices: Any, updates: Any, name: str | None = None) -> Any:
        return self._scatter_nd("TensorScatterAdd", indices, updates)

    def scatter_nd_sub(self, indices: Any, updates: Any, name: str | None = None) -> Any:
        return self._scatter_nd("TensorScatterSub", indices, updates)

    def scatter_nd_max(self, indices: Any, updates: Any, name: str | None = None) -> Any:
        return self._scatter_nd("TensorScatterMax", indices, updates)

    def scatter_nd_min(self, indices: Any, updates: Any, name: str | None = None) -> Any:
        return self._scatter_nd("TensorScatterMin", indices, updates)

    def _scatter_nd(self, op_name: str, indices: Any, updates: Any) -> Any:
        new = bind(
            REGISTRY[op_name],
            self.read_value(),
            index_tensor(indices, op_name),
            convert_to_tensor(updates, dtype=self._dtype),
        )
        return self.assign(new)

    # tf.IndexedSlices name rows of the first dimension: the same scatters with one coordinate per row.
    def scatter_update(self, sparse_delta: Any, use_locking: bool = False, name: str | None = None) -> Any:
        return self._scatter_rows("TensorScatterUpdate", sparse_delta)

    def scatter_add(self, sparse_delta: Any, use_locking: bool = False, name: str | None = None) -> Any:
        return self._scatter_rows("TensorScatterAdd", sparse_delta)

    def scatter_sub(self, sparse_delta: Any, use_locking: bool = False, name: str | None = None) -> Any:
        return self._scatter_rows("TensorScatterSub", sparse_delta)

    def scatter_max(self, sparse_delta: Any, use_locking: bool = False, name: str | None = None) -> Any:
        return self._scatter_rows("TensorScatterMax", sparse_delta)

    def scatter_min(self, sparse_delta: Any, use_locking: bool = False, name: str | None = None) -> Any:
        return self._scatter_rows("TensorScatterMin", sparse_delta)

    def scatter_mul(self, sparse_delta: Any, use_locking: bool = False, name: str | None = None) -> Any:
        return self._scatter_rows("mul", sparse_delta)

    def scatter_div(self, sparse_delta: Any, use_locking: bool = False, name: str | None = None) -> Any:
        return self._scatter_rows("div", sparse_delta)

    def _scatter_rows(self, how: str, sparse_delta: Any) -> Any:
        if type(sparse_delta).__name__ != "IndexedSlices":
            raise TypeError(
                f"Argument `sparse_delta` must be a `tf.IndexedSlices`. Received arg: {sparse_delta}\n"
                "Hint: tf.IndexedSlices(values, indices) names the rows to change; for coordinates "
                "use variable.scatter_nd_update(indices, updates)."
            )
        rows = expand_dims(convert_to_tensor(sparse_delta.indices), -1)
        if how in ("mul", "div"):  # new row = old row (*|/) update
            old = gather(self.read_value(), sparse_delta.indices)
            values = convert_to_tensor(sparse_delta.values, dtype=self._dtype)
            return self._scatter_nd("TensorScatterUpdate", rows, old * values if how == "mul" else old / values)
        return self._scatter_nd(how, rows, sparse_delta.values)

    def __iter__(self) -> Any:
        return iter(self.read_value())

    def __deepcopy__(self, memo: dict) -> Variable:
        return Variable(self._value, trainable=self._trainable, name=self._name[:-2])


class ResourceVariable(Variable):
    """The class of every variable `tf.Variable(...)` makes (TensorFlow's variables live in resources)."""


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

    def read_value(self) -> Tensor:
        """A read of the variable itself, so that tapes connect it to the variable they watch."""
        return self.__dict__["_variable"].read_value()

    value = read_value
    _as_tensor = read_value

    def __repr__(self) -> str:
        return super().__repr__().replace(f"'{self._variable._name}'", "'UnreadVariable'", 1)

    __str__ = __repr__


# What `variable[key]` returned, by id: (a weak reference to the slice, the variable, the key). As in
# TensorFlow, a slice of a variable is an ordinary tensor that also has `.assign`.
_slice_origins: dict[int, tuple[Any, Variable, Any]] = {}


def _remember_slice(piece: Tensor, variable: Variable, key: Any) -> None:
    ident = id(piece)
    _slice_origins[ident] = (weakref.ref(piece), variable, key)
    weakref.finalize(piece, _slice_origins.pop, ident, None)


def _slice_assign(piece: Tensor) -> Any:
    """`variable[key].assign`: the tensor's `assign` attribute exists only for slices of a variable."""
    origin = _slice_origins.get(id(piece))
    if origin is None or origin[0]() is not piece:
        raise AttributeError(f"'{type(piece).__name__}' object has no attribute 'assign'")
    _, variable, key = origin

    def assign(value: Any, use_locking: bool = False, name: str | None = None, read_value: bool = True) -> Any:
        """Write `value` (broadcast) into this part of the variable; returns the variable."""
        part = convert_to_tensor(value, dtype=variable.dtype)
        return variable.assign(slice_update(variable.read_value(), key, part), read_value=read_value)

    return assign


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
            return cast(initial_value, dtype)  # type: ignore[return-value]
        return initial_value
    if isinstance(initial_value, Tensor) and state.graph is not None:
        return make(state.graph.evaluate_constant(initial_value), initial_value.dtype)
    if isinstance(initial_value, Tensor):
        raise ValueError(
            "A tf.Variable's initial value must be concrete; inside a traced function create "
            "variables on the first call only (see `tf.init_scope`)."
        )
    array, dt = to_numpy(initial_value, dtype)
    return make(array, dt)


OPERATORS.provide(slice_assign=_slice_assign)
