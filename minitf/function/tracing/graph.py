"""The graph IR a `tf.function` traces into: `Graph`, `Operation` and `SymbolicTensor`, three classes that
refer to each other (a graph holds operations, an operation its graph and output tensors, a tensor its operation).

A Graph is a list of operations in the order the Python function created them. Each operation has
TensorFlow's op type (`AddV2`, `MatMul`, `Placeholder`, ...), a unique name (`add`, `add_1`, ...), input
tensors and output tensors. Its tensors are `SymbolicTensor`s: a static shape and dtype, no value, so `print`
shows `Tensor("add:0", shape=(), dtype=int32)` and `.numpy()` does not exist; what needs a value (`bool(t)`,
`for x in t`, `int(t)`, NumPy) raises TensorFlow's error, with a hint at what works in a traced function.
A new operation's output shapes come from its op's shape rule (shape_inference.py).

The graph of a traced function, with its inputs, outputs and captured values, is a `FuncGraph` (func_graph.py),
as in TensorFlow, where `FuncGraph` extends `ops.Graph`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from minitf.core import dtypes
from minitf.core.devices import graph_device
from minitf.core.errors import OperatorNotAllowedInGraphError
from minitf.core.op import Op
from minitf.core.tensor import Tensor
from minitf.core.tensor_shape import TensorShape
from minitf.function.tracing.graph_text import GraphDef, NodeDef, attr_text, format_graph
from minitf.function.tracing.shape_inference import infer_specs
from minitf.ops import state_ops

# The names TensorFlow's Python operators give to the ops they create (`x + y` is named "add", not "AddV2").
DEFAULT_NAMES = {
    "AddV2": "add",
    "Sub": "sub",
    "Mul": "mul",
    "RealDiv": "truediv",
    "FloorDiv": "floordiv",
    "FloorMod": "mod",
    "Pow": "pow",
    "StridedSlice": "strided_slice",
    "StatelessIf": "cond",
    "If": "cond",
    "StatelessWhile": "while",
    "While": "while",
    "Range": "range",
    "Neg": "Neg",
}


def _graph_error(what: str) -> str:
    """TensorFlow 2.21's message for a tensor used as a Python value while tracing (with AutoGraph or without)."""
    hint = (
        "Hint: inside a tf.function, loop over a tensor with `for x in tensor:` or "
        "`for i in tf.range(n):` (AutoGraph converts those; enumerate() and zip() of tensors are not)"
        if what.startswith("Iterating")
        else "Hint: inside a tf.function, branch on a tensor with a plain `if tensor:` statement (AutoGraph makes it "
        "tf.cond) or call tf.cond yourself; bool(tensor), `and`/`or` chains of tensors and assertions need "
        "a Python value"
    )
    return (
        f"{what} is not allowed. You can attempt the following resolutions to the problem: If you are "
        "running in Graph mode, use Eager execution mode or decorate this function with @tf.function. If "
        "you are using AutoGraph, you can try decorating this function with @tf.function. If that does not "
        "work, then you may be using an unsupported feature or your source code may not be visible to "
        "AutoGraph. See https://github.com/tensorflow/tensorflow/blob/master/tensorflow/python/autograph/"
        f"g3doc/reference/limitations.md#access-to-source-code for more information.\n{hint}."
    )


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
    def graph(self) -> Graph:
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
        raise OperatorNotAllowedInGraphError(_graph_error("Using a symbolic `tf.Tensor` as a Python `bool`"))

    def __iter__(self) -> Any:
        raise OperatorNotAllowedInGraphError(_graph_error("Iterating over a symbolic `tf.Tensor`"))

    def __len__(self) -> int:
        raise TypeError(
            f"len is not well defined for a symbolic Tensor ({self.name}). Please call `x.shape` rather "
            f"than `len(x)` for shape information."
        )

    def __array__(self, dtype: Any = None, copy: bool | None = None) -> np.ndarray:
        raise NotImplementedError(
            f"Cannot convert a symbolic tf.Tensor ({self.name}) to a numpy array. This error "
            f"may indicate that you're trying to pass a Tensor to a NumPy call, which is not "
            f"supported."
        )

    def __index__(self) -> int:
        raise TypeError(
            f"{self!r} cannot be interpreted as an integer: it has no value while the function is "
            f"traced. Use tf.range instead of range, or pass a Python int."
        )

    def __int__(self) -> int:
        raise TypeError(
            f"int() argument must be a string, a bytes-like object or a real number, not "
            f"'SymbolicTensor' ({self.name} has no value while the function is traced)"
        )

    def __float__(self) -> float:
        raise TypeError(
            f"float() argument must be a string or a real number, not 'SymbolicTensor' ({self.name} "
            f"has no value while the function is traced)"
        )

    def __copy__(self) -> SymbolicTensor:
        return self

    def __deepcopy__(self, memo: dict) -> SymbolicTensor:
        return self


class Operation:
    """One node of a graph: what to compute (`type`), from which tensors (`inputs`), producing `outputs`."""

    __slots__ = (
        "graph",
        "name",
        "type",
        "op_def",
        "inputs",
        "outputs",
        "attrs",
        "device",
        "_control_inputs",
        "__weakref__",
    )

    @property
    def stateful(self) -> bool:
        return self.op_def.stateful

    def __init__(self, graph: Graph, name: str, op_def: Op, inputs: Sequence[Tensor], attrs: dict[str, Any]) -> None:
        self.graph = graph
        self.name = name
        self.type = op_def.name
        self.op_def = op_def
        self.inputs: tuple[SymbolicTensor, ...] = tuple(inputs)  # type: ignore[arg-type]
        self.outputs: list[SymbolicTensor] = []
        self.attrs = attrs
        self.device = ""  # what the enclosing tf.device blocks asked for (minitf/core/devices.py)
        self._control_inputs: list[Operation] = []  # tf.group's operations (stateful ops keep order anyway)

    def get_attr(self, name: str) -> Any:
        return self.attrs[name]

    def values(self) -> tuple[SymbolicTensor, ...]:
        return tuple(self.outputs)

    @property
    def node_def(self) -> NodeDef:
        inputs = [t._op.name if t._index == 0 else t.name for t in self.inputs]
        inputs += ["^" + op.name for op in self._control_inputs]
        node = NodeDef(
            self.name, self.type, inputs, {k: attr_text(v) for k, v in self.attrs.items() if not k.startswith("_")}
        )
        node.device = self.device
        return node

    @property
    def control_inputs(self) -> list[Operation]:
        return list(self._control_inputs)

    def __repr__(self) -> str:
        return f"<tf.Operation '{self.name}' type={self.type}>"

    def __str__(self) -> str:
        return str(self.node_def)


class Graph:
    """Operations in the order they were made, each with a unique name in TensorFlow's style.

    `name_scopes` are the enclosing `tf.name_scope` blocks (prefixed to new names); `control_dependencies` the
    operations of the enclosing `tf.control_dependencies` blocks; `control_outputs` the stateful operations,
    which run even when no output needs them.
    """

    def __init__(self, name: str) -> None:
        self.name = name
        self._operations: list[Operation] = []
        self._name_counts: dict[str, int] = {}
        self.name_scopes: list[str] = []
        self.control_dependencies: list[Operation] = []
        self.control_outputs: list[Operation] = []
        self._fresh: set[int] = set()  # Const ops not used yet (named after their first consumer)

    # --- naming ---
    def unique_name(self, base: str) -> str:
        if self.name_scopes:
            base = "/".join(self.name_scopes) + "/" + base
        count = self._name_counts.get(base)
        if count is None:
            self._name_counts[base] = 1
            return base
        while f"{base}_{count}" in self._name_counts:
            count += 1
        self._name_counts[base] = count + 1
        name = f"{base}_{count}"
        self._name_counts[name] = 1
        return name

    def peek_name(self, base: str) -> str:
        """The name `unique_name(base)` would give now, without taking it."""
        full = "/".join(self.name_scopes + [base])
        if full not in self._name_counts:
            return full
        count = self._name_counts[full]
        while f"{full}_{count}" in self._name_counts:
            count += 1
        return f"{full}_{count}"

    def name_constant(self, t: SymbolicTensor, name: str) -> None:
        """Give a constant made for one consumer TensorFlow's name for it (`while/loop_counter`), if still free."""
        if name not in self._name_counts:
            self._name_counts[name] = 1
            t.op.name = name

    def _name_operands(self, node: Operation) -> None:
        """TensorFlow names the constant operand of `x * 2` after its consumer: `mul/y` (`mul/x` for `2 * x`)."""
        for index, t in enumerate(node.inputs):
            const = t.op
            if id(const) in self._fresh and const is not node:
                self._fresh.discard(id(const))
                name = f"{node.name}/{'xy'[index]}"
                if name not in self._name_counts:
                    self._name_counts[name] = 1
                    const.name = name

    # --- building ---
    def create_op(
        self, op_def: Op, inputs: Sequence[Tensor], attrs: dict[str, Any] | None = None, name: str | None = None
    ) -> Operation:
        """Add an operation whose inputs already belong to this graph; its outputs' shapes and dtypes come from
        the op's shape rule."""
        attrs = attrs or {}
        specs = infer_specs(op_def, inputs, attrs)
        op = Operation(
            self, self.unique_name(name or DEFAULT_NAMES.get(op_def.name, op_def.name)), op_def, inputs, attrs
        )
        op.outputs = [SymbolicTensor(op, i, shape, dtype) for i, (shape, dtype) in enumerate(specs)]
        op.device = graph_device()
        if self.control_dependencies:  # recorded as TensorFlow records them; program order already holds
            producers = {id(t.op) for t in op.inputs}
            op._control_inputs = [c for c in self.control_dependencies if id(c) not in producers]
        self._operations.append(op)
        self.changed()
        if op_def.stateful:
            self.control_outputs.append(op)
        return op

    def changed(self) -> None:
        """Forget what was worked out from the list of operations (a FuncGraph's plan and compiled code)."""

    def constant(self, array: Any, dtype: dtypes.DType) -> SymbolicTensor:
        value = np.asarray(array, dtype=dtype._np) if dtype is not dtypes.string else np.asarray(array, dtype=object)
        node = self.create_op(state_ops.Const, [], {"value": value[()] if value.ndim == 0 else value, "dtype": dtype})
        self._fresh.add(id(node))  # not used yet: may be renamed after the op that consumes it
        return node.outputs[0]

    # --- looking at it ---
    def get_operations(self) -> list[Operation]:
        return list(self._operations)

    def get_operation_by_name(self, name: str) -> Operation:
        for op in self._operations:
            if op.name == name:
                return op
        raise KeyError(f"The name '{name}' refers to an Operation not in the graph.")

    def get_tensor_by_name(self, name: str) -> SymbolicTensor:
        op_name, _, index = name.partition(":")
        return self.get_operation_by_name(op_name).outputs[int(index or 0)]

    def as_graph_def(self, add_shapes: bool = False) -> GraphDef:
        return GraphDef([op.node_def for op in self._operations])

    def listing(self) -> str:
        """A readable text listing, one operation per line: `name = Type(inputs) -> dtype shape`."""
        return format_graph(self)
