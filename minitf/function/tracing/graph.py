"""The graph IR a `tf.function` traces into: `FuncGraph`, `Operation` and `SymbolicTensor`, three classes that
refer to each other (a graph holds operations, an operation its graph and output tensors, a tensor its operation).

A FuncGraph is a list of operations in the order the Python function created them. Each operation has
TensorFlow's op type (`AddV2`, `MatMul`, `Placeholder`, ...), a unique name (`add`, `add_1`, ...), input
tensors and output tensors. Its tensors are `SymbolicTensor`s: a static shape and dtype, no value, so `print`
shows `Tensor("add:0", shape=(), dtype=int32)` and `.numpy()` does not exist; what needs a value (`bool(t)`,
`for x in t`, `int(t)`, NumPy) raises TensorFlow's error, with a hint at what works in a traced function.
A new operation's output shapes come from its op's shape rule (shape_inference.py).

While a function is traced (trace.py makes a graph the current one), `core.bind` calls `FuncGraph.add_op`.
Tensors from outside the graph (eager tensors, variables, or tensors of an enclosing graph when tracing a
`tf.cond` branch) are *captured*: they become `Placeholder` operations whose values are fed in at call
time. Optimisation passes rewrite a copy with `replace_uses`, `remove_ops` and `move_to`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from minitf.core import dtypes
from minitf.core.devices import graph_device
from minitf.core.errors import NotFoundError, OperatorNotAllowedInGraphError, missing_kernel_in_graph
from minitf.core.op import Op
from minitf.core.tensor import EagerTensor, Tensor
from minitf.core.tensor_shape import TensorShape
from minitf.function.tracing.graph_text import GraphDef, NodeDef, attr_text, format_graph
from minitf.function.tracing.shape_inference import infer_specs
from minitf.ops import state_ops
from minitf.ops.variables import Variable

resource = dtypes.resource
variant = dtypes.variant

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


def _graph_error(what: str, graph: FuncGraph | None) -> str:
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
        raise OperatorNotAllowedInGraphError(
            _graph_error("Using a symbolic `tf.Tensor` as a Python `bool`", self._op.graph)
        )

    def __iter__(self) -> Any:
        raise OperatorNotAllowedInGraphError(_graph_error("Iterating over a symbolic `tf.Tensor`", self._op.graph))

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

    def __init__(
        self, graph: FuncGraph, name: str, op_def: Op, inputs: Sequence[Tensor], attrs: dict[str, Any]
    ) -> None:
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


class FuncGraph:
    """The graph of one traced function (or of one branch or loop body inside it).

    `inputs` are the Placeholders of the arguments followed by those of the captures; `outputs` are the
    returned tensors; `captures` pairs each captured outside value (an EagerTensor, a Variable, or a tensor of
    the enclosing graph) with the Placeholder that stands for it inside.
    """

    def __init__(self, name: str, outer: FuncGraph | None = None, autograph: bool = True) -> None:
        self.name = name
        self.outer = outer
        self.enclosing: FuncGraph | None = None  # a function's graph traced inside another trace: that graph
        self.autograph = autograph
        self._operations: list[Operation] = []
        self._name_counts: dict[str, int] = {}
        self.inputs: list[SymbolicTensor] = []
        self.outputs: list[SymbolicTensor] = []
        self.structured_outputs: Any = None
        self.structured_input_signature: Any = None
        self.captures: list[tuple[Any, SymbolicTensor]] = []
        self._captured: dict[int, SymbolicTensor] = {}  # id(outside value) -> placeholder
        self.variables: list[Any] = []  # variables created while tracing (first trace only)
        self.name_scopes: list[str] = []
        self.control_dependencies: list[Operation] = []  # of the enclosing tf.control_dependencies blocks
        self.control_outputs: list[Operation] = []
        self._plan: list[Operation] | None = None
        self._compiled: Any = None  # the generated code that runs this graph (execute.compiled), made on first use
        self._fresh: set[int] = set()  # Const ops not used yet (named after their first consumer)

    # --- building ---
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
        """Forget what was worked out from the list of operations (the plan, the compiled code)."""
        self._plan = None
        self._compiled = None

    def placeholder(self, shape: Any, dtype: dtypes.DType, name: str = "Placeholder") -> SymbolicTensor:
        op = self.create_op(state_ops.Placeholder, [], {"dtype": dtype, "shape": TensorShape(shape)}, name=name)
        return op.outputs[0]

    def capture(self, value: Any) -> SymbolicTensor:
        """The tensor of this graph that stands for `value` (a tensor from outside, or a Variable's handle)."""
        if isinstance(value, SymbolicTensor) and value.graph is self:
            return value
        if isinstance(value, EagerTensor) and value._dtype is resource:
            value = value._value  # an eager handle: capture the Variable it stands for
        key = id(value)
        inside = self._captured.get(key)
        if inside is not None:
            return inside
        if isinstance(value, Variable):
            outer_value: Any = self.outer.capture(value) if self.outer is not None else value
            inside = self.placeholder([], resource, name="resource")
            inside._variable = value
        elif isinstance(value, SymbolicTensor):
            if self.outer is not None:
                outer_value = self.outer.capture(value)
            elif self._encloses(value.graph):
                outer_value = value  # a tensor of the trace this function is traced in: the call op feeds it
            else:
                raise _out_of_scope(value)
            inside = self.placeholder(value.shape, value.dtype, name=value.op.name.split("/")[-1])
            inside._variable = value._variable
        elif isinstance(value, EagerTensor):
            outer_value = self.outer.capture(value) if self.outer is not None else value
            inside = self.placeholder(value.shape, value.dtype, name="Placeholder")
        else:
            raise TypeError(f"Cannot capture {value!r} in a graph.")
        known = self._captured.get(id(outer_value))
        if known is not None:  # the same outside tensor, reached through another route
            self._operations.remove(inside.op)
            self._captured[key] = known
            return known
        self._captured[key] = inside
        self._captured[id(outer_value)] = inside
        self.captures.append((outer_value, inside))
        self.inputs.append(inside)
        return inside

    def _encloses(self, graph: FuncGraph) -> bool:
        """Whether `graph` was being traced (or encloses the one that was) when this function's trace began."""
        current = self.enclosing
        while current is not None:
            if current is graph:
                return True
            current = current.outer if current.outer is not None else current.enclosing
        return False

    def external_captures(self) -> list[Any]:
        return [outside for outside, _ in self.captures]

    # --- the protocol `core.bind` calls while tracing ---
    def add_op(self, op: Op, inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Any:
        node = self.add_node(op, inputs, attrs)
        if op.num_outputs == 1:
            return node.outputs[0]
        return tuple(node.outputs)

    def add_node(self, op: Op, inputs: Sequence[Tensor], attrs: dict[str, Any], name: str | None = None) -> Operation:
        """`add_op`, returning the operation itself (named `name` in the current name scope, if given)."""
        inputs = [self.capture(t) if not (isinstance(t, SymbolicTensor) and t._op.graph is self) else t for t in inputs]
        if op.check is not None:
            try:
                op.check(inputs, attrs)
            except NotFoundError as exc:  # no kernel for this dtype: TensorFlow's graph says InvalidArgumentError
                missing = missing_kernel_in_graph(exc, op.name, self.name)  # (when it runs; here, as the node is added)
                if missing is None:
                    raise
                raise missing from None
        node = self.create_op(op, inputs, dict(attrs), name=name)
        if len(inputs) == 2:
            self._name_operands(node)
        for t in inputs:
            self._fresh.discard(id(t.op))
        return node

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

    def constant(self, array: Any, dtype: dtypes.DType) -> SymbolicTensor:
        value = np.asarray(array, dtype=dtype._np) if dtype is not dtypes.string else np.asarray(array, dtype=object)
        node = self.create_op(state_ops.Const, [], {"value": value[()] if value.ndim == 0 else value, "dtype": dtype})
        self._fresh.add(id(node))  # not used yet: may be renamed after the op that consumes it
        return node.outputs[0]

    # --- rewriting (what optimisation passes use) ---
    def replace_uses(self, replacements: dict[int, SymbolicTensor]) -> None:
        """Make every consumer of tensor `t` (and the graph's outputs) use `replacements[id(t)]` instead."""
        if not replacements:
            return

        def new(t: SymbolicTensor) -> SymbolicTensor:
            while id(t) in replacements:
                t = replacements[id(t)]
            return t

        for op in self._operations:
            if any(id(t) in replacements for t in op.inputs):
                op.inputs = tuple(new(t) for t in op.inputs)
        self.outputs = [new(t) for t in self.outputs]
        self.changed()

    def bypass(self, op: Operation, replacement: SymbolicTensor) -> None:
        """Remove `op`, whose one result equals `replacement`: its readers (and the graph's outputs) read
        `replacement` instead. What a pass writes when it finds an op that changes nothing (`x * 1` is `x`)."""
        if len(op.outputs) != 1:
            raise ValueError(f"bypass replaces an op with one result; {op.name} ({op.type}) has {len(op.outputs)}")
        if replacement.op is op:
            raise ValueError(f"{op.name} cannot be replaced by {replacement.name}, which it computes")
        self.replace_uses({id(op.outputs[0]): replacement})
        self.remove_ops([op])

    def remove_ops(self, ops: Sequence[Operation]) -> None:
        gone = {id(op) for op in ops}
        self._operations = [op for op in self._operations if id(op) not in gone]
        self.control_outputs = [op for op in self.control_outputs if id(op) not in gone]
        self.changed()

    def move_to(self, op: Operation, position: Operation) -> None:
        """Place `op` (just created, at the end) right before `position`, where its result is first needed."""
        self._operations.remove(op)
        self._operations.insert(self._operations.index(position), op)
        self.changed()

    def rebuild(self, source: FuncGraph, captured: Sequence[Any]) -> None:
        """Make this graph the graph `source` is, its last inputs standing for the outside values `captured`.

        For a graph rebuilt from data (the grader's channel), whose captured values arrive apart from its
        operations: `source` is this graph itself, or a rewritten copy whose operations move into this graph
        object, which others hold. A resource placeholder stands for the Variable its value is or holds.
        """
        if len(captured) > len(source.inputs):
            raise ValueError(f"{len(captured)} captured values for a graph of {len(source.inputs)} inputs")
        holders = source.inputs[len(source.inputs) - len(captured) :]
        operations = source.get_operations()
        for op in operations:
            op.graph = self
        self._operations, self._name_counts = operations, dict(source._name_counts)
        self.inputs, self.outputs = list(source.inputs), list(source.outputs)
        self.structured_outputs = source.structured_outputs
        self.control_outputs = [op for op in operations if op.stateful]
        for value, holder in zip(captured, holders):
            holder._variable = state_ops.variable_of(value) if holder.dtype is resource else None
        self.captures = list(zip(captured, holders))
        self._captured = {id(value): holder for value, holder in self.captures}
        self.changed()

    def copy(self, outer: FuncGraph | None = None) -> FuncGraph:
        """A copy with new operations and tensors (branch and loop bodies copied too), for passes to rewrite."""
        new = FuncGraph(self.name, outer=outer if outer is not None else self.outer, autograph=self.autograph)
        new.enclosing = self.enclosing
        new._name_counts = dict(self._name_counts)
        tensors: dict[int, SymbolicTensor] = {}
        for op in self._operations:
            attrs = {k: v.copy() if isinstance(v, FuncGraph) else v for k, v in op.attrs.items()}
            twin = Operation(new, op.name, op.op_def, [tensors[id(t)] for t in op.inputs], attrs)
            twin.outputs = [SymbolicTensor(twin, t._index, t._shape, t._dtype) for t in op.outputs]
            for t, u in zip(op.outputs, twin.outputs):
                u._variable = t._variable
                tensors[id(t)] = u
            new._operations.append(twin)
            if op in self.control_outputs:
                new.control_outputs.append(twin)
        new.inputs = [tensors[id(t)] for t in self.inputs]
        new.outputs = [tensors[id(t)] for t in self.outputs]
        new.captures = [(value, tensors[id(t)]) for value, t in self.captures]
        new.structured_outputs = self.structured_outputs
        new.structured_input_signature = self.structured_input_signature
        new.variables = list(self.variables)
        return new

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

    @property
    def building_function(self) -> bool:
        return True

    def __repr__(self) -> str:
        return f"<FuncGraph '{self.name}' with {len(self._operations)} operations>"

    def listing(self) -> str:
        """A readable text listing, one operation per line: `name = Type(inputs) -> dtype shape`."""
        return format_graph(self)

    def execution_plan(self) -> list[Operation]:
        """The operations a call runs, in order: those the outputs need plus every stateful one (and what
        they need). Like TensorFlow, an op nobody needs is never run (so it cannot fail either)."""
        if self._plan is None:
            needed: set[int] = set()
            stack: list[Operation] = [t.op for t in self.outputs] + list(self.control_outputs)
            while stack:
                op = stack.pop()
                if id(op) in needed:
                    continue
                needed.add(id(op))
                stack.extend(t.op for t in op.inputs)
            self._plan = [op for op in self._operations if id(op) in needed]
        return self._plan


def _out_of_scope(value: SymbolicTensor) -> Exception:
    """A tensor leaked out of one traced function (through a global, say) used in another one."""
    error = TypeError(
        f"{value!r} is out of scope and cannot be used here. Use return values, explicit Python "
        f"locals or TensorFlow collections to access it.\nPlease see https://www.tensorflow.org/guide/"
        f"function#all_outputs_of_a_tffunction_must_be_return_values for more information.\n\n"
        f"The tensor {value!r} cannot be accessed from here, because it was defined in "
        f"FuncGraph(name={value.graph.name}, id={id(value.graph)}), which is out of scope."
    )
    # TensorFlow raises this one as it is, without the "in user code:" frames of the function traced.
    error._minitf_not_in_user_code = True  # type: ignore[attr-defined]
    return error
