"""`tf.TensorArray`: a list of same-shaped tensors that works inside graph loops (`ta = ta.write(i, x)`).

Inside a function it is stored as one stacked tensor, so a loop carries it like any other loop variable; `write` is
an op (`TensorListSetItem`) that returns the new stack, with a gradient that reads the written row back. Outside a
function it is a list of tensors changed in place, as TensorFlow's eager TensorArray (eager_tensor_array.py).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from minitf.core import dtypes
from minitf.core.context import state
from minitf.core.conversion import constant_tensor, convert_to_tensor
from minitf.core.errors import InvalidArgumentError
from minitf.core.op import GradContext, Op, bind
from minitf.core.tensor import Tensor
from minitf.core.tensor_shape import TensorShape
from minitf.function.control_flow.eager_tensor_array import EagerRows
from minitf.function.tracing.graph import SymbolicTensor
from minitf.ops.array.gather_scatter import gather
from minitf.ops.array.shape_ops import reshape
from minitf.ops.array.shape_ops import shape as array_shape
from minitf.ops.checks.tensor_checks import get_static_value


def _write_kernel(stack: Any, index: Any, value: Any, size: int = 0) -> Any:
    """Write row `index`; a TensorArray of static `size` has all its rows from the first write (zeros)."""
    stack = np.asarray(stack)
    value = np.asarray(value)
    if value.dtype.kind in "SU":  # a string row: objects, so longer strings written later are not cut short
        value = value.astype(object)
    i = int(index)
    if stack.ndim == 1 and stack.shape[0] == 0 and value.ndim != 0:
        stack = np.zeros((0,) + value.shape, dtype=value.dtype)
    if stack.ndim >= 1 and stack.shape[0] and stack.shape[1:] != value.shape:
        raise InvalidArgumentError(
            None,
            None,
            f"Tried to set a tensor with incompatible shape at a list index. Item "
            f"element shape: {list(value.shape)} list shape: {list(stack.shape[1:])}\nHint: "
            "every element of a TensorArray (every result of map_fn) needs the same shape.",
        )
    if i >= stack.shape[0]:
        grown = np.zeros((max(i + 1, size),) + value.shape, dtype=value.dtype)
        grown[: stack.shape[0]] = stack
        stack = grown
    else:
        stack = stack.copy()
    stack[i] = value if value.ndim else value[()]  # (a 0-d object array would be stored as an object)
    return stack


def _write_grad(ctx: GradContext, g: Tensor) -> list:
    index = ctx.inputs[1]
    return [bind(_ZeroRow, g, index), None, gather(g, index)]


TensorArrayWrite = Op(
    "TensorListSetItem",
    _write_kernel,
    grad=_write_grad,
    shape=lambda s, t, a: [(TensorShape([a.get("size") or None]) + s[2], t[2])],
)


def _zero_row_kernel(g: Any, index: Any) -> Any:
    out = np.array(g, copy=True)
    if int(index) < out.shape[0]:
        out[int(index)] = 0
    return out


_ZeroRow: Op = Op(
    "ZeroRow",
    _zero_row_kernel,
    shape=lambda s, t, a: [(s[0], t[0])],
    grad=lambda c, g: [bind(_ZeroRow, g, c.inputs[1]), None],
)


class TensorArray:
    """`tf.TensorArray`: a list of same-shaped tensors that works inside graph loops (`ta = ta.write(i, x)`).

    Traced, it is stored as one stacked tensor, so a loop can carry it like any other loop variable; eagerly its
    rows are a list (`_eager`), written in place, each read once unless `clear_after_read=False`.
    """

    def __init__(
        self,
        dtype: Any,
        size: Any = None,
        dynamic_size: bool | None = None,
        clear_after_read: Any = None,
        tensor_array_name: Any = None,
        handle: Any = None,
        flow: Any = None,
        infer_shape: bool = True,
        element_shape: Any = None,
        colocate_with_first_write_call: bool = True,
        name: Any = None,
    ) -> None:
        self.dtype = dtypes.as_dtype(dtype)
        self._dynamic_size = bool(dynamic_size)
        self._element_shape = TensorShape(element_shape) if element_shape is not None else None
        n = 0 if size is None or isinstance(size, Tensor) else int(size)
        if self._element_shape is not None and self._element_shape.is_fully_defined():
            self._stack = constant_tensor(
                np.zeros([n] + self._element_shape.as_list(), dtype=self.dtype._np), self.dtype
            )
        else:
            self._stack = constant_tensor(np.zeros([0], dtype=self.dtype._np), self.dtype)
        self._size = n
        self._eager = (
            EagerRows(self.dtype, size, dynamic_size, clear_after_read, element_shape, infer_shape)
            if state.graph is None
            else None
        )

    @classmethod
    def _from_stack(cls, stack: Tensor, like: TensorArray) -> TensorArray:
        ta = cls.__new__(cls)
        ta.dtype = like.dtype
        ta._dynamic_size = like._dynamic_size
        ta._element_shape = like._element_shape
        ta._stack = stack
        ta._size = like._size
        ta._eager = None
        return ta

    @property
    def dynamic_size(self) -> bool:
        return self._dynamic_size

    @property
    def flow(self) -> Tensor:
        """Kept for compatibility (TensorFlow's graph arrays order their ops through it); eagerly a zero."""
        return constant_tensor(0, dtypes.int32) if self._eager is not None else self._stack

    @property
    def handle(self) -> None:
        return None

    def identity(self) -> TensorArray:
        return self

    def grad(self, source: Any, flow: Any = None, name: Any = None) -> TensorArray:
        raise NotImplementedError(
            "TensorArray.grad is not supported when executing eagerly; eager's gradient implementation does not "
            "use/need this function to compute gradients of operations that use TensorArrays."
        )

    def close(self, name: Any = None) -> None:
        if self._eager is not None:
            self._eager.rows.clear()

    @property
    def element_shape(self) -> TensorShape:
        if self._eager is not None:
            return self._eager.element_shape
        return self._element_shape if self._element_shape is not None else TensorShape(None)

    def write(self, index: Any, value: Any, name: Any = None) -> TensorArray:
        if self._eager is not None:
            self._eager.write(index, value)
            return self
        value = convert_to_tensor(value, dtype=self.dtype)
        index = convert_to_tensor(index, dtype=dtypes.int32)
        size = 0 if self._dynamic_size else self._size
        stack = (
            bind(TensorArrayWrite, self._stack, index, value, size=size)
            if size
            else bind(TensorArrayWrite, self._stack, index, value)
        )
        ta = TensorArray._from_stack(stack, self)
        if ta._element_shape is None:
            ta._element_shape = value.shape
        return ta

    def read(self, index: Any, name: Any = None) -> Tensor:
        if self._eager is not None:
            return self._eager.read(index)
        out = gather(self._stack, convert_to_tensor(index, dtype=dtypes.int32))
        if isinstance(out, SymbolicTensor) and self._element_shape is not None:
            out.set_shape(self._element_shape)
        return out

    def stack(self, name: Any = None) -> Tensor:
        """All rows as one tensor; while tracing, its static shape is [size] + the written elements' shape."""
        if self._eager is not None:
            return self._eager.stack()
        if isinstance(self._stack, SymbolicTensor) and self._element_shape is not None:
            rows = None if self._dynamic_size or not self._size else self._size
            self._stack.set_shape(TensorShape([rows]) + self._element_shape)
        return self._stack

    def gather(self, indices: Any, name: Any = None) -> Tensor:
        if self._eager is not None:
            return self._eager.gather(indices)
        return gather(self._stack, indices)

    def unstack(self, value: Any, name: Any = None) -> TensorArray:
        if self._eager is not None:
            self._eager.unstack(value)
            return self
        value = convert_to_tensor(value, dtype=self.dtype)
        ta = TensorArray._from_stack(value, self)
        ta._element_shape = value.shape[1:]
        return ta

    def scatter(self, indices: Any, value: Any, name: Any = None) -> TensorArray:
        """Write the rows of `value` at `indices`."""
        if self._eager is not None:
            self._eager.scatter(indices, value)
            return self
        value = convert_to_tensor(value, dtype=self.dtype)
        ta = self
        for k, index in enumerate(np.asarray(get_static_value(indices)).reshape(-1)):
            ta = ta.write(int(index), value[k])
        return ta

    def split(self, value: Any, lengths: Any, name: Any = None) -> TensorArray:
        """Rows cut from `value` along its first axis, `lengths[i]` rows of it into element i."""
        if self._eager is not None:
            self._eager.split(value, lengths)
            return self
        raise NotImplementedError(
            "minitf splits into a TensorArray eagerly only.\nHint: inside a tf.function, write the pieces of "
            "tf.split(value, lengths) one by one."
        )

    def concat(self, name: Any = None) -> Tensor:
        if self._eager is not None:
            return self._eager.concat()
        shape = self._stack.shape
        return reshape(self._stack, [-1] + shape.as_list()[2:])

    def size(self, name: Any = None) -> Tensor:
        if self._eager is not None:
            return constant_tensor(len(self._eager.rows), dtypes.int32)
        if self._size and not self._dynamic_size:
            return constant_tensor(self._size, dtypes.int32)
        return array_shape(self._stack)[0]

    def __repr__(self) -> str:
        return f"<TensorArray dtype={self.dtype!r}>"
