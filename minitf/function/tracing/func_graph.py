"""The graph of one traced function: a `Graph` (graph.py) with the function's inputs, outputs and captured values.

While a function is traced (trace.py makes a graph the current one), `core.bind` calls `FuncGraph.add_op`.
Tensors from outside the graph (eager tensors, variables, or tensors of an enclosing graph when tracing a
`tf.cond` branch) are *captured*: they become `Placeholder` operations whose values are fed in at call
time. Optimisation passes rewrite a copy with `replace_uses`, `remove_ops` and `move_to`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from minitf.core import dtypes
from minitf.core.errors import NotFoundError, missing_kernel_in_graph
from minitf.core.op import Op
from minitf.core.tensor import EagerTensor, Tensor
from minitf.core.tensor_shape import TensorShape
from minitf.function.tracing.graph import Graph, Operation, SymbolicTensor
from minitf.ops import state_ops
from minitf.ops.variables import Variable


class FuncGraph(Graph):
    """The graph of one traced function (or of one branch or loop body inside it).

    `inputs` are the Placeholders of the arguments followed by those of the captures; `outputs` are the
    returned tensors; `captures` pairs each captured outside value (an EagerTensor, a Variable, or a tensor of
    the enclosing graph) with the Placeholder that stands for it inside.
    """

    def __init__(self, name: str, outer: FuncGraph | None = None, autograph: bool = True) -> None:
        super().__init__(name)
        self.outer = outer
        self.enclosing: FuncGraph | None = None  # a function's graph traced inside another trace: that graph
        self.autograph = autograph
        self.inputs: list[SymbolicTensor] = []
        self.outputs: list[SymbolicTensor] = []
        self.structured_outputs: Any = None
        self.structured_input_signature: Any = None
        self.captures: list[tuple[Any, SymbolicTensor]] = []
        self._captured: dict[int, SymbolicTensor] = {}  # id(outside value) -> placeholder
        self.variables: list[Any] = []  # variables created while tracing (first trace only)
        self._plan: list[Operation] | None = None
        self._compiled: Any = None  # the generated code that runs this graph (execute.compiled), made on first use

    def changed(self) -> None:
        """Forget what was worked out from the list of operations (the plan, the compiled code)."""
        self._plan = None
        self._compiled = None

    # --- inputs and captures ---
    def placeholder(self, shape: Any, dtype: dtypes.DType, name: str = "Placeholder") -> SymbolicTensor:
        op = self.create_op(state_ops.Placeholder, [], {"dtype": dtype, "shape": TensorShape(shape)}, name=name)
        return op.outputs[0]

    def capture(self, value: Any) -> SymbolicTensor:
        """The tensor of this graph that stands for `value` (a tensor from outside, or a Variable's handle)."""
        if isinstance(value, SymbolicTensor) and value.graph is self:
            return value
        if isinstance(value, EagerTensor) and value._dtype is dtypes.resource:
            value = value._value  # an eager handle: capture the Variable it stands for
        key = id(value)
        inside = self._captured.get(key)
        if inside is not None:
            return inside
        if isinstance(value, Variable):
            outer_value: Any = self.outer.capture(value) if self.outer is not None else value
            inside = self.placeholder([], dtypes.resource, name="resource")
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

    def _encloses(self, graph: Graph) -> bool:
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
            holder._variable = state_ops.variable_of(value) if holder.dtype is dtypes.resource else None
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
    @property
    def building_function(self) -> bool:
        return True

    def __repr__(self) -> str:
        return f"<FuncGraph '{self.name}' with {len(self._operations)} operations>"

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
