"""`tf.function` and graphs, one idea per file (docs/architecture.md has the table):

* tracing/: the graph IR (graph.py: `Graph`, `Operation`, `SymbolicTensor`; func_graph.py: `FuncGraph`;
  shape_inference.py, graph_text.py), trace.py (the current graph), function_trace.py (one call traced),
  user_code.py (errors);
* `tf.function` itself and its cache, here: function.py, cache_keys.py, retracing.py, input_signature.py,
  concrete_function.py; `tf.Module`: module.py;
* control_flow/: branches.py (`tf.cond`), loops.py (`tf.while_loop`), tensor_array.py, calls.py,
  subgraphs.py, replay_gradient.py (their gradients); its __init__ says where each is;
* autograph/: converter.py, transform.py (the rewrite), operators.py (its runtime), undefined.py;
* compiling/: optimising a graph (passes.py, rewrite_rules.py for simplification, fusion.py, optimizer.py) and
  running it (source.py writes and compiles generated code, codegen.py, specialize.py, buffers.py, execute.py),
  and jit/ (`jit_compile=True`);
* drawing/: svg.py, nodes.py, layout.py.
"""
