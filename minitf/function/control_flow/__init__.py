"""Control flow that lives *inside* a graph: where to find it.

* branches.py: `tf.cond` (`StatelessIf` / `If` ops) and AutoGraph's `if` on tensors (`build_if`);
* loops.py: `tf.while_loop` (`StatelessWhile` / `While` ops) and AutoGraph's loops (`build_while`);
* tensor_array.py: `tf.TensorArray`, what a loop collects its results in;
* calls.py: a traced function called from another one (`PartitionedCall`);
* subgraphs.py: tracing a branch or body into its own graph, captures; replay_gradient.py: their gradients;
* ../autograph/undefined.py: AutoGraph's values for variables that one path leaves unassigned.

Eagerly these are plain Python (`if`, `while`). While tracing, each branch or loop body is traced into its
own FuncGraph and one op runs them.
"""

from minitf.function.autograph.undefined import Undefined, UndefinedReturnValue
from minitf.function.control_flow.branches import If, StatelessIf, build_if, cond
from minitf.function.control_flow.calls import PartitionedCall, StatefulPartitionedCall, call_traced
from minitf.function.control_flow.loops import StatelessWhile, While, build_while, while_loop
from minitf.function.control_flow.tensor_array import TensorArray

__all__ = [
    "If",
    "PartitionedCall",
    "StatefulPartitionedCall",
    "StatelessIf",
    "StatelessWhile",
    "TensorArray",
    "Undefined",
    "UndefinedReturnValue",
    "While",
    "build_if",
    "build_while",
    "call_traced",
    "cond",
    "while_loop",
]
