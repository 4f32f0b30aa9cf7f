"""`SymbolicTensor`: an output of a graph operation, with a static shape and dtype but no value.

While a function is traced, every op returns these instead of eager tensors, so `print` shows
`Tensor("add:0", shape=(), dtype=int32)` and `.numpy()` does not exist. What needs a value (`bool(t)`,
`for x in t`, `int(t)`, NumPy) raises TensorFlow's error, with a hint at what works in a traced function.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from minitf.core import dtypes
from minitf.core.errors import OperatorNotAllowedInGraphError
from minitf.core.tensor import Tensor
from minitf.core.tensor_shape import TensorShape

if TYPE_CHECKING:  # the graph module builds these tensors, so it imports this one (not the other way round)
    from minitf.function.tracing.graph import FuncGraph, Operation


def _graph_error(what: str, graph: FuncGraph | None) -> str:
    """TensorFlow 2.21's message for a tensor used as a Python value while tracing (with AutoGraph or without)."""
    hint = ("Hint: inside a tf.function, loop over a tensor with `for x in tensor:` or "
            "`for i in tf.range(n):` (AutoGraph converts those; enumerate() and zip() of tensors are not)"
            if what.startswith("Iterating") else
            "Hint: inside a tf.function, branch on a tensor with a plain `if tensor:` statement (AutoGraph makes it "
            "tf.cond) or call tf.cond yourself; bool(tensor), `and`/`or` chains of tensors and assertions need "
            "a Python value")
    return (f"{what} is not allowed. You can attempt the following resolutions to the problem: If you are "
            "running in Graph mode, use Eager execution mode or decorate this function with @tf.function. If "
            "you are using AutoGraph, you can try decorating this function with @tf.function. If that does not "
            "work, then you may be using an unsupported feature or your source code may not be visible to "
            "AutoGraph. See https://github.com/tensorflow/tensorflow/blob/master/tensorflow/python/autograph/"
            f"g3doc/reference/limitations.md#access-to-source-code for more information.\n{hint}.")


class SymbolicTensor(Tensor):
    """An output of a graph operation: a static shape and dtype, but no value until the graph runs."""

    __slots__ = ("_op", "_index", "_shape", "_dtype", "_variable")

    def __init__(self, op: Operation, index: int, shape: TensorShape, dtype: dtypes.DType) -> None:
        self._op = op
        self._index = index
        self._shape = shape
        self._dtype = dtype
        self._variable: Any = None  # for resource handles: the Variable they stand for

    @property
    def dtype(self) -> dtypes.DType:
        return self._dtype

    @property
    def shape(self) -> TensorShape:
        return self._shape

    @property
    def ndim(self) -> int | None:
        return self._shape.rank

    @property
    def op(self) -> Operation:
        return self._op

    @property
    def graph(self) -> FuncGraph:
        return self._op.graph

    @property
    def value_index(self) -> int:
        return self._index

    @property
    def name(self) -> str:
        return f"{self._op.name}:{self._index}"

    @property
    def device(self) -> str:
        return self._op.device

    def set_shape(self, shape: Any) -> None:
        self._shape = self._shape.merge_with(shape)

    def consumers(self) -> list[Operation]:
        return [op for op in self._op.graph.get_operations() if any(t is self for t in op.inputs)]

    def __str__(self) -> str:
        device = f", device={self._op.device}" if self._op.device else ""
        if self._shape.rank is None:
            return f'Tensor("{self.name}", dtype={self._dtype.name}{device})'
        return f'Tensor("{self.name}", shape={self._shape}, dtype={self._dtype.name}{device})'

    def __repr__(self) -> str:
        return f"<tf.Tensor '{self.name}' shape={self._shape} dtype={self._dtype.name}>"

    def __format__(self, spec: str) -> str:
        if spec:  # a number format needs a value, which a graph tensor does not have yet
            raise TypeError(f"unsupported format string passed to {type(self).__name__}.__format__")
        return str(self)

    # --- what a value-less tensor cannot do, with TensorFlow's errors ---
    def __bool__(self) -> bool:
        raise OperatorNotAllowedInGraphError(_graph_error("Using a symbolic `tf.Tensor` as a Python `bool`",
                                                          self._op.graph))

    def __iter__(self) -> Any:
        raise OperatorNotAllowedInGraphError(_graph_error("Iterating over a symbolic `tf.Tensor`", self._op.graph))

    def __len__(self) -> int:
        raise TypeError(f"len is not well defined for a symbolic Tensor ({self.name}). Please call `x.shape` rather "
                        f"than `len(x)` for shape information.")

    def __array__(self, dtype: Any = None, copy: bool | None = None) -> np.ndarray:
        raise NotImplementedError(f"Cannot convert a symbolic tf.Tensor ({self.name}) to a numpy array. This error "
                                  f"may indicate that you're trying to pass a Tensor to a NumPy call, which is not "
                                  f"supported.")

    def __index__(self) -> int:
        raise TypeError(f"{self!r} cannot be interpreted as an integer: it has no value while the function is "
                        f"traced. Use tf.range instead of range, or pass a Python int.")

    def __int__(self) -> int:
        raise TypeError(f"int() argument must be a string, a bytes-like object or a real number, not "
                        f"'SymbolicTensor' ({self.name} has no value while the function is traced)")

    def __float__(self) -> float:
        raise TypeError(f"float() argument must be a string or a real number, not 'SymbolicTensor' ({self.name} "
                        f"has no value while the function is traced)")

    def __copy__(self) -> SymbolicTensor:
        return self

    def __deepcopy__(self, memo: dict) -> SymbolicTensor:
        return self
