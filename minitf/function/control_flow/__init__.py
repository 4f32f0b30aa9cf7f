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
