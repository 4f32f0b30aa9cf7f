"""`tf.function` and graphs: tracing (trace.py), the graph (graph.py), caching and calling (function.py),
AutoGraph (autograph.py), graph control flow (control_flow.py) and `tf.Module` (module.py); optimising a
traced graph (passes.py, fusion.py, optimizer.py), running it as generated code (codegen.py, execute.py) and
drawing it (drawing.py).
"""

from minitf.function.control_flow import TensorArray, cond, while_loop
from minitf.function.function import (
    ConcreteFunction,
    Function,
    TensorSpec,
    function,
    functions_run_eagerly,
    run_functions_eagerly,
)
from minitf.function.graph import FuncGraph, Operation, SymbolicTensor
from minitf.function.module import Module, init_scope, name_scope

__all__ = [
    "ConcreteFunction", "FuncGraph", "Function", "Module", "Operation", "SymbolicTensor", "TensorArray",
    "TensorSpec", "cond", "function", "functions_run_eagerly", "init_scope", "name_scope", "run_functions_eagerly",
    "while_loop",
]
