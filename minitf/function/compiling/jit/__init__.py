"""`tf.function(jit_compile=True)`: minitf's small XLA, one module per stage.

    expansion.py      softmax and log-softmax into their parts; a gradient's exp reusing the forward's
    duplication.py    a cheap value read by several regions, computed in each
    regions.py        clustering: maximal regions of elementwise ops, broadcasts and reductions; row kernels
    loop_ir.py        the loop IR (loops, loads, scalar ops, stores, accumulators, lanes, streams), one walk, its text
    lowering.py       each op's rule: which scalar operations compute one element of it
    row_kernels.py    a region with row reductions and what reads them: one loop along the row per reduction
    parallel.py       a large region's outer loop in parts, run at once on the intra-op threads
    optional.py       the optional passes (what makes the loops fast), named, with reasons, each switchable
    python_source.py  the loop IR as Python: element loops (for Numba) or NumPy calls on blocks
    backend.py        Numba, imported lazily, compiles the loops; the compiled regions, cached
    rewrite.py        the pass that puts one XlaFusion node per region into the graph
    pipeline.py       the passes in order, and TensorFlow's error for what XLA cannot compile
    hlo.py            the graph as HLO-like text and as a Graphviz drawing
    stages.py         `experimental_get_compiler_ir(*args)(stage=...)`: every stage as text

Reading order: pipeline.py, optional.py, regions.py, loop_ir.py, lowering.py, row_kernels.py, parallel.py,
python_source.py, backend.py.
"""
