"""Tracing: the graph a Python function becomes (graph.py: `Graph`, `Operation`, `SymbolicTensor`;
func_graph.py: `FuncGraph`; shape_inference.py, graph_text.py), the graph being built right now (trace.py), one
call traced (function_trace.py) and errors raised while tracing (user_code.py)."""
