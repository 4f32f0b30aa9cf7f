"""`tf.function(jit_compile=True)`: minitf's small XLA, one module per stage.

    regions.py        clustering: maximal regions of elementwise ops, broadcasts and reductions
    loop_ir.py        the loop IR (loops, loads, scalar ops, stores, accumulators) and its printer
    lowering.py       each op's rule: which scalar operations compute one element of it
    python_source.py  the loop IR as Python: element loops (for Numba) or NumPy calls on blocks
    backend.py        Numba, imported lazily, compiles the loops; the compiled regions, cached
    rewrite.py        the pass that puts one XlaFusion node per region into the graph
    pipeline.py       the passes in order, and TensorFlow's error for what XLA cannot compile
    hlo.py            the graph as HLO-like text and as a Graphviz drawing
    stages.py         `experimental_get_compiler_ir(*args)(stage=...)`: every stage as text

Reading order: pipeline.py, regions.py, loop_ir.py, lowering.py, python_source.py, backend.py.
"""
