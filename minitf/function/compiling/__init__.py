"""From a traced graph to running code: the optimiser and its passes, fusion, code generation, running the
generated code (execute.py), and `jit_compile=True` (jit/)."""
