"""`tf.function` and graphs, one idea per file (docs/architecture.md has the table):

* the graph IR: graph.py (`FuncGraph`, `Operation`), symbolic_tensor.py, shape_inference.py, graph_text.py;
* tracing: trace.py (the current graph), function_trace.py (one call traced), cache_keys.py, retracing.py,
  input_signature.py, concrete_function.py, function.py (`tf.function` itself), user_code.py (errors);
* control flow in graphs: branches.py (`tf.cond`), loops.py (`tf.while_loop`), tensor_array.py, calls.py,
  subgraphs.py, replay_gradient.py (their gradients), undefined.py; control_flow.py lists them;
* AutoGraph: autograph.py, autograph_transform.py (the rewrite), autograph_operators.py (its runtime);
* optimising a graph: passes.py, rewrite_rules.py (simplification), fusion.py, optimizer.py;
* running it: source.py (writing and compiling generated code), codegen.py, specialize.py, buffers.py,
  execute.py;
* drawing a graph: drawing.py, drawing_nodes.py, drawing_layout.py; `tf.Module`: module.py.
"""

from minitf.function.branches import cond
from minitf.function.cache_keys import TensorSpec
from minitf.function.concrete_function import ConcreteFunction
from minitf.function.function import Function, function, functions_run_eagerly, run_functions_eagerly
from minitf.function.graph import FuncGraph, Operation
from minitf.function.loops import while_loop
from minitf.function.module import Module, init_scope, name_scope
from minitf.function.symbolic_tensor import SymbolicTensor
from minitf.function.tensor_array import TensorArray

__all__ = [
    "ConcreteFunction", "FuncGraph", "Function", "Module", "Operation", "SymbolicTensor", "TensorArray",
    "TensorSpec", "cond", "function", "functions_run_eagerly", "init_scope", "name_scope", "run_functions_eagerly",
    "while_loop",
]
